// tests/wasm/regress3/wast3json.mjs: converts the engine's 3.0 regression scripts (*.wast here)
// to the wast2json layout sbx-spectest runs (json/<name>.json + json/<name>.<n>.wasm). wabt's
// wast2json (1.0.32) knows neither typed references, try_table nor GC, so the modules are encoded
// by wasm-tools' text parser as the npm package @bytecodealliance/jco ships it (the encoder the
// 3.0 spec suite in ../shared/wasm3-testsuite was made with). The outputs are committed: tests
// need neither node nor the package; `make regress3-json` (mk/spectest.mk) runs this script after
// `npm ci` in this folder when a .wast changes.
//
// The subset of the script format read: (module $name? ...), (register "name" $m?),
// (assert_return (invoke $m? "f" args...) results...), (assert_trap (invoke ...) "text"),
// (assert_exception (invoke ...)), (assert_invalid (module ...) "text"), (invoke ...). Values:
// i32/i64 (decimal or 0x hex, negative allowed), f32/f64 (decimal, inf, nan, nan:canonical,
// nan:arithmetic), ref.null <heaptype>, ref.extern N, and the result-only (ref.func),
// (ref.extern), (ref.struct), (ref.array), (ref.i31), (ref.eq), (ref.any), (ref.null).
import { readFileSync, writeFileSync, mkdirSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from '@bytecodealliance/jco';

const here = dirname(fileURLToPath(import.meta.url));

// --- s-expressions: each node { list: [...], start, end } or { atom, start, end } ----------------
function tokenize(src) {
    const out = [];
    let i = 0;
    while (i < src.length) {
        const c = src[i];
        if (c === ';' && src[i + 1] === ';') {
            while (i < src.length && src[i] !== '\n') i++;
        } else if (c === '(' && src[i + 1] === ';') {
            let depth = 1;
            i += 2;
            while (i < src.length && depth) {
                if (src[i] === '(' && src[i + 1] === ';') depth++, i += 2;
                else if (src[i] === ';' && src[i + 1] === ')') depth--, i += 2;
                else i++;
            }
        } else if (c === '(' || c === ')') {
            out.push({ tok: c, start: i, end: i + 1 });
            i++;
        } else if (/\s/.test(c)) {
            i++;
        } else if (c === '"') {
            let j = i + 1;
            while (j < src.length && src[j] !== '"') j += src[j] === '\\' ? 2 : 1;
            out.push({ tok: src.slice(i, j + 1), start: i, end: j + 1 });
            i = j + 1;
        } else {
            let j = i;
            while (j < src.length && !/[\s()";]/.test(src[j])) j++;
            out.push({ tok: src.slice(i, j), start: i, end: j });
            i = j;
        }
    }
    return out;
}

function read(src) {
    const toks = tokenize(src);
    let k = 0;
    function node() {
        const t = toks[k++];
        if (t.tok !== '(') return { atom: t.tok, start: t.start, end: t.end };
        const list = [];
        while (toks[k].tok !== ')') list.push(node());
        const end = toks[k++].end;
        return { list, start: t.start, end };
    }
    const forms = [];
    while (k < toks.length) forms.push(node());
    return forms;
}

const head = (n) => (n.list && n.list[0] && n.list[0].atom) || '';
const unquote = (s) => JSON.parse(s.replace(/\\([0-9a-fA-F]{2})/g, '\\u00$1'));

// --- values -----------------------------------------------------------------------------------
function intBits(text, bits) {
    let s = text.replace(/_/g, '');
    let neg = false;
    if (s[0] === '-' || s[0] === '+') neg = s[0] === '-', s = s.slice(1);
    let v = BigInt(s);
    const mod = 1n << BigInt(bits);
    if (neg) v = (mod - v) % mod;
    return (v % mod).toString();
}

function floatBits(text, bits) {
    if (text === 'nan:canonical' || text === 'nan:arithmetic') return text;
    const s = text.replace(/_/g, '');
    const neg = s[0] === '-';
    const body = s.replace(/^[+-]/, '');
    let x;
    if (body === 'inf') x = Infinity;
    else if (body === 'nan') x = NaN;
    else x = Number(body);
    if (neg) x = -x;
    const buf = new DataView(new ArrayBuffer(8));
    if (bits === 32) {
        buf.setFloat32(0, x, true);
        return buf.getUint32(0, true).toString();
    }
    buf.setFloat64(0, x, true);
    return buf.getBigUint64(0, true).toString();
}

const refTypes = {
    func: 'funcref', extern: 'externref', any: 'anyref', eq: 'eqref', struct: 'structref',
    array: 'arrayref', i31: 'i31ref', exn: 'exnref', none: 'nullref', nofunc: 'nullfuncref',
    noextern: 'nullexternref', noexn: 'nullexnref',
};

function value(n, isResult) {
    const h = head(n), arg = n.list[1] && n.list[1].atom;
    switch (h) {
    case 'i32.const': return { type: 'i32', value: intBits(arg, 32) };
    case 'i64.const': return { type: 'i64', value: intBits(arg, 64) };
    case 'f32.const': return { type: 'f32', value: floatBits(arg, 32) };
    case 'f64.const': return { type: 'f64', value: floatBits(arg, 64) };
    case 'ref.null':
        if (!arg) return { type: 'refnull' };
        if (!refTypes[arg]) return { type: 'refnull' }; // a concrete type: any null
        return { type: refTypes[arg], value: 'null' };
    case 'ref.extern':
        return arg ? { type: 'externref', value: arg } : { type: 'externref' };
    default:
        if (isResult && h.startsWith('ref.') && refTypes[h.slice(4)]) return { type: refTypes[h.slice(4)] };
        throw new Error(`unsupported value ${h}`);
    }
}

// --- the script ---------------------------------------------------------------------------------
async function convert(path, outDir) {
    const src = readFileSync(path, 'utf8');
    const name = basename(path, '.wast');
    const commands = [];
    let n = 0;
    const line = (node) => src.slice(0, node.start).split('\n').length;
    async function encode(mod) {
        const file = `${name}.${n++}.wasm`;
        writeFileSync(join(outDir, file), await parse(src.slice(mod.start, mod.end)));
        return file;
    }
    function action(inv) {
        let i = 1, module;
        if (inv.list[1].atom && inv.list[1].atom.startsWith('$')) module = inv.list[i++].atom;
        const field = unquote(inv.list[i++].atom);
        const args = inv.list.slice(i).map((a) => value(a, false));
        const a = { type: 'invoke', field, args };
        if (module) a.module = module;
        return a;
    }
    for (const f of read(src)) {
        const h = head(f), l = line(f);
        if (h === 'module') {
            const c = { type: 'module', line: l, filename: await encode(f) };
            if (f.list[1] && f.list[1].atom && f.list[1].atom.startsWith('$')) c.name = f.list[1].atom;
            commands.push(c);
        } else if (h === 'register') {
            const c = { type: 'register', line: l, as: unquote(f.list[1].atom) };
            if (f.list[2]) c.name = f.list[2].atom;
            commands.push(c);
        } else if (h === 'invoke') {
            commands.push({ type: 'action', line: l, action: action(f), expected: [] });
        } else if (h === 'assert_return') {
            commands.push({ type: 'assert_return', line: l, action: action(f.list[1]),
                            expected: f.list.slice(2).map((r) => value(r, true)) });
        } else if (h === 'assert_trap') {
            commands.push({ type: 'assert_trap', line: l, action: action(f.list[1]),
                            text: unquote(f.list[2].atom) });
        } else if (h === 'assert_exception') {
            commands.push({ type: 'assert_exception', line: l, action: action(f.list[1]) });
        } else if (h === 'assert_invalid') {
            commands.push({ type: 'assert_invalid', line: l, filename: await encode(f.list[1]),
                            text: unquote(f.list[2].atom), module_type: 'binary' });
        } else {
            throw new Error(`${path}:${l}: unsupported command ${h}`);
        }
    }
    const body = commands.map((c) => ' ' + JSON.stringify(c)).join(',\n');
    writeFileSync(join(outDir, `${name}.json`),
                  `{"source_filename": "${name}.wast",\n "commands": [\n${body}]}\n`);
}

const outDir = join(here, 'json');
mkdirSync(outDir, { recursive: true });
const files = process.argv.length > 2 ? process.argv.slice(2)
    : readdirSync(here).filter((f) => f.endsWith('.wast')).map((f) => join(here, f));
for (const f of files) await convert(f, outDir);
