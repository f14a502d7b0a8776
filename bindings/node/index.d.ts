// Types of @sbx/node, the Node.js binding of libsbx. Every policy is validated by libsbx;
// see docs/policy.md for the fields.

// ---- errors ---------------------------------------------------------------------------------

/** Every name in libsbx's error registry (include/sbx/error.h). */
export type SandboxErrorCode =
  | 'OK'
  | 'SANDBOX_TIMEOUT'
  | 'SANDBOX_ABORTED'
  | 'SANDBOX_INVALID_OPTIONS'
  | 'SANDBOX_EXECUTION_FAILED'
  | 'SANDBOX_DISPOSED'
  | 'SANDBOX_MEMORY_LIMIT'
  | 'SANDBOX_OUTPUT_LIMIT'
  | 'SANDBOX_UNAVAILABLE'
  | 'SANDBOX_PIDS_LIMIT'
  | 'SANDBOX_HOST_NOMEM'
  | 'SANDBOX_HOST_IO'
  | 'SANDBOX_INVALID_ARGUMENT'
  | 'SANDBOX_RUNNER_DIED'
  | 'SAND_WASM_INVALID_MODULE'
  | 'SAND_WASM_LINK_ERROR'
  | 'SAND_WASM_TRAP'
  | 'SAND_WASM_PERMISSION_DENIED'
  | 'SAND_WASM_FUEL_EXHAUSTED'
  | 'SAND_WASM_DISPOSED'
  | 'SAND_WASM_EXPORT_NOT_FOUND'
  | 'SAND_WASM_INSTANTIATION_FAILED';

export interface ErrorCodeInfo {
  readonly name: SandboxErrorCode;
  /** The stable numeric value (sbx_err). */
  readonly value: number;
  readonly message: string;
}

/** name -> name: `ErrorCode.SANDBOX_TIMEOUT === 'SANDBOX_TIMEOUT'`. Frozen. */
export declare const ErrorCode: Readonly<{ [K in SandboxErrorCode]: K }>;
/** Every registered code, ordered by value. Frozen. */
export declare const errorCodes: readonly ErrorCodeInfo[];
export declare function errorCodeInfo(name: string): ErrorCodeInfo | undefined;

/** Thrown (or rejected with) for host-side failures: bad options or policy, bad modules. */
export declare class SandboxError extends Error {
  constructor(code: SandboxErrorCode | string, message?: string);
  readonly name: 'SandboxError';
  readonly code: SandboxErrorCode;
  /** The code's numeric value, undefined for a name outside the registry. */
  readonly value: number | undefined;
}

// ---- policy ---------------------------------------------------------------------------------

export type CapabilityMode = 'allow' | 'deny';

/** The permission policy (docs/policy.md): every field optional, every default denies. */
export interface PermissionPolicy {
  timeoutMs?: number;
  memoryBytes?: number;
  cpuPercent?: number;
  maxOutputBytes?: number;
  pids?: number;
  /** wasm instruction budget per call; 0 = unmetered. */
  fuel?: number;
  env?: Record<string, string>;
  /** "[rw:]HOST[::GUEST]" */
  fs?: string[];
  net?: { loopback?: boolean; outbound?: string[] };
  capabilities?: Record<string, CapabilityMode>;
}

/** A policy with every default filled in, deeply frozen. */
export interface ResolvedPermissionPolicy {
  readonly timeoutMs: number;
  readonly memoryBytes: number;
  readonly cpuPercent: number;
  readonly maxOutputBytes: number;
  readonly pids: number;
  readonly fuel: number;
  readonly env: Readonly<Record<string, string>>;
  readonly fs: readonly string[];
  readonly net: { readonly loopback: boolean; readonly outbound: readonly string[] };
  readonly capabilities: Readonly<Record<string, CapabilityMode>>;
}

/** A policy object, a resolved one, or its JSON text. */
export type PolicyInput = PermissionPolicy | ResolvedPermissionPolicy | string;

/** Validates and resolves; throws SandboxError (SANDBOX_INVALID_OPTIONS) naming the field's path. */
export declare function resolvePermissionPolicy(policy?: PolicyInput): ResolvedPermissionPolicy;
export declare function isResolvedPermissionPolicy(value: unknown): value is ResolvedPermissionPolicy;

// ---- worker and process sandboxes ----------------------------------------------------------

export interface SandboxErrorInfo {
  code: SandboxErrorCode;
  message: string;
  /** JavaScript tiers: the guest's stack (e.stack, as Node prints it), when it threw. */
  stack?: string;
}

export type LimitName = 'timeout' | 'memory' | 'pids' | 'output' | 'fuel' | 'cpu';

/** One run's outcome. A guest failure is ok: false with error set, never a rejection. */
export interface SandboxResult {
  ok: boolean;
  /** The returned value (JSON-decoded); null when none. */
  value: unknown;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  error: SandboxErrorInfo | null;
  durationMs: number;
  backend: 'worker' | 'process' | 'wasm';
}

/** One destination net.outbound denied, as the guest asked for it. */
export interface Denial {
  kind: 'connect' | 'dns';
  /** connect: "ipv4", "ipv6", "unix", ... (the guest's address family); dns: null. */
  family: string | null;
  /** The address, the AF_UNIX path ("@" first when abstract), or the name looked up. */
  host: string;
  /** ipv4/ipv6 connects; else null. */
  port: number | null;
  /** "127.0.0.1:9", "[::1]:9", "unix:/path", or the name. */
  destination: string;
  /** Times the run was denied it. */
  count: number;
}

/** The run's denials: every one counts in total; destinations lists the first 64 distinct. */
export interface Denied {
  total: number;
  /** Some destination is not in destinations. */
  truncated: boolean;
  destinations: Denial[];
}

export interface ProcessResult extends SandboxResult {
  backend: 'process';
  /** The exit status, null when killed or never started. */
  exitCode: number | null;
  signal: number | null;
  limit: LimitName | null;
  /** How the limits were really enforced: "cgroup-v2", "cgroup-v1", "rlimit", "seccomp", ... */
  enforced: string[];
  /** What net.outbound denied (connects, and names the DNS stub answered NXDOMAIN). */
  denied: Denied;
}

export interface RunOptions {
  /** This run's time limit in ms (replaces the policy's timeoutMs). */
  timeout?: number;
  /** Aborting it ends the run with SANDBOX_ABORTED. */
  signal?: AbortSignal;
  /**
   * Gets each chunk of output as the guest writes it (a console.log line, what one read of the
   * jail's pipe got), only bytes within maxOutputBytes, before the promise resolves. What it
   * throws is an uncaught exception, as from an event listener.
   */
  onOutput?: (stream: 'stdout' | 'stderr', chunk: Uint8Array /* a Buffer */) => void;
}

export interface ExecOptions extends RunOptions {
  /** The command's stdin. */
  stdin?: string;
}

export interface SandboxOptions {
  policy?: PolicyInput;
  /** The default time limit of each run in ms (the policy's timeoutMs otherwise). */
  timeout?: number;
}

/** A script for options.preload: its source, or a name (for errors and stacks) and source. */
export type Preload = string | { name: string; source: string };

export interface WorkerSandboxOptions extends SandboxOptions {
  /**
   * Scripts each run sees already evaluated in its fresh realm, before the body, in order:
   * compiled once per process, nothing they do in one run reaches the next. A bare source is
   * named preload-N.js (N from 1). Their errors name them.
   */
  preload?: Preload[];
}

export interface ProcessSandboxOptions extends SandboxOptions {
  /** Runs code under this interpreter ("python3", "node", "sh"); sbx's own JS engine by default. */
  interpreter?: string;
}

declare abstract class Sandbox<R extends SandboxResult> {
  readonly backend: 'worker' | 'process';
  readonly disposed: boolean;
  /** Runs code (a JavaScript function body; `context` is injected). Runs on one sandbox queue. */
  run(code: string, context?: unknown, options?: RunOptions): Promise<R>;
  /** Idempotent. A run in flight is aborted; later runs resolve with SANDBOX_DISPOSED. */
  dispose(): void;
}

/** JavaScript in a fresh engine heap on its own thread, inside this process. */
export declare class WorkerSandbox extends Sandbox<SandboxResult> {
  constructor(options?: WorkerSandboxOptions);
  readonly backend: 'worker';
}

/** Code or a command in a Linux jail (namespaces, seccomp, Landlock, cgroups). */
export declare class ProcessSandbox extends Sandbox<ProcessResult> {
  constructor(options?: ProcessSandboxOptions);
  readonly backend: 'process';
  /** Runs a command; argv[0] is an absolute path or found on PATH inside the jail. */
  exec(argv: readonly string[], options?: ExecOptions): Promise<ProcessResult>;
}

// ---- wasm plugins ---------------------------------------------------------------------------

/** i32, f32 and f64 are numbers; i64 is a BigInt (an integer number is accepted as an argument). */
export type WasmValue = number | bigint;

/**
 * A capability import ("module.name"): called with the guest's arguments; returns (or resolves
 * to) the result, an array for several, nothing for none. A rejection traps the guest call.
 */
export type CapabilityImport = (...args: WasmValue[]) => WasmValue | WasmValue[] | void |
  Promise<WasmValue | WasmValue[] | void>;

export interface WasmSandboxOptions {
  /** Offered capability imports; a call reaches one only when the policy allows its name. */
  imports?: Record<string, CapabilityImport>;
  /** The guest's argv (argv[0] = program name). */
  argv?: string[];
  /** The guest's stdin. */
  stdin?: string | Uint8Array;
}

export interface WasmCallOptions {
  signal?: AbortSignal;
}

export interface WasmResult extends SandboxResult {
  backend: 'wasm';
  /** The first result, null for none. */
  value: WasmValue | null;
  values: WasmValue[];
  exitCode: number | null;
  signal: null;
  limit: LimitName | null;
  /** What net.outbound denied (sock_connect, sock_addr_resolve). */
  denied: Denied;
}

export declare class WasmSandboxHandle {
  private constructor();
  /** Calls an export with typed arguments. Guest failures resolve with ok: false. */
  call(name: string, args?: WasmValue[], options?: WasmCallOptions): Promise<WasmResult>;
  /** Runs a WASI command's _start. */
  run(options?: WasmCallOptions): Promise<WasmResult>;
  /** Ends the call in flight with SANDBOX_ABORTED. */
  abort(): void;
  /** Denials counted so far (WASI and capability imports). */
  readonly deniedCount: number;
  readonly disposed: boolean;
  /** Idempotent; later calls resolve with SAND_WASM_DISPOSED. */
  dispose(): void;
}

/** Instantiates a module under the policy (off the event loop; _initialize may call imports). */
export declare function createWasmSandbox(bytes: Uint8Array | ArrayBuffer, policy?: PolicyInput,
  options?: WasmSandboxOptions): Promise<WasmSandboxHandle>;

// ---- preopens and the outbound gate --------------------------------------------------------

export interface WasiPreopen {
  readonly hostPath: string;
  readonly guestPath: string;
  readonly writable: boolean;
}

export interface PreopenMatch {
  preopen: WasiPreopen;
  index: number;
  /** The path below the preopen, "." for the preopen itself. */
  rest: string;
}

export declare function buildWasiPreopens(policy?: PolicyInput): readonly WasiPreopen[];
export declare function matchPreopen(preopens: readonly WasiPreopen[], guestPath: string): PreopenMatch | null;

export interface OutboundRule {
  readonly host: string;
  /** null for any port ("host:*"). */
  readonly port: number | null;
  readonly wildcard: boolean;
  readonly anyPort: boolean;
}

export declare function buildWasiOutboundAllowlist(policy?: PolicyInput): readonly OutboundRule[];
/** True when the allowlist lets a guest connect to host:port. */
export declare function gateOutboundConnect(allowlist: readonly OutboundRule[], host: string, port: number): boolean;

// ---- testing ---------------------------------------------------------------------------------

export interface ConformanceCase {
  name: string;
  expectAllowed: boolean;
  wasAllowed: boolean;
  passed: boolean;
  detail: string;
}

export interface ConformanceReport {
  ok: boolean;
  passed: number;
  total: number;
  cases: ConformanceCase[];
}

/** Runs libsbx's capability battery under the policy: is every grant enforced? */
export declare function runWasmConformance(policy?: PolicyInput): Promise<ConformanceReport>;

/** True when @opentelemetry/api is installed: runs then emit spans and metrics through it. */
export declare function telemetryEnabled(): boolean;
/** libsbx's version. */
export declare const version: string;
