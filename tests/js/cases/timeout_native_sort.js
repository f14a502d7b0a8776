//! args: --timeout-ms 200
//! error: SANDBOX_TIMEOUT
//! max-ms: 1500
var a = [];
for (var i = 0; i < 300000; i++) a.push((i * 7919) % 300000);
a.sort();  // default sort compares numbers as strings, in native code
return a.length;
