'use strict';
// The error-code registry (libsbx's, read from the addon) as frozen constants, and SandboxError.
const native = require('./native');

class SandboxError extends Error {
  constructor(code, message) {
    super(message || code);
    this.name = 'SandboxError';
    this.code = code;
    const entry = byName.get(code);
    this.value = entry ? entry.value : undefined;
  }
}

const list = native.errorCodes().map((e) => Object.freeze({ ...e }));
const byName = new Map(list.map((e) => [e.name, e]));
native.init(SandboxError);

/** name -> name, e.g. ErrorCode.SANDBOX_TIMEOUT === 'SANDBOX_TIMEOUT'. */
const ErrorCode = Object.freeze(Object.fromEntries(list.map((e) => [e.name, e.name])));
/** Every registered code: { name, value, message }, ordered by value. */
const errorCodes = Object.freeze(list);

function errorCodeInfo(name) {
  return byName.get(name);
}

module.exports = { SandboxError, ErrorCode, errorCodes, errorCodeInfo };
