/* js/builtins/iterator.cpp: the Iterator constructor and %Iterator.prototype%'s helpers
 * (ECMAScript 2025). The constructor, the accessors and a native per helper are defined here
 * when %IteratorPrototype% comes into use; each helper native forwards to its JavaScript in
 * iterator.js, which a realm instantiates on the first call of any of them. The natives that
 * JavaScript uses (sm_builtins_natives) are ones the guest cannot reach or replace, so a guest
 * that rewrote Function.prototype.call or Array.prototype setters changes nothing in them. */
#include "js/builtins/builtins.h" /* first: see sm.h */

#include <js/Array.h>
#include <js/CallAndConstruct.h>
#include <js/Conversions.h>
#include <js/Interrupt.h>
#include <js/Object.h>
#include <js/Realm.h>
#include <js/Symbol.h>
#include <js/friend/ErrorMessages.h>

#include "js/platform/platform.h"

static const char *const helper_names[] = {
    "map",     "filter",  "take", "drop",  "flatMap", "reduce",
    "toArray", "forEach", "some", "every", "find",
};
#define HELPER_COUNT (sizeof(helper_names) / sizeof(helper_names[0]))
static const uint16_t helper_lengths[HELPER_COUNT] = {1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1};

bool sm_bi_call_js(JSContext *cx, const char *name, JS::CallArgs &args)
{
    JS::RootedObject exports(cx);
    JS::RootedValue fn(cx);
    JS::RootedValueVector argv(cx);
    if (!sm_platform_module(cx, "iterator", &exports) || !JS_GetProperty(cx, exports, name, &fn))
        return false;
    if (!argv.append(args.array(), args.length())) {
        JS_ReportOutOfMemory(cx);
        return false;
    }
    return JS::Call(cx, args.thisv(), fn, argv, args.rval());
}

template <int I> static bool helper_forward(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    return sm_bi_call_js(cx, helper_names[I], args);
}

template <int... I> static bool define_helpers(JSContext *cx, JS::HandleObject proto)
{
    static const JSFunctionSpec specs[] = {
        JS_FN(helper_names[I], helper_forward<I>, helper_lengths[I], 0)..., JS_FS_END};
    return JS_DefineFunctions(cx, proto, specs);
}

static JSObject *iterator_proto(JSContext *cx)
{
    JSObject *state = sm_bi_state(cx);
    if (!state)
        return nullptr;
    JS::Value v = JS::GetReservedSlot(state, SM_BI_ITERATOR_PROTO);
    return v.isObject() ? &v.toObject() : JS::GetRealmIteratorPrototype(cx);
}

/* new Iterator(): only as the base of a subclass (the class is abstract). */
static bool iterator_construct(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    if (!args.isConstructing())
        return sm_bi_throw(cx, JSMSG_BUILTIN_CTOR_NO_NEW, "Iterator");
    JS::RootedObject target(cx, &args.newTarget().toObject());
    if (target == &args.callee())
        return sm_bi_throw(cx, JSMSG_BOGUS_CONSTRUCTOR, "Iterator");
    JS::RootedValue pv(cx);
    if (!JS_GetProperty(cx, target, "prototype", &pv))
        return false;
    JS::RootedObject proto(cx, pv.isObject() ? &pv.toObject() : iterator_proto(cx));
    JSObject *obj = proto ? JS_NewObjectWithGivenProto(cx, nullptr, proto) : nullptr;
    if (!obj)
        return false;
    args.rval().setObject(*obj);
    return true;
}

static bool iterator_from(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    return sm_bi_call_js(cx, "from", args);
}

bool sm_bi_iterator_ctor(JSContext *cx, JS::MutableHandleObject out)
{
    JS::RootedObject state(cx, sm_bi_state(cx));
    if (!state)
        return false;
    JS::Value v = JS::GetReservedSlot(state, SM_BI_ITERATOR);
    if (v.isObject()) {
        out.set(&v.toObject());
        return true;
    }
    JS::RootedObject proto(cx, iterator_proto(cx));
    JSFunction *fn =
        proto ? JS_NewFunction(cx, iterator_construct, 0, JSFUN_CONSTRUCTOR, "Iterator") : nullptr;
    if (!fn)
        return false;
    out.set(JS_GetFunctionObject(fn));
    if (!JS_DefineProperty(cx, out, "prototype", proto, JSPROP_READONLY | JSPROP_PERMANENT) ||
        !JS_DefineFunction(cx, out, "from", iterator_from, 1, 0))
        return false;
    JS::SetReservedSlot(state, SM_BI_ITERATOR, JS::ObjectValue(*out));
    return true;
}

/* SetterThatIgnoresPrototypeProperties(this, %Iterator.prototype%, key, v). */
static bool set_ignoring_proto(JSContext *cx, JS::CallArgs &args, JS::HandleId key)
{
    if (!args.thisv().isObject())
        return sm_bi_throw(cx, JSMSG_OBJECT_REQUIRED, "this");
    JS::RootedObject self(cx, &args.thisv().toObject());
    if (self == iterator_proto(cx))
        return sm_bi_throw(cx, JSMSG_READ_ONLY, "Iterator.prototype's property");
    JS::Rooted<mozilla::Maybe<JS::PropertyDescriptor>> desc(cx);
    if (!JS_GetOwnPropertyDescriptorById(cx, self, key, &desc))
        return false;
    args.rval().setUndefined();
    if (desc.isNothing())
        return JS_DefinePropertyById(cx, self, key, args.get(0), JSPROP_ENUMERATE);
    JS::ObjectOpResult result;
    JS::RootedValue receiver(cx, args.thisv());
    if (!JS_ForwardSetPropertyTo(cx, self, key, args.get(0), receiver, result))
        return false;
    return result.ok() || sm_bi_throw(cx, result.failureCode(), "the property", "it", "it");
}

static bool constructor_get(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::RootedObject ctor(cx);
    if (!sm_bi_iterator_ctor(cx, &ctor))
        return false;
    args.rval().setObject(*ctor);
    return true;
}

static bool constructor_set(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::RootedString name(cx, JS_AtomizeString(cx, "constructor"));
    JS::RootedId key(cx);
    return name && JS_StringToId(cx, name, &key) && set_ignoring_proto(cx, args, key);
}

static bool tag_get(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JSString *s = JS_AtomizeString(cx, "Iterator");
    if (!s)
        return false;
    args.rval().setString(s);
    return true;
}

static bool tag_set(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::RootedId key(
        cx, JS::PropertyKey::Symbol(JS::GetWellKnownSymbol(cx, JS::SymbolCode::toStringTag)));
    return set_ignoring_proto(cx, args, key);
}

bool sm_bi_install_iterator(JSContext *cx)
{
    static const JSPropertySpec accessors[] = {
        JS_PSGS("constructor", constructor_get, constructor_set, 0),
        JSPropertySpec::nativeAccessors(JS::SymbolCode::toStringTag, 0, tag_get, nullptr, tag_set,
                                        nullptr),
        JS_PS_END,
    };
    static_assert(HELPER_COUNT == 11, "define_helpers lists every helper");
    JS::RootedObject state(cx, sm_bi_state(cx));
    JS::RootedObject proto(cx, state ? JS::GetRealmIteratorPrototype(cx) : nullptr);
    if (!proto)
        return false;
    JS::SetReservedSlot(state, SM_BI_ITERATOR_PROTO, JS::ObjectValue(*proto));
    return define_helpers<0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10>(cx, proto) &&
           JS_DefineProperties(cx, proto, accessors);
}

/* The natives of iterator.js. */

/* call(f, thisArg, ...args). */
static bool native_call(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::RootedValueVector argv(cx);
    if (args.length() > 2 && !argv.append(args.array() + 2, args.length() - 2)) {
        JS_ReportOutOfMemory(cx);
        return false;
    }
    return JS::Call(cx, args.get(1), args.get(0), argv, args.rval());
}

/* define(obj, key, v): CreateDataPropertyOrThrow. */
static bool native_define(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::RootedId id(cx);
    if (!args.get(0).isObject())
        return sm_bi_throw(cx, JSMSG_OBJECT_REQUIRED, "define's target");
    JS::RootedObject obj(cx, &args[0].toObject());
    args.rval().setUndefined();
    return JS_ValueToId(cx, args.get(1), &id) &&
           JS_DefinePropertyById(cx, obj, id, args.get(2), JSPROP_ENUMERATE);
}

/* defineTag(obj, text): obj[Symbol.toStringTag] = text, read-only, not enumerable. */
static bool native_define_tag(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    if (!args.get(0).isObject())
        return sm_bi_throw(cx, JSMSG_OBJECT_REQUIRED, "defineTag's target");
    JS::RootedObject obj(cx, &args[0].toObject());
    JS::RootedId key(
        cx, JS::PropertyKey::Symbol(JS::GetWellKnownSymbol(cx, JS::SymbolCode::toStringTag)));
    args.rval().setUndefined();
    return JS_DefinePropertyById(cx, obj, key, args.get(1), JSPROP_READONLY);
}

static bool native_delete(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::RootedId id(cx);
    if (!args.get(0).isObject())
        return sm_bi_throw(cx, JSMSG_OBJECT_REQUIRED, "deleteProperty's target");
    JS::RootedObject obj(cx, &args[0].toObject());
    JS::ObjectOpResult result;
    args.rval().setUndefined();
    if (!JS_ValueToId(cx, args.get(1), &id) || !JS_DeletePropertyById(cx, obj, id, result))
        return false;
    return result.ok() || sm_bi_throw(cx, result.failureCode(), "the property", "it", "it");
}

static bool native_set_prototype(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    if (!args.get(0).isObject() || !args.get(1).isObject())
        return sm_bi_throw(cx, JSMSG_OBJECT_REQUIRED, "setPrototype's argument");
    JS::RootedObject obj(cx, &args[0].toObject()), proto(cx, &args[1].toObject());
    args.rval().setUndefined();
    return JS_SetPrototype(cx, obj, proto);
}

/* protoChainHas(proto, v): OrdinaryHasInstance's walk ([[GetPrototypeOf]], proxies included). */
static bool native_proto_chain_has(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    args.rval().setBoolean(false);
    if (!args.get(0).isObject() || !args.get(1).isObject())
        return true;
    JS::RootedObject proto(cx, &args[0].toObject()), o(cx, &args[1].toObject());
    for (;;) {
        if (!JS_CheckForInterrupt(cx) || !JS_GetPrototype(cx, o, &o))
            return false;
        if (!o)
            return true;
        if (o == proto) {
            args.rval().setBoolean(true);
            return true;
        }
    }
}

static bool native_is_constructor(JSContext *, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    args.rval().setBoolean(args.get(0).isObject() && JS::IsConstructor(&args[0].toObject()));
    return true;
}

static bool native_to_object(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JSObject *obj = JS::ToObject(cx, args.get(0));
    if (!obj)
        return false;
    args.rval().setObject(*obj);
    return true;
}

/* arrayCreate(len): ArrayCreate, RangeError past 2^32 - 1. */
static bool native_array_create(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    double len = args.get(0).isNumber() ? args[0].toNumber() : -1;
    if (!(len >= 0 && len <= 4294967295.0))
        return sm_bi_throw(cx, JSMSG_BAD_ARRAY_LENGTH);
    JSObject *a = JS::NewArrayObject(cx, (size_t)len);
    if (!a)
        return false;
    args.rval().setObject(*a);
    return true;
}

static bool define_class(JSContext *cx, JS::HandleObject natives, const char *name, JSProtoKey key)
{
    JS::RootedObject ctor(cx);
    return JS_GetClassObject(cx, key, &ctor) && JS_DefineProperty(cx, natives, name, ctor, 0);
}

static bool define_symbol(JSContext *cx, JS::HandleObject natives, const char *name,
                          JS::SymbolCode code)
{
    JS::RootedValue v(cx, JS::SymbolValue(JS::GetWellKnownSymbol(cx, code)));
    return JS_DefineProperty(cx, natives, name, v, 0);
}

bool sm_builtins_natives(JSContext *cx, JS::HandleObject natives)
{
    static const JSFunctionSpec fns[] = {
        JS_FN("call", native_call, 2, 0),
        JS_FN("define", native_define, 3, 0),
        JS_FN("defineTag", native_define_tag, 2, 0),
        JS_FN("deleteProperty", native_delete, 2, 0),
        JS_FN("setPrototype", native_set_prototype, 2, 0),
        JS_FN("protoChainHas", native_proto_chain_has, 2, 0),
        JS_FN("isConstructor", native_is_constructor, 1, 0),
        JS_FN("toObject", native_to_object, 1, 0),
        JS_FN("arrayCreate", native_array_create, 1, 0),
        JS_FS_END,
    };
    JS::RootedObject proto(cx, iterator_proto(cx));
    return proto && JS_DefineFunctions(cx, natives, fns) &&
           JS_DefineProperty(cx, natives, "iteratorPrototype", proto, 0) &&
           define_class(cx, natives, "TypeError", JSProto_TypeError) &&
           define_class(cx, natives, "RangeError", JSProto_RangeError) &&
           define_symbol(cx, natives, "symIterator", JS::SymbolCode::iterator) &&
           define_symbol(cx, natives, "symAsyncIterator", JS::SymbolCode::asyncIterator);
}
