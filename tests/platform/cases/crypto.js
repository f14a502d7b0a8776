// crypto.getRandomValues and randomUUID: types, limits and errors as Node's; values vary.
const kinds = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, BigInt64Array, BigUint64Array];
for (const K of kinds) {
  const a = new K(8);
  const r = crypto.getRandomValues(a);
  console.log(K.name, r === a, a.length);
}
const big = crypto.getRandomValues(new Uint8Array(65536));
let nonzero = 0;
for (const b of big) nonzero += b !== 0;
console.log('65536 bytes, mostly nonzero:', nonzero > 65000);
const sub = new Uint8Array(16);
crypto.getRandomValues(sub.subarray(4, 8));
console.log('only the view:', sub.slice(0, 4).every((b) => b === 0) && sub.slice(8).every((b) => b === 0));
const fails = [() => crypto.getRandomValues(new Uint8Array(65537)), () => crypto.getRandomValues(new Uint32Array(16385)),
  () => crypto.getRandomValues(new Float32Array(2)), () => crypto.getRandomValues(new Float64Array(2)),
  () => crypto.getRandomValues(new DataView(new ArrayBuffer(2))), () => crypto.getRandomValues([1]),
  () => crypto.getRandomValues(new ArrayBuffer(2)), () => crypto.getRandomValues(),
  () => { const g = crypto.getRandomValues; g(new Uint8Array(1)); }, () => { const u = crypto.randomUUID; u(); }];
for (const f of fails) {
  try { f(); console.log('no error'); } catch (e) { console.log(e.name, e.code, e.constructor.name, e.message); }
}
const re = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const seen = new Set();
let wellFormed = 0;
for (let i = 0; i < 1000; i++) { const u = crypto.randomUUID(); wellFormed += re.test(u); seen.add(u); }
console.log('uuids', wellFormed, seen.size);
console.log(String(crypto), typeof crypto.getRandomValues, typeof crypto.randomUUID);
return Object.getOwnPropertyNames(Object.getPrototypeOf(crypto)).filter((k) => k !== 'subtle');
