'use strict';
// The preopens a policy gives a wasm guest, and which one a guest path resolves under
// (sbx_preopens_build / sbx_preopen_match).
const native = require('./native');
const { policyJson } = require('./policy');

/** Returns the frozen list [{ hostPath, guestPath, writable }] of policy.fs, one per guest path. */
function buildWasiPreopens(policy) {
  return Object.freeze(native.preopensBuild(policyJson(policy)).map((p) => Object.freeze(p)));
}

/** Returns { preopen, index, rest } for the longest matching guest path, or null. */
function matchPreopen(preopens, guestPath) {
  const m = native.preopenMatch(preopens, guestPath);
  return m && { preopen: preopens[m.index], index: m.index, rest: m.rest };
}

module.exports = { buildWasiPreopens, matchPreopen };
