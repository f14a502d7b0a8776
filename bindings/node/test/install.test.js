'use strict';
// The package as users get it: libsbx installed into a scratch prefix (make install from a copy
// of the build state, as tests/integration/embed.sh does), `npm pack`, then `npm install
// --offline` of the tarball into a fresh project, whose install step builds sbx.node with cc
// against that libsbx.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..', '..', '..');
const lib = process.env.SBX_LIBRARY;

function sh(cmd, args, opts) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 150000, ...opts });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

test('install: npm pack + npm install --offline against an installed libsbx', {
  timeout: 240000, skip: !lib && 'SBX_LIBRARY not set (run through make test)',
}, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-npm-'));
  try {
    const prefix = path.join(dir, 'prefix');
    const build = path.basename(path.dirname(lib));
    const san = process.env.BIND_ASAN ? '1' : '0';
    // From a copy of the build state: an install at another PREFIX rebuilds libsbx, never in the
    // tree the other suites are running from (scripts/install-copy.sh).
    sh('sh', [path.join(ROOT, 'scripts', 'install-copy.sh'), path.join(ROOT, build), path.join(dir, 'build'),
      prefix, `SAN=${san}`]);
    const tgz = sh('npm', ['pack', '--silent', '--pack-destination', dir, path.join(__dirname, '..')]).trim();
    const app = path.join(dir, 'app');
    fs.mkdirSync(app);
    fs.writeFileSync(path.join(app, 'package.json'), '{"name": "app", "version": "1.0.0", "private": true}');
    const env = { ...process.env, PKG_CONFIG_PATH: path.join(prefix, 'lib', 'pkgconfig') };
    delete env.SBX_NODE_ADDON;
    sh('npm', ['install', '--offline', '--no-audit', '--no-fund', path.join(dir, tgz)], { cwd: app, env });
    const addon = path.join(app, 'node_modules', '@sbx', 'node', 'build', 'sbx.node');
    assert.ok(fs.existsSync(addon), 'the install step built the addon');
    const out = sh(process.execPath, ['-e',
      "const s = require('@sbx/node'); s.resolvePermissionPolicy({});" +
      "new s.WorkerSandbox().run('return context.a + 1', { a: 41 }).then((r) => console.log(r.value));"],
    { cwd: app, env });
    assert.equal(out.trim(), '42');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
