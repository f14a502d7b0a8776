/*---
description: includes are loaded, inline and as a list
includes: [selftestHelper.js]
features:
  - selftest
---*/
assert.sameValue(selftestHelperLoaded, true);
