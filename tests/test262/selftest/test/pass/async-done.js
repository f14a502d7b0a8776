/*---
description: an async test that reports completion through print
flags: [async]
---*/
$DONE();
