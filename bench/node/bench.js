'use strict';
// bench/node/bench.js: what one small JavaScript run (`return context.a + 1`, the context given
// as JSON, the value returned as JSON) costs a Node program, through WorkerSandbox.run (libsbx's
// worker tier behind the addon) and through Node's own ways to run code apart, all measured in
// this one process, in interleaved rounds (each round runs every method, in a rotated order, so
// load changes hit all of them alike). Per method: median and p90 of the wall time per run, and
// the process's CPU time (user + system, all threads: the sbx pool thread, Node's workers) per run,
// the median over rounds. Prints the load average before and after.
// Usage: node bench/node/bench.js [runs] [rounds]   (SBX_NODE_ADDON, SBX pick the builds;
// SBX_BENCH_IVM=DIR: an isolated-vm install to load, when one builds here)
const os = require('node:os');
const path = require('node:path');
const vm = require('node:vm');
const { Worker } = require('node:worker_threads');
const { execFile } = require('node:child_process');
const { WorkerSandbox } = require(path.join(__dirname, '..', '..', 'bindings', 'node'));

const RUNS = Number(process.argv[2] || 2000);
const ROUNDS = Number(process.argv[3] || 8);
const SBX = process.env.SBX || path.join(__dirname, '..', '..', 'build', 'sbx');
const CODE = 'return context.a + 1;';
const CONTEXT = { a: 41 };
const TARGET_MS = 0.3; // issue 26, item 5: a run through the binding, median
const WRAPPED = `JSON.stringify((function (context) {\n${CODE}\n})(JSON.parse(input)))`;

// A fresh context per run, as sbx gives a fresh realm; JSON in and out, as sbx's results are.
function vmFresh(timeout) {
  const ctx = vm.createContext({ input: JSON.stringify(CONTEXT) });
  const value = JSON.parse(vm.runInContext(WRAPPED, ctx, timeout ? { timeout } : undefined));
  return Promise.resolve({ ok: true, value });
}

// One long-lived Worker (a pool of one): each message runs in a fresh vm context there.
const POOL_SRC = `
const vm = require('node:vm');
const { parentPort } = require('node:worker_threads');
parentPort.on('message', ({ code, input }) => {
  try {
    const ctx = vm.createContext({ input });
    parentPort.postMessage({ ok: true, value: JSON.parse(vm.runInContext(code, ctx)) });
  } catch (e) {
    parentPort.postMessage({ ok: false, error: String(e) });
  }
});`;

function pooledWorker() {
  const w = new Worker(POOL_SRC, { eval: true });
  let pending = null;
  w.on('message', (m) => { const r = pending; pending = null; r(m); });
  return {
    run: () => new Promise((resolve) => {
      pending = resolve;
      w.postMessage({ code: WRAPPED, input: JSON.stringify(CONTEXT) });
    }),
    close: () => w.terminate(),
  };
}

const PER_RUN_SRC = `
const vm = require('node:vm');
const { parentPort } = require('node:worker_threads');
parentPort.once('message', ({ code, input }) => {
  parentPort.postMessage({ ok: true, value: JSON.parse(vm.runInContext(code, vm.createContext({ input }))) });
});`;

function workerPerRun() {
  return new Promise((resolve, reject) => {
    const w = new Worker(PER_RUN_SRC, { eval: true });
    w.once('message', (m) => { w.terminate().then(() => resolve(m)); });
    w.once('error', reject);
    w.postMessage({ code: WRAPPED, input: JSON.stringify(CONTEXT) });
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

// isolated-vm, when an install is given (it is a native addon built from npm: not a dependency).
function isolatedVm() {
  const dir = process.env.SBX_BENCH_IVM;
  if (!dir) return [];
  let ivm;
  try {
    ivm = require(require.resolve('isolated-vm', { paths: [dir] }));
  } catch (e) {
    console.log(`isolated-vm: not loaded (${e.message.split('\n')[0]})`);
    return [];
  }
  const shared = new ivm.Isolate({ memoryLimit: 64 });
  const inContext = async (isolate) => {
    const ctx = await isolate.createContext();
    await ctx.global.set('input', JSON.stringify(CONTEXT));
    const value = JSON.parse(await ctx.eval(WRAPPED, { timeout: 1000 }));
    ctx.release();
    return { ok: true, value };
  };
  return [
    { name: 'isolated-vm: fresh context, shared isolate', fn: () => inContext(shared) },
    {
      name: 'isolated-vm: fresh isolate per run',
      share: 0.1,
      fn: async () => {
        const iso = new ivm.Isolate({ memoryLimit: 64 });
        try { return await inContext(iso); } finally { iso.dispose(); }
      },
    },
  ];
}

async function batch(m, runs) {
  const ms = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    const r = await m.fn();
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (!r.ok || r.value !== 42) throw new Error(`${m.name}: wrong result ${JSON.stringify(r)}`);
  }
  const cpu = process.cpuUsage(cpu0);
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000 / runs };
}

const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };
const pct = (a, p) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length * p)]; };
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');

async function main() {
  const sb = new WorkerSandbox();
  const pool = pooledWorker();
  const methods = [
    { name: 'sbx WorkerSandbox.run (addon)', fn: () => sb.run(CODE, CONTEXT) },
    { name: 'node:vm fresh context, timeout option', fn: () => vmFresh(1000) },
    { name: 'node:vm fresh context, no timeout', fn: () => vmFresh(0) },
    { name: 'worker_threads: one Worker, a message', fn: pool.run },
    ...isolatedVm(),
    { name: 'worker_threads: new Worker per run', fn: workerPerRun, share: 0.02 },
    { name: 'spawn `sbx eval` per run', fn: spawnSbx, share: 0.02 },
  ];
  const loadBefore = load();
  for (const m of methods) {
    m.perRound = Math.max(2, Math.round((RUNS * (m.share || 1)) / ROUNDS));
    m.ms = [];
    m.cpu = [];
    await batch(m, Math.min(m.perRound, 20)); // warm-up
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < methods.length; k++) {
      const m = methods[(k + round) % methods.length];
      const b = await batch(m, m.perRound);
      m.ms.push(...b.ms);
      m.cpu.push(b.cpuMs);
    }
  }
  sb.dispose();
  await pool.close();
  const base = median(methods[0].ms);
  console.log(`node ${process.version}; ${JSON.stringify(CODE)}; ${ROUNDS} interleaved rounds, ` +
              `${methods[0].ms.length} runs of sbx in all`);
  console.log(`load average before: ${loadBefore}; after: ${load()}`);
  console.log(`${'method'.padEnd(44)} ${'runs'.padStart(5)} ${'median ms'.padStart(10)} ` +
              `${'p90 ms'.padStart(9)} ${'CPU ms/run'.padStart(11)} ${'x sbx'.padStart(7)}`);
  for (const m of methods) {
    const med = median(m.ms);
    console.log(`${m.name.padEnd(44)} ${String(m.ms.length).padStart(5)} ${med.toFixed(3).padStart(10)} ` +
                `${pct(m.ms, 0.9).toFixed(3).padStart(9)} ${median(m.cpu).toFixed(3).padStart(11)} ` +
                `${(med / base).toFixed(2).padStart(7)}`);
  }
  console.log(`target: WorkerSandbox.run median <= ${TARGET_MS} ms: ` +
              `${base <= TARGET_MS ? 'met' : 'NOT met'} (${base.toFixed(3)} ms)`);
}

main().catch((e) => { console.error(e); process.exit(1); });
