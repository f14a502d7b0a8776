/*---
description: built to fail, a negative test that runs to completion
negative:
  phase: parse
  type: SyntaxError
---*/
var ok = 1;
