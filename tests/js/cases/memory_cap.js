//! args: --memory-bytes 4194304
//! error: SANDBOX_MEMORY_LIMIT
var keep = [];
while (true) keep.push({n: keep.length, s: 'item ' + keep.length});
