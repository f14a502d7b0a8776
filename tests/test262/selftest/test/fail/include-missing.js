/*---
description: built to fail, an include that does not exist
includes: [noSuchHelper.js]
---*/
assert.sameValue(1, 1);
