//! args: --timeout-ms 500
//! error: SANDBOX_TIMEOUT
//! max-ms: 2500
// One default sort (strings, in native code) that no host finishes before the deadline: 20,000
// substrings of one 4 MB string share its characters and differ near their ends, so each
// comparison scans megabytes (about 1 ms) and the sort needs minutes; building takes
// milliseconds, so the deadline falls inside the sort.
var L = 4e6, N = 20000, big = 'a'.repeat(L) + 'b'.repeat(N);
big.indexOf('c');
var a = [];
for (var i = N - 1; i >= 0; i--) a.push(big.substring(i, i + L));
a.sort();
return a.length;
