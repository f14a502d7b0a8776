// src/js/platform/web.js: atob/btoa, structuredClone, crypto and performance, with Node 20's
// names, checks and messages (DOMExceptions from dom.js). The work is native (codec.cpp,
// clone.cpp, host.cpp); this file validates arguments and turns native failures into Node's
// exceptions.
(function (natives) {
'use strict';
const ReflectApply = Reflect.apply;
const getProto = Object.getPrototypeOf, defineProperty = Object.defineProperty;
const fnToString = Function.prototype.toString;
const typedArrayTag = Object.getOwnPropertyDescriptor(getProto(Uint8Array.prototype),
  Symbol.toStringTag).get;

// util.js (Node's error messages) loads only when a check fails.
function nodeError(Ctor, code, message) { return natives.util().nodeError(Ctor, code, message); }
function missingArgs(name) { return natives.util().missingArgs(name); }

// A DOMException of dom.js (which loads on the first one).
function domException(message, name) {
  return new (natives.module('dom').DOMException)(message, name);
}

function atob(input) {
  if (arguments.length === 0) throw missingArgs('input');
  const r = natives.atob(`${input}`);
  if (r === 1) throw domException('Invalid character', 'InvalidCharacterError');
  if (r === 2)
    throw domException('The string to be decoded is not correctly encoded.', 'InvalidCharacterError');
  return r;
}

function btoa(input) {
  if (arguments.length === 0) throw missingArgs('input');
  const r = natives.btoa(`${input}`);
  if (r === null) throw domException('Invalid character', 'InvalidCharacterError');
  return r;
}

// The first symbol in value, depth first in the order the engine's serializer visits (the
// engine's clone error does not say which value failed when it is a primitive).
function firstSymbol(value, seen) {
  if (typeof value === 'symbol') return value;
  if (value === null || typeof value !== 'object' || seen.has(value)) return undefined;
  seen.add(value);
  let items;
  if (value instanceof Map) items = [...value].flat();
  else if (value instanceof Set) items = [...value];
  else items = Object.keys(value).map((k) => value[k]);
  for (const item of items) {
    const s = firstSymbol(item, seen);
    if (s !== undefined) return s;
  }
  return undefined;
}

function structuredClone(value, options) {
  if (arguments.length === 0)
    throw nodeError(TypeError, 'ERR_MISSING_ARGS', 'The value argument must be specified');
  let transfer;
  if (options !== undefined && options !== null) {
    if (typeof options !== 'object')
      throw nodeError(TypeError, 'ERR_INVALID_ARG_TYPE',
        'The options argument must be either an object or undefined');
    if (options.transfer !== undefined) {
      const t = options.transfer;
      if (t === null || typeof t !== 'object' || typeof t[Symbol.iterator] !== 'function')
        throw nodeError(TypeError, 'ERR_INVALID_ARG_TYPE',
          'Optional transferList argument must be an iterable');
      transfer = [...t];
    }
  }
  const r = natives.clone(value, transfer);
  if (r.ok) return r.value;
  if (r.transfer) throw new TypeError('Found invalid object in transferList');
  let what = r.what;
  if (typeof what === 'function') what = ReflectApply(fnToString, what, []);
  else if (what === undefined) what = String(firstSymbol(value, new Set()));
  throw domException(`${what} could not be cloned.`, 'DataCloneError');
}

// crypto: getRandomValues and randomUUID from the host's CSPRNG (getrandom); no subtle.
const integerArrays = {
  Int8Array: 1, Uint8Array: 1, Uint8ClampedArray: 1, Int16Array: 1, Uint16Array: 1,
  Int32Array: 1, Uint32Array: 1, BigInt64Array: 1, BigUint64Array: 1,
};
let theCrypto;

function checkCrypto(self) {
  if (self !== theCrypto)
    throw nodeError(TypeError, 'ERR_INVALID_THIS', 'Value of "this" must be of type Crypto');
}

class Crypto {
  getRandomValues(data) {
    checkCrypto(this);
    if (arguments.length === 0)
      throw nodeError(TypeError, 'ERR_MISSING_ARGS',
        "Failed to execute 'getRandomValues' on 'Crypto': 1 argument required, but only 0 present.");
    const tag = ReflectApply(typedArrayTag, data, []);
    if (!integerArrays[tag])
      throw domException('The data argument must be an integer-type TypedArray', 'TypeMismatchError');
    if (data.byteLength > 65536)
      throw domException('The requested length exceeds 65,536 bytes', 'QuotaExceededError');
    return natives.randomFill(data);
  }
  randomUUID() {
    checkCrypto(this);
    const b = natives.randomFill(new Uint8Array(16));
    b[6] = (b[6] & 0x0f) | 0x40; // version 4
    b[8] = (b[8] & 0x3f) | 0x80; // variant 10
    let s = '';
    for (let i = 0; i < 16; i++) {
      s += (b[i] < 16 ? '0' : '') + b[i].toString(16);
      if (i === 3 || i === 5 || i === 7 || i === 9) s += '-';
    }
    return s;
  }
}
defineProperty(Crypto.prototype, Symbol.toStringTag, { value: 'Crypto', configurable: true });
theCrypto = Object.create(Crypto.prototype);

// performance: now() and timeOrigin, both coarsened to 100 us by the host.
class Performance {
  now() { return natives.coarseNow(); }
  get timeOrigin() { return natives.timeOrigin(); }
  toJSON() { return { timeOrigin: this.timeOrigin }; }
}
defineProperty(Performance.prototype, Symbol.toStringTag, { value: 'Performance', configurable: true });
const performance = Object.create(Performance.prototype);

return {
  atob, btoa, structuredClone, crypto: theCrypto, performance,
};
})
