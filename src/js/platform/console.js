// src/js/platform/console.js: console.table, dir, time/timeEnd/timeLog, count/countReset,
// assert and trace, printed as Node 20 prints them (its console and cli_table, read for their
// output format). Values print through the console's own inspector (natives.inspect); table
// cells use a shallow form of it (depth 0, three array items), as Node's table does. Node's
// process warnings ("(node:PID) Warning: ...") print here as "Warning: ..." on stderr.
(function (natives) {
'use strict';
const inspect = natives.inspect;
const hasOwn = Object.prototype.hasOwnProperty, ReflectApply = Reflect.apply;

function out(text) { natives.write(false, text + '\n'); }
function err(text) { natives.write(true, text + '\n'); }

// The line console.log would print for these arguments.
function format(args) {
  let line = '';
  for (let i = 0; i < args.length; i++) {
    if (i) line += ' ';
    line += typeof args[i] === 'string' ? args[i] : inspect(args[i]);
  }
  return line;
}

const quote = natives.util().quote;

// util.inspect(v) as console.dir prints it: strings quoted, the rest as console.log.
function show(v) { return typeof v === 'string' ? quote(v) : inspect(v); }

function isPlain(v) {
  if (v === null || typeof v !== 'object') return false;
  const p = Object.getPrototypeOf(v);
  return p === null || p === Object.prototype;
}

// A table cell: util.inspect with depth 0 (-1 for objects of more than two keys), at most three
// array items, no line breaks.
function cell(v, level) {
  if (v === null || (typeof v !== 'object' && typeof v !== 'function')) return show(v);
  if (typeof v === 'function') return inspect(v);
  const isArr = Array.isArray(v);
  const depth = !isArr && Object.keys(v).length > 2 ? -1 : 0;
  if (level > depth) return isArr ? '[Array]' : isPlain(v) ? '[Object]' : '[' + (v.constructor && v.constructor.name || 'Object') + ']';
  if (isArr) {
    const items = [];
    for (let i = 0; i < v.length && i < 3; i++) items.push(cell(v[i], level + 1));
    const more = v.length - 3;
    if (more > 0) items.push('... ' + more + ' more item' + (more > 1 ? 's' : ''));
    return items.length ? '[ ' + items.join(', ') + ' ]' : '[]';
  }
  if (!isPlain(v)) return inspect(v).replace(/\n\s*/g, ' ');
  const keys = Object.keys(v);
  if (!keys.length) return '{}';
  const parts = keys.map((k) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : quote(k)) + ': ' + cell(v[k], level + 1));
  return '{ ' + parts.join(', ') + ' }';
}

// The columns a terminal gives a string: East Asian wide and emoji take two, marks none.
function width(s) {
  let w = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0);
    if (c < 32 || (c >= 0x7F && c < 0xA0) || (c >= 0x300 && c <= 0x36F) || c === 0x200B ||
        (c >= 0xFE00 && c <= 0xFE0F)) continue;
    const wide = (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0xA4CF && c !== 0x303F) ||
      (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFE30 && c <= 0xFE4F) ||
      (c >= 0xFF00 && c <= 0xFF60) || (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x1F300 && c <= 0x1F64F) ||
      (c >= 0x1F900 && c <= 0x1F9FF) || (c >= 0x20000 && c <= 0x3FFFD);
    w += wide ? 2 : 1;
  }
  return w;
}

function renderRow(row, widths) {
  let line = '│ ';
  for (let i = 0; i < row.length; i++) {
    line += row[i] + ' '.repeat(widths[i] - width(row[i]));
    if (i !== row.length - 1) line += ' │ ';
  }
  return line + ' │';
}

function renderTable(head, columns) {
  const widths = head.map(width);
  const longest = Math.max(...columns.map((c) => c.length));
  const rows = [];
  for (let i = 0; i < head.length; i++) {
    for (let j = 0; j < longest; j++) {
      if (rows[j] === undefined) rows[j] = [];
      const v = rows[j][i] = hasOwn.call(columns[i], j) ? columns[i][j] : '';
      widths[i] = Math.max(widths[i] || 0, width(v));
    }
  }
  const divider = widths.map((w) => '─'.repeat(w + 2));
  let text = '┌' + divider.join('┬') + '┐\n' + renderRow(head, widths) + '\n' +
    '├' + divider.join('┼') + '┤\n';
  for (const row of rows) text += renderRow(row, widths) + '\n';
  return text + '└' + divider.join('┴') + '┘';
}

function table(data, properties) {
  if (properties !== undefined && !Array.isArray(properties)) {
    const e = new TypeError('The "properties" argument must be an instance of Array.');
    e.code = 'ERR_INVALID_ARG_TYPE';
    throw e;
  }
  if (data === null || typeof data !== 'object') return out(format([data]));
  const indexes = (n) => Array.from({ length: n }, (_, i) => cell(i, 0));
  if (data instanceof Map) {
    const keys = [], values = [];
    for (const [k, v] of data) { keys.push(cell(k, 0)); values.push(cell(v, 0)); }
    return out(renderTable(['(iteration index)', 'Key', 'Values'], [indexes(keys.length), keys, values]));
  }
  if (data instanceof Set) {
    const values = [];
    for (const v of data) values.push(cell(v, 0));
    return out(renderTable(['(iteration index)', 'Values'], [indexes(values.length), values]));
  }
  const map = Object.create(null), plain = [];
  let hasPrimitives = false;
  const indexKeys = Object.keys(data);
  for (let i = 0; i < indexKeys.length; i++) {
    const item = data[indexKeys[i]];
    const primitive = item === null || (typeof item !== 'function' && typeof item !== 'object');
    if (properties === undefined && primitive) {
      hasPrimitives = true;
      plain[i] = cell(item, 0);
    } else {
      for (const key of properties || Object.keys(item)) {
        if (!map[key]) map[key] = [];
        map[key][i] = (primitive && properties) || !hasOwn.call(item, key) ? '' : cell(item[key], 0);
      }
    }
  }
  const head = Object.keys(map), columns = head.map((k) => map[k]);
  if (hasPrimitives) { head.push('Values'); columns.push(plain); }
  head.unshift('(index)');
  columns.unshift(indexKeys);
  out(renderTable(head, columns));
}

function dir(obj) { out(show(obj)); }

const timers = new Map(), counts = new Map();

function formatTime(ms) {
  let hours = 0, minutes = 0, seconds = 0;
  if (ms >= 1000) {
    if (ms >= 60000) {
      if (ms >= 3600000) { hours = Math.floor(ms / 3600000); ms %= 3600000; }
      minutes = Math.floor(ms / 60000);
      ms %= 60000;
    }
    seconds = ms / 1000;
  }
  const pad = (v) => String(v).padStart(2, '0');
  if (hours !== 0 || minutes !== 0) {
    const parts = seconds.toFixed(3).split('.');
    const res = hours !== 0 ? `${hours}:${pad(minutes)}` : minutes;
    return `${res}:${pad(parts[0])}.${parts[1]} (${hours !== 0 ? 'h:m' : ''}m:ss.mmm)`;
  }
  if (seconds !== 0) return `${seconds.toFixed(3)}s`;
  return `${Number(ms.toFixed(3))}ms`;
}

// console.time and the others measure on performance.now()'s coarsened clock.
function time(label = 'default') {
  label = `${label}`;
  if (timers.has(label)) return err(`Warning: Label '${label}' already exists for console.time()`);
  timers.set(label, natives.coarseNow());
}

function timeLogImpl(name, label, data) {
  label = `${label}`;
  if (!timers.has(label)) return err(`Warning: No such label '${label}' for console.${name}()`);
  const text = `${label}: ${formatTime(natives.coarseNow() - timers.get(label))}`;
  if (name === 'timeEnd') timers.delete(label);
  out(data.length ? text + ' ' + format(data) : text);
}

function timeEnd(label = 'default') { timeLogImpl('timeEnd', label, []); }
function timeLog(label = 'default', ...data) { timeLogImpl('timeLog', label, data); }

function count(label = 'default') {
  label = `${label}`;
  const n = (counts.get(label) || 0) + 1;
  counts.set(label, n);
  out(`${label}: ${n}`);
}

function countReset(label = 'default') {
  label = `${label}`;
  if (!counts.has(label)) return err(`Warning: Count for '${label}' does not exist`);
  counts.delete(label);
}

function assert(expression, ...args) {
  if (expression) return;
  args[0] = `Assertion failed${args.length === 0 ? '' : `: ${args[0]}`}`;
  err(format(args));
}

// The guest's frames as Node prints them ("    at fn (file:line:col)"), the platform's left out.
function trace(...args) {
  let text = 'Trace' + (args.length ? ': ' + format(args) : '');
  // The engine writes stacks in V8's format ("    at fn (file:line:col)" or "    at file:...").
  const frames = String(new Error().stack).split('\n');
  for (const f of frames) {
    const m = /^ {4}at (?:.* \()?(.*):\d+:\d+\)?$/.exec(f);
    if (!m || /^sbx:/.test(m[1])) continue;
    text += '\n' + f;
  }
  err(text);
}

return { table, dir, time, timeEnd, timeLog, count, countReset, assert, trace };
})
