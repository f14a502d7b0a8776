// bench/worker/node_peer.js: the original design measured as a peer. Each run starts a new
// Node.js worker_threads Worker that evaluates the snippet as new Function('context', code)
// and posts the result back; the time until the result arrives is one run (terminate is not
// timed). Prints "node_worker runs=N median_ms=X p90_ms=Y".
'use strict';
const { Worker } = require('worker_threads');

const runs = Number(process.argv[2] || 300);
const code = 'return context.a + 1';
const workerSrc = `
const { parentPort } = require('worker_threads');
parentPort.once('message', ({ code, context }) => {
  let out;
  try { out = { ok: true, value: new Function('context', code)(context) }; }
  catch (e) { out = { ok: false, error: String(e) }; }
  parentPort.postMessage(out);
});`;

function once() {
  const t0 = process.hrtime.bigint();
  const w = new Worker(workerSrc, { eval: true });
  return new Promise((resolve, reject) => {
    w.once('error', reject);
    w.once('message', (msg) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (!msg.ok || msg.value !== 2) reject(new Error('wrong result ' + JSON.stringify(msg)));
      w.terminate().then(() => resolve(ms), reject);
    });
    w.postMessage({ code, context: { a: 1 } });
  });
}

(async () => {
  for (let i = 0; i < 5; i++) await once(); // warm-up
  const t = [];
  for (let i = 0; i < runs; i++) t.push(await once());
  t.sort((a, b) => a - b);
  const q = (p) => t[Math.min(t.length - 1, Math.floor(p * t.length))];
  console.log(`node_worker runs=${runs} median_ms=${q(0.5).toFixed(4)} p90_ms=${q(0.9).toFixed(4)}`);
})().catch((e) => { console.error(e); process.exit(1); });
