// tests/platform/wpt_url.js: the Web Platform Tests' URL data (url-constructor, url-origin and
// url-setters, as upstream's harness checks them) as the body of a run: context is
// {urltestdata, setters}. Run unchanged by sbx (both tiers) and by Node (node_run.js), so both
// are measured by the same code. Returns the ids of the cases that pass, and why the others fail.
const fields = ['href', 'protocol', 'username', 'password', 'host', 'hostname', 'port',
  'pathname', 'search', 'hash'];
const passed = [], failures = [];
let urlTotal = 0, setterTotal = 0;
context.urltestdata.forEach((t, i) => {
  if (typeof t === 'string') return;
  urlTotal++;
  const id = 'url:' + i;
  const why = [];
  try {
    const url = t.base === null ? new URL(t.input) : new URL(t.input, t.base);
    if (t.failure) {
      why.push('parsed, want failure: ' + url.href);
    } else {
      for (const f of fields) if (url[f] !== t[f]) why.push(f + ' ' + JSON.stringify(url[f]));
      if ('origin' in t && url.origin !== t.origin) why.push('origin ' + url.origin);
      if ('searchParams' in t && url.searchParams.toString() !== t.searchParams)
        why.push('searchParams ' + url.searchParams);
    }
  } catch (e) {
    if (!t.failure || !(e instanceof TypeError)) why.push('threw ' + e);
  }
  if (why.length) failures.push(id + ' ' + JSON.stringify(t.input) + ': ' + why.join(', '));
  else passed.push(id);
});
for (const attr of Object.keys(context.setters)) {
  if (attr === 'comment') continue;
  context.setters[attr].forEach((t, i) => {
    setterTotal++;
    const id = attr + ':' + i;
    const why = [];
    try {
      const url = new URL(t.href);
      url[attr] = t.new_value;
      for (const f of Object.keys(t.expected))
        if (url[f] !== t.expected[f]) why.push(f + ' ' + JSON.stringify(url[f]));
    } catch (e) {
      why.push('threw ' + e);
    }
    if (why.length) failures.push(id + ' ' + JSON.stringify(t.href) + ' = ' +
      JSON.stringify(t.new_value) + ': ' + why.join(', '));
    else passed.push(id);
  });
}
return { urlTotal, setterTotal, passed, failures };
