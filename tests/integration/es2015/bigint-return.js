//! stdout: ""
//! error: SANDBOX_EXECUTION_FAILED
//! message: cannot be encoded as JSON
// JSON.stringify throws on a BigInt, so a returned BigInt fails the run as a function or a
// symbol does (with the engine's reason); return String(n) or n.toString() for its digits.
return 10n;
