export { ProcessSandbox, ProcessSandboxOptions, ProcessResult, RunOptions, ExecOptions } from '../index';
