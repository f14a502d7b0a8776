//! value: ["18446744073709551616","bigint",true,"ff"]
//! stdout: ""
const b = 2n ** 64n;
return [String(b), typeof b, b > 1n, (255n).toString(16)];
