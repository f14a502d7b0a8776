/*---
description: a raw test runs without the harness
flags: [raw]
---*/
if (typeof assert !== "undefined") throw new Error("harness was loaded");
