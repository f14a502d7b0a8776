/*---
description: built to fail, an assertion
---*/
assert.sameValue(1, 2, "built to fail");
