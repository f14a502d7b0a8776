/*---
description: a var at top level is a property of the global object (global script)
---*/
var selftestGlobal = 1;
assert.sameValue(this.selftestGlobal, 1);
