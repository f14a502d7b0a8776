// tests/test262/node_peer.js: the test262 sample under Node, as a peer for the runner's pass rate:
// the same composition (test262.h), the same guest body as runner.c, each test in a fresh vm
// context. Usage: node tests/test262/node_peer.js [ROOT] [--results FILE]. Not a suite.
'use strict';
const fs = require('fs');
const path = require('path');
const util = require('util');
const vm = require('vm');

const args = process.argv.slice(2);
const resultsAt = args.indexOf('--results');
const resultsFile = resultsAt >= 0 ? args.splice(resultsAt, 2)[1] : null;
const root = args[0] || '../shared/test262';
const TIMEOUT_MS = 10000;

// runner.c's guest_body, verbatim.
const guestBody = `var g = (0, eval)('this'), S = String, c = console, done = null, printed = false;
var P = typeof Promise === 'function' ? Promise : null;
g.print = function (s) { c.log(S(s)); printed = true; if (done) done('async'); };
function describe(e) {
  var n = '?', m = '?';
  try { n = S(e !== null && e !== undefined && e.constructor ? e.constructor.name
                                                             : typeof e); } catch (x) {}
  try { m = S(e !== null && typeof e === 'object' && 'message' in e ? e.message : e); }
  catch (x) {}
  return 'throw ' + n + ': ' + m;
}
try { (0, eval)(context.src); } catch (e) { return describe(e); }
if (!context.async) return 'ok';
if (printed || !P) return 'async';
return new P(function (resolve) { done = resolve; });
`;

function listTests(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...listTests(p));
    else if (e.name.endsWith('.js') && !e.name.includes('_FIXTURE')) out.push(p);
  }
  return out;
}

function meta(src) {
  const m = /\/\*---([\s\S]*?)---\*\//.exec(src);
  const yaml = m ? m[1] : '';
  const list = (key) => {
    const inline = new RegExp(`^${key}:\\s*\\[([^\\]]*)\\]`, 'm').exec(yaml);
    if (inline) return inline[1].split(',').map((s) => s.trim()).filter(Boolean);
    const block = new RegExp(`^${key}:\\s*\\n((?:\\s+-.*\\n?)*)`, 'm').exec(yaml);
    return block ? block[1].split('\n').map((s) => s.replace(/^\s*-\s*/, '').trim()).filter(Boolean) : [];
  };
  const flags = list('flags');
  const neg = /^negative:\s*\n\s+phase:\s*(\S+)\s*\n\s+type:\s*(\S+)/m.exec(yaml);
  return { flags, includes: list('includes'), negativeType: neg ? neg[2] : '' };
}

function compose(m, src) {
  if (m.flags.includes('raw')) return src;
  const harness = (f) => fs.readFileSync(path.join(root, 'harness', f), 'utf8') + '\n';
  let s = m.flags.includes('onlyStrict') ? '"use strict";\n' : '';
  s += harness('assert.js') + harness('sta.js');
  if (m.flags.includes('async')) s += harness('doneprintHandle.js');
  for (const inc of m.includes) s += harness(inc);
  return s + src;
}

async function runOne(file) {
  const src = fs.readFileSync(file, 'utf8');
  const m = meta(src);
  const isAsync = m.flags.includes('async');
  let stdout = '';
  const sandbox = vm.createContext({ console: { log: (...a) => { stdout += util.format(...a) + '\n'; } } });
  let verdict;
  try {
    sandbox.__context = { src: compose(m, src), async: isAsync };
    const value = vm.runInContext(`(function (context) {${guestBody}\n})(__context)`, sandbox,
                                  { timeout: TIMEOUT_MS });
    let timer;
    verdict = await Promise.race([
      Promise.resolve(value),
      new Promise((resolve) => { timer = setTimeout(() => resolve('timeout'), TIMEOUT_MS); }),
    ]);
    clearTimeout(timer);
  } catch (e) {
    return `host: ${e && e.message}`;
  }
  if (verdict === 'timeout') return 'timeout';
  const neg = m.negativeType;
  if (verdict.startsWith('throw ')) {
    const what = verdict.slice(6);
    return neg && what.startsWith(neg + ':') ? null : what;
  }
  if (neg) return `expected ${neg}, ran to completion`;
  if (verdict === 'async') {
    if (stdout.includes('Test262:AsyncTestFailure')) return 'async failure';
    return stdout.includes('Test262:AsyncTestComplete') ? null : 'async test did not complete';
  }
  return verdict === 'ok' ? null : `unexpected verdict ${verdict}`;
}

// A test's own promise rejected without a handler is not the runner's failure.
process.on('unhandledRejection', () => {});

(async () => {
  const files = listTests(path.join(root, 'test')).sort();
  const t0 = Date.now();
  let passed = 0;
  const lines = [];
  for (const f of files) {
    const why = await runOne(f);
    const rel = path.relative(root, f);
    if (why === null) passed++;
    lines.push(why === null ? `PASS ${rel}` : `FAIL ${rel}  # ${String(why).split('\n')[0]}`);
  }
  if (resultsFile) fs.writeFileSync(resultsFile, lines.join('\n') + '\n');
  const n = files.length;
  console.log(`test262 on node ${process.version}: ${passed} passed, ${n - passed} failed of ${n} ` +
              `(${(100 * passed / n).toFixed(1)}%) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
})();
