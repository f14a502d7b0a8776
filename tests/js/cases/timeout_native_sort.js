//! args: --timeout-ms 1300
//! error: SANDBOX_TIMEOUT
//! max-ms: 2500
// Building takes about 1 s and the default sort (strings, in native code) 1.5 s: the deadline
// falls inside the sort. (300k numbers sort in under 200 ms on SpiderMonkey.)
var a = [];
for (var i = 0; i < 2e6; i++) a.push('s' + (i * 7919) % 2e6);
a.sort();
return a.length;
