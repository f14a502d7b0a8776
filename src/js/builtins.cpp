/* js/builtins.cpp: the ES2023+ built-ins SpiderMonkey 102 lacks, in every run's realm
 * (docs/worker.md, "Built-ins"). Each is a native function here, defined when its class is:
 * Array's, String's and Object's with the realm, Map's, Promise's and %TypedArray%'s when the
 * engine makes that class (making them all would cost every run). Most forward to their steps
 * in builtins.js, compiled once per process and instantiated into a realm on its first call;
 * the intrinsics those steps use are taken when the class is, before guest code can change
 * them, and kept with the realm's state in a reserved slot of its global. */
#include "js/sm.h" /* first: see there */

#include <js/ArrayBuffer.h>
#include <js/Conversions.h>
#include <js/Object.h>
#include <js/experimental/TypedData.h>

#include "builtins_js.h" /* generated from builtins.js (mk/js.mk) */

extern "C" {
#include "util/alloc.h"
}

/* The realm's state (the SM_SLOT_BUILTINS object): its intrinsics by name, "impl" (the array
 * of builtins.js's functions, once made) and, per lazy class, whether it is installed. */
static struct sm_script *script;
static pthread_once_t script_once = PTHREAD_ONCE_INIT;

static void make_script(void)
{
    script = sm_script_new("sbx:builtins.js", sm_js_builtins, sizeof(sm_js_builtins) - 1);
}

/* Throws a new error of class key (the current realm's) with message msg; returns false. */
static bool throw_new(JSContext *cx, JSProtoKey key, const char *msg)
{
    JS::RootedObject ctor(cx), error(cx);
    JS::RootedValueArray<1> args(cx);
    args[0].setString(JS_NewStringCopyZ(cx, msg));
    if (!args[0].isString() || !JS_GetClassObject(cx, key, &ctor))
        return false;
    JS::RootedValue fn(cx, JS::ObjectValue(*ctor));
    if (!JS::Construct(cx, fn, args, &error))
        return false;
    JS::RootedValue v(cx, JS::ObjectValue(*error));
    JS_SetPendingException(cx, v);
    return false;
}

static bool type_error(JSContext *cx, const char *msg)
{
    return throw_new(cx, JSProto_TypeError, msg);
}

/* define(o, key, value): CreateDataPropertyOrThrow. */
static bool define(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::RootedObject obj(cx, args.get(0).isObject() ? &args[0].toObject() : nullptr);
    JS::RootedId id(cx);
    if (!obj || !JS_ValueToId(cx, args.get(1), &id) ||
        !JS_DefinePropertyById(cx, obj, id, args.get(2), JSPROP_ENUMERATE))
        return obj ? false : type_error(cx, "define: not an object");
    args.rval().setUndefined();
    return true;
}

static bool is_constructor(JSContext *cx, unsigned argc, JS::Value *vp)
{
    (void)cx;
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    args.rval().setBoolean(args.get(0).isObject() && JS::IsConstructor(&args[0].toObject()));
    return true;
}

static bool to_property_key(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::RootedId id(cx);
    if (!JS_ValueToId(cx, args.get(0), &id))
        return false;
    return JS_IdToValue(cx, id, args.rval());
}

static bool is_lead(char16_t c)
{
    return c >= 0xD800 && c <= 0xDBFF;
}

static bool is_trail(char16_t c)
{
    return c >= 0xDC00 && c <= 0xDFFF;
}

/* The index of the first lone surrogate of s, or its length. */
static size_t first_lone(const char16_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (is_lead(s[i]) && i + 1 < n && is_trail(s[i + 1]))
            i++;
        else if (is_lead(s[i]) || is_trail(s[i]))
            return i;
    }
    return n;
}

/* String.prototype.isWellFormed / toWellFormed. */
static bool well_formed(JSContext *cx, unsigned argc, JS::Value *vp, bool is_to)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    if (args.thisv().isNullOrUndefined()) /* RequireObjectCoercible */
        return type_error(cx, is_to ? "String.prototype.toWellFormed called on null or undefined"
                                    : "String.prototype.isWellFormed called on null or undefined");
    JS::RootedString str(cx, JS::ToString(cx, args.thisv()));
    if (!str)
        return false;
    if (JS::StringHasLatin1Chars(str)) { /* no surrogates at all */
        args.rval().set(is_to ? JS::StringValue(str) : JS::BooleanValue(true));
        return true;
    }
    size_t n = 0, lone;
    {
        JS::AutoCheckCannotGC nogc;
        const char16_t *chars = JS_GetTwoByteStringCharsAndLength(cx, nogc, str, &n);
        if (!chars)
            return false;
        lone = first_lone(chars, n);
    }
    if (!is_to || lone == n) {
        args.rval().set(is_to ? JS::StringValue(str) : JS::BooleanValue(lone == n));
        return true;
    }
    char16_t *copy = static_cast<char16_t *>(sbx__mallocn(n ? n : 1, sizeof(char16_t)));
    if (!copy || !JS_CopyStringChars(cx, mozilla::Range<char16_t>(copy, n), str)) {
        sbx__free(copy);
        return copy ? false : (JS_ReportOutOfMemory(cx), false);
    }
    for (size_t i = lone; i < n; i++) {
        if (is_lead(copy[i]) && i + 1 < n && is_trail(copy[i + 1]))
            i++;
        else if (is_lead(copy[i]) || is_trail(copy[i]))
            copy[i] = 0xFFFD;
    }
    JSString *out = JS_NewUCStringCopyN(cx, copy, n);
    sbx__free(copy);
    if (!out)
        return false;
    args.rval().setString(out);
    return true;
}

static bool is_well_formed(JSContext *cx, unsigned argc, JS::Value *vp)
{
    return well_formed(cx, argc, vp, false);
}

static bool to_well_formed(JSContext *cx, unsigned argc, JS::Value *vp)
{
    return well_formed(cx, argc, vp, true);
}

/* The typed array in v if it is one and its buffer is attached, else NULL with a TypeError. */
static JSObject *valid_typed_array(JSContext *cx, JS::HandleValue v)
{
    JSObject *obj = v.isObject() ? &v.toObject() : nullptr;
    if (!obj || !JS_IsTypedArrayObject(obj)) {
        type_error(cx, "this is not a typed array");
        return nullptr;
    }
    bool is_shared = false;
    JS::RootedObject view(cx, obj);
    JS::RootedObject buffer(cx, JS_GetArrayBufferViewBuffer(cx, view, &is_shared));
    if (!buffer || (!is_shared && JS::IsDetachedArrayBufferObject(buffer))) {
        if (!JS_IsExceptionPending(cx))
            type_error(cx, "attempting to access detached ArrayBuffer");
        return nullptr;
    }
    return obj;
}

static bool typed_array_length(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JSObject *obj = valid_typed_array(cx, args.get(0));
    if (!obj)
        return false;
    args.rval().setNumber(static_cast<double>(JS_GetTypedArrayLength(obj)));
    return true;
}

static bool is_bigint_type(JS::Scalar::Type t)
{
    return t == JS::Scalar::BigInt64 || t == JS::Scalar::BigUint64;
}

/* typedArrayCreate(exemplar, len): a new typed array of exemplar's type, from this realm. */
static bool typed_array_create(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JSObject *obj = valid_typed_array(cx, args.get(0));
    double len = args.get(1).isNumber() ? args[1].toNumber() : -1;
    if (!obj || len < 0)
        return obj ? type_error(cx, "typedArrayCreate: bad length") : false;
    JSObject *out = nullptr;
    switch (JS_GetArrayBufferViewType(obj)) {
#define CREATE(ExternalType, NativeType, Name)                                                     \
    case JS::Scalar::Name:                                                                         \
        out = JS_New##Name##Array(cx, static_cast<size_t>(len));                                   \
        break;
        JS_FOR_EACH_TYPED_ARRAY(CREATE)
#undef CREATE
    default:
        type_error(cx, "typedArrayCreate: unknown type");
    }
    if (!out)
        return false;
    args.rval().setObject(*out);
    return true;
}

static bool is_bigint_typed_array(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JSObject *obj = valid_typed_array(cx, args.get(0));
    if (!obj)
        return false;
    args.rval().setBoolean(is_bigint_type(JS_GetArrayBufferViewType(obj)));
    return true;
}

/* ToBigInt(v), through a BigInt64Array element's conversion (no public ToBigInt). */
static bool to_bigint(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    if (args.get(0).isBigInt()) {
        args.rval().set(args[0]);
        return true;
    }
    JS::RootedObject scratch(cx, JS_NewBigInt64Array(cx, 1));
    return scratch && JS_SetElement(cx, scratch, 0, args.get(0)) &&
           JS_GetElement(cx, scratch, 0, args.rval());
}

/* isValidIntegerIndex(o, index): attached, and 0 <= index < length. */
static bool is_valid_integer_index(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JSObject *obj = args.get(0).isObject() ? &args[0].toObject() : nullptr;
    double i = args.get(1).isNumber() ? args[1].toNumber() : -1;
    bool ok = obj && JS_IsTypedArrayObject(obj);
    if (ok) {
        JS::RootedObject view(cx, obj);
        bool is_shared = false;
        JS::RootedObject buffer(cx, JS_GetArrayBufferViewBuffer(cx, view, &is_shared));
        if (!buffer)
            return false;
        ok = (is_shared || !JS::IsDetachedArrayBufferObject(buffer)) && i >= 0 &&
             i == static_cast<double>(static_cast<int64_t>(i)) &&
             i < static_cast<double>(JS_GetTypedArrayLength(obj));
    }
    args.rval().setBoolean(ok);
    return true;
}

/* call(fn, thisArg, argsArray) */
static bool call(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::RootedObject list(cx, args.get(2).isObject() ? &args[2].toObject() : nullptr);
    uint32_t n = 0;
    if (!list || !JS::GetArrayLength(cx, list, &n))
        return list ? false : type_error(cx, "call: no argument list");
    JS::RootedValueVector argv(cx);
    if (!argv.resize(n))
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (!JS_GetElement(cx, list, i, argv[i]))
            return false;
    return JS::Call(cx, args.get(1), args.get(0), argv, args.rval());
}

static bool throw_error(JSContext *cx, unsigned argc, JS::Value *vp, JSProtoKey key)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::RootedObject ctor(cx), error(cx);
    JS::RootedValueArray<1> msg(cx);
    msg[0].set(args.get(0));
    if (!JS_GetClassObject(cx, key, &ctor))
        return false;
    JS::RootedValue fn(cx, JS::ObjectValue(*ctor));
    if (!JS::Construct(cx, fn, msg, &error))
        return false;
    JS::RootedValue v(cx, JS::ObjectValue(*error));
    JS_SetPendingException(cx, v);
    return false;
}

static bool type_error_native(JSContext *cx, unsigned argc, JS::Value *vp)
{
    return throw_error(cx, argc, vp, JSProto_TypeError);
}

static bool range_error_native(JSContext *cx, unsigned argc, JS::Value *vp)
{
    return throw_error(cx, argc, vp, JSProto_RangeError);
}

static bool to_object(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    if (args.get(0).isNullOrUndefined())
        return type_error(cx, args.get(0).isNull() ? "can't convert null to object"
                                                   : "can't convert undefined to object");
    JS::RootedObject obj(cx);
    if (!JS_ValueToObject(cx, args.get(0), &obj))
        return false;
    args.rval().setObject(*obj);
    return true;
}

/* ArrayCreate(len): a RangeError past 2^32 - 1. */
static bool array_create(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    double len = args.get(0).isNumber() ? args[0].toNumber() : -1;
    if (len < 0 || len > 4294967295.0)
        return throw_new(cx, JSProto_RangeError, "invalid array length");
    JSObject *a = JS::NewArrayObject(cx, static_cast<size_t>(len));
    if (!a)
        return false;
    args.rval().setObject(*a);
    return true;
}

static bool null_object(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JSObject *obj = JS_NewObjectWithGivenProto(cx, nullptr, nullptr);
    if (!obj)
        return false;
    args.rval().setObject(*obj);
    return true;
}

static bool has_own(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::RootedObject obj(cx, args.get(0).isObject() ? &args[0].toObject() : nullptr);
    JS::RootedId id(cx);
    bool found = false;
    if (!obj || !JS_ValueToId(cx, args.get(1), &id) || !JS_HasOwnPropertyById(cx, obj, id, &found))
        return obj ? false : type_error(cx, "hasOwn: not an object");
    args.rval().setBoolean(found);
    return true;
}

static const JSFunctionSpec natives[] = {
    JS_FN("call", call, 3, 0),
    JS_FN("define", define, 3, 0),
    JS_FN("typeError", type_error_native, 1, 0),
    JS_FN("rangeError", range_error_native, 1, 0),
    JS_FN("toObject", to_object, 1, 0),
    JS_FN("arrayCreate", array_create, 1, 0),
    JS_FN("nullObject", null_object, 0, 0),
    JS_FN("hasOwn", has_own, 2, 0),
    JS_FN("isConstructor", is_constructor, 1, 0),
    JS_FN("toPropertyKey", to_property_key, 1, 0),
    JS_FN("typedArrayLength", typed_array_length, 1, 0),
    JS_FN("typedArrayCreate", typed_array_create, 2, 0),
    JS_FN("isBigIntTypedArray", is_bigint_typed_array, 1, 0),
    JS_FN("toBigInt", to_bigint, 1, 0),
    JS_FN("isValidIntegerIndex", is_valid_integer_index, 2, 0),
    JS_FS_END,
};

/* builtins.js's functions, in the order of its returned array. */
enum impl {
    IMPL_FIND_LAST,
    IMPL_FIND_LAST_INDEX,
    IMPL_TO_REVERSED,
    IMPL_TO_SORTED,
    IMPL_TO_SPLICED,
    IMPL_WITH,
    IMPL_OBJECT_GROUP_BY,
    IMPL_FROM_ASYNC,
    IMPL_MAP_GROUP_BY,
    IMPL_WITH_RESOLVERS,
    IMPL_TA_FIND_LAST,
    IMPL_TA_FIND_LAST_INDEX,
    IMPL_TA_TO_REVERSED,
    IMPL_TA_TO_SORTED,
    IMPL_TA_WITH,
    IMPL_COUNT
};

static JSObject *realm_state(JSContext *cx)
{
    JS::RootedObject global(cx, JS::CurrentGlobalOrNull(cx));
    JS::Value v = global ? JS::GetReservedSlot(global, SM_SLOT_BUILTINS) : JS::UndefinedValue();
    if (!v.isObject())
        JS_ReportErrorASCII(cx, "sbx: built-ins used outside a run's realm");
    return v.isObject() ? &v.toObject() : nullptr;
}

/* The realm's array of builtins.js's functions, made on the first call. */
static bool impl_array(JSContext *cx, JS::HandleObject state, JS::MutableHandleObject out)
{
    JS::RootedValue v(cx);
    if (!JS_GetProperty(cx, state, "impl", &v))
        return false;
    if (v.isObject()) {
        out.set(&v.toObject());
        return true;
    }
    JS::RootedValue factory(cx), intrinsics(cx, JS::ObjectValue(*state));
    JS::RootedObject obj(cx, JS_NewPlainObject(cx));
    if (!obj || !JS_DefineFunctions(cx, obj, natives) || !sm_script_run(cx, script, &factory))
        return false;
    JS::RootedValueArray<2> args(cx);
    args[0].setObject(*obj);
    args[1].set(intrinsics);
    if (!JS::Call(cx, JS::UndefinedHandleValue, factory, args, &v) || !v.isObject())
        return false;
    out.set(&v.toObject());
    return JS_SetProperty(cx, state, "impl", v);
}

template <int I> static bool forward(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::RootedObject state(cx, realm_state(cx)), impl(cx);
    JS::RootedValue fn(cx);
    if (!state || !impl_array(cx, state, &impl) || !JS_GetElement(cx, impl, I, &fn))
        return false;
    JS::RootedValueVector argv(cx);
    if (!argv.append(args.array(), args.length()))
        return false;
    return JS::Call(cx, args.thisv(), fn, argv, args.rval());
}

static const JSFunctionSpec array_methods[] = {
    JS_FN("findLast", forward<IMPL_FIND_LAST>, 1, 0),
    JS_FN("findLastIndex", forward<IMPL_FIND_LAST_INDEX>, 1, 0),
    JS_FN("toReversed", forward<IMPL_TO_REVERSED>, 0, 0),
    JS_FN("toSorted", forward<IMPL_TO_SORTED>, 1, 0),
    JS_FN("toSpliced", forward<IMPL_TO_SPLICED>, 2, 0),
    JS_FN("with", forward<IMPL_WITH>, 2, 0),
    JS_FS_END,
};
static const JSFunctionSpec string_methods[] = {
    JS_FN("isWellFormed", is_well_formed, 0, 0),
    JS_FN("toWellFormed", to_well_formed, 0, 0),
    JS_FS_END,
};
static const JSFunctionSpec object_statics[] = {
    JS_FN("groupBy", forward<IMPL_OBJECT_GROUP_BY>, 2, 0),
    JS_FS_END,
};
static const JSFunctionSpec array_statics[] = {
    JS_FN("fromAsync", forward<IMPL_FROM_ASYNC>, 1, 0),
    JS_FS_END,
};
static const JSFunctionSpec map_statics[] = {
    JS_FN("groupBy", forward<IMPL_MAP_GROUP_BY>, 2, 0),
    JS_FS_END,
};
static const JSFunctionSpec promise_statics[] = {
    JS_FN("withResolvers", forward<IMPL_WITH_RESOLVERS>, 0, 0),
    JS_FS_END,
};
static const JSFunctionSpec typed_array_methods[] = {
    JS_FN("findLast", forward<IMPL_TA_FIND_LAST>, 1, 0),
    JS_FN("findLastIndex", forward<IMPL_TA_FIND_LAST_INDEX>, 1, 0),
    JS_FN("toReversed", forward<IMPL_TA_TO_REVERSED>, 0, 0),
    JS_FN("toSorted", forward<IMPL_TA_TO_SORTED>, 1, 0),
    JS_FN("with", forward<IMPL_TA_WITH>, 2, 0),
    JS_FS_END,
};

bool sm_builtins_prepare(JSContext *cx)
{
    pthread_once(&script_once, make_script);
    if (!script) {
        JS_ReportOutOfMemory(cx);
        return false;
    }
    return sm_script_stencil(cx, script) != nullptr;
}

/* state[name] = obj[prop]: an intrinsic, taken before guest code. */
static bool keep(JSContext *cx, JS::HandleObject state, const char *name, JS::HandleObject obj,
                 const char *prop)
{
    JS::RootedValue v(cx);
    return JS_GetProperty(cx, obj, prop, &v) && JS_SetProperty(cx, state, name, v);
}

static bool keep_symbol(JSContext *cx, JS::HandleObject state, const char *name,
                        JS::SymbolCode code)
{
    JS::RootedValue v(cx, JS::SymbolValue(JS::GetWellKnownSymbol(cx, code)));
    return JS_SetProperty(cx, state, name, v);
}

bool sm_builtins_install(JSContext *cx, JS::HandleObject global)
{
    static const char *const unscopable[] = {"findLast", "findLastIndex", "toReversed", "toSorted",
                                             "toSpliced"};
    /* No prototype: a guest's Object.prototype.impl must not look like the realm's state. */
    JS::RootedObject state(cx, JS_NewObjectWithGivenProto(cx, nullptr, nullptr));
    JS::RootedObject array_proto(cx), string_proto(cx);
    JS::RootedObject object_ctor(cx), array_ctor(cx), unscopables(cx);
    JS::RootedValue v(cx);
    if (!state || !JS_GetClassPrototype(cx, JSProto_Array, &array_proto) ||
        !JS_GetClassPrototype(cx, JSProto_String, &string_proto) ||
        !JS_GetClassObject(cx, JSProto_Object, &object_ctor) ||
        !JS_GetClassObject(cx, JSProto_Array, &array_ctor) ||
        !keep(cx, state, "sort", array_proto, "sort") ||
        !keep_symbol(cx, state, "iterator", JS::SymbolCode::iterator) ||
        !keep_symbol(cx, state, "asyncIterator", JS::SymbolCode::asyncIterator) ||
        !JS_DefineFunctions(cx, array_proto, array_methods) ||
        !JS_DefineFunctions(cx, string_proto, string_methods) ||
        !JS_DefineFunctions(cx, object_ctor, object_statics) ||
        !JS_DefineFunctions(cx, array_ctor, array_statics))
        return false;
    JS::RootedId unscopables_id(cx, JS::GetWellKnownSymbolKey(cx, JS::SymbolCode::unscopables));
    if (!JS_GetPropertyById(cx, array_proto, unscopables_id, &v) || !v.isObject())
        return false;
    unscopables = &v.toObject();
    for (const char *name : unscopable)
        if (!JS_DefineProperty(cx, unscopables, name, JS::TrueHandleValue, JSPROP_ENUMERATE))
            return false;
    JS::SetReservedSlot(global, SM_SLOT_BUILTINS, JS::ObjectValue(*state));
    return true;
}

/* Which lazy class a resolved standard class name makes: Map, Promise, or %TypedArray% (for a
 * typed array's, ArrayBuffer's or DataView's name, or TextEncoder's, whose values are
 * Uint8Arrays); NULL for the others. */
static const char *lazy_class(JS::HandleId id)
{
    static const char *const typed[] = {
        "Int8Array",      "Uint8Array",  "Uint8ClampedArray", "Int16Array",   "Uint16Array",
        "Int32Array",     "Uint32Array", "Float32Array",      "Float64Array", "BigInt64Array",
        "BigUint64Array", "ArrayBuffer", "DataView",          "TextEncoder",
    };
    if (!id.isString())
        return nullptr;
    JSLinearString *s = id.toLinearString();
    if (JS_LinearStringEqualsLiteral(s, "Map"))
        return "Map";
    if (JS_LinearStringEqualsLiteral(s, "Promise"))
        return "Promise";
    for (const char *name : typed)
        if (JS_LinearStringEqualsAscii(s, name))
            return "TypedArray";
    return nullptr;
}

bool sm_builtins_resolved(JSContext *cx, JS::HandleObject global, JS::HandleId id)
{
    return sm_builtins_ensure(cx, global, lazy_class(id));
}

/* Defines the class's built-ins and keeps the intrinsics their steps use. */
static bool install_lazy(JSContext *cx, JS::HandleObject state, const char *name)
{
    JS::RootedObject ctor(cx), proto(cx);
    if (strcmp(name, "Map") == 0)
        return JS_GetClassObject(cx, JSProto_Map, &ctor) &&
               JS_GetClassPrototype(cx, JSProto_Map, &proto) &&
               keep(cx, state, "mapGet", proto, "get") && keep(cx, state, "mapHas", proto, "has") &&
               keep(cx, state, "mapSet", proto, "set") &&
               JS_DefineProperty(cx, state, "Map", ctor, 0) &&
               JS_DefineFunctions(cx, ctor, map_statics);
    if (strcmp(name, "Promise") == 0)
        return JS_GetClassObject(cx, JSProto_Promise, &ctor) &&
               JS_DefineFunctions(cx, ctor, promise_statics);
    return JS_GetClassPrototype(cx, JSProto_TypedArray, &proto) &&
           keep(cx, state, "typedArraySort", proto, "sort") &&
           JS_DefineFunctions(cx, proto, typed_array_methods);
}

bool sm_builtins_ensure(JSContext *cx, JS::HandleObject global, const char *name)
{
    JS::Value slot = JS::GetReservedSlot(global, SM_SLOT_BUILTINS);
    if (!name || !slot.isObject())
        return true;
    JS::RootedObject state(cx, &slot.toObject());
    char flag[32];
    snprintf(flag, sizeof(flag), "has%s", name);
    bool done = false;
    if (!JS_HasProperty(cx, state, flag, &done))
        return false;
    if (done)
        return true;
    return JS_DefineProperty(cx, state, flag, JS::TrueHandleValue, 0) &&
           install_lazy(cx, state, name);
}
