// src/js/platform/timers.js: setTimeout and the others, queueMicrotask, in the run's own event
// loop. The host (platform/host.cpp) calls step() whenever the job queue is empty and the run's
// value has not settled: each call runs one callback as Node's loop would order them (due
// timers, then the immediates queued before the check phase began), or says how long to sleep.
(function (natives) {
'use strict';
// The timers' clock is performance.now()'s (100 us): no finer one is within the guest's reach.
const now = natives.coarseNow, enqueue = natives.enqueue, report = natives.report;
const TIMEOUT_MAX = 2147483647;
const MapCtor = Map, mapGet = Map.prototype.get, mapSet = Map.prototype.set;
const mapDelete = Map.prototype.delete, ReflectApply = Reflect.apply;
const slice = Array.prototype.slice;

// util.js (Node's error messages) loads only when a check fails.
function validateFunction(value, name) {
  if (typeof value !== 'function') natives.util().validateFunction(value, name);
}

// The due timers: a binary min-heap of entries on (due, seq). Clearing or refreshing a timer
// leaves its old entry behind, recognised as stale when it comes up.
const heap = [];
let seq = 0, lastId = 0;
const byId = new MapCtor();

function less(a, b) { return a.due < b.due || (a.due === b.due && a.seq < b.seq); }

function heapPush(e) {
  let i = heap.length;
  heap[i] = e;
  while (i > 0) {
    const p = (i - 1) >> 1;
    if (!less(heap[i], heap[p])) break;
    const x = heap[i]; heap[i] = heap[p]; heap[p] = x;
    i = p;
  }
}

function heapPop() {
  const top = heap[0], last = heap[heap.length - 1];
  heap.length--;
  if (heap.length) {
    heap[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1, r = l + 1;
      let m = i;
      if (l < heap.length && less(heap[l], heap[m])) m = l;
      if (r < heap.length && less(heap[r], heap[m])) m = r;
      if (m === i) break;
      const x = heap[i]; heap[i] = heap[m]; heap[m] = x;
      i = m;
    }
  }
  return top;
}

const entries = new WeakMap(); // Timeout -> its live heap entry
const wmGet = WeakMap.prototype.get, wmSet = WeakMap.prototype.set;

function schedule(t) {
  const e = { t: t, due: now() + t._idleTimeout, seq: seq++ };
  ReflectApply(wmSet, entries, [t, e]);
  heapPush(e);
}

function isLive(e) { return !e.t._destroyed && ReflectApply(wmGet, entries, [e.t]) === e; }

function delayOf(after) {
  after *= 1; // as Node: what is not a number becomes NaN, then 1
  return after >= 1 && after <= TIMEOUT_MAX ? after : 1;
}

class Timeout {
  constructor(callback, after, args, isRepeat) {
    this._idleTimeout = delayOf(after);
    this._onTimeout = callback;
    this._timerArgs = args;
    this._repeat = isRepeat ? this._idleTimeout : null;
    this._destroyed = false;
    this._refed = true;
    this._id = ++lastId;
    ReflectApply(mapSet, byId, [this._id, this]);
    schedule(this);
  }
  refresh() {
    if (!this._destroyed) schedule(this);
    return this;
  }
  unref() { this._refed = false; return this; }
  ref() { this._refed = true; return this; }
  hasRef() { return this._refed; }
  close() { clear(this); return this; }
  [Symbol.toPrimitive]() { return this._id; }
}

function clear(timer) {
  if (timer instanceof Timeout) {
    timer._destroyed = true;
    ReflectApply(mapDelete, byId, [timer._id]);
    return;
  }
  if (typeof timer === 'number' || typeof timer === 'string') {
    const t = ReflectApply(mapGet, byId, [+timer]);
    if (t) clear(t);
  }
}

function setTimeout(callback, after, arg1, arg2, arg3) {
  validateFunction(callback, 'callback');
  return new Timeout(callback, after, ReflectApply(slice, arguments, [2]), false);
}

function setInterval(callback, repeat, arg1, arg2, arg3) {
  validateFunction(callback, 'callback');
  return new Timeout(callback, repeat, ReflectApply(slice, arguments, [2]), true);
}

function clearTimeout(timer) { clear(timer); }
function clearInterval(timer) { clear(timer); }

// Immediates: a FIFO; step() runs those queued before the current check phase began.
let immediates = [], immediateHead = 0;

class Immediate {
  constructor(callback, args) {
    this._onImmediate = callback;
    this._argv = args;
    this._destroyed = false;
    this._refed = true;
    immediates[immediates.length] = this;
  }
  ref() { this._refed = true; return this; }
  unref() { this._refed = false; return this; }
  hasRef() { return this._refed; }
}

function setImmediate(callback, arg1, arg2, arg3) {
  validateFunction(callback, 'callback');
  return new Immediate(callback, ReflectApply(slice, arguments, [1]));
}

function clearImmediate(immediate) {
  if (immediate instanceof Immediate) immediate._destroyed = true;
}

function queueMicrotask(callback) {
  validateFunction(callback, 'callback');
  enqueue(function () { run(callback, undefined, []); });
}

function run(fn, self, args) {
  try {
    ReflectApply(fn, self, args);
  } catch (e) {
    report(e);
  }
}

// The loop: the timers phase runs every timer due when it began, then the check phase runs the
// immediates queued by then (as Node's). Returns 0 after running one callback, else the
// milliseconds until the next timer is due (the host sleeps), or -1 when nothing is pending.
let inTimers = true, timersNow = 0, checkEnd = 0;

function nextTimer() {
  while (heap.length && !isLive(heap[0])) heapPop();
  return heap.length ? heap[0] : null;
}

function stepTimers() {
  const e = nextTimer();
  if (!e || e.due > timersNow) return false;
  heapPop();
  const t = e.t;
  if (t._repeat === null) {
    t._destroyed = true;
    ReflectApply(mapDelete, byId, [t._id]);
  }
  run(t._onTimeout, t, t._timerArgs);
  if (t._repeat !== null && !t._destroyed && ReflectApply(wmGet, entries, [t]) === e) schedule(t);
  return true;
}

function stepImmediates() {
  while (immediateHead < checkEnd) {
    const im = immediates[immediateHead];
    immediates[immediateHead++] = undefined;
    if (im._destroyed) continue;
    im._destroyed = true;
    run(im._onImmediate, im, im._argv);
    return true;
  }
  if (immediateHead === immediates.length) {
    immediates = [];
    immediateHead = checkEnd = 0;
  }
  return false;
}

function step() {
  for (let phases = 0; phases < 3; phases++) {
    if (inTimers) {
      if (stepTimers()) return 0;
      inTimers = false;
      checkEnd = immediates.length;
    } else {
      if (stepImmediates()) return 0;
      inTimers = true;
      timersNow = now();
    }
  }
  const e = nextTimer();
  return e ? Math.max(e.due - now(), 0.001) : -1;
}

return {
  setTimeout, setInterval, setImmediate, clearTimeout, clearInterval, clearImmediate,
  queueMicrotask, step,
};
})
