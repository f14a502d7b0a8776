//! value: 7
//! stdout: ""
return { then(resolve) { resolve(7); } };
