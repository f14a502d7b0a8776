// src/js/builtins.js: the steps of the ES2023+ built-ins SpiderMonkey 102 lacks (docs/worker.md,
// "Built-ins"), after the specification. Each realm gets native functions (js/builtins.cpp, at
// no cost to a run that does not call them) that run the functions here, instantiated into the
// realm on the first call. Nothing here reads what the guest can change: the intrinsics come
// from `intrinsics` (taken before guest code ran) and `natives`, and the rest is syntax.
(function (natives, intrinsics) {
'use strict';

const call = natives.call; // call(fn, thisArg, argsArray)
const define = natives.define; // CreateDataPropertyOrThrow
const MAX_SAFE = 9007199254740991;

function requireCallable(v, what) {
  if (typeof v !== 'function') natives.typeError(what + ' is not a function');
}

function isObject(v) {
  return (typeof v === 'object' && v !== null) || typeof v === 'function';
}

function toIntegerOrInfinity(v) {
  const n = +v; // ToNumber: throws for symbols and BigInts
  if (n !== n || n === 0) return 0;
  if (n === Infinity || n === -Infinity) return n;
  return n - (n % 1); // truncated toward zero, as floor(abs(n)) with n's sign
}

function lengthOfArrayLike(o) {
  const len = toIntegerOrInfinity(o.length);
  return len <= 0 ? 0 : len > MAX_SAFE ? MAX_SAFE : len;
}

function relativeIndex(v, len) {
  const rel = toIntegerOrInfinity(v);
  return rel >= 0 ? rel : len + rel;
}

function clampIndex(v, len) {
  const rel = toIntegerOrInfinity(v);
  if (rel < 0) return len + rel < 0 ? 0 : len + rel;
  return rel > len ? len : rel;
}

// ---- Array.prototype (ES2023)

function findLast(predicate, thisArg) {
  const o = natives.toObject(this);
  const len = lengthOfArrayLike(o);
  requireCallable(predicate, 'findLast: predicate');
  for (let k = len - 1; k >= 0; k--) {
    const value = o[k];
    if (call(predicate, thisArg, [value, k, o])) return value;
  }
  return undefined;
}

function findLastIndex(predicate, thisArg) {
  const o = natives.toObject(this);
  const len = lengthOfArrayLike(o);
  requireCallable(predicate, 'findLastIndex: predicate');
  for (let k = len - 1; k >= 0; k--) {
    if (call(predicate, thisArg, [o[k], k, o])) return k;
  }
  return -1;
}

function toReversed() {
  const o = natives.toObject(this);
  const len = lengthOfArrayLike(o);
  const a = natives.arrayCreate(len);
  for (let k = 0; k < len; k++) define(a, k, o[len - k - 1]);
  return a;
}

function toSorted(comparefn) {
  if (comparefn !== undefined && typeof comparefn !== 'function')
    natives.typeError('toSorted: comparefn is not a function');
  const o = natives.toObject(this);
  const len = lengthOfArrayLike(o);
  const a = natives.arrayCreate(len);
  for (let k = 0; k < len; k++) define(a, k, o[k]);
  return call(intrinsics.sort, a, [comparefn]);
}

function toSpliced(start, skipCount, ...items) {
  const o = natives.toObject(this);
  const len = lengthOfArrayLike(o);
  const actualStart = clampIndex(start, len);
  let skip;
  if (arguments.length === 0) {
    skip = 0;
  } else if (arguments.length === 1) {
    skip = len - actualStart;
  } else {
    const sc = toIntegerOrInfinity(skipCount);
    skip = sc < 0 ? 0 : sc > len - actualStart ? len - actualStart : sc;
  }
  const newLen = len + items.length - skip;
  if (newLen > MAX_SAFE) natives.typeError('toSpliced: the result would be too long');
  const a = natives.arrayCreate(newLen);
  let i = 0;
  let r = actualStart + skip;
  for (; i < actualStart; i++) define(a, i, o[i]);
  for (let j = 0; j < items.length; j++) define(a, i++, items[j]);
  for (; i < newLen; i++, r++) define(a, i, o[r]);
  return a;
}

function arrayWith(index, value) {
  const o = natives.toObject(this);
  const len = lengthOfArrayLike(o);
  const actual = relativeIndex(index, len);
  if (actual >= len || actual < 0) natives.rangeError('with: index out of range');
  const a = natives.arrayCreate(len);
  for (let k = 0; k < len; k++) define(a, k, k === actual ? value : o[k]);
  return a;
}

// ---- Object.groupBy, Map.groupBy (ES2024): groups in the order their keys first came

function groupBy(items, callbackfn, add) {
  if (items === null || items === undefined) natives.typeError("groupBy: can't iterate " + items);
  requireCallable(callbackfn, 'groupBy: callback');
  let k = 0;
  // for-of is GetIterator, IteratorStep and, on a throw, IteratorClose, as the steps say
  for (const value of items) {
    if (k >= MAX_SAFE) natives.typeError('groupBy: too many items');
    add(call(callbackfn, undefined, [value, k]), value);
    k++;
  }
}

function objectGroupBy(items, callbackfn) {
  const groups = natives.nullObject();
  groupBy(items, callbackfn, function (key, value) {
    key = natives.toPropertyKey(key);
    if (natives.hasOwn(groups, key)) {
      const g = groups[key];
      define(g, g.length, value);
    } else {
      define(groups, key, [value]);
    }
  });
  return groups;
}

function mapGroupBy(items, callbackfn) {
  const map = new intrinsics.Map();
  groupBy(items, callbackfn, function (key, value) {
    if (key === 0) key = 0; // -0 is +0
    if (call(intrinsics.mapHas, map, [key])) {
      const g = call(intrinsics.mapGet, map, [key]);
      define(g, g.length, value);
    } else {
      call(intrinsics.mapSet, map, [key, [value]]);
    }
  });
  return map;
}

// ---- Promise.withResolvers (ES2024)

function withResolvers() {
  const c = this;
  if (!natives.isConstructor(c)) natives.typeError('Promise.withResolvers: this is not a constructor');
  let resolve, reject;
  const promise = new c(function (res, rej) {
    if (resolve !== undefined) natives.typeError('Promise executor: resolve already set');
    if (reject !== undefined) natives.typeError('Promise executor: reject already set');
    resolve = res;
    reject = rej;
  });
  requireCallable(resolve, 'Promise.withResolvers: resolve');
  requireCallable(reject, 'Promise.withResolvers: reject');
  return { promise, resolve, reject };
}

// ---- Array.fromAsync (ES2026; Node 22)

async function iterate(c, items, method, isAsync, mapping, mapfn, thisArg) {
  requireCallable(method, 'Array.fromAsync: the iterator method');
  const iterator = call(method, items, []);
  if (!isObject(iterator)) natives.typeError('Array.fromAsync: the iterator is not an object');
  const next = iterator.next;
  const a = natives.isConstructor(c) ? new c() : natives.arrayCreate(0);
  for (let k = 0; ; k++) {
    let result = call(next, iterator, []);
    if (isAsync) result = await result;
    if (!isObject(result)) natives.typeError('Array.fromAsync: the iterator result is not an object');
    if (result.done) {
      a.length = k;
      return a;
    }
    let value = result.value;
    try {
      if (!isAsync) value = await value; // CreateAsyncFromSyncIterator
      if (k >= MAX_SAFE) natives.typeError('Array.fromAsync: too many items');
      if (mapping) value = await call(mapfn, thisArg, [value, k]);
      define(a, k, value);
    } catch (e) {
      const ret = iterator.return;
      if (ret !== undefined && ret !== null) {
        try {
          const r = call(ret, iterator, []);
          if (isAsync) await r;
        } catch (ignored) {
          // the first error wins (IteratorClose with a throw completion)
        }
      }
      throw e;
    }
  }
}

async function fromAsync(asyncItems, mapfn, thisArg) {
  const c = this;
  const mapping = mapfn !== undefined;
  if (mapping) requireCallable(mapfn, 'Array.fromAsync: mapfn');
  const boxed = asyncItems === null || asyncItems === undefined;
  const asyncMethod = boxed ? undefined : asyncItems[intrinsics.asyncIterator];
  if (asyncMethod !== undefined && asyncMethod !== null)
    return iterate(c, asyncItems, asyncMethod, true, mapping, mapfn, thisArg);
  const syncMethod = boxed ? undefined : asyncItems[intrinsics.iterator];
  if (syncMethod !== undefined && syncMethod !== null)
    return iterate(c, asyncItems, syncMethod, false, mapping, mapfn, thisArg);
  const arrayLike = natives.toObject(asyncItems);
  const len = lengthOfArrayLike(arrayLike);
  const a = natives.isConstructor(c) ? new c(len) : natives.arrayCreate(len);
  for (let k = 0; k < len; k++) {
    let value = await arrayLike[k];
    if (mapping) value = await call(mapfn, thisArg, [value, k]);
    define(a, k, value);
  }
  a.length = len;
  return a;
}

// ---- %TypedArray%.prototype (ES2023)

function taFindLast(predicate, thisArg) {
  const len = natives.typedArrayLength(this); // ValidateTypedArray
  requireCallable(predicate, 'findLast: predicate');
  for (let k = len - 1; k >= 0; k--) {
    const value = this[k];
    if (call(predicate, thisArg, [value, k, this])) return value;
  }
  return undefined;
}

function taFindLastIndex(predicate, thisArg) {
  const len = natives.typedArrayLength(this);
  requireCallable(predicate, 'findLastIndex: predicate');
  for (let k = len - 1; k >= 0; k--) {
    if (call(predicate, thisArg, [this[k], k, this])) return k;
  }
  return -1;
}

function taToReversed() {
  const len = natives.typedArrayLength(this);
  const a = natives.typedArrayCreate(this, len); // TypedArrayCreateSameType
  for (let k = 0; k < len; k++) a[k] = this[len - k - 1];
  return a;
}

function taToSorted(comparefn) {
  if (comparefn !== undefined && typeof comparefn !== 'function')
    natives.typeError('toSorted: comparefn is not a function');
  const len = natives.typedArrayLength(this);
  const a = natives.typedArrayCreate(this, len);
  for (let k = 0; k < len; k++) a[k] = this[k];
  return call(intrinsics.typedArraySort, a, [comparefn]);
}

function taWith(index, value) {
  const len = natives.typedArrayLength(this);
  const actual = relativeIndex(index, len);
  const v = natives.isBigIntTypedArray(this) ? natives.toBigInt(value) : +value;
  if (!natives.isValidIntegerIndex(this, actual)) natives.rangeError('with: index out of range');
  const a = natives.typedArrayCreate(this, len);
  for (let k = 0; k < len; k++) a[k] = k === actual ? v : this[k];
  return a;
}

// In the order of builtins.cpp's table.
return [
  findLast, findLastIndex, toReversed, toSorted, toSpliced, arrayWith, objectGroupBy, fromAsync,
  mapGroupBy, withResolvers, taFindLast, taFindLastIndex, taToReversed, taToSorted, taWith,
];
})
