//! node: skip
//! value: ["InternalError", "InternalError", "InternalError"]
// The global's addProperty hook (the built-ins' installer) must not lose the engine's report of
// a stack overflow: the error classes that report needs are made past the stack limit, where the
// engine refuses to call the hook. Node names it RangeError; SpiderMonkey InternalError.
const names = [];
for (const src of ['['.repeat(100000), '('.repeat(100000) + '1' + ')'.repeat(100000)]) {
  try { eval(src); names.push('none'); } catch (e) { names.push(e.name); }
}
function f() { return f() + 1; }
try { f(); } catch (e) { names.push(e.name); }
return names;
