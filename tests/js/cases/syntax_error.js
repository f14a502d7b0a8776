//! error: SANDBOX_EXECUTION_FAILED
//! message: SyntaxError: expected expression, got ';' (line 4, column 12)
var ok = 1;
return ok +;
