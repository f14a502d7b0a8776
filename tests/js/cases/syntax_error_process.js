//! error: SANDBOX_EXECUTION_FAILED
//! args: --backend process
//! message: SyntaxError: expected expression, got ';' (line 5, column 12)
var ok = 1;
return ok +;
