//! value: "later"
//! stdout: ""
return new Promise(resolve => Promise.resolve().then(() => resolve('later')));
