//! value: {"keys":["a","b"],"size":2,"has":true,"entries":[["a",1],["b",2]]}
//! stdout: ""
const m = new Map([['a', 1]]);
m.set('b', 2);
const s = new Set([1, 1, 2]);
return {keys: [...m.keys()], size: s.size, has: s.has(2), entries: Array.from(m)};
