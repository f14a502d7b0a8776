//! node: skip
//! value: [[1,2,3],[2,4],[1,3],["a",[1]],[1,2],true]
// A guest that replaces the engine's own methods and setters changes none of the additions: they
// reach what they need through the engine, never through properties the guest can write.
const s1 = new Set([1]), s2 = new Set([2]); // the Set constructor itself calls add
Array.prototype.sort = function () { throw new Error('user sort'); };
Object.getPrototypeOf(Int8Array.prototype).sort = Array.prototype.sort;
Function.prototype.call = function () { throw new Error('user call'); };
Function.prototype.apply = Function.prototype.call;
Reflect.apply = Function.prototype.call;
Object.defineProperty(Array.prototype, '0', { set() { throw new Error('user setter'); }, configurable: true });
Object.defineProperty(Array.prototype, '1', { set() { throw new Error('user setter'); }, configurable: true });
Object.prototype.next = () => { throw new Error('user next'); };
Set.prototype.add = Set.prototype.has = () => { throw new Error('user set'); };
globalThis.TypeError = function () { throw new Error('user TypeError'); };
function* g() { yield 1; yield 2; }
let out = [];
const put = (v) => { out = out.concat([v]); }; // concat defines, where push would set
put([3, 1, 2].toSorted());
put(g().map((x) => x * 2).toArray());
put(Array.from(new Int8Array([3, 1]).toSorted()));
const grouped = Object.groupBy([1], () => 'a');
put(['a', grouped.a]);
put(Array.from(s1.union(s2)));
let threw = false;
try { g().map(1); } catch (e) { threw = e instanceof Error && e.message !== 'user TypeError'; }
put(threw);
return out;
