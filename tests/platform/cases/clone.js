// structuredClone: what HTML's algorithm clones (with identity and cycles), errors, and
// DataCloneError for what it does not, with Node's messages.
const show = (v) => Object.prototype.toString.call(v);
const src = { n: 1, s: 'x', b: true, u: undefined, nil: null, big: 10n, neg: -0, nan: NaN,
  arr: [1, , 3], date: new Date(0), re: /a+b/gi, map: new Map([[1, { k: 1 }]]), set: new Set(['a']),
  ab: new ArrayBuffer(4), wrapped: [Object(1), Object('s'), Object(false), Object(2n)],
  nested: { deep: { deeper: [{}] } } };
src.arr.extra = 'p';
src.self = src;
const u8 = new Uint8Array([1, 2, 3, 4]);
src.views = [u8, new Int16Array(u8.buffer, 2, 1), new DataView(u8.buffer, 1, 2), new Float64Array([1.5])];
const c = structuredClone(src);
console.log(c !== src, c.self === c, Object.is(c.neg, -0), Number.isNaN(c.nan), 'u' in c, c.big, c.nil);
console.log(c.arr.length, 1 in c.arr, c.arr.extra, show(c.date), c.date.getTime(), c.re.source, c.re.flags, c.re.lastIndex);
console.log(show(c.map), c.map.get(1).k, c.map.get(1) !== src.map.get(1), show(c.set), c.set.has('a'));
console.log(show(c.ab), c.ab.byteLength, c.wrapped.map(show).join(), c.wrapped.map((w) => String(w.valueOf())).join());
console.log(c.views.map(show).join(), c.views[0].buffer === c.views[1].buffer, c.views[0].buffer === c.views[2].buffer, c.views[1][0], c.views[2].byteOffset, c.views[2].byteLength, c.views[3][0]);
console.log(c.views[0].buffer !== u8.buffer, JSON.stringify(c.nested));
class Point { constructor() { this.x = 1; } get y() { return 2; } }
const p = structuredClone(new Point());
console.log(show(p), Object.getPrototypeOf(p) === Object.prototype, JSON.stringify(p));
console.log(JSON.stringify(structuredClone({ get g() { return 'got'; }, [Symbol('s')]: 1 })));
const e = structuredClone(Object.assign(new RangeError('bad', { cause: { why: 1 } }), { extra: 1 }));
console.log(show(e), e instanceof RangeError, e.name, e.message, e.extra, JSON.stringify(e.cause), typeof e.stack);
const named = new Error('m');
named.name = 'TypeError';
console.log(structuredClone(named) instanceof TypeError, structuredClone(new (class MyError extends Error {})('x')).constructor.name);
const plain = structuredClone(new TypeError());
console.log(JSON.stringify(plain.message), Object.prototype.hasOwnProperty.call(plain, 'message'));
const failing = [() => {}, function named() { return 1; }, Symbol('q'), { a: 1, b: Symbol('two') },
  [1, Symbol('arr')], new Map([[1, Symbol('m')]]), new WeakMap(), new WeakSet(), Promise.resolve(),
  new Proxy({}, {}), { f() {} }, class A {}];
for (const v of failing) {
  try { structuredClone(v); console.log('cloned'); } catch (err) { console.log(err.name, err.code, err.constructor.name, err.message); }
}
try { structuredClone({ get g() { throw new URIError('from getter'); } }); } catch (err) { console.log(err.name, err.message); }
try { structuredClone(); } catch (err) { console.log(err.name, err.code, err.message); }
try { structuredClone(1, 5); } catch (err) { console.log(err.name, err.code, err.message); }
try { structuredClone(1, { transfer: 5 }); } catch (err) { console.log(err.name, err.code, err.message); }
try { structuredClone(1, { transfer: [{}] }); } catch (err) { console.log(err.name, err.message); }
const buf = new ArrayBuffer(8);
const moved = structuredClone({ buf }, { transfer: [buf] });
console.log(buf.byteLength, moved.buf.byteLength, structuredClone(1, null), structuredClone('s', {}));
return structuredClone({ ok: [1, 'two', { three: 3 }] });
