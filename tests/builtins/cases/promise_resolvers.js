//! node: skip
//! value: [["promise","resolve","reject"],true,"done",["caught","no"],[true,"try"],["TypeError","TypeError"],[0,1]]
// Promise.withResolvers (ECMAScript 2024) and Promise.try (2025); neither is in Node 20.
const out = [];
const r = Promise.withResolvers();
out.push(Object.keys(r), r.promise instanceof Promise);
r.resolve('done');
out.push(await r.promise);
const rejected = Promise.try(() => { throw new Error('no'); });
out.push(await rejected.then(() => ['not caught'], (e) => ['caught', e.message]));
const args = await Promise.try((a, b) => a + b, 1, 2);
out.push([args === 3, Promise.try.name]);
const errors = [];
for (const f of [() => Promise.withResolvers.call(5), () => Promise.try.call(undefined, () => 1)]) {
  try { f(); errors.push('no throw'); } catch (e) { errors.push(e.constructor.name); }
}
out.push(errors, [Promise.withResolvers.length, Promise.try.length]);
return out;
