// bench/wasm/wasi/node_wasi.mjs: runs a WASI preview1 command under node's V8:
// node --no-warnings node_wasi.mjs FILE.wasm [ARGS...]
import { readFile } from 'node:fs/promises';
import { WASI } from 'node:wasi';
import { argv, exit } from 'node:process';

const wasi = new WASI({ version: 'preview1', args: argv.slice(2), env: {}, returnOnExit: true });
const mod = await WebAssembly.compile(await readFile(argv[2]));
const inst = await WebAssembly.instantiate(mod, wasi.getImportObject());
exit(wasi.start(inst));
