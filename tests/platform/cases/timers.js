// Timers in the run's event loop: due order, equal delays in call order, intervals and their
// clearing, immediates, microtasks between callbacks, arguments, refresh, ids, Node's errors.
// Timers are 15 ms apart or more, so a loaded host does not change their order; the interval
// runs on its own afterwards (its drift under load would).
const log = [];
const t0 = performance.now();
setTimeout(() => log.push('t170'), 170);
setTimeout(() => log.push('t20'), 20);
setTimeout((a, b) => log.push('args ' + a + b), 20, 'x', 'y');
const cleared = setTimeout(() => log.push('cleared!'), 5);
clearTimeout(cleared);
const byNumber = setTimeout(() => log.push('by number!'), 5);
clearTimeout(+byNumber);
setTimeout(() => {
  log.push('t60');
  setImmediate(() => log.push('immediate from t60'));
  setTimeout(() => log.push('t0 from t60'), 0);
  queueMicrotask(() => log.push('microtask from t60'));
}, 60);
const im = setImmediate(() => log.push('cleared immediate!'));
clearImmediate(im);
setTimeout(() => log.push('string delay 140'), '140');
const r = setTimeout(() => log.push('refreshed'), 55);
setTimeout(() => r.refresh(), 45);
await new Promise((resolve) => setTimeout(resolve, 200));
const elapsed = performance.now() - t0;
let n = 0, done;
const ended = new Promise((r) => { done = r; });
const iv = setInterval(() => {
  log.push('iv' + ++n);
  Promise.resolve().then(() => log.push('micro after iv' + n));
  if (n === 3) { clearInterval(iv); setTimeout(done, 30); }
}, 10);
await ended;
console.log(log.join('\n'));
console.log('waited', elapsed >= 199);
const t = setTimeout(() => {}, 1000);
console.log(typeof t, t.constructor.name, typeof +t, t.hasRef(), t.unref() === t, t.hasRef(), t.ref().hasRef());
clearTimeout(t);
const i2 = setImmediate(() => {});
console.log(i2.constructor.name, i2.hasRef());
clearImmediate(i2);
for (const f of [() => setTimeout(), () => setTimeout('code'), () => setInterval({}), () => setImmediate(5), () => queueMicrotask(null), () => setTimeout([1])]) {
  try { f(); console.log('no error'); } catch (e) { console.log(e.name, e.code, e.message); }
}
console.log(clearTimeout(), clearTimeout('nope'), clearInterval(null), clearImmediate({}));
return [setTimeout.length, setInterval.length, setImmediate.length, clearTimeout.length, queueMicrotask.length, setTimeout.name];
