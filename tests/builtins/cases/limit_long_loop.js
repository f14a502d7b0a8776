//! node: skip
//! args: --timeout-ms 300
//! error: "run exceeded its time limit"
// A native loop over 2^31 - 1 indices (findLast over a huge array-like whose predicate is a
// native, so no guest code runs to be interrupted) still ends at the run's deadline. Below 2^31
// every index is an integer key, so the loop allocates nothing and only the deadline can end it:
// over 2^53 - 1 each index was a new string key, and under ASan the process tier reached its
// 64 MiB cap first in 1 run of 3.
return Array.prototype.findLastIndex.call({ length: 2 ** 31 - 1 }, Number.isNaN);
