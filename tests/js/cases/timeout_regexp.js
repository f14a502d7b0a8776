//! args: --timeout-ms 200
//! error: SANDBOX_TIMEOUT
//! max-ms: 1500
return /^(a+)+$/.test('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!');
