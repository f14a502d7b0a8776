//! error: SANDBOX_EXECUTION_FAILED
//! message: JSON
return function () {};
