'use strict';
// Shared by the tests: the package under test and the guest modules mk/bindings.mk builds.
const fs = require('node:fs');
const path = require('node:path');

const wasmDir = process.env.SBX_TEST_WASM_DIR || path.join(__dirname, '..', '..', '..', 'build', 'bindings');

function wasm(name) {
  return fs.readFileSync(path.join(wasmDir, `${name}.wasm`));
}

// Every test gets a timeout (node:test's own), so a hang fails instead of stalling make test.
const T = { timeout: 15000 };

module.exports = { sbx: require('..'), wasm, T };
