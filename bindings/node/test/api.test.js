'use strict';
// The error registry, the policy, preopens, the outbound gate, conformance and the subpaths.
const test = require('node:test');
const assert = require('node:assert/strict');
const { sbx, T } = require('./helpers');

test('errors: the registry is libsbx\'s, frozen', T, () => {
  const { ErrorCode, errorCodes, errorCodeInfo, SandboxError } = sbx;
  assert.equal(ErrorCode.SANDBOX_TIMEOUT, 'SANDBOX_TIMEOUT');
  assert.equal(ErrorCode.SAND_WASM_PERMISSION_DENIED, 'SAND_WASM_PERMISSION_DENIED');
  assert.equal(errorCodeInfo('SANDBOX_TIMEOUT').value, 1);
  assert.equal(errorCodeInfo('SAND_WASM_TRAP').value, 102);
  assert.equal(errorCodeInfo('OK').value, 0);
  assert.equal(errorCodeInfo('NOPE'), undefined);
  assert.equal(errorCodes.length, 22);
  assert.ok(Object.isFrozen(ErrorCode) && Object.isFrozen(errorCodes) && Object.isFrozen(errorCodes[0]));
  assert.throws(() => { 'use strict'; ErrorCode.X = 1; }, TypeError);
  const e = new SandboxError('SANDBOX_ABORTED', 'stop');
  assert.ok(e instanceof Error);
  assert.equal(e.code, 'SANDBOX_ABORTED');
  assert.equal(e.value, 2);
  assert.equal(e.message, 'stop');
  assert.equal(e.name, 'SandboxError');
});

test('policy: resolve fills every default and freezes deeply', T, () => {
  const p = sbx.resolvePermissionPolicy({ timeoutMs: 500, fs: ['/srv::/data'] });
  assert.equal(p.timeoutMs, 500);
  assert.equal(p.cpuPercent, 100);
  assert.equal(p.memoryBytes, 64 * 1024 * 1024);
  assert.deepEqual(p.net, { loopback: false, outbound: [] });
  assert.ok(Object.isFrozen(p) && Object.isFrozen(p.net) && Object.isFrozen(p.fs));
  assert.ok(sbx.isResolvedPermissionPolicy(p));
  assert.ok(!sbx.isResolvedPermissionPolicy({ timeoutMs: 1 }));
  assert.equal(sbx.resolvePermissionPolicy('{"pids": 3}').pids, 3);
  assert.equal(sbx.resolvePermissionPolicy().timeoutMs, 5000);
  // a resolved policy is accepted wherever a policy is
  assert.equal(sbx.resolvePermissionPolicy(p).timeoutMs, 500);
});

test('policy: errors are SandboxErrors naming the field\'s path', T, () => {
  const cases = [
    [{ cpuPercent: 150 }, /policy\.cpuPercent: must be an integer in 1\.\.100, got 150/],
    [{ net: { outbound: ['ok.test:1', 'no-port'] } }, /policy\.net\.outbound\[1\]/],
    [{ capabilities: { 'host.x': 'maybe' } }, /policy\.capabilities/],
    [{ bogus: true }, /bogus/],
    ['{"timeoutMs": ', /line 1/],
    [[1], /policy/],
    [7, /policy/],
  ];
  for (const [input, re] of cases) {
    assert.throws(() => sbx.resolvePermissionPolicy(input),
      (e) => e instanceof sbx.SandboxError && e.code === 'SANDBOX_INVALID_OPTIONS' && re.test(e.message),
      `${JSON.stringify(input)}`);
  }
});

test('preopens: read-only by default, rw: prefix, dedup, match', T, () => {
  const list = sbx.buildWasiPreopens({ fs: ['/srv/data::/data', 'rw:/tmp/out', '/x::/data/', 'rw:/y::/data'] });
  assert.deepEqual(list, [
    { hostPath: '/srv/data', guestPath: '/data', writable: true },
    { hostPath: '/tmp/out', guestPath: '/tmp/out', writable: true },
  ]);
  assert.ok(Object.isFrozen(list) && Object.isFrozen(list[0]));
  const ro = sbx.buildWasiPreopens({ fs: ['/srv'] });
  assert.equal(ro[0].writable, false);
  assert.deepEqual(sbx.buildWasiPreopens({}), []);
  const m = sbx.matchPreopen(list, '/data/sub/file');
  assert.equal(m.preopen, list[0]);
  assert.equal(m.index, 0);
  assert.equal(m.rest, 'sub/file');
  assert.equal(sbx.matchPreopen(list, '/database'), null);
  assert.equal(sbx.matchPreopen(list, '/data').rest, '.');
  assert.equal(sbx.matchPreopen([], '/data'), null);
  assert.throws(() => sbx.matchPreopen('x', '/data'), (e) => e.code === 'SANDBOX_INVALID_ARGUMENT');
  assert.throws(() => sbx.matchPreopen(list, 5), (e) => e.code === 'SANDBOX_INVALID_ARGUMENT');
  assert.throws(() => sbx.buildWasiPreopens({ fs: [5] }), (e) => /policy\.fs\[0\]/.test(e.message));
});

test('outbound: allow, deny, wildcard, port-pinned, any port, IPv6', T, () => {
  const al = sbx.buildWasiOutboundAllowlist({
    net: { outbound: ['api.example.com:443', '*.example.org:443', 'any.test:*', '[::1]:8080'] },
  });
  assert.equal(al.length, 4);
  assert.deepEqual(al[1], { host: '*.example.org', port: 443, wildcard: true, anyPort: false });
  assert.deepEqual(al[2], { host: 'any.test', port: null, wildcard: false, anyPort: true });
  assert.ok(Object.isFrozen(al));
  const gate = (h, p) => sbx.gateOutboundConnect(al, h, p);
  assert.equal(gate('api.example.com', 443), true);
  assert.equal(gate('API.Example.COM', 443), true);
  assert.equal(gate('api.example.com', 80), false, 'port-pinned');
  assert.equal(gate('deep.sub.example.org', 443), true, 'wildcard');
  assert.equal(gate('example.org', 443), false, 'wildcard needs a subdomain');
  assert.equal(gate('any.test', 1), true);
  assert.equal(gate('any.test', 65535), true);
  assert.equal(gate('0:0::1', 8080), true, 'IPv6 compares as an address');
  assert.equal(gate('evil.test', 443), false, 'deny by default');
  assert.equal(sbx.gateOutboundConnect(sbx.buildWasiOutboundAllowlist({}), 'localhost', 80), false);
  assert.throws(() => gate('x', 70000), (e) => e.code === 'SANDBOX_INVALID_ARGUMENT');
  assert.throws(() => gate('x', 1.5), (e) => e.code === 'SANDBOX_INVALID_ARGUMENT');
  assert.throws(() => gate(5, 1), (e) => e.code === 'SANDBOX_INVALID_ARGUMENT');
  assert.throws(() => sbx.gateOutboundConnect(null, 'x', 1), (e) => e.code === 'SANDBOX_INVALID_ARGUMENT');
});

test('conformance: every probe holds under a policy', T, async () => {
  const r = await sbx.runWasmConformance({ fs: ['rw:/nonexistent::/data'], capabilities: { 'host.log': 'allow' } });
  assert.equal(r.ok, true, JSON.stringify(r.cases.filter((c) => !c.passed)));
  assert.equal(r.passed, r.total);
  assert.ok(r.total >= 10);
  const names = r.cases.map((c) => c.name);
  assert.ok(names.includes('fs.escape.dotdot') && names.includes('net.connect'));
  const write = r.cases.find((c) => c.name === 'fs.write');
  assert.equal(write.expectAllowed, true);
  assert.equal(write.wasAllowed, true);
  const ro = await sbx.runWasmConformance({ fs: ['/nonexistent::/data'] });
  assert.equal(ro.cases.find((c) => c.name === 'fs.write').expectAllowed, false);
  await assert.rejects(sbx.runWasmConformance({ pids: 'x' }), (e) => e.code === 'SANDBOX_INVALID_OPTIONS');
});

test('package: the subpath exports resolve to the same objects', T, () => {
  const root = require('..');
  const pkg = require('../package.json');
  const sub = (p) => require(require('node:path').join(__dirname, '..', pkg.exports[p].default));
  assert.equal(sub('./sandbox').createWasmSandbox, root.createWasmSandbox);
  assert.equal(sub('./worker').WorkerSandbox, root.WorkerSandbox);
  assert.equal(sub('./process').ProcessSandbox, root.ProcessSandbox);
  assert.equal(sub('./preopens').matchPreopen, root.matchPreopen);
  assert.equal(sub('./outbound').gateOutboundConnect, root.gateOutboundConnect);
  assert.equal(sub('./error-codes').SandboxError, root.SandboxError);
  assert.equal(sub('./testing').runWasmConformance, root.runWasmConformance);
  assert.equal(sub('./policy').resolvePermissionPolicy, root.resolvePermissionPolicy);
  assert.equal(typeof sub('./otel').enabled, 'function');
  for (const [k, v] of Object.entries(pkg.exports)) {
    if (typeof v === 'string') continue;
    assert.ok(require('node:fs').existsSync(require('node:path').join(__dirname, '..', v.types)), `${k} types`);
  }
  assert.equal(root.version, '0.2.0');
});

test('teardown: process.exit during a run and a pending host call exits cleanly', T, () => {
  const { spawnSync } = require('node:child_process');
  const path = require('node:path');
  const child = `
    const sbx = require(${JSON.stringify(path.join(__dirname, '..'))});
    const { wasm } = require(${JSON.stringify(path.join(__dirname, 'helpers.js'))});
    (async () => {
      const w = new sbx.WorkerSandbox({ policy: { timeoutMs: 10000 } });
      w.run('for (;;) {}');
      const h = await sbx.createWasmSandbox(wasm('plugin'), { timeoutMs: 10000,
        capabilities: { 'host.twice': 'allow' } }, { imports: { 'host.twice': () => new Promise(() => {}) } });
      h.call('twice', [1]);
      const g = await sbx.createWasmSandbox(wasm('plugin'), { timeoutMs: 10000 });
      g.call('spin');
      setTimeout(() => { console.log('exiting'); process.exit(7); }, 100);
    })();`;
  const r = spawnSync(process.execPath, ['-e', child], { encoding: 'utf8', timeout: 10000 });
  assert.equal(r.signal, null, r.stderr);
  assert.equal(r.status, 7, r.stderr);
  assert.equal(r.stdout.trim(), 'exiting');
});

// worker_threads: each Worker is an environment of its own; when it goes, Node unloads the
// addons it loaded and deletes their threadsafe functions.
function runWorkers(body) {
  const { spawnSync } = require('node:child_process');
  const path = require('node:path');
  const child = `
    const { Worker } = require('node:worker_threads');
    const src = ${JSON.stringify(`const sbx = require(${JSON.stringify(path.join(__dirname, '..'))});
      const { parentPort } = require('node:worker_threads');
      ${body}`)};
    let left = 3;
    for (let k = 0; k < 3; k++) {
      const w = new Worker(src, { eval: true });
      w.on('message', (m) => {
        if (m === 'running') setTimeout(() => w.terminate(), 50);
      });
      w.on('exit', () => { if (--left === 0) console.log('all ended'); });
    }`;
  return spawnSync(process.execPath, ['-e', child], { encoding: 'utf8', timeout: 12000 });
}

test('worker_threads: a Worker that ran sandboxes ends, then the process exits cleanly', T, () => {
  // Failed before the addon was linked -z nodelete: Node unloaded it (and libsbx) with the
  // Worker, and libsbx's exit handler crashed the process at exit (SIGSEGV).
  const r = runWorkers(`const sb = new sbx.WorkerSandbox();
    (async () => { for (let i = 0; i < 20; i++) await sb.run('return context + 1', i); sb.dispose(); })();`);
  assert.equal(r.signal, null, r.stderr);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'all ended');
});

test('worker_threads: a Worker terminated during a run does not take the process down', T, () => {
  // Failed before the job channel: the run's thread called the Worker's deleted threadsafe
  // function (abort in uv_mutex_lock, or SIGSEGV).
  const r = runWorkers(`const sb = new sbx.WorkerSandbox();
    (async () => {
      for (let i = 0; i < 20; i++) await sb.run('return context + 1', i);
      sb.run('for (;;) {}', null, { timeout: 1500 });
      parentPort.postMessage('running');
    })();`);
  assert.equal(r.signal, null, r.stderr);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'all ended');
});
