//! node: skip
//! value: ["undefined","undefined","undefined","undefined","undefined","undefined","undefined","undefined","undefined",true,"ReferenceError","ReferenceError","undefined","undefined",false]
// The platform gives no host access: no process, require, module, window, Buffer, fetch or
// Deno, not even through a constructor's constructor, and `global` is only globalThis.
const names = ['process', 'require', 'module', 'exports', 'window', 'Buffer', 'fetch', '__dirname', 'importScripts'];
const types = names.map((n) => typeof globalThis[n]);
const viaFunction = Function('return typeof process')();
const nameOf = (f) => { try { f(); return 'none'; } catch (e) { return e.name; } };
return types.concat([global === globalThis && viaFunction === 'undefined',
  nameOf(() => process.exit(1)), nameOf(() => require('fs')),
  typeof setTimeout.constructor('return this.process')(), (0, eval)('typeof require'),
  Object.getOwnPropertyNames(globalThis).some((k) => /^(process|require|Buffer|window)$/.test(k))]);
