'use strict';
// sbx for Node.js: a thin layer over libsbx (see README.md, "Bindings").
const native = require('./lib/native');
const errors = require('./lib/errors');
const policy = require('./lib/policy');
const sandbox = require('./lib/sandbox');
const wasm = require('./lib/wasm');
const preopens = require('./lib/preopens');
const outbound = require('./lib/outbound');
const testing = require('./lib/testing');
const otel = require('./lib/otel');

module.exports = {
  WorkerSandbox: sandbox.WorkerSandbox,
  ProcessSandbox: sandbox.ProcessSandbox,
  SandboxError: errors.SandboxError,
  ErrorCode: errors.ErrorCode,
  errorCodes: errors.errorCodes,
  errorCodeInfo: errors.errorCodeInfo,
  resolvePermissionPolicy: policy.resolvePermissionPolicy,
  isResolvedPermissionPolicy: policy.isResolvedPermissionPolicy,
  createWasmSandbox: wasm.createWasmSandbox,
  WasmSandboxHandle: wasm.WasmSandboxHandle,
  buildWasiPreopens: preopens.buildWasiPreopens,
  matchPreopen: preopens.matchPreopen,
  buildWasiOutboundAllowlist: outbound.buildWasiOutboundAllowlist,
  gateOutboundConnect: outbound.gateOutboundConnect,
  runWasmConformance: testing.runWasmConformance,
  telemetryEnabled: otel.enabled,
  version: native.version(),
};
