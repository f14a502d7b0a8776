// The npm package piston-client, used exactly as its readme documents, against sbx serve
// (SERVER). Exits non-zero with a message on the first difference. Run by test_piston_client.py.
import assert from 'node:assert/strict';
import piston from 'piston-client';

const client = piston({ server: process.env.SERVER });

const runtimes = await client.runtimes();
assert.ok(Array.isArray(runtimes), JSON.stringify(runtimes));
const names = runtimes.map((r) => r.language);
assert.ok(names.includes('javascript'), names.join());

// The readme's own call, in the worker tier (the client sends args ["1", "2", "3"]).
let r = await client.execute('javascript', 'console.log("Hello World!")');
assert.equal(r.language, 'javascript');
assert.deepEqual(r.run.stdout, 'Hello World!\n');
assert.equal(r.run.output, 'Hello World!\n');
assert.equal(r.run.code, 0);
assert.equal(r.run.signal, null);

if (names.includes('python')) {
  r = await client.execute('python', 'print("Hello World!")');
  assert.equal(r.run.stdout, 'Hello World!\n', JSON.stringify(r));
  assert.equal(r.version, runtimes.find((x) => x.language === 'python').version);
  // an alias, and the config object: stdin, args, a run timeout
  r = await client.execute('py', 'import sys; print(sys.argv[1:], input())',
    { stdin: 'typed', args: ['a', 'b'], runTimeout: 2000 });
  assert.equal(r.run.stdout, "['a', 'b'] typed\n", JSON.stringify(r));
  r = await client.execute('python', 'while True: pass', { runTimeout: 300 });
  assert.equal(r.run.signal, 'SIGKILL', JSON.stringify(r));
}
if (names.includes('c')) {
  r = await client.execute({
    language: 'c',
    files: [{ name: 'main.c', content: '#include <stdio.h>\nint main(void){puts("c ok");}\n' }],
  });
  assert.equal(r.compile.code, 0, JSON.stringify(r));
  assert.equal(r.run.stdout, 'c ok\n', JSON.stringify(r));
}
console.log(`piston-client: ok (${names.join(', ')})`);
