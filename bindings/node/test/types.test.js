'use strict';
// index.d.ts is checked with Debian's tsc (node-typescript): the API compiles, misuse does not.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { T } = require('./helpers');

const tsc = ['--noEmit', '--strict', '--target', 'es2020', '--module', 'commonjs', '--lib', 'es2020,dom'];

function compile(file) {
  return spawnSync('tsc', [...tsc, path.join(__dirname, file)], { encoding: 'utf8' });
}

const hasTsc = spawnSync('tsc', ['--version']).status === 0;

test('types: the API as used compiles under --strict', { ...T, skip: !hasTsc && 'tsc not installed' }, () => {
  const r = compile('types.ts');
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

test('types: misuse does not compile (4 errors, one per line)', { ...T, skip: !hasTsc && 'tsc not installed' }, () => {
  const r = compile('types-bad.ts');
  assert.notEqual(r.status, 0);
  const lines = new Set([...r.stdout.matchAll(/types-bad\.ts\((\d+),/g)].map((m) => m[1]));
  assert.deepEqual([...lines].sort(), ['3', '4', '5', '6', '7'], r.stdout);
});
