//! value: null
//! stdout: "Set(3) { 1, 'two', [ 3 ] }\n"
console.log(new Set([1, 'two', [3]]));
return null;
