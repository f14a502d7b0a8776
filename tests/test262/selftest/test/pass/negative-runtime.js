/*---
description: a runtime error the test expects
negative:
  phase: runtime
  type: TypeError
---*/
var o = null;
o.x;
