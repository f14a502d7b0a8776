'use strict';
// WorkerSandbox and ProcessSandbox: one libsbx sandbox handle each. Runs on the same handle
// are queued (libsbx handles are used by one thread at a time); each runs on a thread of the
// addon's own, so the event loop is never blocked.
const native = require('./native');
const { SandboxError } = require('./errors');
const { policyJson } = require('./policy');
const { toResult, contextJson } = require('./result');

const OPTION_KEYS = {
  worker: ['policy', 'timeout', 'preload'],
  process: ['policy', 'timeout', 'interpreter'],
};

function checkOptions(backend, options) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object') {
    throw new SandboxError('SANDBOX_INVALID_OPTIONS', 'options: must be an object');
  }
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS[backend].includes(key)) {
      throw new SandboxError('SANDBOX_INVALID_OPTIONS', `options.${key}: unknown option`);
    }
  }
  return options;
}

function checkTimeout(timeout, where) {
  if (timeout === undefined || timeout === null) return null;
  if (typeof timeout !== 'number' || !Number.isFinite(timeout)) {
    throw new SandboxError('SANDBOX_INVALID_OPTIONS', `${where}: must be a number of milliseconds`);
  }
  return timeout;
}

// options.preload: [source | {name, source}, ...]; a bare source is named preload-N.js.
function checkPreloads(preload) {
  if (preload === undefined || preload === null) return [];
  const bad = (msg) => new SandboxError('SANDBOX_INVALID_OPTIONS', `options.preload${msg}`);
  if (!Array.isArray(preload)) throw bad(': must be an array of sources or {name, source}');
  return preload.map((p, i) => {
    if (typeof p === 'string') return { name: `preload-${i + 1}.js`, source: p };
    if (p === null || typeof p !== 'object' || typeof p.source !== 'string' ||
        typeof p.name !== 'string' || p.name === '') {
      throw bad(`[${i}]: must be a source string or {name: string, source: string}`);
    }
    return { name: p.name, source: p.source };
  });
}

class Sandbox {
  #handle;
  #queue = Promise.resolve();
  #queued = 0; // runs started or waiting on this handle
  #disposed = false;
  #backend;
  #interpreter;

  constructor(backend, options) {
    const opts = checkOptions(backend, options);
    this.#backend = backend;
    this.#interpreter = opts.interpreter ?? null;
    if (this.#interpreter !== null && typeof this.#interpreter !== 'string') {
      throw new SandboxError('SANDBOX_INVALID_OPTIONS', 'options.interpreter: must be a string');
    }
    const timeout = checkTimeout(opts.timeout, 'options.timeout');
    const preloads = checkPreloads(opts.preload);
    this.#handle = native.sandboxCreate(backend, policyJson(opts.policy), timeout);
    for (const p of preloads) native.sandboxPreload(this.#handle, p.name, p.source);
  }

  get backend() {
    return this.#backend;
  }

  get disposed() {
    return this.#disposed;
  }

  /** Runs a JavaScript function body with `context` injected; resolves with the result. */
  run(code, context, options = {}) {
    if (typeof code !== 'string') {
      return Promise.reject(new SandboxError('SANDBOX_INVALID_ARGUMENT', 'code must be a string'));
    }
    let ctx;
    try {
      ctx = contextJson(context);
    } catch (e) {
      return Promise.reject(e);
    }
    return this._enqueue([code, ctx, null, this.#interpreter], options);
  }

  _enqueue(input, options) {
    let timeout;
    const onOutput = options && options.onOutput;
    try {
      timeout = checkTimeout(options && options.timeout, 'options.timeout');
      if (onOutput !== undefined && onOutput !== null && typeof onOutput !== 'function') {
        throw new SandboxError('SANDBOX_INVALID_ARGUMENT', 'options.onOutput: must be a function');
      }
    } catch (e) {
      return Promise.reject(e);
    }
    const signal = options && options.signal;
    const start = () => this.#start(input, timeout, signal, onOutput || null);
    // With nothing queued the run starts now, not a microtask later.
    const p = this.#queued === 0 ? start() : this.#queue.then(start, start);
    this.#queued++;
    const done = () => { this.#queued--; };
    this.#queue = p.then(done, done);
    return p;
  }

  #start(input, timeout, signal, onOutput) {
    const h = this.#handle;
    let promise;
    try {
      promise = native.sandboxRun(h, ...input, timeout, !!(signal && signal.aborted), onOutput);
    } catch (e) {
      return Promise.reject(e);
    }
    if (!signal) return promise.then(toResult);
    const onAbort = () => native.sandboxAbort(h);
    if (!signal.aborted) signal.addEventListener('abort', onAbort, { once: true });
    const off = () => signal.removeEventListener('abort', onAbort);
    return promise.then((json) => { off(); return toResult(json); }, (e) => { off(); throw e; });
  }

  /** Releases the handle; idempotent. A run in flight is aborted; later runs give SANDBOX_DISPOSED. */
  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    native.sandboxDispose(this.#handle);
  }
}

/** JavaScript in a fresh engine heap on its own thread, in this process. */
class WorkerSandbox extends Sandbox {
  constructor(options) {
    super('worker', options);
  }
}

/** Code (sbx's engine, or options.interpreter) or a command in a Linux jail. */
class ProcessSandbox extends Sandbox {
  constructor(options) {
    super('process', options);
  }

  /** Runs a command (argv[0] looked up on PATH in the jail); options.stdin is its stdin. */
  exec(argv, options = {}) {
    if (!Array.isArray(argv) || argv.length === 0 || argv.some((a) => typeof a !== 'string')) {
      return Promise.reject(
        new SandboxError('SANDBOX_INVALID_ARGUMENT', 'argv must be a non-empty array of strings'));
    }
    const stdin = options.stdin === undefined ? null : String(options.stdin);
    return this._enqueue([null, stdin, argv, null], options);
  }
}

module.exports = { WorkerSandbox, ProcessSandbox };
