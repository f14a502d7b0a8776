// bench/worker/node_jit.js: Node.js as the peer of bench_jit. Each run evaluates the snippet
// (env SBX_BENCH_CODE) as new Function('context', code) in a fresh vm context, like sbx's fresh
// realm per run, so every run compiles (and JIT-compiles) from scratch. Prints
// "node runs=N median_ms=X value=V".
'use strict';
const vm = require('vm');

const runs = Number(process.argv[2] || 15);
const code = process.env.SBX_BENCH_CODE;
const context = JSON.parse(process.env.SBX_BENCH_CONTEXT || 'null');

function once() {
  const t0 = process.hrtime.bigint();
  const fn = vm.runInNewContext(`(function (context) {\n${code}\n})`, {});
  const value = JSON.stringify(fn(JSON.parse(JSON.stringify(context))));
  return [Number(process.hrtime.bigint() - t0) / 1e6, value];
}

once(); // warm-up
const t = [];
let value;
for (let i = 0; i < runs; i++) {
  const [ms, v] = once();
  t.push(ms);
  value = v;
}
t.sort((a, b) => a - b);
console.log(`node runs=${runs} median_ms=${t[Math.floor(t.length / 2)].toFixed(4)} value=${value}`);
