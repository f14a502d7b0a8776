//! node: skip
//! value: ["\\x66oo\\.bar","\\x31a\\x20b\\n\\/\\x2c\\x2d\\u2028\\ud800x😀","TypeError",[5.5,65504,"Infinity",1.3369140625,5.960464477539063e-8,"0","-0",0.0999755859375],[1.5,-2,"62,0,0,192"],["RangeError","TypeError"]]
// RegExp.escape and float16 (ECMAScript 2025; not in Node 20): Math.f16round rounds to binary16
// ties-to-even, DataView get/setFloat16 in both byte orders.
const out = [];
out.push(RegExp.escape('foo.bar'), RegExp.escape('1a b\n/,-\u2028\ud800x\u{1f600}'));
try { RegExp.escape(1); } catch (e) { out.push(e.constructor.name); }
out.push([Math.f16round(5.5), Math.f16round(65504), String(Math.f16round(65520)),
          Math.f16round(1.337), Math.f16round(5.960464477539063e-8), String(Math.f16round(2.9e-8)),
          Object.is(Math.f16round(-2.9e-8), -0) ? '-0' : '+0', Math.f16round(0.1)]);
const d = new DataView(new ArrayBuffer(4));
d.setFloat16(0, 1.5);
d.setFloat16(2, -2, true);
out.push([d.getFloat16(0), d.getFloat16(2, true), new Uint8Array(d.buffer).join()]);
const errors = [];
for (const f of [() => d.getFloat16(3), () => DataView.prototype.getFloat16.call({}, 0)]) {
  try { f(); errors.push('no throw'); } catch (e) { errors.push(e.constructor.name); }
}
out.push(errors);
return out;
