//! error: SANDBOX_EXECUTION_FAILED
//! message: RangeError
function down(n) { return down(n + 1) + 1; }
return down(0);
