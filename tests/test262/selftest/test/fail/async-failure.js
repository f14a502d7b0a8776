/*---
description: built to fail, an async test that reports a failure
flags: [async]
---*/
$DONE(new Test262Error("built to fail"));
