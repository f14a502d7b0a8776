// The platform's globals: their types, which ones Object.keys(globalThis) lists (in Node's
// order in Node, of first use in sbx), their property attributes, DOMException, and `global`.
const names = ['global', 'queueMicrotask', 'structuredClone', 'atob', 'btoa', 'setTimeout', 'setInterval',
  'setImmediate', 'clearTimeout', 'clearInterval', 'clearImmediate', 'TextEncoder', 'TextDecoder', 'URL',
  'URLSearchParams', 'DOMException', 'crypto', 'performance', 'console'];
console.log(names.map((n) => n + ':' + typeof globalThis[n]).join(' '));
const wanted = ['global', 'clearImmediate', 'setImmediate', 'clearInterval', 'clearTimeout', 'setInterval',
  'setTimeout', 'queueMicrotask', 'structuredClone', 'atob', 'btoa', 'performance', 'crypto'];
console.log(Object.keys(globalThis).filter((k) => wanted.includes(k)).sort().join()); // order: first use
for (const n of ['global', 'setTimeout', 'queueMicrotask', 'structuredClone', 'URL', 'TextEncoder', 'DOMException']) {
  const d = Object.getOwnPropertyDescriptor(globalThis, n);
  console.log(n, d.writable, d.enumerable, d.configurable);
}
globalThis.URL = 'mine';
delete globalThis.btoa;
console.log(URL, typeof btoa, typeof globalThis.btoa, 'atob' in globalThis);
const d = new DOMException('m', 'DataCloneError');
console.log(d.name, d.message, d.code, d instanceof Error, String(d), Object.prototype.toString.call(d), DOMException.DATA_CLONE_ERR, d.DATA_CLONE_ERR);
console.log(new DOMException().name, JSON.stringify(new DOMException().message), new DOMException('x', { name: 'AbortError' }).code, new DOMException('x', 'Custom').code);
return global.global === global;
