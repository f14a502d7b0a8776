//! args: --timeout-ms 200
//! error: SANDBOX_TIMEOUT
//! max-ms: 1500
for (;;) {
    try { while (true) {} } catch (e) { /* swallowing the stop must not work */ }
}
