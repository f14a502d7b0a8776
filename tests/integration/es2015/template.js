//! context: {"name": "sbx"}
//! value: "hello sbx, 2\nline two"
//! stdout: ""
return `hello ${context.name}, ${1 + 1}\nline two`;
