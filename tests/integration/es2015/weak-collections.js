//! value: [true,false,true]
//! stdout: ""
const k = {};
const wm = new WeakMap([[k, 1]]);
const ws = new WeakSet();
ws.add(k);
return [wm.has(k), wm.has({}), ws.has(k)];
