/*---
description: slower than the first timeout (500 ms in the self-test), so it passes on the retry
---*/
var end = Date.now() + 800;
while (Date.now() < end) {}
