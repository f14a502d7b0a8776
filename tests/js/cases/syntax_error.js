//! error: SANDBOX_EXECUTION_FAILED
//! tiers: worker process
//! message: SyntaxError: expected expression, got ';' (line 5, column 12)
var ok = 1;
return ok +;
