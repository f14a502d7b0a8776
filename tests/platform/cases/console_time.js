//! node: skip
//! stdout-match: t: \d+(\.\d)?ms extra \{ k: 1 \}\nt: \d+(\.\d)?ms\nlong: \d\d+(\.\d)?ms\n
//! stderr-match: Warning: No such label 't' for console\.timeEnd\(\)\nTrace: here 1\n    at f \(code:\d+:\d+\)\n    at .*\n
// console.time's text (Node's format; times on performance.now()'s 100 us clock) and
// console.trace's first lines (the guest's frames, as "at name (file:line:col)").
console.time('t');
console.timeLog('t', 'extra', { k: 1 });
console.timeEnd('t');
console.timeEnd('t');
console.time('long');
const until = performance.now() + 20;
while (performance.now() < until);
console.timeEnd('long');
function f() { console.trace('here', 1); }
f();
