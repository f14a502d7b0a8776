'use strict';
// bench/node/bench.js: one small JavaScript run (`return context.a + 1`), three ways, measured
// in the same process and run: WorkerSandbox.run (libsbx's worker tier through the addon), the
// specified design (a new worker_threads Worker per run, terminated after), and spawning
// `sbx eval` per run (what a Node service had to do before the binding). Prints medians and
// ratios. Usage: node bench/node/bench.js [runs]   (SBX_NODE_ADDON, SBX pick the builds)
const path = require('node:path');
const { Worker } = require('node:worker_threads');
const { execFile } = require('node:child_process');
const { WorkerSandbox } = require(path.join(__dirname, '..', '..', 'bindings', 'node'));

const RUNS = Number(process.argv[2] || 200);
const SBX = process.env.SBX || path.join(__dirname, '..', '..', 'build', 'sbx');
const CODE = 'return context.a + 1;';
const CONTEXT = { a: 41 };

const WORKER_SRC = `
const { parentPort } = require('node:worker_threads');
parentPort.once('message', ({ code, context }) => {
  const out = [];
  const console = { log: (...a) => out.push(a.join(' ')) };
  let msg;
  try {
    msg = { ok: true, value: Function('context', 'console', code)(context, console), stdout: out.join('\\n') };
  } catch (e) {
    msg = { ok: false, error: String(e) };
  }
  parentPort.postMessage(msg);
});`;

function workerPerRun() {
  return new Promise((resolve, reject) => {
    const w = new Worker(WORKER_SRC, { eval: true });
    w.once('message', (m) => { w.terminate().then(() => resolve(m)); });
    w.once('error', reject);
    w.postMessage({ code: CODE, context: CONTEXT });
  });
}

function spawnSbx() {
  return new Promise((resolve, reject) => {
    execFile(SBX, ['eval', '--context', JSON.stringify(CONTEXT), CODE], (err, stdout) => {
      if (err) reject(err);
      else resolve(JSON.parse(stdout));
    });
  });
}

async function measure(name, runs, fn, check) {
  await fn(); // warm-up
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    const r = await fn();
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (!check(r)) throw new Error(`${name}: wrong result ${JSON.stringify(r)}`);
  }
  ms.sort((a, b) => a - b);
  return { name, median: ms[ms.length >> 1], p90: ms[Math.floor(ms.length * 0.9)] };
}

async function main() {
  const sb = new WorkerSandbox();
  const ok42 = (r) => r.ok && r.value === 42;
  const rows = [
    await measure('WorkerSandbox.run (addon)', RUNS, () => sb.run(CODE, CONTEXT), ok42),
    await measure('new worker_threads Worker per run', Math.min(RUNS, 100), workerPerRun, ok42),
    await measure('spawn `sbx eval` per run', Math.min(RUNS, 100), spawnSbx, ok42),
  ];
  sb.dispose();
  const base = rows[0].median;
  console.log(`node ${process.version}, ${RUNS} runs of ${JSON.stringify(CODE)}`);
  for (const r of rows) {
    console.log(`${r.name.padEnd(36)} median ${r.median.toFixed(3).padStart(8)} ms  p90 ${r.p90.toFixed(3).padStart(8)} ms  ${(r.median / base).toFixed(1).padStart(7)}x`);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
