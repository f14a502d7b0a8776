export { createWasmSandbox, WasmSandboxHandle, WasmSandboxOptions, WasmCallOptions, WasmResult, WasmValue, CapabilityImport } from '../index';
