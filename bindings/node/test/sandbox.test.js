'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { sbx, T } = require('./helpers');
const { WorkerSandbox, ProcessSandbox, SandboxError } = sbx;

test('worker: return value, console.log, context', T, async () => {
  const sb = new WorkerSandbox();
  const r = await sb.run('console.log("hi", context.who); return context.a + 1;', { a: 41, who: 'me' });
  assert.equal(r.ok, true);
  assert.equal(r.value, 42);
  assert.equal(r.stdout, 'hi me\n');
  assert.equal(r.stderr, '');
  assert.equal(r.error, null);
  assert.equal(r.backend, 'worker');
  assert.equal(typeof r.durationMs, 'number');
  assert.equal(sb.backend, 'worker');
  assert.equal(sb.disposed, false);
  sb.dispose();
});

test('worker: objects round-trip; no return is null', T, async () => {
  const sb = new WorkerSandbox();
  assert.deepEqual((await sb.run('return {x: [1, "two", null], y: context};', { k: true })).value,
    { x: [1, 'two', null], y: { k: true } });
  assert.equal((await sb.run('var a = 1;')).value, null);
  sb.dispose();
});

// Issue 23, item 4: lone surrogates become U+FFFD and the value stays an object (it was a string).
test('worker and process: a lone surrogate in the value is U+FFFD, the value an object', T, async () => {
  const code = 'return {admin: false, note: "\\ud800", k: ["\\udc00x\\ud83d\\ude00"]}';
  for (const sb of [new WorkerSandbox(), new ProcessSandbox()]) {
    const r = await sb.run(code);
    assert.equal(r.ok, true, JSON.stringify(r.error));
    assert.deepEqual(r.value, { admin: false, note: '\ufffd', k: ['\ufffdx\ud83d\ude00'] }, sb.backend);
    sb.dispose();
  }
});

// Issue 23, item 8: line and column in the message, the guest's stack in error.stack.
test('worker and process: errors carry line, column and the guest stack', T, async () => {
  const code = 'function f(o) {\n  return o.x.y;\n}\nf({});';
  for (const sb of [new WorkerSandbox(), new ProcessSandbox()]) {
    const r = await sb.run(code);
    assert.equal(r.error.code, 'SANDBOX_EXECUTION_FAILED');
    assert.match(r.error.message, /o\.x is undefined \(line 2, column 3\)$/, sb.backend);
    assert.match(r.error.stack, /^TypeError: .*\n {4}at f \(code:2:3\)\n {4}at code:4:2$/, sb.backend);
    assert.equal((await sb.run('return 1')).error, null);
    sb.dispose();
  }
});

test('worker: syntax error and throw are ok:false with EXECUTION_FAILED', T, async () => {
  const sb = new WorkerSandbox();
  const syn = await sb.run('return (;');
  assert.equal(syn.ok, false);
  assert.equal(syn.error.code, 'SANDBOX_EXECUTION_FAILED');
  const thr = await sb.run('throw new Error("boom");');
  assert.equal(thr.error.code, 'SANDBOX_EXECUTION_FAILED');
  assert.match(thr.error.message, /boom/);
  sb.dispose();
});

test('worker: a per-run timeout ends an endless loop with SANDBOX_TIMEOUT', T, async () => {
  const sb = new WorkerSandbox({ policy: { timeoutMs: 10000 } });
  const t0 = Date.now();
  const r = await sb.run('for (;;) {}', null, { timeout: 150 });
  assert.equal(r.ok, false);
  assert.equal(r.error.code, 'SANDBOX_TIMEOUT');
  assert.ok(Date.now() - t0 < 3000, 'timeout honoured');
  assert.equal((await sb.run('return 7')).value, 7, 'the sandbox is usable afterwards');
  sb.dispose();
});

test('worker: options.timeout is the sandbox default', T, async () => {
  const sb = new WorkerSandbox({ timeout: 100 });
  assert.equal((await sb.run('while (true) {}')).error.code, 'SANDBOX_TIMEOUT');
  sb.dispose();
});

test('worker: an AbortSignal aborts the run (sbx_sandbox_abort)', T, async () => {
  const sb = new WorkerSandbox({ policy: { timeoutMs: 10000 } });
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 100);
  const t0 = Date.now();
  const r = await sb.run('for (;;) {}', null, { signal: ac.signal });
  assert.equal(r.error.code, 'SANDBOX_ABORTED');
  assert.ok(Date.now() - t0 < 5000);
  // control: the same sandbox and an unfired signal run normally
  assert.equal((await sb.run('return 1', null, { signal: new AbortController().signal })).value, 1);
  sb.dispose();
});

test('worker: an already-aborted signal never runs the code', T, async () => {
  const sb = new WorkerSandbox();
  const r = await sb.run('console.log("ran"); return 1;', null, { signal: AbortSignal.abort() });
  assert.equal(r.error.code, 'SANDBOX_ABORTED');
  assert.equal(r.stdout, '');
  sb.dispose();
});

test('worker: the event loop keeps running during a run', T, async () => {
  const sb = new WorkerSandbox();
  let ticks = 0;
  const iv = setInterval(() => ticks++, 10);
  const r = await sb.run('for (;;) {}', null, { timeout: 400 });
  clearInterval(iv);
  assert.equal(r.error.code, 'SANDBOX_TIMEOUT');
  assert.ok(ticks >= 5, `only ${ticks} timer ticks during a 400 ms run`);
  sb.dispose();
});

test('worker: runs on one sandbox are queued, two sandboxes run in parallel', T, async () => {
  const sb = new WorkerSandbox();
  const rs = await Promise.all([1, 2, 3].map((i) => sb.run('return context * 2;', i)));
  assert.deepEqual(rs.map((r) => r.value), [2, 4, 6]);
  sb.dispose();
  const a = new WorkerSandbox(), b = new WorkerSandbox();
  const t0 = Date.now();
  const [ra, rb] = await Promise.all([a.run('for (;;) {}', null, { timeout: 400 }),
    b.run('for (;;) {}', null, { timeout: 400 })]);
  const wall = Date.now() - t0;
  assert.equal(ra.error.code, 'SANDBOX_TIMEOUT');
  assert.equal(rb.error.code, 'SANDBOX_TIMEOUT');
  // in series the wall time would be at least the sum of the two runs' own durations
  const sum = ra.durationMs + rb.durationMs;
  assert.ok(wall < sum * 0.8, `two runs of ${ra.durationMs} + ${rb.durationMs} ms took ${wall} ms: not parallel`);
  a.dispose();
  b.dispose();
});

test('worker: job threads are reused and still one per run in flight', T, async () => {
  // More sandboxes at once than the addon keeps idle threads (8): each run gets a thread, the
  // surplus threads end, the kept ones serve the next bursts and a long series.
  const sbs = Array.from({ length: 12 }, () => new WorkerSandbox());
  for (let burst = 0; burst < 3; burst++) {
    const rs = await Promise.all(sbs.map((sb, i) => sb.run('return context + 1;', i * 10 + burst)));
    assert.deepEqual(rs.map((r) => r.value), sbs.map((_, i) => i * 10 + burst + 1));
  }
  for (let i = 0; i < 200; i++) {
    const r = await sbs[i % 12].run('return context * 3;', i);
    assert.equal(r.value, i * 3);
  }
  sbs.forEach((sb) => sb.dispose());
});

test('worker: a run starts at once when none is queued, else waits its turn; failures do not jam the queue', T, async () => {
  const sb = new WorkerSandbox();
  const order = [];
  const ps = [
    sb.run('return 1;').then((r) => order.push(r.value)),
    sb.run('throw new Error("x");').then((r) => order.push(r.error.code)),
    sb.run('return 3;', undefined, { timeout: 'soon' }).catch((e) => order.push(e.code)),
    sb.run('return context;', 4).then((r) => order.push(r.value)),
    sb.run('return 5;', undefined, { signal: AbortSignal.abort() }).then((r) => order.push(r.error.code)),
    sb.run('return 6;').then((r) => order.push(r.value)),
  ];
  await Promise.all(ps);
  // the bad option rejects before queueing; the others settle in the order they were queued
  assert.deepEqual(order, ['SANDBOX_INVALID_OPTIONS', 1, 'SANDBOX_EXECUTION_FAILED', 4, 'SANDBOX_ABORTED', 6]);
  const r = await sb.run('return 7;'); // nothing queued now: starts at once
  assert.equal(r.value, 7);
  sb.dispose();
});

test('worker: dispose is idempotent; later runs give SANDBOX_DISPOSED', T, async () => {
  const sb = new WorkerSandbox();
  sb.dispose();
  sb.dispose();
  assert.equal(sb.disposed, true);
  const r = await sb.run('return 1');
  assert.equal(r.ok, false);
  assert.equal(r.error.code, 'SANDBOX_DISPOSED');
  assert.equal((await sb.run('return 1', null, { timeout: 50 })).error.code, 'SANDBOX_DISPOSED');
});

test('worker: dispose during a run aborts it', T, async () => {
  const sb = new WorkerSandbox({ policy: { timeoutMs: 10000 } });
  const p = sb.run('for (;;) {}');
  setTimeout(() => sb.dispose(), 50);
  assert.equal((await p).error.code, 'SANDBOX_ABORTED');
  assert.equal((await sb.run('return 1')).error.code, 'SANDBOX_DISPOSED');
});

test('worker: bad options and arguments are SandboxErrors', T, async () => {
  assert.throws(() => new WorkerSandbox({ nope: 1 }),
    (e) => e instanceof SandboxError && e.code === 'SANDBOX_INVALID_OPTIONS' && /options\.nope/.test(e.message));
  assert.throws(() => new WorkerSandbox({ policy: { cpuPercent: 150 } }),
    (e) => e.code === 'SANDBOX_INVALID_OPTIONS' && /policy\.cpuPercent/.test(e.message));
  assert.throws(() => new WorkerSandbox({ timeout: 0 }), (e) => /policy\.timeoutMs/.test(e.message));
  assert.throws(() => new WorkerSandbox({ timeout: 'x' }), (e) => e.code === 'SANDBOX_INVALID_OPTIONS');
  assert.throws(() => new WorkerSandbox('x'), (e) => e.code === 'SANDBOX_INVALID_OPTIONS');
  const sb = new WorkerSandbox();
  await assert.rejects(sb.run(42), (e) => e.code === 'SANDBOX_INVALID_ARGUMENT');
  const cyc = {};
  cyc.self = cyc;
  await assert.rejects(sb.run('return 1', cyc), (e) => e.code === 'SANDBOX_INVALID_ARGUMENT');
  await assert.rejects(sb.run('return 1', null, { timeout: -5 }), (e) => /policy\.timeoutMs/.test(e.message));
  assert.equal((await sb.run('return 2')).value, 2, 'a rejected run does not wedge the queue');
  sb.dispose();
});

test('worker: the output limit is reported', T, async () => {
  const sb = new WorkerSandbox({ policy: { maxOutputBytes: 4096 } });
  const r = await sb.run('var s = "xxxxxxxxxxxxxxxx"; for (var i = 0; i < 1000; i++) console.log(s); return 1;');
  assert.equal(r.stdoutTruncated, true);
  assert.ok(r.stdout.length <= 4096);
  sb.dispose();
});

test('process: a snippet in the jail, exitCode reported', T, async () => {
  const sb = new ProcessSandbox();
  const r = await sb.run('console.log("in jail"); return context.a * 2;', { a: 21 });
  assert.equal(r.ok, true, JSON.stringify(r.error));
  assert.equal(r.value, 42);
  assert.equal(r.stdout, 'in jail\n');
  assert.equal(r.backend, 'process');
  assert.equal(sb.backend, 'process');
  assert.equal(r.exitCode, 0);
  sb.dispose();
  sb.dispose();
});

test('process: exec runs a command with stdin; non-zero exit is ok:false', T, async () => {
  const sb = new ProcessSandbox();
  const r = await sb.exec(['/bin/sh', '-c', 'cat; echo err >&2; exit 3'], { stdin: 'fed in' });
  assert.equal(r.ok, false);
  assert.equal(r.exitCode, 3);
  assert.equal(r.stdout, 'fed in');
  assert.equal(r.stderr, 'err\n');
  assert.equal(r.error.code, 'SANDBOX_EXECUTION_FAILED');
  const ok = await sb.exec(['/bin/true']);
  assert.equal(ok.ok, true);
  assert.equal(ok.exitCode, 0);
  await assert.rejects(sb.exec([]), (e) => e.code === 'SANDBOX_INVALID_ARGUMENT');
  sb.dispose();
});

test('process: a timeout kills the command', T, async () => {
  const sb = new ProcessSandbox();
  const t0 = Date.now();
  const r = await sb.exec(['/bin/sh', '-c', 'while :; do :; done'], { timeout: 200 });
  assert.equal(r.error.code, 'SANDBOX_TIMEOUT');
  assert.ok(Date.now() - t0 < 5000);
  sb.dispose();
});

test('process: the jail blocks files the policy does not grant', T, async () => {
  const sb = new ProcessSandbox();
  const denied = await sb.exec(['/bin/cat', '/etc/hostname']);
  assert.equal(denied.ok, false);
  // control: granting the file lets the same command read it
  const open = new ProcessSandbox({ policy: { fs: ['/etc/hostname'] } });
  const allowed = await open.exec(['/bin/cat', '/etc/hostname']);
  assert.equal(allowed.ok, true, JSON.stringify(allowed));
  assert.ok(allowed.stdout.length > 0);
  sb.dispose();
  open.dispose();
});

// A guest denied a port twice and an unlisted name once: result.denied lists both with their
// counts; the allowed connect (control: it reaches the server) is not listed.
const deniedScript = `import socket, struct, sys
def q(name):
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.settimeout(2)
    l = b''.join(bytes([len(x)]) + x.encode() for x in name.split('.'))
    u.sendto(struct.pack('!6H', 7, 0x100, 1, 0, 0, 0) + l + b'\\0\\0\\1\\0\\1', ('127.0.0.1', 53))
    return u.recv(512)[3] & 15
port = int(sys.argv[1])
print(socket.socket().connect_ex(('127.0.0.1', port + 1)), socket.socket().connect_ex(('127.0.0.1', port + 1)))
print(q('evil.example'))
s = socket.create_connection(('127.0.0.1', port), timeout=5); print(s.recv(2).decode())`;

test('process: result.denied lists denied destinations with counts', T, async () => {
  const net = require('node:net');
  const server = net.createServer((c) => c.end('hi'));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  const sb = new ProcessSandbox({ policy: { net: { outbound: [`127.0.0.1:${port}`] } } });
  try {
    const r = await sb.exec(['python3', '-S', '-c', deniedScript, String(port)]);
    assert.equal(r.ok, true, JSON.stringify(r));
    assert.equal(r.stdout, '111 111\n3\nhi\n');
    assert.deepEqual(r.denied, {
      total: 3,
      truncated: false,
      destinations: [
        { kind: 'connect', family: 'ipv4', host: '127.0.0.1', port: port + 1,
          destination: `127.0.0.1:${port + 1}`, count: 2 },
        { kind: 'dns', family: null, host: 'evil.example', port: null,
          destination: 'evil.example', count: 1 },
      ],
    });
    const quiet = await sb.exec(['/bin/true']);
    assert.deepEqual(quiet.denied, { total: 0, truncated: false, destinations: [] });
  } finally {
    sb.dispose();
    server.close();
  }
});

test('process: the interpreter option runs a script under python3', T, async () => {
  const sb = new ProcessSandbox({ interpreter: 'python3' });
  const r = await sb.run('import sys; print("py", sys.stdin.read())', { a: 1 });
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.equal(r.stdout, 'py {"a":1}\n');
  sb.dispose();
  assert.throws(() => new ProcessSandbox({ interpreter: 3 }), (e) => e.code === 'SANDBOX_INVALID_OPTIONS');
});

test('onOutput: chunks as the guest writes them, before the promise resolves', T, async () => {
  const sb = new WorkerSandbox();
  const got = [];
  const t0 = Date.now();
  const code = "console.log('a'); console.error('b');" +
    "const t = Date.now(); while (Date.now() - t < 300) {} console.log('c'); return 1";
  const r = await sb.run(code, null, {
    onOutput: (stream, chunk) => got.push([stream, chunk.toString(), Date.now() - t0]),
  });
  const took = Date.now() - t0;
  assert.equal(r.ok, true);
  assert.deepEqual(got.map(([s, c]) => [s, c]), [['stdout', 'a\n'], ['stderr', 'b\n'], ['stdout', 'c\n']]);
  assert.ok(got[0][2] < took - 150, `first chunk at ${got[0][2]} of ${took} ms`);
  sb.dispose();
  const jail = new ProcessSandbox();
  const chunks = [];
  const p = await jail.exec(['/bin/sh', '-c', 'echo x; echo y >&2'], {
    onOutput: (stream, chunk) => chunks.push([stream, chunk]),
  });
  assert.equal(p.ok, true);
  assert.equal(Buffer.concat(chunks.filter((c) => c[0] === 'stdout').map((c) => c[1])).toString(), 'x\n');
  assert.equal(Buffer.concat(chunks.filter((c) => c[0] === 'stderr').map((c) => c[1])).toString(), 'y\n');
  jail.dispose();
  await assert.rejects(new WorkerSandbox().run('return 1', null, { onOutput: 5 }),
    (e) => e.code === 'SANDBOX_INVALID_ARGUMENT');
});

// Issue 26, item 3: preloads. Each run sees the library evaluated in its fresh realm; what a run
// does to it never reaches the next (control: within the run the change holds); a per-run
// timeout (a handle of its own) keeps the preloads; errors name the preload.
test('worker: options.preload, no state crosses runs', T, async () => {
  const lib = 'var lib = {n: 0, tag: "a\\u0000b"};\nfunction bump() { return ++lib.n; }\n';
  const sb = new WorkerSandbox({ preload: [{ name: 'lib.js', source: lib }, 'var twice = bump() * 2;'] });
  const r1 = await sb.run('bump(); lib.tag = "evil"; Object.prototype.x = 1; return [lib.n, twice, lib.tag];');
  assert.deepEqual(r1.value, [2, 2, 'evil']);
  const r2 = await sb.run('return [lib.n, twice, lib.tag.length, ({}).x];');
  assert.deepEqual(r2.value, [1, 2, 3, null]);
  const r3 = await sb.run('return [bump(), twice];', null, { timeout: 5000 });
  assert.deepEqual(r3.value, [2, 2], JSON.stringify(r3.error));
  sb.dispose();
  const bad = new WorkerSandbox({ preload: ['function f() {\n  null.x;\n}\nf();'] });
  const r4 = await bad.run('return 1');
  assert.equal(r4.ok, false);
  assert.equal(r4.error.code, 'SANDBOX_EXECUTION_FAILED');
  assert.match(r4.error.message, /^preload preload-1\.js: TypeError: .* \(preload-1\.js, line 2, column 3\)$/);
  assert.match(r4.error.stack, /at f \(preload-1\.js:2:3\)/);
  bad.dispose();
  assert.throws(() => new WorkerSandbox({ preload: 'var a;' }), { code: 'SANDBOX_INVALID_OPTIONS' });
  assert.throws(() => new WorkerSandbox({ preload: [{ source: 1 }] }), { code: 'SANDBOX_INVALID_OPTIONS' });
  assert.throws(() => new ProcessSandbox({ preload: ['var a;'] }), { code: 'SANDBOX_INVALID_OPTIONS' });
});
