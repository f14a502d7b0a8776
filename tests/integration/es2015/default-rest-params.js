//! value: [[1,2,0],[1,5,2]]
//! stdout: ""
function f(a, b = a + 1, ...more) { return [a, b, more.length]; }
return [f(1), f(1, 5, 'x', 'y')];
