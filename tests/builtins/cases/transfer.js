//! node: skip
//! value: [[false,true,4,7,0],[8,0],["TypeError","TypeError","RangeError"],[true,0,"TypeError"]]
// ArrayBuffer.prototype.transfer, transferToFixedLength, detached (ECMAScript 2024; Node 20 has
// none of them): the contents move, the source is detached.
const out = [];
const b = new ArrayBuffer(8);
new Uint8Array(b)[1] = 7;
const before = b.detached;
const c = b.transfer(4);
out.push([before, b.detached, c.byteLength, new Uint8Array(c)[1], b.byteLength]);
const e = c.transferToFixedLength(8);
out.push([e.byteLength, new Uint8Array(e)[7]]);
const errors = [];
for (const f of [() => b.transfer(), () => ArrayBuffer.prototype.transfer.call({}),
                 () => new ArrayBuffer(1).transfer(-1)]) {
  try { f(); errors.push('no throw'); } catch (e2) { errors.push(e2.constructor.name); }
}
out.push(errors);
const view = new Uint8Array(e);
e.transfer();
let threw = 'no throw';
try { view.toSorted(); } catch (e3) { threw = e3.constructor.name; }
out.push([e.detached, view.length, threw]);
return out;
