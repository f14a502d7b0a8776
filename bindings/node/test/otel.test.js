'use strict';
// Telemetry through @opentelemetry/api when the host has it: a recording stand-in for the API
// package is put on NODE_PATH of a child node, which runs one worker and one wasm call.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { sbx, T } = require('./helpers');

const FAKE_API = `
const rec = globalThis.__otel = { spans: [], counters: [], histograms: [] };
exports.SpanStatusCode = { ERROR: 2 };
exports.trace = { getTracer: () => ({ startSpan: (name, o) => {
  const s = { name, attributes: { ...o.attributes }, status: null, ended: false };
  rec.spans.push(s);
  return { setAttributes: (a) => Object.assign(s.attributes, a), setStatus: (st) => { s.status = st; },
    end: () => { s.ended = true; } };
} }) };
exports.metrics = { getMeter: () => ({
  createCounter: (name) => ({ add: (v, a) => rec.counters.push({ name, v, a }) }),
  createHistogram: (name) => ({ record: (v, a) => rec.histograms.push({ name, v, a }) }),
}) };
`;

const CHILD = `
const sbx = require(${JSON.stringify(path.join(__dirname, '..'))});
const { wasm } = require(${JSON.stringify(path.join(__dirname, 'helpers.js'))});
(async () => {
  const w = new sbx.WorkerSandbox();
  await w.run('return 1');
  await w.run('throw 1');
  w.dispose();
  const h = await sbx.createWasmSandbox(wasm('plugin'), {}, { imports: {} });
  await h.call('secret');
  h.dispose();
  // the hooks' events reach the JS thread on their own queue: let it drain
  for (let i = 0; i < 200 && globalThis.__otel.spans.filter((s) => s.ended).length < 3; i++) {
    await new Promise((r) => setTimeout(r, 5));
  }
  console.log(JSON.stringify({ enabled: sbx.telemetryEnabled(), rec: globalThis.__otel }));
})();
`;

test('otel: without @opentelemetry/api nothing is emitted and runs work', T, async () => {
  assert.equal(sbx.telemetryEnabled(), false);
  const w = new sbx.WorkerSandbox();
  assert.equal((await w.run('return 3')).value, 3);
  w.dispose();
});

test('otel: with it, spans and the sbx metric names are recorded', T, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-otel-'));
  try {
    const pkg = path.join(dir, '@opentelemetry', 'api');
    fs.mkdirSync(pkg, { recursive: true });
    fs.writeFileSync(path.join(pkg, 'index.js'), FAKE_API);
    const r = spawnSync(process.execPath, ['-e', CHILD], {
      encoding: 'utf8', env: { ...process.env, NODE_PATH: dir }, timeout: 10000,
    });
    assert.equal(r.status, 0, r.stderr);
    const { enabled, rec } = JSON.parse(r.stdout);
    assert.equal(enabled, true);
    // libsbx's own instruments, names and labels (src/core/sandbox.c, src/plugin/)
    assert.deepEqual(rec.spans.map((s) => [s.name, s.attributes.backend, s.attributes.outcome, s.ended]),
      [['sandbox.run', 'worker', 'ok', true], ['sandbox.run', 'worker', 'error', true],
        ['sandbox.run', 'wasm', 'ok', true]]);
    assert.equal(rec.spans[1].attributes['error.code'], 'SANDBOX_EXECUTION_FAILED');
    assert.equal(rec.spans[1].status.code, 2);
    assert.equal(rec.spans[2].attributes['wasm.export'], 'secret');
    assert.deepEqual(rec.counters.filter((c) => c.name === 'sandbox.runs_total').map((c) => c.a.outcome),
      ['ok', 'error', 'ok']);
    assert.equal(rec.histograms.filter((h) => h.name === 'sandbox.duration_ms').length, 3);
    assert.deepEqual(rec.counters.filter((c) => c.name === 'plugin.permission_denied_total')
      .map((c) => [c.v, c.a.capability]), [[1, 'cap:host.secret']]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
