/* js/builtins/builtins.cpp: when each addition is installed, and what the installers share. The
 * engine creates a standard class on first use and defines it on the global; the global's
 * addProperty hook sees that definition and installs the class's additions before any guest code
 * can see the class. A realm's bits of installed classes live in a global reserved slot, so an
 * engine class is extended once and a guest's own global of the same name never is. */
#include "js/builtins/builtins.h" /* first: see sm.h */

#include <js/friend/ErrorMessages.h>
#include <js/Conversions.h>
#include <js/Object.h>
#include <math.h>

#include "js/platform/platform.h"

enum bi_class {
    BI_OBJECT,
    BI_ARRAY,
    BI_TYPED_ARRAY,
    BI_MAP,
    BI_PROMISE,
    BI_STRING,
    BI_SET,
    BI_REGEXP,
    BI_ARRAY_BUFFER,
    BI_DATA_VIEW,
    BI_MATH,
    BI_ITERATOR, /* %IteratorPrototype%'s helpers, wanted by every class that makes iterators */
    BI_NONE,     /* a class whose creation only wants the iterator helpers */
    BI_ITERATOR_GLOBAL, /* not a class: the global Iterator was defined once (resolve) */
};

/* Each engine class whose definition installs something; makes_iterators: its instances (or
 * those of a class it needs) inherit from %IteratorPrototype%, so the helpers go in with it. */
static const struct {
    const char *name;
    enum bi_class cls;
    bool makes_iterators;
} classes[] = {
    {"Object", BI_OBJECT, false},
    {"Array", BI_ARRAY, true},
    {"String", BI_STRING, true},
    {"Map", BI_MAP, true},
    {"Set", BI_SET, true},
    {"Promise", BI_PROMISE, false},
    {"RegExp", BI_REGEXP, true},
    {"ArrayBuffer", BI_ARRAY_BUFFER, false},
    {"DataView", BI_DATA_VIEW, false},
    {"Math", BI_MATH, false},
    {"Symbol", BI_NONE, true},
    {"Int8Array", BI_TYPED_ARRAY, true},
    {"Uint8Array", BI_TYPED_ARRAY, true},
    {"Uint8ClampedArray", BI_TYPED_ARRAY, true},
    {"Int16Array", BI_TYPED_ARRAY, true},
    {"Uint16Array", BI_TYPED_ARRAY, true},
    {"Int32Array", BI_TYPED_ARRAY, true},
    {"Uint32Array", BI_TYPED_ARRAY, true},
    {"Float32Array", BI_TYPED_ARRAY, true},
    {"Float64Array", BI_TYPED_ARRAY, true},
    {"BigInt64Array", BI_TYPED_ARRAY, true},
    {"BigUint64Array", BI_TYPED_ARRAY, true},
};
#define CLASS_COUNT (sizeof(classes) / sizeof(classes[0]))

/* The global's slots: SM_SLOT_BUILTINS holds the Int32 bits (1 << enum bi_class) of what is
 * installed (no object for a trivial run), SM_SLOT_BUILTINS_STATE the state object. */
static int32_t installed_bits(JS::HandleObject global)
{
    JS::Value v = JS::GetReservedSlot(global, SM_SLOT_BUILTINS);
    return v.isInt32() ? v.toInt32() : 0;
}

static const JSClass state_class = {"SbxBuiltins", JSCLASS_HAS_RESERVED_SLOTS(SM_BI_SLOT_COUNT),
                                    nullptr,       nullptr,
                                    nullptr,       nullptr};

JSObject *sm_bi_state(JSContext *cx)
{
    JS::RootedObject global(cx, JS::CurrentGlobalOrNull(cx));
    JS::Value v = JS::GetReservedSlot(global, SM_SLOT_BUILTINS_STATE);
    if (v.isObject())
        return &v.toObject();
    JSObject *state = JS_NewObjectWithGivenProto(cx, &state_class, nullptr);
    if (state)
        JS::SetReservedSlot(global, SM_SLOT_BUILTINS_STATE, JS::ObjectValue(*state));
    return state;
}

/* Installs cls once per realm; false with an exception pending. */
static bool install(JSContext *cx, JS::HandleObject global, enum bi_class cls, JS::HandleObject v)
{
    int32_t bits = installed_bits(global);
    if (bits & (1 << cls))
        return true;
    /* Marked first: an installer that makes another class (its own definition comes here
     * again) must not install this one twice. */
    JS::SetReservedSlot(global, SM_SLOT_BUILTINS, JS::Int32Value(bits | (1 << cls)));
    switch (cls) {
    case BI_OBJECT:
        return sm_bi_install_object(cx, v);
    case BI_ARRAY:
        return sm_bi_install_array(cx, v);
    case BI_TYPED_ARRAY:
        return sm_bi_install_typed_array(cx, v);
    case BI_MAP:
        return sm_bi_install_map(cx, v);
    case BI_PROMISE:
        return sm_bi_install_promise(cx, v);
    case BI_STRING:
        return sm_bi_install_string(cx, v);
    case BI_SET:
        return sm_bi_install_set(cx, v);
    case BI_REGEXP:
        return sm_bi_install_regexp(cx, v);
    case BI_ARRAY_BUFFER:
        return sm_bi_install_array_buffer(cx, v);
    case BI_DATA_VIEW:
        return sm_bi_install_data_view(cx, v);
    case BI_MATH:
        return sm_bi_install_math(cx, v);
    case BI_ITERATOR:
        return sm_bi_install_iterator(cx);
    case BI_NONE:
    case BI_ITERATOR_GLOBAL:
        return true;
    }
    return true;
}

static int find_class(JSLinearString *s)
{
    size_t len = JS::GetLinearStringLength(s);
    if (len < 3 || len > 17) /* "Map" .. "Uint8ClampedArray": a guest's name is rejected here */
        return -1;
    for (size_t i = 0; i < CLASS_COUNT; i++)
        if (strlen(classes[i].name) == len && JS_LinearStringEqualsAscii(s, classes[i].name, len))
            return (int)i;
    return -1;
}

bool sm_builtins_add_property(JSContext *cx, JS::HandleObject global, JS::HandleId id,
                              JS::HandleValue v)
{
    if (!id.isString() || !v.isObject())
        return true;
    int i = find_class(id.toLinearString());
    if (i < 0)
        return true;
    /* The engine defines its class before any guest code can define the name (a guest's first
     * touch of it resolves the class): the first definition is the engine's. */
    JS::RootedObject obj(cx, &v.toObject());
    if (!install(cx, global, classes[i].cls, obj))
        return false;
    return !classes[i].makes_iterators || install(cx, global, BI_ITERATOR, nullptr);
}

bool sm_builtins_realm_begin(JSContext *cx, JS::HandleObject global)
{
    /* The engine calls an addProperty hook only after a stack check. A class it makes while
     * reporting "too much recursion" (InternalError, and Error its prototype) is defined on the
     * global past the stack limit: with the hook there, that definition fails and the report is
     * lost (a parser overflow, eval('['.repeat(1e5)), ended the run with no exception at all). */
    (void)global;
    JS::RootedObject proto(cx);
    return JS_GetClassPrototype(cx, JSProto_InternalError, &proto);
}

/* The global names of the additions: Iterator. */
static bool is_iterator_name(jsid id)
{
    return id.isString() && JS_LinearStringEqualsLiteral(id.toLinearString(), "Iterator");
}

bool sm_builtins_resolve(JSContext *cx, JS::HandleObject global, JS::HandleId id, bool *resolvedp)
{
    if (!is_iterator_name(id) || (installed_bits(global) & (1 << BI_ITERATOR_GLOBAL)))
        return true; /* defined once already (then deleted by the guest) */
    JS::RootedObject ctor(cx);
    if (!install(cx, global, BI_ITERATOR_GLOBAL, nullptr) ||
        !install(cx, global, BI_ITERATOR, nullptr) || !sm_bi_iterator_ctor(cx, &ctor))
        return false;
    if (!JS_DefinePropertyById(cx, global, id, ctor, JSPROP_RESOLVING))
        return false;
    *resolvedp = true;
    return true;
}

bool sm_builtins_may_resolve(jsid id)
{
    return is_iterator_name(id);
}

bool sm_builtins_enumerate(JSContext *cx, JS::HandleObject global, JS::MutableHandleIdVector props,
                           bool enumerable_only)
{
    if (enumerable_only || (installed_bits(global) & (1 << BI_ITERATOR_GLOBAL)))
        return true; /* Iterator is not enumerable; once defined it is an own property */
    JSString *atom = JS_AtomizeAndPinString(cx, "Iterator");
    return atom && props.append(JS::PropertyKey::fromPinnedString(atom));
}

bool sm_bi_throw(JSContext *cx, unsigned msg, const char *a0, const char *a1, const char *a2)
{
    JS_ReportErrorNumberASCII(cx, js::GetErrorMessage, nullptr, msg, a0, a1, a2);
    return false;
}

bool sm_bi_to_integer(JSContext *cx, JS::HandleValue v, double *out)
{
    double d;
    if (!JS::ToNumber(cx, v, &d))
        return false;
    *out = isnan(d) ? 0 : trunc(d) + 0.0; /* + 0.0: -0 becomes +0 */
    return true;
}

bool sm_bi_length(JSContext *cx, JS::HandleObject obj, double *out)
{
    JS::RootedValue v(cx);
    double d;
    if (!JS_GetProperty(cx, obj, "length", &v) || !sm_bi_to_integer(cx, v, &d))
        return false;
    *out = d <= 0 ? 0 : d > 9007199254740991.0 ? 9007199254740991.0 : d;
    return true;
}

bool sm_bi_get_index(JSContext *cx, JS::HandleObject obj, double index, JS::MutableHandleValue vp)
{
    if (index <= UINT32_MAX)
        return JS_GetElement(cx, obj, (uint32_t)index, vp);
    JS::RootedValue key(cx, JS::DoubleValue(index));
    JS::RootedId id(cx);
    return JS_ValueToId(cx, key, &id) && JS_GetPropertyById(cx, obj, id, vp);
}
