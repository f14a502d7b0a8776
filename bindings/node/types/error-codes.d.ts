export { SandboxError, ErrorCode, SandboxErrorCode, errorCodes, errorCodeInfo, ErrorCodeInfo } from '../index';
