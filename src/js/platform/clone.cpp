/* js/platform/clone.cpp: structuredClone through SpiderMonkey's own structured clone (HTML's
 * algorithm for primitives, wrappers, Date, RegExp, ArrayBuffer and views, Map, Set, arrays and
 * plain objects, with shared references and cycles), plus Error objects, which SpiderMonkey 102
 * does not clone: HTML's serialization of errors (name among the seven standard ones, message,
 * and as V8 does, stack and cause). A cause is cloned on its own, so it shares no identity with
 * the rest of the graph (the engine's writer cannot nest from a callback); web.js turns a
 * failure into Node's DataCloneError. */
#include "js/platform/platform.h" /* first: see sm.h */

#include <js/Conversions.h>
#include <js/Proxy.h>
#include <js/StructuredClone.h>
#include <jsfriendapi.h>
#include <stdio.h>
#include <string.h>

#define TAG_ERROR   (JS_SCTAG_USER_MIN + 1)
#define CAUSE_DEPTH 32 /* errors whose causes nest deeper fail (a cause cycle) */
#define HAS_MESSAGE 1u
#define HAS_STACK   2u
#define HAS_CAUSE   4u

struct clone_ctx {
    JS::MutableHandleValue what; /* the object that cannot be cloned */
    JS::MutableHandleValueVector causes;
    bool has_error; /* the engine reported one (e.g. a symbol) */
    uint32_t error_id;
    unsigned depth;
};

static const JSProtoKey error_protos[] = {
    JSProto_Error,       JSProto_EvalError, JSProto_RangeError, JSProto_ReferenceError,
    JSProto_SyntaxError, JSProto_TypeError, JSProto_URIError,
};
static const char *const error_names[] = {
    "Error", "EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError"};

static bool clone_value(JSContext *cx, JS::HandleValue v, JS::HandleValue transfer,
                        struct clone_ctx *ctx, JS::MutableHandleValue out);

/* HTML 2.7.3 StructuredSerializeInternal, the error branch: the name picks the prototype. */
static bool error_name_index(JSContext *cx, JS::HandleObject obj, uint32_t *index)
{
    JS::RootedValue v(cx);
    *index = 0;
    if (!JS_GetProperty(cx, obj, "name", &v))
        return false;
    JS::RootedString name(cx, JS::ToString(cx, v));
    if (!name)
        return false;
    for (uint32_t i = 1; i < sizeof(error_names) / sizeof(error_names[0]); i++) {
        bool is_match;
        if (!JS_StringEqualsAscii(cx, name, error_names[i], &is_match))
            return false;
        if (is_match)
            *index = i;
    }
    return true;
}

/* The message, when obj has it as an own data property (HTML: [[GetOwnProperty]]). */
static bool message_of(JSContext *cx, JS::HandleObject obj, JS::MutableHandleString out)
{
    JS::Rooted<mozilla::Maybe<JS::PropertyDescriptor>> desc(cx);
    if (!JS_GetOwnPropertyDescriptor(cx, obj, "message", &desc))
        return false;
    if (desc.isNothing() || !desc->isDataDescriptor())
        return true;
    JS::RootedValue v(cx, desc->value());
    out.set(JS::ToString(cx, v));
    return out != nullptr;
}

/* The stack, when it is a string (as V8 serializes it). */
static bool stack_of(JSContext *cx, JS::HandleObject obj, JS::MutableHandleString out)
{
    JS::RootedValue v(cx);
    if (!JS_GetProperty(cx, obj, "stack", &v))
        return false;
    if (v.isString())
        out.set(v.toString());
    return true;
}

static bool write_error(JSContext *cx, JSStructuredCloneWriter *w, JS::HandleObject obj,
                        struct clone_ctx *ctx)
{
    uint32_t index, flags = 0;
    JS::RootedString message(cx), stack(cx);
    JS::RootedValue cause(cx), copy(cx);
    bool has_cause;
    if (!error_name_index(cx, obj, &index) || !message_of(cx, obj, &message) ||
        !stack_of(cx, obj, &stack) || !JS_HasOwnProperty(cx, obj, "cause", &has_cause))
        return false;
    if (has_cause) {
        struct clone_ctx inner = {ctx->what, ctx->causes, false, 0, ctx->depth + 1};
        if (ctx->depth >= CAUSE_DEPTH) {
            ctx->what.setObject(*obj);
            return false;
        }
        if (!JS_GetProperty(cx, obj, "cause", &cause) ||
            !clone_value(cx, cause, JS::UndefinedHandleValue, &inner, &copy)) {
            ctx->has_error = inner.has_error;
            ctx->error_id = inner.error_id;
            return false;
        }
        if (!ctx->causes.append(copy))
            return false;
    }
    flags = (message ? HAS_MESSAGE : 0) | (stack ? HAS_STACK : 0) | (has_cause ? HAS_CAUSE : 0);
    return JS_WriteUint32Pair(w, TAG_ERROR, index) && JS_WriteUint32Pair(w, flags, 0) &&
           (!message || JS_WriteString(w, message)) && (!stack || JS_WriteString(w, stack)) &&
           (!has_cause || JS_WriteUint32Pair(w, (uint32_t)ctx->causes.length() - 1, 0));
}

/* Errors are written; any other object the engine does not know is the clone's failure. */
static bool write_op(JSContext *cx, JSStructuredCloneWriter *w, JS::HandleObject obj, bool *,
                     void *closure)
{
    struct clone_ctx *ctx = static_cast<struct clone_ctx *>(closure);
    js::ESClass cls = js::ESClass::Other;
    if (!js::IsProxy(obj) && !JS::GetBuiltinClass(cx, obj, &cls))
        return false;
    if (cls == js::ESClass::Error)
        return write_error(cx, w, obj, ctx);
    ctx->what.setObject(*obj);
    return false;
}

static JSObject *read_op(JSContext *cx, JSStructuredCloneReader *r, const JS::CloneDataPolicy &,
                         uint32_t tag, uint32_t index, void *closure)
{
    struct clone_ctx *ctx = static_cast<struct clone_ctx *>(closure);
    uint32_t flags, unused, cause_at = 0;
    JS::RootedString message(cx), stack(cx);
    JS::RootedObject ctor(cx), err(cx);
    JS::RootedValue ctorv(cx);
    if (tag != TAG_ERROR || index >= sizeof(error_protos) / sizeof(error_protos[0]) ||
        !JS_ReadUint32Pair(r, &flags, &unused) ||
        ((flags & HAS_MESSAGE) && !JS_ReadString(r, &message)) ||
        ((flags & HAS_STACK) && !JS_ReadString(r, &stack)) ||
        ((flags & HAS_CAUSE) &&
         (!JS_ReadUint32Pair(r, &cause_at, &unused) || cause_at >= ctx->causes.length()))) {
        JS_ReportErrorASCII(cx, "structuredClone: corrupt error record");
        return nullptr;
    }
    JS::RootedValueArray<1> args(cx);
    if (message)
        args[0].setString(message);
    if (!JS_GetClassObject(cx, error_protos[index], &ctor))
        return nullptr;
    ctorv.setObject(*ctor);
    if (!JS::Construct(cx, ctorv,
                       message ? JS::HandleValueArray(args) : JS::HandleValueArray::empty(), &err))
        return nullptr;
    unsigned attrs = 0; /* writable, configurable, not enumerable: as the engine's own */
    if ((stack && !JS_DefineProperty(cx, err, "stack", stack, attrs)) ||
        ((flags & HAS_CAUSE) && !JS_DefineProperty(cx, err, "cause", ctx->causes[cause_at], attrs)))
        return nullptr;
    return err;
}

static void error_op(JSContext *, uint32_t error_id, void *closure, const char *)
{
    struct clone_ctx *ctx = static_cast<struct clone_ctx *>(closure);
    ctx->has_error = true;
    ctx->error_id = error_id;
}

static const JSStructuredCloneCallbacks callbacks = {
    read_op, write_op, error_op, nullptr, nullptr, nullptr, nullptr, nullptr,
};

static bool clone_value(JSContext *cx, JS::HandleValue v, JS::HandleValue transfer,
                        struct clone_ctx *ctx, JS::MutableHandleValue out)
{
    JSAutoStructuredCloneBuffer buf(JS::StructuredCloneScope::SameProcess, &callbacks, ctx);
    JS::CloneDataPolicy policy;
    return buf.write(cx, v, transfer, policy, &callbacks, ctx) &&
           buf.read(cx, out, policy, &callbacks, ctx);
}

static bool set_field(JSContext *cx, JS::HandleObject o, const char *name, JS::HandleValue v)
{
    return JS_DefineProperty(cx, o, name, v, JSPROP_ENUMERATE);
}

/* clone(value, transfer): {ok: true, value} or {ok: false, what} where what is the object that
 * cannot be cloned (a function, or "#<Class>" for another object) or undefined (a symbol), or
 * {ok: false, transfer: true} for a bad transfer list. Exceptions from getters propagate. */
static bool clone(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::RootedValue what(cx), out(cx), flag(cx);
    JS::RootedValueVector causes(cx);
    struct clone_ctx ctx = {&what, &causes, false, 0, 0};
    JS::RootedValue transfer(cx, args.get(1).isObject() ? args[1] : JS::UndefinedValue());
    bool ok = clone_value(cx, args.get(0), transfer, &ctx, &out);
    if (!ok && JS_IsExceptionPending(cx))
        return false;
    if (!ok && !ctx.has_error && what.isUndefined())
        return false; /* stopped (uncatchable) */
    JS::RootedObject r(cx, JS_NewPlainObject(cx));
    if (!r)
        return false;
    flag.setBoolean(ok);
    if (!set_field(cx, r, "ok", flag))
        return false;
    args.rval().setObject(*r);
    if (ok)
        return set_field(cx, r, "value", out);
    if (what.isObject() && !JS::IsCallable(&what.toObject())) {
        JSObject *obj = &what.toObject();
        const char *cls = js::IsProxy(obj) ? "Object" : JS::GetClass(obj)->name;
        char text[96];
        snprintf(text, sizeof(text), "#<%s>", cls);
        JSString *s = JS_NewStringCopyZ(cx, text);
        if (!s)
            return false;
        what.setString(s);
    }
    flag.setBoolean(ctx.has_error && (ctx.error_id == JS_SCERR_TRANSFERABLE ||
                                      ctx.error_id == JS_SCERR_DUP_TRANSFERABLE));
    return set_field(cx, r, "what", what) && set_field(cx, r, "transfer", flag);
}

bool sm_platform_clone_natives(JSContext *cx, JS::HandleObject natives)
{
    return JS_DefineFunction(cx, natives, "clone", clone, 2, 0);
}
