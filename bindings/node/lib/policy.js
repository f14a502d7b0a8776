'use strict';
// The permission policy: validated and resolved by libsbx (sbx_policy_parse/_to_json).
const native = require('./native');
const { SandboxError } = require('./errors');

/** Returns the policy as the JSON text libsbx parses. */
function policyJson(policy) {
  if (policy === undefined || policy === null) return '{}';
  if (typeof policy === 'string') return policy;
  if (typeof policy !== 'object' || Array.isArray(policy)) {
    throw new SandboxError('SANDBOX_INVALID_OPTIONS', 'policy: must be an object');
  }
  return JSON.stringify(policy);
}

function deepFreeze(v) {
  if (v && typeof v === 'object') {
    for (const k of Object.keys(v)) deepFreeze(v[k]);
    Object.freeze(v);
  }
  return v;
}

/** Validates a policy and returns it resolved (every default filled in), deeply frozen. */
function resolvePermissionPolicy(policy) {
  return deepFreeze(JSON.parse(native.policyResolve(policyJson(policy))));
}

function isResolvedPermissionPolicy(v) {
  return !!v && typeof v === 'object' && Object.isFrozen(v) && typeof v.timeoutMs === 'number' &&
    typeof v.memoryBytes === 'number' && Array.isArray(v.fs) && !!v.net;
}

module.exports = { resolvePermissionPolicy, isResolvedPermissionPolicy, policyJson };
