//! error: SANDBOX_EXECUTION_FAILED
//! message: InternalError: too much recursion
function down(n) { return down(n + 1) + 1; }
return down(0);
