//! node: skip
//! args: --memory-bytes 16777216 --timeout-ms 20000
//! error: "guest exceeded its memory limit"
// toReversed of an array-like of 2^32 - 1 elements: the copy grows until the memory cap ends the
// run (never the host's memory, never a crash).
return Array.prototype.toReversed.call({ length: 2 ** 32 - 1 }).length;
