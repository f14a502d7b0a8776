// Compiled by types.test.js with tsc --noEmit --strict: index.d.ts and the subpath types
// describe the API the tests exercise (a wrong use below must fail to compile: see there).
import {
  WorkerSandbox, ProcessSandbox, SandboxError, ErrorCode, errorCodes, resolvePermissionPolicy,
  createWasmSandbox, buildWasiPreopens, matchPreopen, buildWasiOutboundAllowlist,
  gateOutboundConnect, runWasmConformance, SandboxResult, ProcessResult, WasmResult,
  ResolvedPermissionPolicy, SandboxErrorCode,
} from '..';
import { createWasmSandbox as cws } from '../types/sandbox';
import { WorkerSandbox as WS } from '../types/worker';
import { ProcessSandbox as PS } from '../types/process';
import { matchPreopen as mp } from '../types/preopens';
import { gateOutboundConnect as goc } from '../types/outbound';
import { SandboxError as SE } from '../types/error-codes';
import { runWasmConformance as rwc } from '../types/testing';
import { resolvePermissionPolicy as rpp } from '../types/policy';
import { enabled } from '../types/otel';

async function main(): Promise<void> {
  const w = new WorkerSandbox({ policy: { timeoutMs: 100 }, timeout: 50, preload: ['var a = 1;', { name: 'b.js', source: 'var b;' }] });
  const r: SandboxResult = await w.run('return 1', { a: 1 }, { timeout: 10, signal: new AbortController().signal });
  const code: SandboxErrorCode | undefined = r.error?.code;
  w.dispose();
  const p = new ProcessSandbox({ interpreter: 'python3' });
  const pr: ProcessResult = await p.exec(['/bin/true'], { stdin: 'x' });
  const exit: number | null = pr.exitCode;
  const firstDenied: string | undefined = pr.denied.destinations[0]?.destination;
  const deniedTotal: number = pr.denied.total;
  const pol: ResolvedPermissionPolicy = resolvePermissionPolicy({ fs: ['/x'], net: { outbound: ['a:1'] } });
  const n: number = pol.timeoutMs;
  const h = await createWasmSandbox(new Uint8Array(8), pol, {
    imports: { 'host.log': (x) => { void x; }, 'host.twice': async (x) => Number(x) * 2 },
    argv: ['a'], stdin: 'in',
  });
  const wr: WasmResult = await h.call('add', [1, 2n]);
  const v: number | bigint | null = wr.value;
  const denied: number = h.deniedCount;
  h.abort();
  h.dispose();
  const m = matchPreopen(buildWasiPreopens(pol), '/x/y');
  const rest: string | undefined = m?.rest;
  const ok: boolean = gateOutboundConnect(buildWasiOutboundAllowlist(pol), 'a', 1);
  const rep = await runWasmConformance(pol);
  const passed: boolean = rep.cases[0].passed;
  const e = new SandboxError(ErrorCode.SANDBOX_TIMEOUT, 'x');
  const val: number | undefined = e.value;
  void [code, exit, firstDenied, deniedTotal, n, v, denied, rest, ok, passed, val, errorCodes[0].value, cws, WS, PS, mp, goc, SE, rwc, rpp, enabled()];
}
void main;
