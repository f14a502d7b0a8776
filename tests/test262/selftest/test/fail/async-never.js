/*---
description: built to fail, an async test that never reports
flags: [async]
---*/
var pending = 1;
