/* js/platform/platform.cpp: the platform's names on each run's global, resolved on first touch.
 * The global class's resolve hook defines a name the first time the guest looks it up; the
 * JavaScript module behind it (the .js files here, embedded at build time) is compiled once
 * per process into a stencil and instantiated into the realm then, so a run pays only for what
 * it uses. A realm's state (which names are resolved, each module's exports, the first
 * uncaught callback error) lives in one object behind a reserved slot of its global. */
#include "js/platform/platform.h" /* first: see sm.h */

#include <js/CompilationAndEvaluation.h>
#include <js/Object.h>
#include <js/SourceText.h>
#include <js/Transcoding.h>
#include <js/experimental/JSStencil.h>
#include <js/Conversions.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "js/builtins/builtins.h"
#include "platform_js.h" /* generated from the .js files (mk/platform.mk) */

enum module {
    MOD_NONE = -1,
    MOD_UTIL,     /* what the others share (natives.util()) */
    MOD_URLPARSE, /* url.js's parsers (natives.module('urlparse')) */
    MOD_TIMERS,
    MOD_WEB,
    MOD_DOM,
    MOD_ENCODING,
    MOD_URL,
    MOD_CONSOLE,
    MOD_ITERATOR, /* js/builtins/: given the built-ins' natives, not the platform's */
    MOD_COUNT
};

static const struct {
    const char *file; /* as stack traces show it */
    const char *src;
    size_t len;
} modules[MOD_COUNT] = {
    {"sbx:util.js", sm_js_util, sizeof(sm_js_util) - 1},
    {"sbx:urlparse.js", sm_js_urlparse, sizeof(sm_js_urlparse) - 1},
    {"sbx:timers.js", sm_js_timers, sizeof(sm_js_timers) - 1},
    {"sbx:web.js", sm_js_web, sizeof(sm_js_web) - 1},
    {"sbx:dom.js", sm_js_dom, sizeof(sm_js_dom) - 1},
    {"sbx:encoding.js", sm_js_encoding, sizeof(sm_js_encoding) - 1},
    {"sbx:url.js", sm_js_url, sizeof(sm_js_url) - 1},
    {"sbx:console.js", sm_js_console, sizeof(sm_js_console) - 1},
    {"sbx:iterator.js", sm_js_iterator, sizeof(sm_js_iterator) - 1},
};

/* The names, in the order Node 20 lists its own (Object.keys(globalThis) gives the enumerable
 * ones in this order in both). */
static const struct {
    const char *name;
    enum module mod; /* whose exports have it; MOD_NONE: `global` itself */
    bool is_enumerable;
} names[] = {
    {"global", MOD_NONE, true},
    {"clearImmediate", MOD_TIMERS, true},
    {"setImmediate", MOD_TIMERS, true},
    {"clearInterval", MOD_TIMERS, true},
    {"clearTimeout", MOD_TIMERS, true},
    {"setInterval", MOD_TIMERS, true},
    {"setTimeout", MOD_TIMERS, true},
    {"queueMicrotask", MOD_TIMERS, true},
    {"structuredClone", MOD_WEB, true},
    {"atob", MOD_WEB, true},
    {"btoa", MOD_WEB, true},
    {"performance", MOD_WEB, true},
    {"crypto", MOD_WEB, true},
    {"DOMException", MOD_DOM, false},
    {"TextEncoder", MOD_ENCODING, false},
    {"TextDecoder", MOD_ENCODING, false},
    {"URL", MOD_URL, false},
    {"URLSearchParams", MOD_URL, false},
};
#define NAME_COUNT (sizeof(names) / sizeof(names[0]))
static_assert(NAME_COUNT <= 31, "resolved names are bits of one int32 slot");

enum state_slot {
    SLOT_RESOLVED,     /* Int32: bit i set once names[i] was defined */
    SLOT_UNCAUGHT,     /* the first uncaught callback error */
    SLOT_HAS_UNCAUGHT, /* Boolean: SLOT_UNCAUGHT holds one (undefined can be thrown) */
    SLOT_NATIVES,      /* the object handed to every platform module */
    SLOT_BI_NATIVES,   /* and to the built-ins' (js/builtins/) */
    SLOT_MODULES,      /* each module's exports, MOD_COUNT of them */
    SLOT_COUNT = SLOT_MODULES + MOD_COUNT
};

static const JSClass state_class = {
    "SbxPlatform", JSCLASS_HAS_RESERVED_SLOTS(SLOT_COUNT), nullptr, nullptr, nullptr, nullptr};

JSObject *sm_platform_state(JSContext *cx)
{
    JS::RootedObject global(cx, JS::CurrentGlobalOrNull(cx));
    JS::Value v = JS::GetReservedSlot(global, SM_SLOT_PLATFORM);
    if (v.isObject())
        return &v.toObject();
    JSObject *state = JS_NewObjectWithGivenProto(cx, &state_class, nullptr);
    if (!state)
        return nullptr;
    JS::SetReservedSlot(state, SLOT_RESOLVED, JS::Int32Value(0));
    JS::SetReservedSlot(state, SLOT_HAS_UNCAUGHT, JS::BooleanValue(false));
    JS::SetReservedSlot(global, SM_SLOT_PLATFORM, JS::ObjectValue(*state));
    return state;
}

void sm_platform_report(JSContext *cx, JS::HandleValue e)
{
    JSObject *state = sm_platform_state(cx);
    if (!state) {
        JS_ClearPendingException(cx);
        return;
    }
    if (JS::GetReservedSlot(state, SLOT_HAS_UNCAUGHT).toBoolean())
        return;
    JS::SetReservedSlot(state, SLOT_UNCAUGHT, e);
    JS::SetReservedSlot(state, SLOT_HAS_UNCAUGHT, JS::BooleanValue(true));
}

bool sm_platform_check(JSContext *cx)
{
    JS::RootedObject global(cx, JS::CurrentGlobalOrNull(cx));
    JS::Value v = JS::GetReservedSlot(global, SM_SLOT_PLATFORM);
    if (!v.isObject() || !JS::GetReservedSlot(&v.toObject(), SLOT_HAS_UNCAUGHT).toBoolean())
        return true;
    JS::RootedValue e(cx, JS::GetReservedSlot(&v.toObject(), SLOT_UNCAUGHT));
    JS_SetPendingException(cx, e);
    return false;
}

/* Each module's stencil. A JS::Stencil may not cross runtimes (each pool thread has its own):
 * one instantiated in a runtime other than the one that compiled it crashed that runtime's
 * destructor. So the first thread to need a module compiles it and keeps the encoded bytes for
 * the process; every other thread decodes its own stencil from them (cheaper than parsing) and
 * releases it before its context goes (sm_platform_thread_end). */
static pthread_mutex_t stencil_lock = PTHREAD_MUTEX_INITIALIZER;
static JS::TranscodeBuffer *encoded[MOD_COUNT]; /* for the process, never freed */
static thread_local JS::Stencil *stencils[MOD_COUNT];

static void module_options(JS::CompileOptions &opts, enum module mod)
{
    opts.setFileAndLine(modules[mod].file, 1);
    /* Bytecode for every function now, so a realm never parses the source again. */
    opts.setForceFullParse();
}

/* Compiles the module and, the first time in the process, keeps its encoding. Under the lock. */
static JS::Stencil *compile_module(JSContext *cx, enum module mod, JS::CompileOptions &opts)
{
    JS::SourceText<mozilla::Utf8Unit> src;
    if (!src.init(cx, modules[mod].src, modules[mod].len, JS::SourceOwnership::Borrowed))
        return nullptr;
    RefPtr<JS::Stencil> s = JS::CompileGlobalScriptToStencil(cx, opts, src);
    if (s && !encoded[mod]) {
        JS::TranscodeBuffer *buf = js_new<JS::TranscodeBuffer>();
        if (buf && JS::EncodeStencil(cx, s, *buf) == JS::TranscodeResult::Ok)
            encoded[mod] = buf;
        else
            js_delete(buf); /* the next thread compiles again */
    }
    return s.forget().take();
}

static JS::Stencil *module_stencil(JSContext *cx, enum module mod)
{
    if (stencils[mod])
        return stencils[mod];
    JS::CompileOptions opts(cx);
    module_options(opts, mod);
    pthread_mutex_lock(&stencil_lock);
    JS::TranscodeBuffer *bytes = encoded[mod];
    if (!bytes)
        stencils[mod] = compile_module(cx, mod, opts);
    pthread_mutex_unlock(&stencil_lock);
    if (bytes) { /* immutable once published */
        JS::DecodeOptions dopts(opts);
        JS::TranscodeRange range(bytes->begin(), bytes->length());
        RefPtr<JS::Stencil> s;
        if (JS::DecodeStencil(cx, dopts, range, getter_AddRefs(s)) == JS::TranscodeResult::Ok)
            stencils[mod] = s.forget().take();
        else if (!JS_IsExceptionPending(cx))
            JS_ReportErrorASCII(cx, "sbx: platform module %s did not decode", modules[mod].file);
    }
    return stencils[mod];
}

void sm_platform_thread_end(void)
{
    for (int i = 0; i < MOD_COUNT; i++) {
        if (stencils[i])
            JS::StencilRelease(stencils[i]);
        stencils[i] = nullptr;
    }
}

static bool module_exports(JSContext *cx, enum module mod, JS::MutableHandleObject out);

/* module(name): the exports of the module in file sbx:<name>.js, for the others; util()
 * is module('util'). */
static bool module_by_name(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    int mod = MOD_UTIL;
    if (args.length() > 0) {
        JS::RootedString name(cx, JS::ToString(cx, args[0]));
        if (!name)
            return false;
        mod = MOD_NONE;
        for (int i = 0; i < MOD_COUNT && mod == MOD_NONE; i++) {
            char file[64];
            bool is_match;
            snprintf(file, sizeof(file), "%.*s", (int)(strlen(modules[i].file) - 7),
                     modules[i].file + 4); /* "sbx:" name ".js" */
            if (!JS_StringEqualsAscii(cx, name, file, &is_match))
                return false;
            mod = is_match ? i : MOD_NONE;
        }
        if (mod == MOD_NONE) {
            JS_ReportErrorASCII(cx, "sbx: no platform module of that name");
            return false;
        }
    }
    JS::RootedObject exports(cx);
    if (!module_exports(cx, static_cast<enum module>(mod), &exports))
        return false;
    args.rval().setObject(*exports);
    return true;
}

static bool natives_object(JSContext *cx, JS::HandleObject state, enum module mod,
                           JS::MutableHandleObject out)
{
    int slot = mod == MOD_ITERATOR ? SLOT_BI_NATIVES : SLOT_NATIVES;
    JS::Value v = JS::GetReservedSlot(state, slot);
    if (v.isObject()) {
        out.set(&v.toObject());
        return true;
    }
    out.set(JS_NewObjectWithGivenProto(cx, nullptr, nullptr));
    if (!out)
        return false;
    if (slot == SLOT_BI_NATIVES
            ? !sm_builtins_natives(cx, out)
            : !JS_DefineFunction(cx, out, "util", module_by_name, 0, 0) ||
                  !JS_DefineFunction(cx, out, "module", module_by_name, 1, 0) ||
                  !sm_platform_host_natives(cx, out) || !sm_platform_codec_natives(cx, out) ||
                  !sm_platform_clone_natives(cx, out) || !sm_platform_idna_natives(cx, out) ||
                  !sm_platform_url_natives(cx, out))
        return false;
    JS::SetReservedSlot(state, slot, JS::ObjectValue(*out));
    return true;
}

/* The module's exports in this realm: its stencil instantiated, and the function it evaluates
 * to called with the natives. */
static bool module_exports(JSContext *cx, enum module mod, JS::MutableHandleObject out)
{
    JS::RootedObject state(cx, sm_platform_state(cx));
    if (!state)
        return false;
    JS::Value v = JS::GetReservedSlot(state, SLOT_MODULES + mod);
    if (v.isObject()) {
        out.set(&v.toObject());
        return true;
    }
    JS::Stencil *stencil = module_stencil(cx, mod);
    if (!stencil)
        return false;
    JS::CompileOptions opts(cx);
    module_options(opts, mod);
    JS::InstantiateOptions iopts(opts);
    JS::RootedScript script(cx, JS::InstantiateGlobalStencil(cx, iopts, stencil));
    JS::RootedValue fn(cx), exports(cx);
    JS::RootedObject natives(cx);
    if (!script || !JS_ExecuteScript(cx, script, &fn) || !natives_object(cx, state, mod, &natives))
        return false;
    JS::RootedValueArray<1> args(cx);
    args[0].setObject(*natives);
    if (!JS::Call(cx, JS::UndefinedHandleValue, fn, args, &exports))
        return false;
    if (!exports.isObject()) {
        JS_ReportErrorASCII(cx, "sbx: platform module %s did not load", modules[mod].file);
        return false;
    }
    JS::SetReservedSlot(state, SLOT_MODULES + mod, exports);
    out.set(&exports.toObject());
    return true;
}

bool sm_platform_module(JSContext *cx, const char *name, JS::MutableHandleObject exports)
{
    for (int i = 0; i < MOD_COUNT; i++) {
        size_t len = strlen(modules[i].file) - 7; /* "sbx:" name ".js" */
        if (strlen(name) == len && memcmp(modules[i].file + 4, name, len) == 0)
            return module_exports(cx, static_cast<enum module>(i), exports);
    }
    JS_ReportErrorASCII(cx, "sbx: no platform module %s", name);
    return false;
}

/* Calls the named export of a module with args. */
static bool call_export(JSContext *cx, enum module mod, const char *name,
                        const JS::HandleValueArray &args, JS::MutableHandleValue rval)
{
    JS::RootedObject exports(cx);
    JS::RootedValue fn(cx);
    return module_exports(cx, mod, &exports) && JS_GetProperty(cx, exports, name, &fn) &&
           JS::Call(cx, JS::UndefinedHandleValue, fn, args, rval);
}

bool sm_platform_turn(JSContext *cx, bool *ran)
{
    *ran = false;
    JS::RootedObject global(cx, JS::CurrentGlobalOrNull(cx));
    JS::Value state = JS::GetReservedSlot(global, SM_SLOT_PLATFORM);
    if (!state.isObject() ||
        !JS::GetReservedSlot(&state.toObject(), SLOT_MODULES + MOD_TIMERS).isObject())
        return true; /* no timer was ever set */
    JS::RootedValue wait(cx);
    for (;;) {
        if (!call_export(cx, MOD_TIMERS, "step", JS::HandleValueArray::empty(), &wait))
            return false;
        double ms = wait.isNumber() ? wait.toNumber() : -1;
        if (ms == 0) {
            *ran = true;
            return true;
        }
        if (!(ms > 0))
            return true; /* nothing pending */
        if (!sm_platform_sleep_ms(ms))
            return false; /* stopped: the caller reports the limit */
    }
}

static int find_name(JSLinearString *s)
{
    size_t len = JS::GetLinearStringLength(s);
    for (size_t i = 0; i < NAME_COUNT; i++)
        if (strlen(names[i].name) == len && JS_LinearStringEqualsAscii(s, names[i].name, len))
            return (int)i;
    return -1;
}

static bool resolve(JSContext *cx, JS::HandleObject global, JS::HandleId id, bool *resolvedp)
{
    if (!JS_ResolveStandardClass(cx, global, id, resolvedp) ||
        (!*resolvedp && !sm_builtins_resolve(cx, global, id, resolvedp)))
        return false;
    if (*resolvedp || !id.isString())
        return true;
    int i = find_name(id.toLinearString());
    if (i < 0)
        return true;
    JS::RootedObject state(cx, sm_platform_state(cx));
    if (!state)
        return false;
    int32_t resolved = JS::GetReservedSlot(state, SLOT_RESOLVED).toInt32();
    if (resolved & (1 << i))
        return true; /* defined once already (then deleted by the guest) */
    JS::RootedValue value(cx, JS::ObjectValue(*global));
    JS::RootedObject exports(cx);
    if (names[i].mod != MOD_NONE && (!module_exports(cx, names[i].mod, &exports) ||
                                     !JS_GetPropertyById(cx, exports, id, &value)))
        return false;
    unsigned attrs = names[i].is_enumerable ? JSPROP_ENUMERATE : 0;
    if (!JS_DefinePropertyById(cx, global, id, value, attrs))
        return false;
    JS::SetReservedSlot(state, SLOT_RESOLVED, JS::Int32Value(resolved | (1 << i)));
    *resolvedp = true;
    return true;
}

static bool may_resolve(const JSAtomState &atoms, jsid id, JSObject *maybe)
{
    return JS_MayResolveStandardClass(atoms, id, maybe) || sm_builtins_may_resolve(id) ||
           (id.isString() && find_name(id.toLinearString()) >= 0);
}

/* Lists the names not yet resolved (the engine lists defined properties itself). */
static bool enumerate(JSContext *cx, JS::HandleObject global, JS::MutableHandleIdVector props,
                      bool enumerable_only)
{
    if (!JS_NewEnumerateStandardClasses(cx, global, props, enumerable_only) ||
        !sm_builtins_enumerate(cx, global, props, enumerable_only))
        return false;
    JS::Value v = JS::GetReservedSlot(global, SM_SLOT_PLATFORM);
    int32_t resolved =
        v.isObject() ? JS::GetReservedSlot(&v.toObject(), SLOT_RESOLVED).toInt32() : 0;
    for (size_t i = 0; i < NAME_COUNT; i++) {
        if ((resolved & (1 << i)) || (enumerable_only && !names[i].is_enumerable))
            continue;
        JSString *atom = JS_AtomizeAndPinString(cx, names[i].name);
        if (!atom || !props.append(JS::PropertyKey::fromPinnedString(atom)))
            return false;
    }
    return true;
}

const JSClassOps sm_platform_global_ops = {
    sm_builtins_add_property,
    nullptr,
    nullptr,
    enumerate,
    resolve,
    may_resolve,
    nullptr,
    nullptr,
    nullptr,
    JS_GlobalObjectTraceHook,
};

/* console.table and the others are console.js's; one native each forwards to it. */
template <int I> static bool console_forward(JSContext *cx, unsigned argc, JS::Value *vp);

static const char *const console_methods[] = {
    "table", "dir", "time", "timeEnd", "timeLog", "count", "countReset", "assert", "trace",
};
#define CONSOLE_COUNT (sizeof(console_methods) / sizeof(console_methods[0]))

template <int I> static bool console_forward(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::RootedValueVector argv(cx);
    if (!argv.append(args.array(), args.length()))
        return false;
    return call_export(cx, MOD_CONSOLE, console_methods[I], argv, args.rval());
}

template <int... I> static bool define_console(JSContext *cx, JS::HandleObject console)
{
    static const JSFunctionSpec specs[] = {
        JS_FN(console_methods[I], console_forward<I>, 0, JSPROP_ENUMERATE)..., JS_FS_END};
    return JS_DefineFunctions(cx, console, specs);
}

bool sm_platform_install(JSContext *cx, JS::HandleObject global)
{
    sm_platform_clock_start();
    JS::RootedValue v(cx);
    if (!sm_builtins_realm_begin(cx, global) || !JS_GetProperty(cx, global, "console", &v))
        return false;
    if (!v.isObject())
        return true;
    JS::RootedObject console(cx, &v.toObject());
    static_assert(CONSOLE_COUNT == 9, "define_console lists every method");
    return define_console<0, 1, 2, 3, 4, 5, 6, 7, 8>(cx, console);
}
