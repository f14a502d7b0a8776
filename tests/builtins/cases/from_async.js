//! node: skip
//! value: [[1,2,3],[10,20],["a","b"],[0,1],"TypeError",["closed",1],[1,"fromAsync"]]
// Array.fromAsync (ECMAScript 2026 draft; Node 22, not 20): async and sync iterables, array-likes,
// awaited values and mapper results, rejections; a throwing mapper closes the iterator.
async function* ag() { yield 1; yield 2; yield 3; }
const out = [];
out.push(await Array.fromAsync(ag()));
out.push(await Array.fromAsync([Promise.resolve(1), 2], async (x) => x * 10));
out.push(await Array.fromAsync({ length: 2, 0: 'a', 1: Promise.resolve('b') }));
out.push(await Array.fromAsync(new Set(['x', 'y']), (v, i) => i));
out.push(await Array.fromAsync([1], 'not callable').then(() => 'no throw', (e) => e.constructor.name));
let state = 'open';
const it = { [Symbol.iterator]() { return { next: () => ({ value: 1, done: false }),
                                            return() { state = 'closed'; return {}; } }; } };
const n = await Array.fromAsync(it, () => { throw new Error('stop'); }).then(() => 0, () => 1);
out.push([state, n]);
out.push([Array.fromAsync.length, Array.fromAsync.name]);
return out;
