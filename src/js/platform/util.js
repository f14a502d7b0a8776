// src/js/platform/util.js: what the other platform modules share: Node's error objects (a
// TypeError with a `code`) and the way Node's messages describe a received value, strings
// quoted as util.inspect quotes them.
(function (natives) {
'use strict';
const hasOwn = Object.prototype.hasOwnProperty;

function nodeError(Ctor, code, message) {
  const e = new Ctor(message);
  e.code = code;
  return e;
}

// util.inspect's string quoting: single quotes unless the text has one and can use another.
function quote(s) {
  let q = "'";
  if (s.indexOf("'") >= 0) {
    if (s.indexOf('"') < 0) q = '"';
    else if (s.indexOf('`') < 0 && s.indexOf('${') < 0) q = '`';
  }
  const esc = { '\n': '\\n', '\t': '\\t', '\r': '\\r', '\b': '\\b', '\f': '\\f', '\v': '\\v' };
  let o = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i], n = s.charCodeAt(i);
    if (c === q || c === '\\') o += '\\' + c;
    else if (hasOwn.call(esc, c)) o += esc[c];
    else if (n < 32 || n === 127) o += '\\x' + (n < 16 ? '0' : '') + n.toString(16).toUpperCase();
    else o += c;
  }
  return q + o + q;
}

// util.inspect(v): strings quoted, everything else as console.log prints it.
function inspect(v) { return typeof v === 'string' ? quote(v) : natives.inspect(v); }

// The " Received ..." tail of Node's ERR_INVALID_ARG_TYPE messages.
function received(value) {
  if (value === null || value === undefined) return ' Received ' + value;
  if (typeof value === 'function') return ' Received function ' + value.name;
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value);
    const ctor = proto && Object.getOwnPropertyDescriptor(proto, 'constructor');
    if (ctor && typeof ctor.value === 'function' && ctor.value.name)
      return ' Received an instance of ' + ctor.value.name;
    return ' Received ' + natives.inspect(value);
  }
  let text = inspect(value);
  if (text.length > 28) text = text.slice(0, 25) + '...';
  return ' Received type ' + typeof value + ' (' + text + ')';
}

function invalidArgType(name, expected, value) {
  return nodeError(TypeError, 'ERR_INVALID_ARG_TYPE',
    `The "${name}" argument must be ${expected}.` + received(value));
}

function validateFunction(value, name) {
  if (typeof value !== 'function') throw invalidArgType(name, 'of type function', value);
}

function missingArgs(...names) {
  return nodeError(TypeError, 'ERR_MISSING_ARGS', names.length === 1
    ? `The "${names[0]}" argument must be specified`
    : `The "${names[0]}" and "${names[1]}" arguments must be specified`);
}

return { nodeError, quote, inspect, received, invalidArgType, validateFunction, missingArgs };
})
