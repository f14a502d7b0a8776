//! node: skip
//! value: [[1,2,3,4],[3],[1,2],[1,2,4],true,true,false,[5,1],[1,2],["has",1,"has",2],["TypeError","RangeError","TypeError"],[1,"union"]]
// The Set methods of ECMAScript 2025 (not in Node 20): set-like arguments read through size,
// has and keys, results in this set's order, no species.
const out = [];
const a = new Set([1, 2, 3]), b = new Set([3, 4]);
out.push([...a.union(b)], [...a.intersection(b)], [...a.difference(b)], [...a.symmetricDifference(b)]);
out.push(a.isSubsetOf(new Set([1, 2, 3, 4])), a.isSupersetOf(new Set([1])), a.isDisjointFrom(b));
// this is larger than other: other's keys are walked, in their order.
out.push([...new Set([1, 2, 3, 4, 5]).intersection(new Set([5, 1]))]);
// A set-like object, not a Set.
const log = [];
const like = { size: 2, has(v) { log.push('has', v); return v < 3; }, keys() { return [1, 2].values(); } };
out.push([...new Set([1, 2]).intersection(like)], log);
const errors = [];
for (const bad of [{ size: NaN, has() {}, keys() {} }, { size: -1, has() {}, keys() {} },
                   { size: 1, has: 1, keys() {} }]) {
  try { a.union(bad); errors.push('no throw'); } catch (e) { errors.push(e.constructor.name); }
}
out.push(errors, [Set.prototype.union.length, Set.prototype.union.name]);
return out;
