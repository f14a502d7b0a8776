/*---
description: includes as a YAML list
includes:
  - selftestHelper.js
---*/
assert.sameValue(selftestHelperLoaded, true);
