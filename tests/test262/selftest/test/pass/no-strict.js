/*---
description: noStrict runs it as sloppy code (with is a SyntaxError in strict code)
flags: [noStrict]
---*/
with ({}) {}
assert.sameValue((function () { return this; })(), this);
