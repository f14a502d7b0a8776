//! value: [["a1","b2"],{"x":1},[1,2],{"a":1,"b":2}]
//! stdout: ""
const o = {a: 1, b: 2};
return [Object.entries(o).map(([k, v]) => k + v), Object.fromEntries([['x', 1]]), Object.values(o), Object.assign({}, o)];
