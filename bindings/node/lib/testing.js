'use strict';
// runWasmConformance: libsbx's capability battery (sbx_wasm_run_conformance) under a policy.
const native = require('./native');
const { policyJson } = require('./policy');

/** Resolves with { ok, passed, total, cases: [{ name, expectAllowed, wasAllowed, passed, detail }] }. */
async function runWasmConformance(policy) {
  const report = await native.conformance(policyJson(policy));
  report.ok = report.passed === report.total;
  return report;
}

module.exports = { runWasmConformance };
