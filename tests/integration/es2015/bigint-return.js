//! stdout: ""
//! error: SANDBOX_EXECUTION_FAILED
//! message: cannot be encoded as JSON
return 10n;
