// tests/platform/node_run.js: runs a snippet in Node 20 the way `sbx eval` runs it: the file's
// text is the body of an async function (context) (sbx compiles it sync unless it awaits: the
// same results for these snippets), console output goes to stdout/stderr, and the settled
// value, or the thrown error, is written as JSON to the file named by argv[4]. A run ends when
// its value settles (sbx drops timers still pending then), so this exits at once.
// usage: node node_run.js SNIPPET CONTEXT_JSON_FILE|- OUT_FILE
'use strict';
const fs = require('fs');
const [, , snippet, contextFile, outFile] = process.argv;
const code = fs.readFileSync(snippet, 'utf8');
const context = contextFile === '-' ? null : JSON.parse(fs.readFileSync(contextFile, 'utf8'));
const AsyncFunction = (async function () {}).constructor;
function finish(result) {
  fs.writeFileSync(outFile, JSON.stringify(result));
  process.stdout.write('', () => process.exit(0));
}
let fn;
try {
  fn = new AsyncFunction('context', code);
} catch (e) {
  finish({ ok: false, error: String(e) });
}
fn(context).then(
  (value) => finish({ ok: true, value: value === undefined ? null : value }),
  (e) => finish({ ok: false, error: e instanceof Error ? e.name + ': ' + e.message : String(e) }));
process.on('uncaughtException', (e) => finish({ ok: false, error: e.name + ': ' + e.message }));
