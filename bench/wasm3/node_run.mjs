// bench/wasm3/node_run.mjs MODULE N: instantiates MODULE (no imports) with node's own
// WebAssembly and calls its export run(N), as `sbx wasm --invoke run MODULE N` does.
import { readFileSync } from 'node:fs';

const [file, n] = process.argv.slice(2);
const { instance } = await WebAssembly.instantiate(readFileSync(file));
console.log(instance.exports.run(Number(n)));
