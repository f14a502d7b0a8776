#!/usr/bin/env node
// A minimal OTLP/HTTP receiver for tests: listens on 127.0.0.1 on an ephemeral port, prints the
// port on stdout, appends one JSON line per request ({path, method, headers, body}) to --out,
// answers --status (default 200), and exits 0 after --count requests or 3 on --timeout-ms.
'use strict';
const http = require('http');
const fs = require('fs');

function arg(name, dflt) {
    const i = process.argv.indexOf('--' + name);
    return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1] : dflt;
}

const out = arg('out', null);
const count = Number(arg('count', '2'));
const status = Number(arg('status', '200'));
const timeoutMs = Number(arg('timeout-ms', '10000'));
if (!out) {
    process.stderr.write('usage: otlp_receiver.js --out FILE [--count N] [--status S] [--timeout-ms T]\n');
    process.exit(2);
}
fs.writeFileSync(out, '');

let seen = 0;
const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        let body;
        try {
            body = JSON.parse(raw);
        } catch (e) {
            body = { parseError: String(e), raw: raw.slice(0, 2000) };
        }
        const rec = { path: req.url, method: req.method, headers: req.headers, body };
        fs.appendFileSync(out, JSON.stringify(rec) + '\n');
        const last = ++seen >= count;
        res.on('finish', () => {
            if (last) process.exit(0);
        });
        res.writeHead(status, { 'Content-Type': 'application/json', Connection: 'close' });
        res.end('{}');
    });
});

server.listen(0, '127.0.0.1', () => {
    process.stdout.write(server.address().port + '\n');
});

setTimeout(() => {
    process.stderr.write(`otlp_receiver: timeout after ${seen} of ${count} requests\n`);
    process.exit(3);
}, timeoutMs).unref();
