// src/js/platform/url.js: URL and URLSearchParams per the WHATWG URL Standard (sections 6 and
// 5.2), over the parsers of urlparse.js, with Node 20's errors, names and messages.
(function (natives) {
'use strict';
const ReflectApply = Reflect.apply, defineProperty = Object.defineProperty;
const wmGet = WeakMap.prototype.get, wmSet = WeakMap.prototype.set;
const arrayIterator = Array.prototype[Symbol.iterator];
// util.js (Node's error messages) loads only when a check fails.
function nodeError(Ctor, code, message) { return natives.util().nodeError(Ctor, code, message); }
function missingArgs(...names) { return natives.util().missingArgs(...names); }
function received(value) { return natives.util().received(value); }
const {
  FAILURE, S, usv, basicParse, serializeURL, serializePath, serializeOrigin, stripTrailingSpaces,
  parseForm, serializeForm, percentEncodeString, USERINFO, cannotHaveCredentials,
} = natives.module('urlparse');

function invalidUrl(input, base) {
  const e = nodeError(TypeError, 'ERR_INVALID_URL', 'Invalid URL');
  e.input = input;
  if (base !== undefined) e.base = base;
  return e;
}

// The API objects. Each URL keeps its record, each URLSearchParams its list and URL.
const urls = new WeakMap(), params = new WeakMap();

function urlState(self) {
  const u = ReflectApply(wmGet, urls, [self]);
  if (!u) throw new TypeError('Receiver must be an instance of class URL');
  return u;
}

function paramsState(self) {
  const p = ReflectApply(wmGet, params, [self]);
  if (!p) throw nodeError(TypeError, 'ERR_INVALID_THIS', 'Value of "this" must be of type URLSearchParams');
  return p;
}

// The list a URL's query object starts with (or gets when the URL's query is set).
function queryList(record) { return record.query ? parseForm(record.query) : []; }

function parseWithBase(input, base) {
  let baseRecord = null;
  if (base !== undefined) {
    baseRecord = basicParse(usv(base), null);
    if (baseRecord === FAILURE) return FAILURE;
  }
  return basicParse(usv(input), baseRecord);
}

class URL {
  constructor(url, base = undefined) {
    if (arguments.length === 0) throw missingArgs('url');
    const record = parseWithBase(url, base);
    if (record === FAILURE) throw invalidUrl(`${url}`, base === undefined ? undefined : `${base}`);
    ReflectApply(wmSet, urls, [this, { record: record, searchParams: null }]);
  }
  static canParse(url, base = undefined) {
    if (arguments.length === 0) throw missingArgs('url');
    return parseWithBase(url, base) !== FAILURE;
  }
  static parse(url, base = undefined) {
    if (arguments.length === 0) throw missingArgs('url');
    try { return new URL(url, base); } catch (e) { return null; }
  }
  toString() { return serializeURL(urlState(this).record, false); }
  get href() { return serializeURL(urlState(this).record, false); }
  set href(value) {
    const state = urlState(this);
    const record = basicParse(usv(value), null);
    if (record === FAILURE) throw invalidUrl(`${value}`);
    state.record = record;
    if (state.searchParams) paramsState(state.searchParams).list = queryList(record);
  }
  get origin() { return serializeOrigin(urlState(this).record); }
  get protocol() { return urlState(this).record.scheme + ':'; }
  set protocol(value) {
    const r = urlState(this).record;
    basicParse(usv(value) + ':', null, r, S.SCHEME_START);
  }
  get username() { return urlState(this).record.username; }
  set username(value) {
    const r = urlState(this).record;
    if (cannotHaveCredentials(r)) return;
    r.username = percentEncodeString(usv(value), USERINFO, false);
  }
  get password() { return urlState(this).record.password; }
  set password(value) {
    const r = urlState(this).record;
    if (cannotHaveCredentials(r)) return;
    r.password = percentEncodeString(usv(value), USERINFO, false);
  }
  get host() {
    const r = urlState(this).record;
    if (r.host === null) return '';
    return r.port === null ? r.host : r.host + ':' + r.port;
  }
  set host(value) {
    const r = urlState(this).record;
    if (r.opaque) return;
    basicParse(usv(value), null, r, S.HOST);
  }
  get hostname() {
    const r = urlState(this).record;
    return r.host === null ? '' : r.host;
  }
  set hostname(value) {
    const r = urlState(this).record;
    if (r.opaque) return;
    basicParse(usv(value), null, r, S.HOSTNAME);
  }
  get port() {
    const r = urlState(this).record;
    return r.port === null ? '' : '' + r.port;
  }
  set port(value) {
    const r = urlState(this).record;
    if (cannotHaveCredentials(r)) return;
    value = usv(value);
    if (value === '') r.port = null;
    else basicParse(value, null, r, S.PORT);
  }
  get pathname() { return serializePath(urlState(this).record); }
  set pathname(value) {
    const r = urlState(this).record;
    if (r.opaque) return;
    r.path = [];
    basicParse(usv(value), null, r, S.PATH_START);
  }
  get search() {
    const r = urlState(this).record;
    return r.query === null || r.query === '' ? '' : '?' + r.query;
  }
  set search(value) {
    const state = urlState(this), r = state.record;
    value = usv(value);
    if (value === '') {
      r.query = null;
      stripTrailingSpaces(r);
    } else {
      r.query = '';
      basicParse(value.charCodeAt(0) === 0x3F ? value.slice(1) : value, null, r, S.QUERY);
    }
    if (state.searchParams) paramsState(state.searchParams).list = queryList(r);
  }
  get searchParams() {
    const state = urlState(this);
    if (!state.searchParams) { /* made on first use: most URLs never need theirs */
      const sp = Object.create(URLSearchParams.prototype);
      ReflectApply(wmSet, params, [sp, { list: queryList(state.record), url: state }]);
      state.searchParams = sp;
    }
    return state.searchParams;
  }
  get hash() {
    const r = urlState(this).record;
    return r.fragment === null || r.fragment === '' ? '' : '#' + r.fragment;
  }
  set hash(value) {
    const r = urlState(this).record;
    value = usv(value);
    if (value === '') {
      r.fragment = null;
      stripTrailingSpaces(r);
      return;
    }
    const input = value.charCodeAt(0) === 0x23 ? value.slice(1) : value;
    r.fragment = '';
    basicParse(input, null, r, S.FRAGMENT);
  }
  toJSON() { return serializeURL(urlState(this).record, false); }
}

function updateURL(p) {
  if (!p.url) return;
  const r = p.url.record;
  const q = serializeForm(p.list);
  r.query = q === '' ? null : q;
  if (q === '') stripTrailingSpaces(r);
}

class URLSearchParams {
  constructor(init = undefined) {
    let list = [];
    if (init !== null && (typeof init === 'object' || typeof init === 'function')) {
      const iter = init[Symbol.iterator];
      if (iter !== undefined && iter !== null) {
        if (typeof iter !== 'function')
          throw nodeError(TypeError, 'ERR_ARG_NOT_ITERABLE', 'Query pairs must be iterable');
        for (const pair of init) {
          if (pair === null || (typeof pair !== 'object' && typeof pair !== 'function') ||
              typeof pair[Symbol.iterator] !== 'function')
            throw nodeError(TypeError, 'ERR_INVALID_TUPLE', 'Each query pair must be an iterable [name, value] tuple');
          const items = [...pair];
          if (items.length !== 2)
            throw nodeError(TypeError, 'ERR_INVALID_TUPLE', 'Each query pair must be an iterable [name, value] tuple');
          list[list.length] = [usv(items[0]), usv(items[1])];
        }
      } else {
        const keys = Reflect.ownKeys(init);
        for (let i = 0; i < keys.length; i++) {
          const k = keys[i];
          if (typeof k !== 'string') continue;
          const d = Reflect.getOwnPropertyDescriptor(init, k);
          if (d && d.enumerable) list[list.length] = [usv(k), usv(init[k])];
        }
      }
    } else if (init !== undefined) {
      let s = usv(init);
      if (s.charCodeAt(0) === 0x3F) s = s.slice(1);
      list = parseForm(s);
    }
    ReflectApply(wmSet, params, [this, { list: list, url: null }]);
  }
  get size() { return paramsState(this).list.length; }
  append(name, value) {
    const p = paramsState(this);
    if (arguments.length < 2) throw missingArgs('name', 'value');
    p.list[p.list.length] = [usv(name), usv(value)];
    updateURL(p);
  }
  delete(name, value = undefined) {
    const p = paramsState(this);
    if (arguments.length < 1) throw missingArgs('name');
    name = usv(name);
    if (value !== undefined) value = usv(value);
    const kept = [];
    for (let i = 0; i < p.list.length; i++) {
      const e = p.list[i];
      if (e[0] === name && (value === undefined || e[1] === value)) continue;
      kept[kept.length] = e;
    }
    p.list = kept;
    updateURL(p);
  }
  get(name) {
    const p = paramsState(this);
    if (arguments.length < 1) throw missingArgs('name');
    name = usv(name);
    for (let i = 0; i < p.list.length; i++) if (p.list[i][0] === name) return p.list[i][1];
    return null;
  }
  getAll(name) {
    const p = paramsState(this);
    if (arguments.length < 1) throw missingArgs('name');
    name = usv(name);
    const out = [];
    for (let i = 0; i < p.list.length; i++) if (p.list[i][0] === name) out[out.length] = p.list[i][1];
    return out;
  }
  has(name, value = undefined) {
    const p = paramsState(this);
    if (arguments.length < 1) throw missingArgs('name');
    name = usv(name);
    if (value !== undefined) value = usv(value);
    for (let i = 0; i < p.list.length; i++)
      if (p.list[i][0] === name && (value === undefined || p.list[i][1] === value)) return true;
    return false;
  }
  set(name, value) {
    const p = paramsState(this);
    if (arguments.length < 2) throw missingArgs('name', 'value');
    name = usv(name);
    value = usv(value);
    const kept = [];
    let found = false;
    for (let i = 0; i < p.list.length; i++) {
      const e = p.list[i];
      if (e[0] !== name) kept[kept.length] = e;
      else if (!found) { found = true; kept[kept.length] = [name, value]; }
    }
    if (!found) kept[kept.length] = [name, value];
    p.list = kept;
    updateURL(p);
  }
  sort() {
    const p = paramsState(this);
    // A stable sort by code units of the names (insertion sort keeps it stable and simple).
    const a = p.list.slice();
    for (let i = 1; i < a.length; i++) {
      const e = a[i];
      let j = i - 1;
      while (j >= 0 && a[j][0] > e[0]) { a[j + 1] = a[j]; j--; }
      a[j + 1] = e;
    }
    p.list = a;
    updateURL(p);
  }
  entries() { return makeIterator(this, 'entries'); }
  forEach(callback, thisArg = undefined) {
    const p = paramsState(this);
    if (typeof callback !== 'function')
      throw nodeError(TypeError, 'ERR_INVALID_ARG_TYPE',
        'The "callback" argument must be of type function.' + received(callback));
    for (let i = 0; i < p.list.length; i++) {
      const e = p.list[i];
      ReflectApply(callback, thisArg, [e[1], e[0], this]);
    }
  }
  keys() { return makeIterator(this, 'keys'); }
  values() { return makeIterator(this, 'values'); }
  toString() { return serializeForm(paramsState(this).list); }
}
defineProperty(URLSearchParams.prototype, Symbol.iterator,
  { value: URLSearchParams.prototype.entries, writable: true, configurable: true });

// Iterators are live: each step reads the list as it is then (WebIDL pair iterators).
const IteratorPrototype = Object.getPrototypeOf(Object.getPrototypeOf(ReflectApply(arrayIterator, [], [])));
const iterators = new WeakMap();
const ParamsIteratorPrototype = Object.create(IteratorPrototype, {
  next: {
    value: function next() {
      const it = ReflectApply(wmGet, iterators, [this]);
      if (!it) throw nodeError(TypeError, 'ERR_INVALID_THIS', 'Value of "this" must be of type URLSearchParamsIterator');
      const list = paramsState(it.target).list;
      if (it.index >= list.length) return { value: undefined, done: true };
      const e = list[it.index++];
      const value = it.kind === 'keys' ? e[0] : it.kind === 'values' ? e[1] : [e[0], e[1]];
      return { value: value, done: false };
    },
    writable: true, configurable: true,
  },
  [Symbol.toStringTag]: { value: 'URLSearchParams Iterator', configurable: true },
});

function makeIterator(target, kind) {
  paramsState(target);
  const it = Object.create(ParamsIteratorPrototype);
  ReflectApply(wmSet, iterators, [it, { target: target, kind: kind, index: 0 }]);
  return it;
}

defineProperty(URL.prototype, Symbol.toStringTag, { value: 'URL', configurable: true });
defineProperty(URLSearchParams.prototype, Symbol.toStringTag,
  { value: 'URLSearchParams', configurable: true });
return { URL, URLSearchParams };
})
