//! error: SANDBOX_EXECUTION_FAILED
//! message: (line 5)
var a = 1;
var b = 2;
return missing(a, b);
