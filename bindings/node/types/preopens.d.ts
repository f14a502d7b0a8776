export { buildWasiPreopens, matchPreopen, WasiPreopen, PreopenMatch } from '../index';
