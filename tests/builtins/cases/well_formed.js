// String.prototype.isWellFormed / toWellFormed (ECMAScript 2024): lone surrogates.
const out = [];
for (const s of ['', 'abc', 'é', '\ud83d\ude00', '\ud83d', '\ude00', 'a\ud800b', '\udc00\ud800',
                 'x\ud83d\ude00\ud83d']) {
  const w = s.toWellFormed();
  out.push([s.isWellFormed(), w.length, Array.from(w, (c) => c.codePointAt(0))]);
}
out.push(String.prototype.isWellFormed.call(12), String.prototype.toWellFormed.call(true));
for (const v of [null, undefined]) {
  try { String.prototype.toWellFormed.call(v); } catch (e) { out.push(e.constructor.name); }
}
out.push(String.prototype.isWellFormed.length, String.prototype.toWellFormed.name);
return out;
