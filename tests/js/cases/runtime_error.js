//! error: SANDBOX_EXECUTION_FAILED
//! message: missing is not defined (line 6, column 1)
//! stack: "ReferenceError: missing is not defined\n    at code:6:1"
var a = 1;
var b = 2;
return missing(a, b);
