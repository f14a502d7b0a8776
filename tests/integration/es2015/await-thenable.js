//! value: "thenable"
//! stdout: ""
return await { then(resolve) { resolve('thenable'); } };
