// bench/wasm-gc/node_run.js MODULE EXPORT N: runs the export once with N and prints its CPU
// time in ms (process.cpuUsage, compile included as in sbx's run).
const fs = require('fs');
const c0 = process.cpuUsage();
const inst = new WebAssembly.Instance(new WebAssembly.Module(fs.readFileSync(process.argv[2])), {});
const r = inst.exports[process.argv[3]](+process.argv[4]);
const c = process.cpuUsage(c0);
console.log(((c.user + c.system) / 1000).toFixed(1), r);
