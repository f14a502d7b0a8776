// Array.prototype.findLast / findLastIndex and the typed array twins (ECMAScript 2023): order of
// visits from the end, holes read as undefined, thisArg, the arguments passed, errors.
const out = [];
const arr = [1, , 3, 4];
out.push(arr.findLast((v) => v === undefined), arr.findLastIndex((v) => v === undefined));
out.push(arr.findLast((v) => v > 10), arr.findLastIndex((v) => v > 10));
const seen = [];
[5, 6, 7].findLast(function (v, i, a) { seen.push([v, i, a.length, this.tag]); return false; }, { tag: 't' });
out.push(seen);
// An array-like with getters: each index read once, from the last.
const reads = [];
const like = { length: 3, get 0() { reads.push(0); return 'a'; }, get 1() { reads.push(1); return 'b'; },
               get 2() { reads.push(2); return 'c'; } };
out.push(Array.prototype.findLast.call(like, (v) => v === 'b'), reads);
for (const bad of [undefined, null, 1, 'x', {}]) {
  try { [1].findLast(bad); out.push('no throw'); } catch (e) { out.push(e.constructor.name); }
}
try { Array.prototype.findLast.call(null, () => true); } catch (e) { out.push(e.constructor.name); }
const ta = new Int16Array([1, -2, 3, -4]);
out.push(ta.findLast((v) => v > 0), ta.findLastIndex((v) => v < 0), ta.findLastIndex((v) => v > 9));
const big = new BigInt64Array([1n, 2n]);
out.push(String(big.findLast((v) => v < 2n)));
try { Int8Array.prototype.findLast.call([1], () => true); } catch (e) { out.push(e.constructor.name); }
for (const [o, k] of [[Array.prototype, 'findLast'], [Array.prototype, 'findLastIndex'],
                      [Object.getPrototypeOf(Int8Array.prototype), 'findLast']]) {
  const d = Object.getOwnPropertyDescriptor(o, k);
  out.push([d.value.name, d.value.length, d.writable, d.enumerable, d.configurable]);
}
const u = Array.prototype[Symbol.unscopables];
out.push(u.findLast, u.findLastIndex);
return out;
