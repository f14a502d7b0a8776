// tests/integration/es2015_node.js: checks the expectations of tests/integration/es2015/*.js
// against Node itself, so they say what Node does: each body runs as an async function of
// `context`, console.log goes through util.format (as Node prints it), the value through
// JSON.stringify (undefined as null, as sbx returns it). Prints "N passed, M failed".
'use strict';
const fs = require('fs');
const path = require('path');
const util = require('util');
const assert = require('assert');

const AsyncFunction = (async () => {}).constructor;
const dir = path.join(__dirname, 'es2015');

function header(text) {
  const spec = {};
  for (const line of text.split('\n'))
    if (line.startsWith('//! ')) {
      const at = line.indexOf(':');
      spec[line.slice(4, at).trim()] = line.slice(at + 1).trim();
    }
  return spec;
}

// Runs one case; resolves to {value} or {error, message} or {timeout}.
async function run(text, spec) {
  let stdout = '';
  const saved = console.log;
  console.log = (...args) => { stdout += util.format(...args) + '\n'; };
  const timeoutMs = spec.policy ? JSON.parse(spec.policy).timeoutMs || 5000 : 5000;
  let timer;
  try {
    const context = spec.context ? JSON.parse(spec.context) : null;
    const body = new AsyncFunction('context', text);
    const settled = await Promise.race([
      body(context).then((value) => ({ value })),
      new Promise((resolve) => { timer = setTimeout(() => resolve({ timeout: true }), timeoutMs); }),
    ]);
    if (settled.timeout)
      return { error: 'SANDBOX_TIMEOUT', stdout };
    try {
      const json = JSON.stringify(settled.value);
      return { value: json === undefined ? null : JSON.parse(json), stdout };
    } catch (e) {
      return { error: 'SANDBOX_EXECUTION_FAILED', message: 'cannot be encoded as JSON', stdout };
    }
  } catch (e) {
    return { error: 'SANDBOX_EXECUTION_FAILED', message: `${e.name}: ${e.message}`, stdout };
  } finally {
    clearTimeout(timer);
    console.log = saved;
  }
}

function problems(spec, got) {
  const out = [];
  if (spec.error) {
    if (got.error !== spec.error)
      out.push(`error ${got.error}, want ${spec.error}`);
    if (spec.message && !(got.message || '').includes(spec.message))
      out.push(`message ${JSON.stringify(got.message)} lacks ${JSON.stringify(spec.message)}`);
  } else if (got.error) {
    out.push(`failed: ${got.error} ${got.message || ''}`);
  } else {
    try {
      assert.deepStrictEqual(got.value, JSON.parse(spec.value));
    } catch (e) {
      out.push(`value ${JSON.stringify(got.value)}, want ${spec.value}`);
    }
  }
  const want = JSON.parse(spec.stdout || '""');
  if (got.stdout !== want)
    out.push(`stdout ${JSON.stringify(got.stdout)}, want ${JSON.stringify(want)}`);
  return out;
}

(async () => {
  let passed = 0, failed = 0;
  for (const name of fs.readdirSync(dir).filter((f) => f.endsWith('.js')).sort()) {
    const text = fs.readFileSync(path.join(dir, name), 'utf8');
    const spec = header(text);
    const bad = problems(spec, await run(text, spec));
    if (bad.length) {
      failed++;
      console.log(`FAIL ${name}: ${bad.join('; ')}`);
    } else {
      passed++;
      console.log(`ok   ${name}`);
    }
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed || !passed ? 1 : 0;
})();
