//! args: --timeout-ms 200
//! error: SANDBOX_TIMEOUT
//! max-ms: 1500
while (true) {}
