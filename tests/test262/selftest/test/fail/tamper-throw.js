/*---
description: built to fail, a throw after replacing String
---*/
String = null;
throw new TypeError("built to fail");
