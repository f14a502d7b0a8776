export { WorkerSandbox, WorkerSandboxOptions, SandboxResult, RunOptions } from '../index';
