//! node: skip
//! value: [[2,4,6],[1,3],[1,2],[3],[1,10,2,20],15,["a","b"],[true,false,2],"function",true,"[object Iterator Helper]",[true,true],["TypeError","RangeError","TypeError"],["returned-on-bad-arg",1],[{"value":1,"done":false},{"done":true},["return called"]],[1,2,3],"Iterator",["TypeError","TypeError"]]
// The iterator helpers of ECMAScript 2025 (none are in Node 20): lazy, closing the underlying
// iterator on early exits and on bad arguments, Iterator.from wrapping non-Iterator iterators.
function* g(n) { for (let i = 1; i <= n; i++) yield i; }
const out = [];
out.push(g(3).map((x) => x * 2).toArray(), g(4).filter((x) => x % 2).toArray());
out.push(g(5).take(2).toArray(), g(3).drop(2).toArray());
out.push(g(2).flatMap((x) => [x, x * 10]).toArray(), g(5).reduce((a, b) => a + b));
const log = [];
g(3).forEach((x) => { if (x < 3) log.push(x === 1 ? 'a' : 'b'); });
out.push(log);
out.push([g(3).some((x) => x === 2), g(3).every((x) => x < 3), g(3).find((x) => x > 1)]);
out.push(typeof Iterator.prototype.map, Object.getPrototypeOf(g(1).map((x) => x)) !==
         Object.getPrototypeOf(g(1)));
out.push(Object.prototype.toString.call([].values().map((x) => x)));
out.push([Iterator.prototype.constructor === Iterator,
          Iterator.prototype[Symbol.toStringTag] === 'Iterator']);
const errors = [];
for (const f of [() => g(1).map(1), () => g(1).take(-1), () => new Iterator()]) {
  try { f(); errors.push('no throw'); } catch (e) { errors.push(e.constructor.name); }
}
out.push(errors);
let state = 'open';
const it = { next() { return { value: 1, done: false }; }, return() { state = 'returned-on-bad-arg'; return {}; },
             __proto__: Iterator.prototype };
try { it.filter('not callable'); } catch (e) { /* closed it */ }
out.push([state, it.take(1).toArray().length]);
const calls = [];
const plain = { i: 0, next() { return this.i++ < 5 ? { value: this.i, done: false } : { done: true }; },
                return() { calls.push('return called'); return {}; } };
const wrapped = Iterator.from(plain);
const first = wrapped.next();
out.push([first, (wrapped.return(), { done: true }), calls]);
out.push(Iterator.from({ [Symbol.iterator]() { return g(3); } }).toArray());
out.push(Iterator.name);
const errs = [];
for (const f of [() => Iterator(), () => Iterator.prototype.map.call(1, (x) => x)]) {
  try { f(); errs.push('no throw'); } catch (e) { errs.push(e.constructor.name); }
}
out.push(errs);
return out;
