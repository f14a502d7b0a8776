// toSorted, toReversed, toSpliced, with (ECMAScript 2023): copies, the original untouched, holes
// read as undefined, array-likes, no species, RangeErrors, and the typed array twins.
const out = [];
const a = [3, 1, , 2];
out.push(a.toSorted(), a.toReversed(), a.toSpliced(1, 1, 'x', 'y'), a.with(-1, 9), a.length, 1 in a);
out.push([10, 9, 1].toSorted(), [10, 9, 1].toSorted((x, y) => x - y), [].toSorted());
out.push([1, 2, 3].toSpliced(), [1, 2, 3].toSpliced(1), [1, 2, 3].toSpliced(-1, 5, 'z'));
class MyArray extends Array {}
const m = MyArray.from([2, 1]);
out.push([m.toSorted(), m.toReversed(), m.with(0, 0), m.toSpliced(0, 1)]
  .map((r) => r.constructor === Array));
const like = { length: 3, 0: 'c', 1: 'a', 2: 'b' };
out.push(Array.prototype.toSorted.call(like), Array.prototype.with.call(like, 1, 'z'));
for (const f of [() => [1].with(1, 0), () => [1].with(-2, 0), () => [1].toSorted(1),
                 () => Array.prototype.toReversed.call({ length: 2 ** 32 }),
                 () => Array.prototype.toSpliced.call({ length: 2 ** 53 - 1 }, 0, 0, 1)]) {
  try { f(); out.push('no throw'); } catch (e) { out.push(e.constructor.name); }
}
// The comparator sees values, never holes; undefined goes last without a call.
const calls = [];
[undefined, 2, , 1].toSorted((x, y) => { calls.push([x, y]); return x - y; });
out.push(calls.every(([x, y]) => x !== undefined && y !== undefined));
const ta = new Uint8Array([3, 1, 2]);
const sorted = ta.toSorted();
out.push(Array.from(sorted), Array.from(ta), sorted.constructor.name, Array.from(ta.toReversed()),
         Array.from(ta.with(0, 300)), Array.from(new Float64Array([NaN, -0, 0, -1]).toSorted()));
out.push(Object.is(new Float64Array([0, -0]).toSorted()[0], -0));
out.push(String(Array.from(new BigUint64Array([2n, 1n]).toSorted())));
for (const f of [() => ta.with(3, 1), () => new BigInt64Array(1).with(0, 1), () => ta.toSorted('no')]) {
  try { f(); out.push('no throw'); } catch (e) { out.push(e.constructor.name); }
}
out.push(typeof Uint8Array.prototype.toSpliced);
for (const k of ['toSorted', 'toReversed', 'toSpliced', 'with']) {
  const d = Object.getOwnPropertyDescriptor(Array.prototype, k);
  out.push([k, d.value.length, d.enumerable, k in Array.prototype[Symbol.unscopables]]);
}
return out;
