'use strict';
// Loads the addon: $SBX_NODE_ADDON (the build tree's tests point it at their build), else the
// one `npm install` built next to this package.
const path = require('node:path');

const file = process.env.SBX_NODE_ADDON || path.join(__dirname, '..', 'build', 'sbx.node');
const native = require(file);
module.exports = native;
// An async wasm call runs on a libuv thread: process.exit() must not run libLLVM's destructors
// under its tier-up compile (docs/wasm.md, "Exit"). Only the main thread's exit ends the
// process (a worker thread's 'exit' must not stop the others' tier-up).
if (require('node:worker_threads').isMainThread)
  process.once('exit', () => native.shutdown());
// The telemetry bridge installs libsbx's hooks at load, before any run, when the host has
// @opentelemetry/api (it requires this module back: exports are already set).
require('./otel');
