/*---
description: a passing assertion
---*/
assert.sameValue(1, 1);
