// URL and URLSearchParams beyond the WPT data: searchParams kept in step with the URL, live
// iterators, sort, size, the statics, Node's errors and the API's shape.
const u = new URL('https://user:pw@example.com:8080/p/a/t/h?query=string&a=1#hash');
console.log(u.href, u.origin, u.protocol, u.username, u.password, u.host, u.hostname, u.port, u.pathname, u.search, u.hash);
const sp = u.searchParams;
sp.append('b', 'two words');
sp.set('a', 'ä&=');
console.log(u.search, sp.get('a'), sp.getAll('b'), sp.has('query'), sp.has('query', 'nope'), sp.size);
sp.delete('query');
sp.sort();
console.log(u.href, [...sp.keys()].join(), [...sp.values()].join(), JSON.stringify([...sp]));
u.search = '?x=1&x=2';
console.log(sp.getAll('x'), sp.size, u.searchParams === sp);
u.href = 'http://other.test/?y=3';
console.log(sp.get('y'), sp.size, u.origin);
sp.delete('y');
console.log(u.href);
const it = new URLSearchParams('a=1&b=2&c=3');
const seen = [];
for (const [k] of it) { seen.push(k); if (k === 'a') it.delete('b'); }
console.log(seen.join(), Object.prototype.toString.call(it.entries()), String(it));
const fromPairs = new URLSearchParams([['a', '1'], ['a', '2'], ['b', '']]);
const fromRecord = new URLSearchParams({ k: 'v', n: 5 });
const fromParams = new URLSearchParams(fromPairs);
console.log(String(fromPairs), String(fromRecord), String(fromParams), String(new URLSearchParams('?q=%zz+%41&=&&x')));
const order = new URLSearchParams('z=1&a=2&z=0&é=3&a=1');
order.sort();
console.log(String(order));
let calls = '';
order.forEach(function (v, k, obj) { calls += k + '=' + v + (obj === order) + ';'; });
console.log(calls);
console.log(URL.canParse('https://a'), URL.canParse('/rel'), URL.canParse('/rel', 'https://a'), URL.parse('nope'), URL.parse('b', 'https://a/x/').href);
console.log(JSON.stringify({ u: new URL('https://a/b c') }), String(new URL('HTTP://A/')), new URL('blob:https://a.com/uuid').origin);
for (const f of [() => new URL('nope'), () => new URL('x', 'also nope'), () => new URL(), () => { u.href = '::'; },
  () => new URLSearchParams([['a']]), () => new URLSearchParams([1]), () => sp.append('only'), () => sp.get(),
  () => URL.canParse(), () => sp.forEach(), () => URL.prototype.href]) {
  try { f(); console.log('no error'); } catch (e) { console.log(e.name, e.code, e.message, e.input, e.base); }
}
console.log(Object.getOwnPropertyNames(URL.prototype).join(), Object.getOwnPropertyNames(URLSearchParams.prototype).join());
console.log(Object.prototype.toString.call(u), Object.prototype.toString.call(sp), typeof URL.canParse, typeof URL.parse);
const idn = new URL('https://BÜCHER.example/straße?ü=ß#ñ');
console.log(idn.host, idn.pathname, idn.search, idn.hash, new URL('http://[::ffff:192.168.0.1]:80/').host, new URL('http://0x7f.0.0.1/').host, new URL('http://4294967295/').host);
return [new URL('file:///C:/x/../y').href, new URL('../../z', 'http://h/a/b/c').href, new URL('mailto:x@y').pathname];
