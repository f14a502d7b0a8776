/*---
description: built to fail, a ReferenceError on a missing built-in
---*/
NoSuchBuiltin.x;
