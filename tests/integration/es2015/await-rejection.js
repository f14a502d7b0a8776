//! stdout: ""
//! error: SANDBOX_EXECUTION_FAILED
//! message: Error: nope
await Promise.resolve();
await Promise.reject(new Error('nope'));
return 'not reached';
