/*---
description: built to fail, a strict-only expectation run as sloppy code
flags: [noStrict]
---*/
assert.sameValue((function () { return this; })(), undefined);
