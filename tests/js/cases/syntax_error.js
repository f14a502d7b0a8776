//! error: SANDBOX_EXECUTION_FAILED
//! message: SyntaxError
var ok = 1;
return ok +;
