//! value: 42
//! stdout: ""
return await Promise.resolve(41).then(x => x + 1);
