/*---
description: onlyStrict runs the test as strict code
flags: [onlyStrict]
---*/
assert.sameValue((function () { return this; })(), undefined);
