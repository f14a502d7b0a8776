/*---
description: built to fail, a negative test that throws another type
negative:
  phase: runtime
  type: SyntaxError
---*/
throw new TypeError("built to fail");
