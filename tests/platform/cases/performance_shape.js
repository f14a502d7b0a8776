// performance as Node has it (values vary: their types and ranges are printed; the 100 us grid
// is sbx's own, performance.js).
const t0 = performance.now();
await new Promise((r) => setTimeout(r, 30));
const waited = performance.now() - t0;
console.log(typeof performance.now, typeof t0, typeof performance.timeOrigin, String(performance),
  Object.prototype.toString.call(performance), performance.constructor.name);
console.log(waited >= 29, waited < 5000, Math.abs(performance.timeOrigin + performance.now() - Date.now()) < 1000);
console.log(typeof performance.toJSON().timeOrigin, 'now' in performance, 'timeOrigin' in Object.getPrototypeOf(performance));
return Object.getOwnPropertyNames(Object.getPrototypeOf(performance)).filter((k) => ['now', 'timeOrigin', 'toJSON', 'constructor'].includes(k)).sort();
