/*---
description: built to fail, a test that never ends
---*/
while (true) {}
