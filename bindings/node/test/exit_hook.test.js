'use strict';
// The binding's 'exit' listener (lib/native.js) calls sbx_shutdown(), so a process that exits
// while an async wasm call on a libuv thread is tiering up waits for libLLVM's load to end
// (docs/wasm.md, "Exit"). The library pauses the load when asked by
// SBX_TEST_PAUSE_LLVM_LOAD=MS:PATH, marking 'p' before the pause and 'r' after; the child exits
// once it sees 'p'. With the listener the mark ends "pr"; the control removes it, and the process
// ends inside the load ("p"). The control's pause is long, 19 s: how long an exit takes is the
// host's (a 500 ms pause failed the Python twin's control 3 times in 7 at load 20), and an exit
// that waited would still see the load end ("pr"): sbx_shutdown() waits up to 20 s (quiesce.c).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const wasmDir = process.env.SBX_TEST_WASM_DIR || path.join(__dirname, '..', '..', '..', 'build', 'bindings');

const CHILD = `
const fs = require('node:fs');
const [pkg, mark, mode, wasm] = process.argv.slice(1);
const { createWasmSandbox } = require(pkg);
if (mode === 'unhooked') process.removeAllListeners('exit');
(async () => {
  const h = await createWasmSandbox(fs.readFileSync(wasm), { timeoutMs: 60000 });
  h.call('spin');
  const end = Date.now() + 60000;
  const poll = () => {
    if (fs.existsSync(mark) && fs.readFileSync(mark, 'utf8')) process.exit(0);
    if (Date.now() > end) process.exit(3);
    setTimeout(poll, 5);
  };
  poll();
})();
`;

function runChild(mode, pauseMs) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-exit-'));
  const mark = path.join(dir, 'mark');
  const r = spawnSync(process.execPath,
    ['-e', CHILD, path.join(__dirname, '..'), mark, mode, path.join(wasmDir, 'plugin.wasm')],
    { env: { ...process.env, SBX_TEST_PAUSE_LLVM_LOAD: `${pauseMs}:${mark}` }, timeout: 120000,
      encoding: 'utf8' });
  const text = fs.existsSync(mark) ? fs.readFileSync(mark, 'utf8') : '';
  fs.rmSync(dir, { recursive: true, force: true });
  return { r, text };
}

test('exit waits for the load through the exit listener', { timeout: 130000 }, () => {
  const { r, text } = runChild('hooked', 500);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(text, 'pr', r.stderr);
});

test('control: without the listener the process ends inside the load', { timeout: 130000 }, () => {
  const { r, text } = runChild('unhooked', 19000);
  assert.equal(text, 'p', `${r.status} ${r.stderr}`);
});
