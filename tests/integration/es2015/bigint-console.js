//! value: null
//! stdout: "10n bigint [ 1n ]\n"
console.log(10n, typeof 10n, [1n]);
return null;
