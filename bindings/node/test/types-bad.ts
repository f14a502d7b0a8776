// Must NOT compile (types.test.js checks that tsc rejects each line): the types are not `any`.
import { WorkerSandbox, createWasmSandbox, gateOutboundConnect } from '..';
new WorkerSandbox({ polcy: {} });
new WorkerSandbox().run(42);
gateOutboundConnect([], 'host', '443');
void createWasmSandbox(new Uint8Array(1), {}, { imports: { 'host.log': 'not a function' } });
new WorkerSandbox({ preload: [{ source: 'var a;' }] });
