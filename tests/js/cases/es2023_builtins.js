//! value: {"array": [4, 3, -1, [3, 2, 1], [1, 2, 3], [1, 9, 3], [1, "a", "b", 3], true, [1, 2, 3]], "props": [true, false, true, 2, "findLast", true], "string": [false, "a\ufffdb", true, "ok"], "group": [["even", "odd"], [2, 4], [[1, 3]], [[false, [1, 3]], [true, [2]]]], "typed": [3, 1, [3, 2, 1], [1, 2, 3], [1, 7, 3], "Uint8Array", "RangeError"], "promise": [1, "function"], "fromAsync": [2, 4, 6]}
//! tiers: worker process
// Issue 26, item 2: the ES2023+ built-ins SpiderMonkey 102 lacks, as the specification (and
// Node 22, where it has them) gives them; the rest of their semantics run in test262.
const a = [1, 2, 3];
const out = {};
out.array = [
  a.findLast((x) => x > 3) ?? 4, a.findLastIndex((x) => x === 3) + 1, a.findLastIndex(() => false),
  a.toReversed(), [3, 1, 2].toSorted(), a.with(1, 9), a.toSpliced(1, 1, 'a', 'b'),
  Array.prototype[Symbol.unscopables].toSorted, a,
];
const d = Object.getOwnPropertyDescriptor(Array.prototype, 'findLast');
out.props = [d.writable, d.enumerable, d.configurable, Array.prototype.toSpliced.length,
  Array.prototype.findLast.name, (() => { try { new a.findLast(); } catch (e) { return e instanceof TypeError; } })()];
out.string = ['a\ud800b'.isWellFormed(), 'a\ud800b'.toWellFormed(), 'a\ud83d\ude00'.isWellFormed(), 'ok'.toWellFormed()];
const g = Object.groupBy([1, 2, 3, 4], (x) => (x % 2 ? 'odd' : 'even'));
const m = Map.groupBy([1, 2, 3], (x) => x % 2 === 0);
out.group = [Object.keys(g).sort(), g.even, [Object.groupBy([1, 3], () => 'k').k], [...m]];
const t = new Uint8Array([1, 2, 3]);
out.typed = [t.findLast((x) => x > 2), t.findLastIndex((x) => x === 2), [...t.toReversed()],
  [...new Uint8Array([3, 1, 2]).toSorted()], [...t.with(1, 7)], t.toSorted().constructor.name,
  (() => { try { t.with(5, 1); } catch (e) { return e.constructor.name; } })()];
const { promise, resolve } = Promise.withResolvers();
resolve(1);
out.promise = [await promise, typeof resolve];
out.fromAsync = await Array.fromAsync((async function* () { yield 1; yield 2; yield 3; })(), (x) => x * 2);
return out;
