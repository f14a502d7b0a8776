// atob/btoa: forgiving base64 as Node 20 accepts and rejects it, Latin-1 round trips.
const cases = ['', 'YQ', 'YQ=', 'YQ==', 'YWI', 'YWI=', 'YWJj', ' Y W\tJ\nj\f\r', 'YQ===', 'Y', 'YQ=a',
  'A===', '=', '====', 'ab==c', 'AB=C', 'YWJjZA', '@@', 'YQ\u00e9', '////', '+/+/', 'AAAA====',
  'YW Jj ZA = =', 'ZZ', 'ZZZ'];
for (const c of cases) {
  try {
    const r = atob(c);
    console.log(JSON.stringify(c), 'ok', JSON.stringify(Array.from(r, (ch) => ch.charCodeAt(0))));
  } catch (e) {
    console.log(JSON.stringify(c), e.name, e.message, e.code, e instanceof DOMException);
  }
}
let all = '';
for (let i = 0; i < 256; i++) all += String.fromCharCode(i);
console.log(btoa(all));
console.log(atob(btoa(all)) === all, btoa(''), btoa('a'), btoa('ab'), btoa(null), btoa(undefined), btoa(12), atob(undefined === 1 ? '' : 'dW5kZWZpbmVk'));
for (const f of [() => btoa('\u0100'), () => btoa('😀'), () => atob(), () => btoa()]) {
  try { f(); console.log('no error'); } catch (e) { console.log(e.name, e.message, e.code); }
}
try { atob(Symbol()); } catch (e) { console.log(e.name); } // the engine's own message
return [atob.length, btoa.length, atob.name, btoa.name];
