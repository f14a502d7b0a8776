//! value: [2,[1,2,3],{"a":1,"b":2}]
//! stdout: ""
const xs = [1, 2];
return [Math.max(...xs, 0), [...xs, 3], {...{a: 1}, b: 2}];
