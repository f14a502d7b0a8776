//! policy: {"timeoutMs": 300}
//! stdout: ""
//! error: SANDBOX_TIMEOUT
await new Promise(() => {});
return 'not reached';
