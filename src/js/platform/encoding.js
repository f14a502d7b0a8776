// src/js/platform/encoding.js: TextEncoder and TextDecoder (WHATWG Encoding) for UTF-8, UTF-16LE
// and UTF-16BE under all their labels, with fatal, ignoreBOM, streaming and encodeInto. The
// codecs are native (platform/codec.cpp); this file keeps a decoder's state between calls and
// gives Node 20's checks and messages.
(function (natives) {
'use strict';
const ReflectApply = Reflect.apply, defineProperty = Object.defineProperty;
const wmGet = WeakMap.prototype.get, wmSet = WeakMap.prototype.set;
const typedArrayTag = Object.getOwnPropertyDescriptor(
  Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag).get;
const isView = ArrayBuffer.isView;
const abByteLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength').get;

// Encoding Standard, section 4.2 (names and labels): the labels of the three encodings.
const labels = {
  'unicode-1-1-utf-8': 'utf-8', 'unicode11utf8': 'utf-8', 'unicode20utf8': 'utf-8',
  'utf-8': 'utf-8', 'utf8': 'utf-8', 'x-unicode20utf8': 'utf-8',
  'unicodefffe': 'utf-16be', 'utf-16be': 'utf-16be',
  'csunicode': 'utf-16le', 'iso-10646-ucs-2': 'utf-16le', 'ucs-2': 'utf-16le',
  'unicode': 'utf-16le', 'unicodefeff': 'utf-16le', 'utf-16': 'utf-16le', 'utf-16le': 'utf-16le',
};
const codecIds = { 'utf-8': 0, 'utf-16le': 1, 'utf-16be': 2 };

// util.js (Node's error messages) loads only when a check fails.
function nodeError(Ctor, code, message) { return natives.util().nodeError(Ctor, code, message); }
function received(value) { return natives.util().received(value); }

function isUint8Array(v) { return ReflectApply(typedArrayTag, v, []) === 'Uint8Array'; }

function isArrayBuffer(v) {
  try { ReflectApply(abByteLength, v, []); return true; } catch (e) { return false; }
}

const encoders = new WeakMap();

class TextEncoder {
  constructor() { ReflectApply(wmSet, encoders, [this, true]); }
  get encoding() { checkEncoder(this); return 'utf-8'; }
  encode(input = '') {
    checkEncoder(this);
    return natives.utf8Encode(`${input}`);
  }
  encodeInto(src, dest) {
    checkEncoder(this);
    if (!isUint8Array(dest))
      throw nodeError(TypeError, 'ERR_INVALID_ARG_TYPE',
        'The "dest" argument must be an instance of Uint8Array.' + received(dest));
    const r = natives.utf8EncodeInto(`${src}`, dest);
    return { read: r[0], written: r[1] };
  }
}

function checkEncoder(self) {
  if (!ReflectApply(wmGet, encoders, [self]))
    throw nodeError(TypeError, 'ERR_INVALID_THIS', 'Value of "this" must be of type TextEncoder');
}

const decoders = new WeakMap();

function decoderState(self) {
  const d = ReflectApply(wmGet, decoders, [self]);
  if (!d) throw nodeError(TypeError, 'ERR_INVALID_THIS', 'Value of "this" must be of type TextDecoder');
  return d;
}

class TextDecoder {
  constructor(encoding = 'utf-8', options = {}) {
    const label = `${encoding}`.replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, '').toLowerCase();
    const name = Object.prototype.hasOwnProperty.call(labels, label) ? labels[label] : undefined;
    if (options !== null && options !== undefined && typeof options !== 'object')
      throw nodeError(TypeError, 'ERR_INVALID_ARG_TYPE',
        'The "options" argument must be of type object.' + received(options));
    if (name === undefined)
      throw nodeError(RangeError, 'ERR_ENCODING_NOT_SUPPORTED',
        `The "${encoding}" encoding is not supported`);
    const o = options || {};
    ReflectApply(wmSet, decoders, [this, {
      encoding: name, codec: codecIds[name], fatal: Boolean(o.fatal),
      ignoreBOM: Boolean(o.ignoreBOM), pending: null, bomSeen: false,
    }]);
  }
  decode(input = undefined, options = {}) {
    const d = decoderState(this);
    if (input !== undefined && !isView(input) && !isArrayBuffer(input))
      throw nodeError(TypeError, 'ERR_INVALID_ARG_TYPE', 'The "list" argument must be an ' +
        'instance of SharedArrayBuffer, ArrayBuffer or ArrayBufferView.');
    const stream = options !== null && options !== undefined && Boolean(options.stream);
    const r = natives.decode(d.codec, d.pending, input, d.fatal, stream);
    if (r === null) {
      d.pending = null;
      d.bomSeen = false;
      throw nodeError(TypeError, 'ERR_ENCODING_INVALID_ENCODED_DATA',
        'The encoded data was not valid for encoding ' + d.encoding);
    }
    let text = r[0];
    d.pending = r[1];
    if (!d.ignoreBOM && !d.bomSeen && text.length) {
      if (text.charCodeAt(0) === 0xFEFF) text = text.slice(1);
      d.bomSeen = true;
    }
    if (!stream) {
      d.pending = null;
      d.bomSeen = false;
    }
    return text;
  }
  get encoding() { return decoderState(this).encoding; }
  get fatal() { return decoderState(this).fatal; }
  get ignoreBOM() { return decoderState(this).ignoreBOM; }
}

defineProperty(TextEncoder.prototype, Symbol.toStringTag, { value: 'TextEncoder', configurable: true });
defineProperty(TextDecoder.prototype, Symbol.toStringTag, { value: 'TextDecoder', configurable: true });
return { TextEncoder, TextDecoder };
})
