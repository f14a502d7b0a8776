/* js/console.cpp: `console` in each realm and the text of printed values. Strings print as they
 * are; other values as Node's util.inspect shows the common cases (objects, arrays, Maps, Sets,
 * class instances, symbols, BigInts), by an inspector compiled into the realm on first use. It
 * runs as guest code (guest getters, proxies and patched builtins can shape their own output),
 * so it is bounded by the run's deadline and caps like any other guest code. */
#include "js/sm.h" /* first: see there */

#include <js/CompilationAndEvaluation.h>
#include <js/Conversions.h>
#include <js/Object.h>
#include <js/SourceText.h>
#include <js/String.h>
#include <string.h>

#include "js/text.h"
extern "C" {
#include "util/alloc.h"
}

/* Our own inspector (written for sbx, modelled on what Node prints, not on Node's code). */
static const char inspector_src[] = R"JS((function () {
'use strict';
var O = Object, R = Reflect, getProto = O.getPrototypeOf, getDesc = O.getOwnPropertyDescriptor;
var toTag = O.prototype.toString, fnText = Function.prototype.toString;
var mapSize = getDesc(Map.prototype, 'size').get, setSize = getDesc(Set.prototype, 'size').get;
var mapEntries = Map.prototype.entries, setValues = Set.prototype.values;
var isoDate = Date.prototype.toISOString, dateValue = Date.prototype.getTime;
var reText = RegExp.prototype.toString, isView = ArrayBuffer.isView;
var ident = /^[A-Za-z_$][\w$]*$/;
var BREAK = 80, MAX_ITEMS = 100, DEPTH = 2;
function tryCall(f, self) { try { return { ok: true, v: f.call(self) }; } catch (e) { return { ok: false }; } }
function quote(s) {
  var q = "'";
  if (s.indexOf("'") >= 0) q = s.indexOf('"') < 0 ? '"' : (s.indexOf('`') < 0 && s.indexOf('${') < 0 ? '`' : "'");
  var out = '';
  for (var i = 0; i < s.length; i++) {
    var c = s[i], n = s.charCodeAt(i);
    var esc = { '\n': '\\n', '\t': '\\t', '\r': '\\r', '\b': '\\b', '\f': '\\f', '\v': '\\v' }[c];
    if (c === q || c === '\\') out += '\\' + c;
    else if (esc) out += esc;
    else if (n < 32 || n === 127) out += '\\x' + (n < 16 ? '0' : '') + n.toString(16).toUpperCase();
    else out += c;
  }
  return q + out + q;
}
function prim(v) {
  switch (typeof v) {
  case 'string': return quote(v);
  case 'number': return O.is(v, -0) ? '-0' : '' + v;
  case 'bigint': return v + 'n';
  case 'symbol': return v.toString();
  case 'boolean': return '' + v;
  case 'undefined': return 'undefined';
  }
  return v === null ? 'null' : undefined;
}
function key(k) {
  if (typeof k === 'symbol') return '[' + k.toString() + ']';
  return ident.test(k) ? k : quote(k);
}
function ctorName(o) {
  for (var p = o; p !== null; p = getProto(p)) {
    var d = getDesc(p, 'constructor');
    if (d && typeof d.value === 'function' && typeof d.value.name === 'string' && d.value.name)
      return d.value.name;
  }
  return null;
}
function funcText(f) {
  var src = tryCall(fnText, f), nd = getDesc(f, 'name');
  var name = nd && typeof nd.value === 'string' ? nd.value : '';
  if (src.ok && /^class\b/.test(src.v)) return '[class ' + (name || '(anonymous)') + ']';
  var tag = toTag.call(f).slice(8, -1);
  var kind = /^(Async|Generator|AsyncGenerator)Function$/.test(tag) ? tag : 'Function';
  return '[' + kind + (name ? ': ' + name : ' (anonymous)') + ']';
}
function errorText(e) {
  var n = tryCall(function () { return String(this.name); }, e);
  var m = tryCall(function () { return String(this.message); }, e);
  var name = n.ok ? n.v : 'Error', msg = m.ok ? m.v : '';
  return msg ? name + ': ' + msg : name;
}
function prop(o, k, level, seen) {
  var d = getDesc(o, k);
  if (!d) return key(k) + ': undefined';
  if (d.get || d.set) return key(k) + ': [' + (d.get ? (d.set ? 'Getter/Setter' : 'Getter') : 'Setter') + ']';
  return key(k) + ': ' + fmt(d.value, level + 1, seen);
}
function ownEnumerable(o, skipIndices) {
  var keys = R.ownKeys(o), out = [];
  for (var i = 0; i < keys.length; i++) {
    var k = keys[i];
    if (skipIndices && typeof k === 'string' && /^(0|[1-9]\d*)$/.test(k) && +k < 4294967295) continue;
    var d = getDesc(o, k);
    if (d && d.enumerable) out.push(k);
  }
  return out;
}
function arrayItems(a, level, seen, out) {
  var len = a.length, shown = 0, i = 0;
  while (i < len && shown < MAX_ITEMS) {
    if (!O.prototype.hasOwnProperty.call(a, i)) {
      var j = i;
      while (j < len && !O.prototype.hasOwnProperty.call(a, j)) j++;
      out.push('<' + (j - i) + ' empty item' + (j - i > 1 ? 's' : '') + '>');
      i = j;
    } else {
      out.push(fmt(a[i], level + 1, seen));
      i++;
    }
    shown++;
  }
  if (i < len) out.push('... ' + (len - i) + ' more item' + (len - i > 1 ? 's' : ''));
}
function join(prefix, open, close, items, level) {
  if (!items.length) return (prefix ? prefix + ' ' : '') + open + close;
  var total = items.length + prefix.length + open.length + level * 2 + 10, nl = false;
  for (var i = 0; i < items.length; i++) {
    total += items[i].length;
    if (items[i].indexOf('\n') >= 0) nl = true;
  }
  var head = prefix ? prefix + ' ' : '';
  if (!nl && total + items.length <= BREAK) return head + open + ' ' + items.join(', ') + ' ' + close;
  var pad = '\n' + '  '.repeat(level);
  return head + open + pad + '  ' + items.join(',' + pad + '  ') + pad + close;
}
function fmt(v, level, seen) {
  var p = prim(v);
  if (p !== undefined) return p;
  if (typeof v === 'function') return funcText(v);
  if (seen.indexOf(v) >= 0) return '[Circular *1]';
  var tag = toTag.call(v).slice(8, -1);
  if (tag === 'Date') { var t = tryCall(dateValue, v); if (t.ok) return t.v === t.v ? isoDate.call(v) : 'Invalid Date'; }
  if (tag === 'RegExp') { var r = tryCall(reText, v); if (r.ok) return r.v; }
  if (tag === 'Error') return level ? '[' + errorText(v) + ']' : errorText(v);
  var name = ctorName(v), isMap = tryCall(mapSize, v).ok, isSet = !isMap && tryCall(setSize, v).ok;
  var isArr = Array.isArray(v), isTyped = isView(v) && tag !== 'DataView';
  var prefix, open = '{', close = '}';
  if (isMap || isSet) prefix = (name || (isMap ? 'Map' : 'Set')) + '(' + (isMap ? mapSize : setSize).call(v) + ')';
  else if (isArr || isTyped) { prefix = isArr && name === 'Array' ? '' : (name || tag) + '(' + v.length + ')'; open = '['; close = ']'; }
  else if (name === null) prefix = '[Object: null prototype]';
  else prefix = name === 'Object' ? (tag !== 'Object' ? 'Object [' + tag + ']' : '') : name;
  if (level > DEPTH) return '[' + (isArr ? 'Array' : (name || 'Object')) + ']';
  seen.push(v);
  var items = [];
  if (isArr || isTyped) arrayItems(v, level, seen, items);
  if (isMap) {
    var it = mapEntries.call(v), e;
    while (!(e = it.next()).done && items.length < MAX_ITEMS)
      items.push(fmt(e.value[0], level + 1, seen) + ' => ' + fmt(e.value[1], level + 1, seen));
  }
  if (isSet) {
    var sit = setValues.call(v), s;
    while (!(s = sit.next()).done && items.length < MAX_ITEMS) items.push(fmt(s.value, level + 1, seen));
  }
  var keys = ownEnumerable(v, isArr || isTyped);
  for (var i = 0; i < keys.length; i++) items.push(prop(v, keys[i], level, seen));
  seen.pop();
  return join(prefix, open, close, items, level);
}
return function (v) { return fmt(v, 0, []); };
})()
)JS";

void sm_emit_ascii(struct sbx__buf *b, const char *s, size_t len)
{
    size_t room = b->limit - b->len;
    if (b->is_oom || len == 0)
        return;
    if (room < len || b->is_truncated) {
        b->is_truncated = true; /* after a cut, later short writes must not slip in */
        return;
    }
    sbx__buf_append(b, s, len);
}

/* Converts at most room + 1 code units: each is at least one byte of UTF-8, so that fills the
 * room, and a surrogate pair split at the end lies past the cut. */
void sm_emit(JSContext *cx, struct sbx__buf *b, JSString *str)
{
    size_t room = b->limit - b->len;
    JS::RootedString s(cx, str);
    JSLinearString *lin = JS_EnsureLinearString(cx, s);
    if (!lin) {
        JS_ClearPendingException(cx);
        b->is_oom = true;
        return;
    }
    size_t count = JS::GetLinearStringLength(lin);
    if (b->is_oom || count == 0)
        return;
    if (room == 0 || b->is_truncated) {
        b->is_truncated = true;
        return;
    }
    size_t take = count < room + 1 ? count : room + 1;
    char *text = nullptr;
    size_t n;
    {
        JS::AutoCheckCannotGC nogc;
        if (JS::LinearStringHasLatin1Chars(lin)) {
            const JS::Latin1Char *c = JS::GetLatin1LinearStringChars(nogc, lin);
            n = sbx__js_latin1_to_utf8(c, take, nullptr);
            text = static_cast<char *>(sbx__mallocn(n + 1, 1));
            if (text)
                sbx__js_latin1_to_utf8(c, take, text);
        } else {
            const uint16_t *c =
                reinterpret_cast<const uint16_t *>(JS::GetTwoByteLinearStringChars(nogc, lin));
            n = sbx__js_utf16_to_utf8(c, take, nullptr);
            text = static_cast<char *>(sbx__mallocn(n + 1, 1));
            if (text)
                sbx__js_utf16_to_utf8(c, take, text);
        }
    }
    if (!text) {
        b->is_oom = true;
        return;
    }
    if (n > room) {
        n = sbx__js_utf8_cut(text, n, room);
        b->is_truncated = true;
    }
    sbx__buf_append(b, text, n);
    sbx__free(text);
}

/* Returns the realm's inspector function, compiling it on first use. */
static bool inspector(JSContext *cx, JS::MutableHandleValue fn)
{
    JS::RootedObject global(cx, JS::CurrentGlobalOrNull(cx));
    fn.set(JS::GetReservedSlot(global, SM_SLOT_INSPECT));
    if (fn.isObject())
        return true;
    JS::CompileOptions opts(cx);
    opts.setFileAndLine("sbx:console", 1);
    JS::SourceText<mozilla::Utf8Unit> src;
    if (!src.init(cx, inspector_src, sizeof(inspector_src) - 1, JS::SourceOwnership::Borrowed) ||
        !JS::Evaluate(cx, opts, src, fn))
        return false;
    JS::SetReservedSlot(global, SM_SLOT_INSPECT, fn);
    return true;
}

bool sm_console_text(JSContext *cx, JS::HandleValue v, struct sbx__buf *b)
{
    JS::RootedValue text(cx, v);
    if (v.isNumber() && v.toNumber() == 0 && 1 / v.toNumber() < 0) {
        sm_emit_ascii(b, "-0", 2);
        return true;
    }
    if (!v.isString() && (v.isObject() || v.isSymbol() || v.isBigInt())) {
        JS::RootedValue fn(cx);
        JS::RootedValueArray<1> args(cx);
        args[0].set(v);
        if (!inspector(cx, &fn) || !JS::Call(cx, JS::UndefinedHandleValue, fn, args, &text))
            return false;
    }
    JSString *s = JS::ToString(cx, text);
    if (!s)
        return false;
    sm_emit(cx, b, s);
    return true;
}

/* console.log and friends: arguments joined by spaces, one line per call. */
static bool write_args(JSContext *cx, unsigned argc, JS::Value *vp, bool is_err)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    struct sm_run *run = sm_current();
    if (!run)
        return true;
    struct sbx__buf *b = is_err ? &run->out->err : &run->out->out;
    for (unsigned i = 0; i < args.length(); i++) {
        if (i > 0)
            sm_emit_ascii(b, " ", 1);
        if (!sm_console_text(cx, args[i], b))
            return false;
    }
    sm_emit_ascii(b, "\n", 1);
    sbx__buf_flush_tap(b); /* streaming: one chunk per console call */
    args.rval().setUndefined();
    return true;
}

static bool console_out(JSContext *cx, unsigned argc, JS::Value *vp)
{
    return write_args(cx, argc, vp, false);
}

static bool console_err(JSContext *cx, unsigned argc, JS::Value *vp)
{
    return write_args(cx, argc, vp, true);
}

bool sm_console_install(JSContext *cx, JS::HandleObject global)
{
    static const JSFunctionSpec methods[] = {
        JS_FN("log", console_out, 0, JSPROP_ENUMERATE),
        JS_FN("info", console_out, 0, JSPROP_ENUMERATE),
        JS_FN("debug", console_out, 0, JSPROP_ENUMERATE),
        JS_FN("error", console_err, 0, JSPROP_ENUMERATE),
        JS_FN("warn", console_err, 0, JSPROP_ENUMERATE),
        JS_FS_END,
    };
    JS::RootedObject console(cx, JS_NewPlainObject(cx));
    return console && JS_DefineFunctions(cx, console, methods) &&
           JS_DefineProperty(cx, global, "console", console, 0);
}
