//! node: skip
//! args: --timeout-ms 300
//! error: "run exceeded its time limit"
// A native loop over 2^53 - 1 indices (findLast over a huge array-like whose predicate is a
// native, so no guest code runs to be interrupted) still ends at the run's deadline.
return Array.prototype.findLastIndex.call({ length: 2 ** 53 - 1 }, Number.isNaN);
