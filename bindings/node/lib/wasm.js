'use strict';
// createWasmSandbox: a libsbx plugin handle (sbx_wasm_sandbox). Capability imports are JS
// functions, possibly async, registered under the signature the module imports them with;
// libsbx decides per call whether the policy allows it (a denial never reaches JS and counts).
const native = require('./native');
const { SandboxError } = require('./errors');
const { policyJson } = require('./policy');
const { toResult } = require('./result');

function wrapImports(imports) {
  if (imports === undefined || imports === null) return {};
  if (typeof imports !== 'object') {
    throw new SandboxError('SANDBOX_INVALID_OPTIONS', 'options.imports: must be an object');
  }
  const out = {};
  for (const [name, fn] of Object.entries(imports)) {
    if (typeof fn !== 'function') {
      throw new SandboxError('SANDBOX_INVALID_OPTIONS', `options.imports["${name}"]: must be a function`);
    }
    // Always a promise, so the addon has one path; a synchronous throw becomes a rejection.
    out[name] = (...args) => new Promise((resolve) => resolve(fn(...args)));
  }
  return out;
}

function toBytes(bytes, what) {
  if (bytes instanceof Uint8Array) return bytes;
  if (bytes instanceof ArrayBuffer) return new Uint8Array(bytes);
  throw new SandboxError('SANDBOX_INVALID_ARGUMENT', `${what} must be a Uint8Array, Buffer or ArrayBuffer`);
}

class WasmSandboxHandle {
  #handle;
  #queue = Promise.resolve();
  #disposed = false;

  constructor(handle) {
    this.#handle = handle;
  }

  /** Calls an exported function with typed arguments (i64 as BigInt or integer number). */
  call(name, args = [], options = {}) {
    if (typeof name !== 'string') {
      return Promise.reject(new SandboxError('SANDBOX_INVALID_ARGUMENT', 'name must be a string'));
    }
    if (!Array.isArray(args)) {
      return Promise.reject(new SandboxError('SANDBOX_INVALID_ARGUMENT', 'args must be an array'));
    }
    return this.#enqueue((aborted) => native.wasmCall(this.#handle, name, args, aborted), options);
  }

  /** Runs a WASI command's _start. */
  run(options = {}) {
    return this.#enqueue((aborted) => native.wasmRun(this.#handle, aborted), options);
  }

  /** Ends the call in flight with SANDBOX_ABORTED. */
  abort() {
    native.wasmAbort(this.#handle);
  }

  /** Denials counted so far (WASI and capability imports). */
  get deniedCount() {
    return native.wasmDeniedCount(this.#handle);
  }

  get disposed() {
    return this.#disposed;
  }

  /** Frees the instance; idempotent. Later calls give SAND_WASM_DISPOSED. */
  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    native.wasmDispose(this.#handle);
  }

  #enqueue(startNative, options) {
    const start = async () => {
      const signal = options && options.signal;
      const promise = startNative(!!(signal && signal.aborted));
      const onAbort = () => native.wasmAbort(this.#handle);
      if (signal && !signal.aborted) signal.addEventListener('abort', onAbort, { once: true });
      try {
        const { json, values } = await promise;
        const result = toResult(json);
        result.values = values;
        result.value = values.length ? values[0] : null;
          return result;
      } finally {
        if (signal) signal.removeEventListener('abort', onAbort);
      }
    };
    const p = this.#queue.then(start, start);
    this.#queue = p.then(() => undefined, () => undefined);
    return p;
  }
}

/**
 * Loads, validates and instantiates a module under the policy (running _initialize, which may
 * call imports), on a thread of the addon's own. Rejects with a SandboxError (SAND_WASM_*).
 */
async function createWasmSandbox(bytes, policy, options = {}) {
  const opts = options || {};
  for (const key of Object.keys(opts)) {
    if (!['imports', 'argv', 'stdin'].includes(key)) {
      throw new SandboxError('SANDBOX_INVALID_OPTIONS', `options.${key}: unknown option`);
    }
  }
  const stdin = opts.stdin === undefined || opts.stdin === null ? null
    : typeof opts.stdin === 'string' ? Buffer.from(opts.stdin) : toBytes(opts.stdin, 'options.stdin');
  const handle = await native.wasmCreate(toBytes(bytes, 'bytes'), policyJson(policy),
    wrapImports(opts.imports), opts.argv ?? null, stdin);
  return new WasmSandboxHandle(handle);
}

module.exports = { createWasmSandbox, WasmSandboxHandle };
