export { runWasmConformance, ConformanceReport, ConformanceCase } from '../index';
