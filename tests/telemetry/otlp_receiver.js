#!/usr/bin/env node
// An OTLP/HTTP receiver for tests: listens on 127.0.0.1 on an ephemeral port, prints the port on
// stdout, appends one JSON line per request ({path, method, headers, t, proto, body}) to --out,
// and exits 0 after --count requests (plus --linger-ms), on SIGTERM, or 3 on --timeout-ms.
// A protobuf body (application/x-protobuf) is decoded by hand (a wire-format reader and the
// OTLP field tables below) into the shape of OTLP/JSON, so tests check both encodings alike;
// a field the tables do not know is listed in body._unknown.
// Answers: --status (default 200), or per path a scripted sequence, the last step repeating:
//   --script '/v1/traces=503@1,200;/v1/metrics=400'
// where a step is STATUS, STATUS@RETRY_AFTER_S, hang (never answer), drip (a 200 whose body
// comes one byte per 100 ms, never ending) or partial (200 with a partialSuccess: 2 rejected).
'use strict';
const http = require('http');
const fs = require('fs');

function arg(name, dflt) {
    const i = process.argv.indexOf('--' + name);
    return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1] : dflt;
}

const out = arg('out', null);
const count = Number(arg('count', '2'));
const status = arg('status', '200');
const timeoutMs = Number(arg('timeout-ms', '10000'));
const lingerMs = Number(arg('linger-ms', '0'));
if (!out) {
    process.stderr.write('usage: otlp_receiver.js --out FILE [--count N] [--status S] ' +
        '[--script PATH=STEP,...;...] [--linger-ms L] [--timeout-ms T]\n');
    process.exit(2);
}
const scripts = {};
for (const part of arg('script', '').split(';').filter(Boolean)) {
    const eq = part.indexOf('=');
    scripts[part.slice(0, eq)] = part.slice(eq + 1).split(',');
}
const started = Date.now();
fs.writeFileSync(out, '');

// ---- protobuf ----
// Each message: field number -> [name, type, repeated]. Types: a message name, or string, hex
// (bytes as lower-case hex), bool, enum, uint32, int64, fixed64, sfixed64, double, fixed32.
const KV = ['attributes', 'KeyValue', true];
const T = {
    TracesRequest: { 1: ['resourceSpans', 'ResourceSpans', true] },
    MetricsRequest: { 1: ['resourceMetrics', 'ResourceMetrics', true] },
    ResourceSpans: { 1: ['resource', 'Resource'], 2: ['scopeSpans', 'ScopeSpans', true], 3: ['schemaUrl', 'string'] },
    ResourceMetrics: { 1: ['resource', 'Resource'], 2: ['scopeMetrics', 'ScopeMetrics', true], 3: ['schemaUrl', 'string'] },
    Resource: { 1: KV, 2: ['droppedAttributesCount', 'uint32'] },
    ScopeSpans: { 1: ['scope', 'Scope'], 2: ['spans', 'Span', true], 3: ['schemaUrl', 'string'] },
    ScopeMetrics: { 1: ['scope', 'Scope'], 2: ['metrics', 'Metric', true], 3: ['schemaUrl', 'string'] },
    Scope: { 1: ['name', 'string'], 2: ['version', 'string'], 3: KV },
    Span: {
        1: ['traceId', 'hex'], 2: ['spanId', 'hex'], 3: ['traceState', 'string'], 4: ['parentSpanId', 'hex'],
        5: ['name', 'string'], 6: ['kind', 'enum'], 7: ['startTimeUnixNano', 'fixed64'],
        8: ['endTimeUnixNano', 'fixed64'], 9: KV, 10: ['droppedAttributesCount', 'uint32'],
        15: ['status', 'Status'], 16: ['flags', 'fixed32'],
    },
    Status: { 2: ['message', 'string'], 3: ['code', 'enum'] },
    KeyValue: { 1: ['key', 'string'], 2: ['value', 'AnyValue'] },
    AnyValue: { 1: ['stringValue', 'string'], 2: ['boolValue', 'bool'], 3: ['intValue', 'int64'], 4: ['doubleValue', 'double'] },
    Metric: { 1: ['name', 'string'], 2: ['description', 'string'], 3: ['unit', 'string'], 5: ['gauge', 'Sum'], 7: ['sum', 'Sum'], 9: ['histogram', 'Histogram'] },
    Sum: { 1: ['dataPoints', 'NumberDataPoint', true], 2: ['aggregationTemporality', 'enum'], 3: ['isMonotonic', 'bool'] },
    Histogram: { 1: ['dataPoints', 'HistogramDataPoint', true], 2: ['aggregationTemporality', 'enum'] },
    NumberDataPoint: {
        7: KV, 2: ['startTimeUnixNano', 'fixed64'], 3: ['timeUnixNano', 'fixed64'],
        4: ['asDouble', 'double'], 6: ['asInt', 'sfixed64'], 8: ['flags', 'uint32'],
    },
    HistogramDataPoint: {
        9: KV, 2: ['startTimeUnixNano', 'fixed64'], 3: ['timeUnixNano', 'fixed64'], 4: ['count', 'fixed64'],
        5: ['sum', 'double'], 6: ['bucketCounts', 'fixed64', true], 7: ['explicitBounds', 'double', true],
        10: ['flags', 'uint32'], 11: ['min', 'double'], 12: ['max', 'double'],
    },
};
const WIRE = { string: 2, hex: 2, bool: 0, enum: 0, uint32: 0, int64: 0, fixed64: 1, sfixed64: 1, double: 1, fixed32: 5 };

class Reader {
    constructor(buf) { this.buf = buf; this.pos = 0; }
    varint() {
        let v = 0n, shift = 0n;
        for (;;) {
            if (this.pos >= this.buf.length || shift > 63n) throw new Error('bad varint');
            const c = this.buf[this.pos++];
            v |= BigInt(c & 0x7f) << shift;
            if (!(c & 0x80)) return v;
            shift += 7n;
        }
    }
    take(n) {
        if (this.pos + n > this.buf.length) throw new Error('field past the end');
        const b = this.buf.subarray(this.pos, this.pos + n);
        this.pos += n;
        return b;
    }
}

function scalar(type, r, wire) {
    switch (type) {
    case 'string': return Buffer.from(r.take(Number(r.varint()))).toString('utf8');
    case 'hex': return Buffer.from(r.take(Number(r.varint()))).toString('hex');
    case 'bool': return r.varint() !== 0n;
    case 'enum': case 'uint32': return Number(r.varint());
    case 'int64': return BigInt.asIntN(64, r.varint()).toString();
    case 'fixed64': return r.take(8).readBigUInt64LE().toString();
    case 'sfixed64': return r.take(8).readBigInt64LE().toString();
    case 'double': return r.take(8).readDoubleLE();
    case 'fixed32': return r.take(4).readUInt32LE();
    default: throw new Error(`type ${type} (wire ${wire})`);
    }
}

function skip(r, wire) {
    if (wire === 0) r.varint();
    else if (wire === 1) r.take(8);
    else if (wire === 2) r.take(Number(r.varint()));
    else if (wire === 5) r.take(4);
    else throw new Error('bad wire type ' + wire);
}

function decode(buf, msg, unknown) {
    const r = new Reader(buf);
    const obj = {};
    while (r.pos < buf.length) {
        const key = Number(r.varint());
        const field = key >>> 3, wire = key & 7;
        const spec = T[msg][field];
        if (!spec) {
            unknown.push(`${msg}.${field}`);
            skip(r, wire);
            continue;
        }
        const [name, type, repeated] = spec;
        const isMsg = T[type] !== undefined;
        let values;
        if (isMsg) {
            if (wire !== 2) throw new Error(`${msg}.${name}: wire ${wire}`);
            values = [decode(r.take(Number(r.varint())), type, unknown)];
        } else if (repeated && wire === 2 && WIRE[type] !== 2) { // packed
            const sub = new Reader(r.take(Number(r.varint())));
            values = [];
            while (sub.pos < sub.buf.length) values.push(scalar(type, sub, WIRE[type]));
        } else {
            if (wire !== WIRE[type]) throw new Error(`${msg}.${name}: wire ${wire}, want ${WIRE[type]}`);
            values = [scalar(type, r, wire)];
        }
        if (repeated) obj[name] = (obj[name] || []).concat(values);
        else obj[name] = values[0];
    }
    return obj;
}

function parseBody(raw, isProto, path) {
    try {
        if (!isProto) return JSON.parse(raw.toString('utf8'));
        const unknown = [];
        const body = decode(raw, path.includes('trace') ? 'TracesRequest' : 'MetricsRequest', unknown);
        if (unknown.length) body._unknown = unknown;
        return body;
    } catch (e) {
        return { parseError: String(e), raw: raw.toString(isProto ? 'hex' : 'utf8').slice(0, 2000) };
    }
}

// ---- answers ----
function partialBody(isProto, path) {
    const msg = 'two were bad';
    if (!isProto) {
        const key = path.includes('trace') ? 'rejectedSpans' : 'rejectedDataPoints';
        return JSON.stringify({ partialSuccess: { [key]: '2', errorMessage: msg } });
    }
    const text = Buffer.from(msg);
    const inner = Buffer.concat([Buffer.from([0x08, 2, 0x12, text.length]), text]);
    return Buffer.concat([Buffer.from([0x0a, inner.length]), inner]);
}

const steps = {};
function nextStep(path) {
    const s = scripts[path];
    if (!s) return status;
    const i = steps[path] || 0;
    steps[path] = i + 1;
    return s[Math.min(i, s.length - 1)];
}

let seen = 0;
function done() {
    setTimeout(() => process.exit(0), lingerMs);
}

function answer(req, res, step, isProto) {
    const type = isProto ? 'application/x-protobuf' : 'application/json';
    if (step === 'hang') return;
    if (step === 'drip') {
        res.writeHead(200, { 'Content-Type': type, 'Content-Length': '1000000' });
        const t = setInterval(() => res.write(' '), 100);
        res.on('close', () => clearInterval(t));
        return;
    }
    const [code, retryAfter] = step.split('@');
    const headers = { 'Content-Type': type, Connection: 'close' };
    if (retryAfter !== undefined) headers['Retry-After'] = retryAfter;
    res.writeHead(code === 'partial' ? 200 : Number(code), headers);
    res.end(code === 'partial' ? partialBody(isProto, req.url) : isProto ? '' : '{}');
}

const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
        const isProto = (req.headers['content-type'] || '') === 'application/x-protobuf';
        const raw = Buffer.concat(chunks);
        const rec = { path: req.url, method: req.method, headers: req.headers, t: Date.now() - started,
            proto: isProto, body: parseBody(raw, isProto, req.url) };
        fs.appendFileSync(out, JSON.stringify(rec) + '\n');
        const step = nextStep(req.url);
        if (++seen === count) {
            if (step === 'hang' || step === 'drip') done();
            else res.on('finish', done);
        }
        answer(req, res, step, isProto);
    });
});

server.listen(0, '127.0.0.1', () => {
    process.stdout.write(server.address().port + '\n');
});
process.on('SIGTERM', () => process.exit(0));

setTimeout(() => {
    process.stderr.write(`otlp_receiver: timeout after ${seen} of ${count} requests\n`);
    process.exit(3);
}, timeoutMs).unref();
