//! value: "a[1]b[2]c"
//! stdout: ""
const tag = (strings, ...values) => strings.reduce((acc, s, i) => acc + `[${values[i - 1]}]` + s);
return tag`a${1}b${2}c`;
