//! node: skip
//! value: [{"odd":[1,3,5],"even":[2,4]},null,["1","a"],[[1,[1,3,5]],[0,[2,4]]],[[0,["z","-z"]]],true,["TypeError","TypeError","TypeError"],["Test262Error-like","returned"],[2,"groupBy",2,"groupBy"]]
// Object.groupBy and Map.groupBy (ECMAScript 2024; Node 22, not 20): keys coerced to property
// keys (Object) or -0 made +0 (Map); a null-prototype result; a throwing callback closes the
// iterator.
const out = [];
const o = Object.groupBy([1, 2, 3, 4, 5], (v) => (v % 2 ? 'odd' : 'even'));
out.push(o, Object.getPrototypeOf(o));
out.push(Object.keys(Object.groupBy(['x', 'y'], (v, i) => (i ? 'a' : 1))));
out.push([...Map.groupBy([1, 2, 3, 4, 5], (v) => v % 2)]);
out.push([...Map.groupBy(['z', '-z'], (v) => (v[0] === '-' ? -0 : 0))]);
const m = Map.groupBy([NaN, NaN], () => NaN);
out.push(m.size === 1 && m.get(NaN).length === 2);
const errors = [];
for (const f of [() => Object.groupBy(null, () => 1), () => Object.groupBy([1], 5),
                 () => Map.groupBy(1, () => 1)]) {
  try { f(); errors.push('no throw'); } catch (e) { errors.push(e.constructor.name); }
}
out.push(errors);
let closed = 'not closed';
const iterable = { [Symbol.iterator]() {
  return { next() { return { value: 1, done: false }; }, return() { closed = 'returned'; return {}; } };
} };
try { Object.groupBy(iterable, () => { throw new RangeError('x'); }); } catch (e) {
  out.push([e instanceof RangeError ? 'Test262Error-like' : 'other', closed]);
}
out.push([Object.groupBy.length, Object.groupBy.name, Map.groupBy.length, Map.groupBy.name]);
return out;
