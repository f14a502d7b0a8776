//! value: ["ab",["x",1]]
//! stdout: ""
const it = { *[Symbol.iterator]() { yield 'a'; yield 'b'; } };
const [entry] = new Map([['x', 1]]);
return [[...it].join(''), entry];
