//! error: SANDBOX_MEMORY_LIMIT
throw 'x'.repeat(100 * 1024 * 1024);
