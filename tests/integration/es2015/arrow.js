//! value: [2,4,6]
//! stdout: ""
return [1, 2, 3].map(x => x * 2);
