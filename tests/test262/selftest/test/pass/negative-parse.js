/*---
description: a parse error the test expects
negative:
  phase: parse
  type: SyntaxError
---*/
$DONOTEVALUATE();
var = ;
