// TextEncoder/TextDecoder: UTF-8 and UTF-16LE/BE under their labels, replacement and fatal
// errors, BOM handling, streaming split at every byte, encodeInto, Node's errors.
const hex = (u8) => Array.from(u8, (b) => b.toString(16).padStart(2, '0')).join(' ');
const codes = (s) => Array.from(s, (c) => c.codePointAt(0).toString(16)).join(' ');
const enc = new TextEncoder();
console.log(enc.encoding, hex(enc.encode('aé€😀')), hex(enc.encode('\ud800x\udc00')), enc.encode().length);
for (const [src, n] of [['abc', 2], ['aé€😀', 4], ['😀😀', 5], ['\ud800', 3], ['', 1]]) {
  const dst = new Uint8Array(n);
  const r = enc.encodeInto(src, dst);
  console.log(JSON.stringify(src), n, r.read, r.written, hex(dst));
}
const bad = [[0xff], [0xc0, 0x80], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xf0, 0x90, 0x80],
  [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0x61, 0xf0, 0x9f, 0x98], [0xc2, 0x41], [0xfe, 0xff]];
for (const b of bad) console.log(hex(b), '->', codes(new TextDecoder().decode(new Uint8Array(b))));
for (const b of bad) {
  try { new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(b)); console.log('no error'); }
  catch (e) { console.log(e.name, e.code, e.message); }
}
const bom8 = new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69]);
console.log(codes(new TextDecoder().decode(bom8)), codes(new TextDecoder('utf-8', { ignoreBOM: true }).decode(bom8)));
const le = new Uint8Array([0xff, 0xfe, 0x3d, 0xd8, 0x00, 0xde, 0x41, 0x00]);
const be = new Uint8Array([0xfe, 0xff, 0xd8, 0x3d, 0xde, 0x00, 0x00, 0x41]);
console.log(codes(new TextDecoder('utf-16le').decode(le)), codes(new TextDecoder('utf-16be').decode(be)));
console.log(codes(new TextDecoder('utf-16le', { ignoreBOM: true }).decode(le)));
console.log(codes(new TextDecoder('utf-16le').decode(new Uint8Array([0x00, 0xd8, 0x41]))));
console.log(codes(new TextDecoder('utf-16be').decode(new Uint8Array([0xdc, 0x00, 0xd8, 0x00, 0x00, 0x41]))));
for (const label of ['utf8', ' UTF-8\n', 'unicode-1-1-utf-8', 'x-unicode20utf8', 'utf-16', 'UCS-2',
  'unicode', 'csunicode', 'unicodefeff', 'iso-10646-ucs-2', 'utf-16BE', 'unicodefffe', 'unicode11utf8'])
  console.log(JSON.stringify(label), new TextDecoder(label).encoding);
// Streaming: every split point of a mixed string gives the whole string back.
const text = 'a€😀é\u0000z', bytes = enc.encode(text);
let same = 0;
for (let i = 0; i <= bytes.length; i++) {
  for (let j = i; j <= bytes.length; j++) {
    const d = new TextDecoder();
    const s = d.decode(bytes.subarray(0, i), { stream: true }) + d.decode(bytes.subarray(i, j), { stream: true }) + d.decode(bytes.subarray(j));
    if (s === text) same++;
  }
}
console.log('stream splits', same, (bytes.length + 1) * (bytes.length + 2) / 2);
const d16 = new TextDecoder('utf-16le');
console.log(codes(d16.decode(new Uint8Array([0x3d]), { stream: true }) + d16.decode(new Uint8Array([0xd8, 0x00]), { stream: true }) + d16.decode(new Uint8Array([0xde]))));
const dtrunc = new TextDecoder();
console.log(codes(dtrunc.decode(new Uint8Array([0xf0, 0x9f]), { stream: true }) + '|' + dtrunc.decode()));
console.log(new TextDecoder().decode(new Uint8Array([0x68, 0x69]).buffer), new TextDecoder().decode(new DataView(enc.encode('dv').buffer)), new TextDecoder().decode(new Uint16Array([0x6968])));
const dec = new TextDecoder('utf-16be', { fatal: true, ignoreBOM: true });
console.log(dec.encoding, dec.fatal, dec.ignoreBOM, String(dec), String(enc));
for (const f of [() => new TextDecoder('utf-32'), () => new TextDecoder('utf-8', 5), () => new TextDecoder().decode('str'),
  () => new TextDecoder().decode(5), () => enc.encodeInto('x', []), () => enc.encodeInto('x', new Uint16Array(1)),
  () => new TextDecoder('utf-16le', { fatal: true }).decode(new Uint8Array([0x41]))]) {
  try { f(); console.log('no error'); } catch (e) { console.log(e.name, e.code, e.message); }
}
return Object.getOwnPropertyNames(TextDecoder.prototype).concat(Object.getOwnPropertyNames(TextEncoder.prototype));
