// src/js/builtins/iterator.js: the iterator helpers of ECMAScript 2025 (Iterator.from and
// %Iterator.prototype%.map ... find) and Array.fromAsync, step for step as the spec writes
// them. iterator.cpp defines the natives the guest sees; each forwards here. Only what the guest
// cannot change is used: the natives (call, define ...: pristine by construction), syntax, and
// the property reads the spec itself performs; internal records have no prototype.
(function (natives) {
'use strict';
const call = natives.call, define = natives.define, TypeErrorCtor = natives.TypeError;
const RangeErrorCtor = natives.RangeError, isConstructor = natives.isConstructor;
const symIterator = natives.symIterator, symAsyncIterator = natives.symAsyncIterator;
const IteratorPrototype = natives.iteratorPrototype;

const DONE = { __proto__: null }; // IteratorStepValue's ~done~: the guest never sees it

function typeError(message) { return new TypeErrorCtor(message); }
function isObject(v) { return (typeof v === 'object' && v !== null) || typeof v === 'function'; }
function isCallable(v) { return typeof v === 'function'; }
function result(value, done) { return { value, done }; } // CreateIterResultObject

function toIntegerOrInfinity(n) {
  if (n !== n) return 0;
  if (n === Infinity || n === -Infinity) return n;
  return n - n % 1 + 0;
}

// GetIteratorDirect(obj).
function direct(obj) { return { __proto__: null, iterator: obj, next: obj.next, done: false }; }

// IteratorStep (wantValue false: no read of value) and IteratorStepValue: a throw marks the
// record done, so no close follows it.
function step(rec, wantValue) {
  let r, done;
  try {
    r = call(rec.next, rec.iterator);
    if (!isObject(r)) throw typeError('iterator.next() returned a non-object value');
    done = !!r.done;
  } catch (e) {
    rec.done = true;
    throw e;
  }
  if (done) {
    rec.done = true;
    return DONE;
  }
  if (!wantValue) return r;
  try {
    return r.value;
  } catch (e) {
    rec.done = true;
    throw e;
  }
}

// IteratorClose(rec, normal completion): the return method's errors and result count.
function closeNormal(rec) {
  const iter = rec.iterator, ret = iter.return;
  if (ret === undefined || ret === null) return;
  if (!isCallable(ret)) throw typeError('iterator.return is not a function');
  const r = call(ret, iter);
  if (!isObject(r)) throw typeError('iterator.return() returned a non-object value');
}

// IteratorClose(rec, throw completion e): whatever return does, e is thrown.
function closeThrow(rec, e) {
  try {
    const iter = rec.iterator, ret = iter.return;
    if (ret !== undefined && ret !== null && isCallable(ret)) call(ret, iter);
  } catch (ignored) {
    // the completion is e's
  }
  throw e;
}

// GetIteratorFlattenable(obj, primitiveHandling).
function flattenable(obj, allowStrings) {
  if (!isObject(obj) && !(allowStrings && typeof obj === 'string'))
    throw typeError('value is not an object');
  const method = obj[symIterator];
  let iter;
  if (method === undefined || method === null) {
    iter = obj;
  } else {
    if (!isCallable(method)) throw typeError('[Symbol.iterator] is not a function');
    iter = call(method, obj);
  }
  if (!isObject(iter)) throw typeError('[Symbol.iterator]() returned a non-object value');
  return direct(iter);
}

// %IteratorHelperPrototype% objects: a generator's states, run by hand. s.run(s) is the
// closure's next stretch up to a Yield (its value) or its end (DONE); s.close(s) resumes it
// with a return completion at that Yield.
const START = 0, YIELD = 1, RUNNING = 2, COMPLETED = 3;
class IteratorHelper {
  #s;
  constructor(s) { this.#s = s; }
  static state(o) {
    if (!isObject(o) || !(#s in o)) throw typeError('not an Iterator Helper');
    return o.#s;
  }
  next() {
    const s = IteratorHelper.state(this);
    if (s.status === RUNNING) throw typeError('already running');
    if (s.status === COMPLETED) return result(undefined, true);
    s.status = RUNNING;
    let v;
    try {
      v = s.run(s);
    } catch (e) {
      s.status = COMPLETED;
      throw e;
    }
    if (v === DONE) {
      s.status = COMPLETED;
      return result(undefined, true);
    }
    s.status = YIELD;
    return result(v, false);
  }
  return() {
    const s = IteratorHelper.state(this);
    if (s.status === START) {
      s.status = COMPLETED;
      closeNormal(s.iterated);
      return result(undefined, true);
    }
    if (s.status === RUNNING) throw typeError('already running');
    if (s.status === COMPLETED) return result(undefined, true);
    s.status = RUNNING;
    try {
      s.close(s);
    } finally {
      s.status = COMPLETED;
    }
    return result(undefined, true);
  }
}
const HelperPrototype = IteratorHelper.prototype;
natives.deleteProperty(HelperPrototype, 'constructor');
natives.setPrototype(HelperPrototype, IteratorPrototype);
natives.defineTag(HelperPrototype, 'Iterator Helper');

function closeAtYield(s) { closeNormal(s.iterated); }

function helper(iterated, run, fn, remaining, close) {
  return new IteratorHelper({ __proto__: null, status: START, iterated, run, fn, remaining,
                              close: close || closeAtYield, counter: 0, inner: null });
}

// The checks every helper starts with: this is an object; fn, when asked, is callable (else
// the iterator is closed with the TypeError).
function thisObject(o) {
  if (!isObject(o)) throw typeError('Iterator.prototype method called on a non-object');
  return o;
}
function requireCallable(o, fn) {
  if (!isCallable(fn)) closeThrow({ __proto__: null, iterator: o }, typeError('callback is not a function'));
}

// The callback's result; a throw closes the iterator.
function callback(rec, fn, a, b, c) {
  try {
    return c === DONE ? call(fn, undefined, a, b) : call(fn, undefined, a, b, c);
  } catch (e) {
    closeThrow(rec, e);
  }
}

function mapRun(s) {
  const v = step(s.iterated, true);
  if (v === DONE) return DONE;
  return callback(s.iterated, s.fn, v, s.counter++, DONE);
}

function filterRun(s) {
  for (;;) {
    const v = step(s.iterated, true);
    if (v === DONE) return DONE;
    if (callback(s.iterated, s.fn, v, s.counter++, DONE)) return v;
  }
}

function takeRun(s) {
  if (s.remaining === 0) {
    closeNormal(s.iterated);
    return DONE;
  }
  if (s.remaining !== Infinity) s.remaining--;
  return step(s.iterated, true);
}

function dropRun(s) {
  while (s.remaining > 0) {
    if (s.remaining !== Infinity) s.remaining--;
    if (step(s.iterated, false) === DONE) return DONE;
  }
  return step(s.iterated, true);
}

function flatMapRun(s) {
  for (;;) {
    if (s.inner !== null) {
      let v;
      try {
        v = step(s.inner, true);
      } catch (e) {
        closeThrow(s.iterated, e);
      }
      if (v !== DONE) return v;
      s.inner = null;
      s.counter++;
    }
    const value = step(s.iterated, true);
    if (value === DONE) return DONE;
    const mapped = callback(s.iterated, s.fn, value, s.counter, DONE);
    try {
      s.inner = flattenable(mapped, false);
    } catch (e) {
      closeThrow(s.iterated, e);
    }
  }
}

function flatMapClose(s) {
  try {
    closeNormal(s.inner);
  } catch (e) {
    closeThrow(s.iterated, e);
  }
  closeNormal(s.iterated);
}

// take(limit) / drop(limit): the limit's coercion and checks close the iterator on failure.
function limitOf(o, limit) {
  const rec = { __proto__: null, iterator: o };
  let n;
  try {
    n = +limit;
  } catch (e) {
    closeThrow(rec, e);
  }
  if (n !== n) closeThrow(rec, new RangeErrorCtor('limit is NaN'));
  n = toIntegerOrInfinity(n);
  if (n < 0) closeThrow(rec, new RangeErrorCtor('Iterator limits cannot be negative'));
  return n;
}

function map(mapper) {
  const o = thisObject(this);
  requireCallable(o, mapper);
  return helper(direct(o), mapRun, mapper, 0);
}

function filter(predicate) {
  const o = thisObject(this);
  requireCallable(o, predicate);
  return helper(direct(o), filterRun, predicate, 0);
}

function take(limit) {
  const o = thisObject(this);
  const remaining = limitOf(o, limit);
  return helper(direct(o), takeRun, undefined, remaining);
}

function drop(limit) {
  const o = thisObject(this);
  const remaining = limitOf(o, limit);
  return helper(direct(o), dropRun, undefined, remaining);
}

function flatMap(mapper) {
  const o = thisObject(this);
  requireCallable(o, mapper);
  return helper(direct(o), flatMapRun, mapper, 0, flatMapClose);
}

function reduce(reducer, ...rest) {
  const o = thisObject(this);
  requireCallable(o, reducer);
  const rec = direct(o);
  let acc, counter;
  if (rest.length === 0) {
    acc = step(rec, true);
    if (acc === DONE) throw typeError('reduce of empty iterator with no initial value');
    counter = 1;
  } else {
    acc = rest[0];
    counter = 0;
  }
  for (;;) {
    const v = step(rec, true);
    if (v === DONE) return acc;
    acc = callback(rec, reducer, acc, v, counter++);
  }
}

function toArray() {
  const rec = direct(thisObject(this));
  const items = [];
  for (let k = 0; ; k++) {
    const v = step(rec, true);
    if (v === DONE) return items;
    define(items, k, v);
  }
}

function forEach(fn) {
  const o = thisObject(this);
  requireCallable(o, fn);
  const rec = direct(o);
  for (let counter = 0; ; counter++) {
    const v = step(rec, true);
    if (v === DONE) return undefined;
    callback(rec, fn, v, counter, DONE);
  }
}

// some / every / find: found(result) says whether to stop with answer(v).
function search(self, predicate, stopOn, answer, otherwise) {
  const o = thisObject(self);
  requireCallable(o, predicate);
  const rec = direct(o);
  for (let counter = 0; ; counter++) {
    const v = step(rec, true);
    if (v === DONE) return otherwise;
    if (!!callback(rec, predicate, v, counter, DONE) === stopOn) {
      closeNormal(rec);
      return answer === DONE ? v : answer;
    }
  }
}

function some(predicate) { return search(this, predicate, true, true, false); }
function every(predicate) { return search(this, predicate, false, false, true); }
function find(predicate) { return search(this, predicate, true, DONE, undefined); }

// %WrapForValidIteratorPrototype%: what Iterator.from gives for an iterator that does not
// inherit from %Iterator.prototype%.
class WrapForValidIterator {
  #rec;
  constructor(rec) { this.#rec = rec; }
  static record(o) {
    if (!isObject(o) || !(#rec in o)) throw typeError('not a wrapped iterator');
    return o.#rec;
  }
  next() {
    const rec = WrapForValidIterator.record(this);
    return call(rec.next, rec.iterator);
  }
  return() {
    const iter = WrapForValidIterator.record(this).iterator, ret = iter.return;
    if (ret === undefined || ret === null) return result(undefined, true);
    if (!isCallable(ret)) throw typeError('iterator.return is not a function');
    return call(ret, iter);
  }
}
natives.deleteProperty(WrapForValidIterator.prototype, 'constructor');
natives.setPrototype(WrapForValidIterator.prototype, IteratorPrototype);

function from(o) {
  const rec = flattenable(o, true);
  if (natives.protoChainHas(IteratorPrototype, rec.iterator)) return rec.iterator;
  return new WrapForValidIterator(rec);
}

// Array.fromAsync(asyncItems, mapfn, thisArg): the closure runs as an async function, so a
// throw before its first await rejects the promise as AsyncFunctionStart does.
function getMethod(v, key) {
  const f = v[key];
  if (f === undefined || f === null) return undefined;
  if (!isCallable(f)) throw typeError('iterator method is not a function');
  return f;
}

function toLength(v) {
  const n = toIntegerOrInfinity(+v);
  return n <= 0 ? 0 : n > 9007199254740991 ? 9007199254740991 : n;
}

// AsyncIteratorClose(rec, throw completion e).
async function asyncCloseThrow(rec, e) {
  try {
    const iter = rec.iterator, ret = iter.return;
    if (ret !== undefined && ret !== null && isCallable(ret)) await call(ret, iter);
  } catch (ignored) {
    // the completion is e's
  }
  throw e;
}

// One step of the iterator: its next value, or DONE. A sync iterator is read as
// CreateAsyncFromSyncIterator reads it: the value awaited, a rejection closing the iterator.
async function asyncStep(rec) {
  const r = rec.isSync ? call(rec.next, rec.iterator) : await call(rec.next, rec.iterator);
  if (!isObject(r)) throw typeError('iterator.next() returned a non-object value');
  const done = !!r.done;
  if (!rec.isSync) return done ? DONE : r.value;
  const value = r.value;
  let v;
  try {
    v = await value;
  } catch (e) {
    if (!done) closeThrow(rec, e);
    throw e;
  }
  return done ? DONE : v;
}

async function fromAsyncIterator(C, rec, mapfn, thisArg) {
  const a = isConstructor(C) ? new C() : [];
  for (let k = 0; ; k++) {
    if (k >= 9007199254740991) return asyncCloseThrow(rec, typeError('too many elements'));
    const v = await asyncStep(rec);
    if (v === DONE) {
      a.length = k;
      return a;
    }
    let mapped = v;
    try {
      if (mapfn !== undefined) mapped = await call(mapfn, thisArg, v, k);
      define(a, k, mapped);
    } catch (e) {
      return asyncCloseThrow(rec, e);
    }
  }
}

async function fromAsyncArrayLike(C, items, mapfn, thisArg) {
  const arrayLike = natives.toObject(items), len = toLength(arrayLike.length);
  const a = isConstructor(C) ? new C(len) : natives.arrayCreate(len);
  for (let k = 0; k < len; k++) {
    const v = await arrayLike[k];
    define(a, k, mapfn === undefined ? v : await call(mapfn, thisArg, v, k));
  }
  a.length = len;
  return a;
}

async function fromAsyncStart(C, items, mapfn, thisArg) {
  if (mapfn !== undefined && !isCallable(mapfn)) throw typeError('mapfn is not a function');
  const usingAsync = getMethod(items, symAsyncIterator);
  const usingSync = usingAsync === undefined ? getMethod(items, symIterator) : undefined;
  if (usingAsync === undefined && usingSync === undefined)
    return fromAsyncArrayLike(C, items, mapfn, thisArg);
  const iter = call(usingAsync !== undefined ? usingAsync : usingSync, items);
  if (!isObject(iter)) throw typeError('[Symbol.asyncIterator]() returned a non-object value');
  const rec = { __proto__: null, iterator: iter, next: iter.next, isSync: usingAsync === undefined };
  return fromAsyncIterator(C, rec, mapfn, thisArg);
}

function fromAsync(items, mapfn = undefined, thisArg = undefined) {
  return fromAsyncStart(this, items, mapfn, thisArg);
}

return { __proto__: null, map, filter, take, drop, flatMap, reduce, toArray, forEach, some,
         every, find, from, fromAsync };
})
