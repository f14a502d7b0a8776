'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { sbx, wasm, T } = require('./helpers');
const { createWasmSandbox, WasmSandboxHandle, SandboxError } = sbx;

// Grants every import the test provides except host.secret (a granted import nobody provides
// would be a link error).
function plugin(imports, policy = {}) {
  const grants = Object.fromEntries(Object.keys(imports).filter((k) => k !== 'host.secret')
    .map((k) => [k, 'allow']));
  return createWasmSandbox(wasm('plugin'), { timeoutMs: 2000, capabilities: grants, ...policy },
    { imports });
}

test('wasm: typed calls (i32, i64 as BigInt, f64/f32)', T, async () => {
  const h = await plugin({});
  assert.ok(h instanceof WasmSandboxHandle);
  const add = await h.call('add', [2, 3]);
  assert.equal(add.ok, true);
  assert.equal(add.value, 5);
  assert.deepEqual(add.values, [5]);
  assert.equal(add.backend, 'wasm');
  assert.equal((await h.call('add64', [2n ** 40n, 5])).value, 2n ** 40n + 5n);
  assert.equal((await h.call('hyp', [3, 4])).value, 25);
  const out = await h.call('hello');
  assert.equal(out.stdout, 'hello from wasm\n');
  h.dispose();
});

test('wasm: sync and async capability imports complete the guest call', T, async () => {
  const seen = [];
  const h = await plugin({
    'host.log': (x) => { seen.push(x); },
    'host.twice': async (x) => { await new Promise((r) => setTimeout(r, 30)); return x * 2; },
    'host.mix': (a, b) => a + BigInt(Math.round(b)),
  });
  assert.equal((await h.call('say', [7])).value, 7);
  assert.deepEqual(seen, [7]);
  assert.equal((await h.call('twice', [21])).value, 42);
  assert.equal((await h.call('mix', [10n, 2.6])).value, 13n);
  assert.equal(h.deniedCount, 0);
  h.dispose();
});

test('wasm: a rejected or throwing import fails the call (a trap with its message)', T, async () => {
  const h = await plugin({
    'host.twice': async () => { throw new Error('no doubling today'); },
    'host.log': () => { throw new Error('sync throw'); },
  });
  const r = await h.call('twice', [1]);
  assert.equal(r.ok, false);
  assert.equal(r.error.code, 'SAND_WASM_TRAP');
  assert.match(r.error.message, /no doubling today/);
  assert.match((await h.call('say', [1])).error.message, /sync throw/);
  h.dispose();
});

test('wasm: an import returning the wrong type traps', T, async () => {
  const h = await plugin({ 'host.twice': () => 'not a number' });
  const r = await h.call('twice', [1]);
  assert.equal(r.error.code, 'SAND_WASM_TRAP');
  assert.match(r.error.message, /host\.twice/);
  h.dispose();
});

test('wasm: a missing grant is a denial: the JS function is never called', T, async () => {
  let called = 0;
  const h = await plugin({ 'host.secret': () => { called++; return 42; } });
  const r = await h.call('secret');
  assert.equal(r.ok, true);
  assert.equal(r.value, -76); // SBX_WASM_DENIED
  assert.equal(called, 0);
  assert.equal(h.deniedCount, 1);
  h.dispose();
  // control: granted, the same function is called and its value reaches the guest
  const g = await plugin({ 'host.secret': () => { called++; return 42; } },
    { capabilities: { 'host.secret': 'allow' } });
  assert.equal((await g.call('secret')).value, 42);
  assert.equal(called, 1);
  assert.equal(g.deniedCount, 0);
  g.dispose();
});

test('wasm: a granted import nobody provides is a link error at create', T, async () => {
  await assert.rejects(createWasmSandbox(wasm('plugin'), { capabilities: { 'host.secret': 'allow' } }),
    (e) => e instanceof SandboxError && e.code === 'SAND_WASM_LINK_ERROR');
});

test('wasm: trap, timeout, unknown export, bad arguments', T, async () => {
  const h = await plugin({}, { timeoutMs: 200 });
  const trap = await h.call('crash');
  assert.equal(trap.error.code, 'SAND_WASM_TRAP');
  const t0 = Date.now();
  assert.equal((await h.call('spin')).error.code, 'SANDBOX_TIMEOUT');
  assert.ok(Date.now() - t0 < 3000);
  assert.equal((await h.call('add', [1, 1])).value, 2, 'the instance survives');
  assert.equal((await h.call('nope')).error.code, 'SAND_WASM_EXPORT_NOT_FOUND');
  const bad = await h.call('add', [1]);
  assert.equal(bad.ok, false);
  assert.equal(bad.error.code, 'SANDBOX_INVALID_ARGUMENT');
  await assert.rejects(h.call('add', ['x', 1]), (e) => e.code === 'SANDBOX_INVALID_ARGUMENT');
  await assert.rejects(h.call(5), (e) => e.code === 'SANDBOX_INVALID_ARGUMENT');
  await assert.rejects(h.call('add', 5), (e) => e.code === 'SANDBOX_INVALID_ARGUMENT');
  h.dispose();
});

test('wasm: an AbortSignal and abort() end a spinning call; the loop stays free', T, async () => {
  const h = await plugin({}, { timeoutMs: 10000 });
  const ac = new AbortController();
  let ticks = 0;
  const iv = setInterval(() => ticks++, 10);
  setTimeout(() => ac.abort(), 200);
  const r = await h.call('spin', [], { signal: ac.signal });
  clearInterval(iv);
  assert.equal(r.error.code, 'SANDBOX_ABORTED');
  assert.ok(ticks >= 5, `${ticks} ticks`);
  const p = h.call('spin');
  setTimeout(() => h.abort(), 50);
  assert.equal((await p).error.code, 'SANDBOX_ABORTED');
  h.dispose();
});

test('wasm: an already-aborted signal never starts the call', T, async () => {
  const seen = [];
  const h = await plugin({ 'host.log': (x) => { seen.push(x); } });
  const r = await h.call('say', [1], { signal: AbortSignal.abort() });
  assert.equal(r.error.code, 'SANDBOX_ABORTED');
  assert.deepEqual(seen, []);
  assert.equal((await h.run({ signal: AbortSignal.abort() })).error.code, 'SANDBOX_ABORTED');
  assert.equal((await h.call('say', [2])).value, 2, 'later calls run');
  assert.deepEqual(seen, [2]);
  h.dispose();
});

test('wasm: abort ends a call waiting on an import that never settles', T, async () => {
  const h = await plugin({ 'host.twice': () => new Promise(() => {}) }, { timeoutMs: 10000 });
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 100);
  assert.equal((await h.call('twice', [1], { signal: ac.signal })).error.code, 'SANDBOX_ABORTED');
  h.dispose();
});

test('wasm: dispose is idempotent; a call after it gives SAND_WASM_DISPOSED', T, async () => {
  const h = await plugin({});
  const p = h.call('spin');
  setTimeout(() => h.dispose(), 50);
  assert.equal((await p).error.code, 'SANDBOX_ABORTED');
  h.dispose();
  assert.equal(h.disposed, true);
  assert.equal((await h.call('add', [1, 2])).error.code, 'SAND_WASM_DISPOSED');
  assert.equal((await h.run()).error.code, 'SAND_WASM_DISPOSED');
});

test('wasm: a command runs with argv and stdin; its exit status is exitCode', T, async () => {
  const h = await createWasmSandbox(wasm('command'), {}, { argv: ['cmd', 'x', '3'], stdin: 'input\n' });
  const r = await h.run();
  assert.equal(r.stdout, 'arg x\narg 3\ninput\n');
  assert.equal(r.exitCode, 3);
  assert.equal(r.error.code, 'SANDBOX_EXECUTION_FAILED');
  h.dispose();
  const ok = await createWasmSandbox(wasm('command').buffer.slice(0), {},
    { argv: ['cmd', '0'], stdin: Buffer.from('') });
  const r0 = await ok.run();
  assert.equal(r0.ok, true);
  assert.equal(r0.exitCode, 0);
  ok.dispose();
  const reactor = await plugin({});
  assert.equal((await reactor.run()).error.code, 'SAND_WASM_EXPORT_NOT_FOUND');
  reactor.dispose();
});

test('wasm: bad modules, policies and options reject with SandboxError', T, async () => {
  await assert.rejects(createWasmSandbox(new Uint8Array([0, 97, 115, 109, 9]), {}),
    (e) => e.code === 'SAND_WASM_INVALID_MODULE' && /malformed/.test(e.message));
  await assert.rejects(createWasmSandbox('nope', {}), (e) => e.code === 'SANDBOX_INVALID_ARGUMENT');
  await assert.rejects(createWasmSandbox(wasm('plugin'), { fuel: -1 }),
    (e) => e.code === 'SANDBOX_INVALID_OPTIONS' && /policy\.fuel/.test(e.message));
  await assert.rejects(createWasmSandbox(wasm('plugin'), {}, { imports: { 'host.log': 5 } }),
    (e) => e.code === 'SANDBOX_INVALID_OPTIONS');
  await assert.rejects(createWasmSandbox(wasm('plugin'), {}, { bogus: 1 }),
    (e) => e.code === 'SANDBOX_INVALID_OPTIONS');
  await assert.rejects(createWasmSandbox(wasm('plugin'), {}, { stdin: 5 }),
    (e) => e.code === 'SANDBOX_INVALID_ARGUMENT');
});

test('wasm: fuel exhaustion is reported as such', T, async () => {
  const h = await plugin({}, { fuel: 100000 });
  const r = await h.call('spin');
  assert.equal(r.error.code, 'SAND_WASM_FUEL_EXHAUSTED');
  assert.equal(r.limit, 'fuel');
  h.dispose();
});

test('abort racing the start of a run is never lost (worker and wasm)', { timeout: 60000 }, async () => {
  const h = await plugin({}, { timeoutMs: 3000 });
  const sb = new sbx.WorkerSandbox({ policy: { timeoutMs: 3000 } });
  for (let i = 0; i < 8; i++) {
    const delay = i % 2 ? (f) => setImmediate(f) : (f) => process.nextTick(f);
    const ac = new AbortController(), bc = new AbortController();
    const pw = h.call('spin', [], { signal: ac.signal });
    const ps = sb.run('for (;;) {}', null, { signal: bc.signal });
    delay(() => { ac.abort(); bc.abort(); });
    assert.equal((await pw).error.code, 'SANDBOX_ABORTED', `wasm, round ${i}`);
    assert.equal((await ps).error.code, 'SANDBOX_ABORTED', `worker, round ${i}`);
  }
  h.dispose();
  sb.dispose();
});
