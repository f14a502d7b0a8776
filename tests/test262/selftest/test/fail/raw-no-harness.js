/*---
description: built to fail, a raw test has no assert
flags: [raw]
---*/
assert.sameValue(1, 1);
