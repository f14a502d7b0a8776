//! error: SANDBOX_EXECUTION_FAILED
//! tiers: worker process
//! message: missing is not defined (line 7, column 1)
//! stack: "ReferenceError: missing is not defined\n    at code:7:1"
var a = 1;
var b = 2;
return missing(a, b);
