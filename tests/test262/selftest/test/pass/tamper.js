/*---
description: replacing built-ins the runner relies on does not change the verdict
---*/
String = function () { return "tampered"; };
Object.prototype.toJSON = function () { return "tampered"; };
