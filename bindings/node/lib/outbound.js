'use strict';
// policy.net.outbound as rules, and the gate the wasm tier's sock_connect applies
// (sbx_outbound_allowlist_build / sbx_outbound_allowed).
const native = require('./native');
const { policyJson } = require('./policy');

/** Returns the frozen list [{ host, port, wildcard, anyPort }] (port null for "*"). */
function buildWasiOutboundAllowlist(policy) {
  return Object.freeze(native.outboundBuild(policyJson(policy)).map((r) => Object.freeze(r)));
}

/** Returns true when the allowlist lets a guest connect to host:port. */
function gateOutboundConnect(allowlist, host, port) {
  return native.outboundAllowed(allowlist, host, port);
}

module.exports = { buildWasiOutboundAllowlist, gateOutboundConnect };
