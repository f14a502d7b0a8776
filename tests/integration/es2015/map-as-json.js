//! value: [{},{}]
//! stdout: ""
return [new Map([['a', 1]]), new Set([1])];
