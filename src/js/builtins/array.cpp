/* js/builtins/array.cpp: ECMAScript 2023's additions to Array.prototype and
 * %TypedArray%.prototype: findLast, findLastIndex, toReversed, toSorted, toSpliced (Array only)
 * and with. The copying methods read the elements in the spec's order (a guest's getters see
 * every read) into a vector and make the result from it in one step; toSorted sorts its copy with
 * the realm's original sort, which nothing but this file can reach. Loops poll the interrupt, so
 * a deadline stops a long one. */
#include "js/builtins/builtins.h" /* first: see sm.h */

#include <js/Array.h>
#include <js/BigInt.h>
#include <js/CallAndConstruct.h>
#include <js/Conversions.h>
#include <js/Interrupt.h>
#include <js/Object.h>
#include <js/Symbol.h>
#include <js/experimental/TypedData.h>
#include <js/friend/ErrorMessages.h>
#include <stdio.h>

#define MAX_ARRAY_LENGTH 4294967295.0       /* 2^32 - 1 */
#define MAX_SAFE_INTEGER 9007199254740991.0 /* 2^53 - 1 */
#define POLL_EVERY       4096u              /* loop iterations between interrupt checks */
#define RESERVE_MAX      65536u             /* elements reserved up front; more grow */

static bool poll(JSContext *cx, double k)
{
    return ((uint64_t)k % POLL_EVERY) != 0 || JS_CheckForInterrupt(cx);
}

static bool is_callable(JS::HandleValue v)
{
    return v.isObject() && JS::IsCallable(&v.toObject());
}

/* "X is not a function", X a primitive's text or its type (no guest code runs for it). */
static bool throw_not_function(JSContext *cx, JS::HandleValue v)
{
    const char *type = v.isString()   ? "a string"
                       : v.isSymbol() ? "a symbol"
                       : v.isBigInt() ? "a bigint"
                       : v.isObject() ? "an object"
                                      : nullptr;
    if (type)
        return sm_bi_throw(cx, JSMSG_NOT_FUNCTION, type);
    JS::RootedString s(cx, JS::ToString(cx, v));
    JS::UniqueChars text = s ? JS_EncodeStringToASCII(cx, s) : nullptr;
    return text && sm_bi_throw(cx, JSMSG_NOT_FUNCTION, text.get());
}

/* ValidateTypedArray(this): the typed array and its length, or a TypeError. */
static bool validate_typed(JSContext *cx, JS::HandleValue thisv, JS::MutableHandleObject out,
                           double *len)
{
    if (!thisv.isObject() || !JS_IsTypedArrayObject(&thisv.toObject()))
        return sm_bi_throw(cx, JSMSG_NOT_EXPECTED_TYPE, "this", "a typed array",
                           thisv.isObject() ? "another object" : "a primitive");
    out.set(&thisv.toObject());
    if (JS::ArrayBufferView::fromObject(out).isDetached())
        return sm_bi_throw(cx, JSMSG_TYPED_ARRAY_DETACHED, nullptr);
    *len = (double)JS_GetTypedArrayLength(out);
    return true;
}

/* ToObject(this) and LengthOfArrayLike, or for a typed array ValidateTypedArray. */
static bool this_and_length(JSContext *cx, JS::CallArgs &args, bool is_typed,
                            JS::MutableHandleObject o, double *len)
{
    if (is_typed)
        return validate_typed(cx, args.thisv(), o, len);
    o.set(JS::ToObject(cx, args.thisv()));
    return o && sm_bi_length(cx, o, len);
}

/* TypedArrayCreateSameType(o, len). */
static JSObject *new_same_type(JSContext *cx, JS::HandleObject o, size_t len)
{
    switch (JS_GetArrayBufferViewType(o)) {
#define NEW_CASE(ExternalType, NativeType, Name)                                                   \
    case JS::Scalar::Name:                                                                         \
        return JS_New##Name##Array(cx, len);
        JS_FOR_EACH_TYPED_ARRAY(NEW_CASE)
#undef NEW_CASE
    default:
        sm_bi_throw(cx, JSMSG_TYPED_ARRAY_BAD_ARGS, nullptr);
        return nullptr;
    }
}

static bool is_bigint_typed(JS::HandleObject o)
{
    JS::Scalar::Type t = JS_GetArrayBufferViewType(o);
    return t == JS::Scalar::BigInt64 || t == JS::Scalar::BigUint64;
}

/* The result of a copying method: an Array of vals, or a typed array like o holding them. */
static bool make_result(JSContext *cx, JS::HandleObject o, bool is_typed,
                        JS::HandleValueVector vals, JS::MutableHandleObject out)
{
    if (!is_typed) {
        out.set(JS::NewArrayObject(
            cx, JS::HandleValueArray::fromMarkedLocation(vals.length(), vals.begin())));
        return out != nullptr;
    }
    out.set(new_same_type(cx, o, vals.length()));
    if (!out)
        return false;
    for (size_t k = 0; k < vals.length(); k++)
        if (!JS_SetElement(cx, out, (uint32_t)k, vals[k]))
            return false;
    return true;
}

static bool reserve(JSContext *cx, JS::MutableHandleValueVector vals, double len)
{
    if (vals.reserve(len < RESERVE_MAX ? (size_t)len : RESERVE_MAX))
        return true;
    JS_ReportOutOfMemory(cx);
    return false;
}

static bool append(JSContext *cx, JS::MutableHandleValueVector vals, JS::HandleValue v)
{
    if (vals.append(v))
        return true;
    JS_ReportOutOfMemory(cx);
    return false;
}

/* findLast / findLastIndex. */
static bool find_last(JSContext *cx, JS::CallArgs &args, bool is_typed, bool is_index)
{
    JS::RootedObject o(cx);
    double len;
    if (!this_and_length(cx, args, is_typed, &o, &len))
        return false;
    if (!is_callable(args.get(0)))
        return throw_not_function(cx, args.get(0));
    JS::RootedValue kv(cx), rv(cx);
    JS::RootedValueArray<3> cargs(cx);
    for (double k = len - 1; k >= 0; k--) {
        if (!poll(cx, k) || !sm_bi_get_index(cx, o, k, &kv))
            return false;
        cargs[0].set(kv);
        cargs[1].setNumber(k);
        cargs[2].setObject(*o);
        if (!JS::Call(cx, args.get(1), args.get(0), cargs, &rv))
            return false;
        if (JS::ToBoolean(rv)) {
            if (is_index)
                args.rval().setNumber(k);
            else
                args.rval().set(kv);
            return true;
        }
    }
    if (is_index)
        args.rval().setInt32(-1);
    else
        args.rval().setUndefined();
    return true;
}

/* Appends o[from], o[from + 1] ... o[to - 1]. */
static bool read_range(JSContext *cx, JS::HandleObject o, double from, double to,
                       JS::MutableHandleValueVector vals)
{
    JS::RootedValue v(cx);
    for (double k = from; k < to; k++)
        if (!poll(cx, k) || !sm_bi_get_index(cx, o, k, &v) || !append(cx, vals, v))
            return false;
    return true;
}

static bool to_reversed(JSContext *cx, JS::CallArgs &args, bool is_typed)
{
    JS::RootedObject o(cx), a(cx);
    JS::RootedValueVector vals(cx);
    JS::RootedValue v(cx);
    double len;
    if (!this_and_length(cx, args, is_typed, &o, &len))
        return false;
    if (len > MAX_ARRAY_LENGTH)
        return sm_bi_throw(cx, JSMSG_BAD_ARRAY_LENGTH, nullptr);
    if (!reserve(cx, &vals, len))
        return false;
    for (double k = 0; k < len; k++)
        if (!poll(cx, k) || !sm_bi_get_index(cx, o, len - k - 1, &v) || !append(cx, &vals, v))
            return false;
    if (!make_result(cx, o, is_typed, vals, &a))
        return false;
    args.rval().setObject(*a);
    return true;
}

static bool to_sorted(JSContext *cx, JS::CallArgs &args, bool is_typed)
{
    JS::HandleValue cmp = args.get(0);
    if (!cmp.isUndefined() && !is_callable(cmp))
        return sm_bi_throw(cx, JSMSG_BAD_SORT_ARG, nullptr);
    JS::RootedObject o(cx), a(cx), state(cx);
    JS::RootedValueVector vals(cx);
    double len;
    if (!this_and_length(cx, args, is_typed, &o, &len))
        return false;
    if (len > MAX_ARRAY_LENGTH)
        return sm_bi_throw(cx, JSMSG_BAD_ARRAY_LENGTH, nullptr);
    if (!reserve(cx, &vals, len) || !read_range(cx, o, 0, len, &vals) ||
        !make_result(cx, o, is_typed, vals, &a) || !(state = sm_bi_state(cx)))
        return false;
    /* The copy is the guest's only after this returns: its sort is unobservable but for cmp. */
    JS::RootedValue sort(cx,
                         JS::GetReservedSlot(state, is_typed ? SM_BI_TA_SORT : SM_BI_ARRAY_SORT));
    JS::RootedValue av(cx, JS::ObjectValue(*a)), ignored(cx);
    JS::RootedValueArray<1> sargs(cx);
    sargs[0].set(cmp);
    if (!JS::Call(cx, av, sort, sargs, &ignored))
        return false;
    args.rval().set(av);
    return true;
}

/* with(index, value). */
static bool with(JSContext *cx, JS::CallArgs &args, bool is_typed)
{
    JS::RootedObject o(cx), a(cx);
    JS::RootedValueVector vals(cx);
    JS::RootedValue value(cx, args.get(1)), v(cx);
    double len, rel;
    if (!this_and_length(cx, args, is_typed, &o, &len) || !sm_bi_to_integer(cx, args.get(0), &rel))
        return false;
    double at = rel >= 0 ? rel : len + rel;
    if (is_typed) {
        if (is_bigint_typed(o)) {
            JS::BigInt *b = JS::ToBigInt(cx, value);
            if (!b)
                return false;
            value.setBigInt(b);
        } else {
            double d;
            if (!JS::ToNumber(cx, value, &d))
                return false;
            value.setNumber(d);
        }
        /* IsValidIntegerIndex: the coercion may have detached the buffer. */
        if (JS::ArrayBufferView::fromObject(o).isDetached() || at < 0 ||
            at >= (double)JS_GetTypedArrayLength(o))
            return sm_bi_throw(cx, JSMSG_BAD_INDEX, nullptr);
    } else if (at >= len || at < 0) {
        return sm_bi_throw(cx, JSMSG_BAD_INDEX, nullptr);
    }
    if (len > MAX_ARRAY_LENGTH)
        return sm_bi_throw(cx, JSMSG_BAD_ARRAY_LENGTH, nullptr);
    if (!reserve(cx, &vals, len) || !read_range(cx, o, 0, at, &vals) || !append(cx, &vals, value) ||
        !read_range(cx, o, at + 1, len, &vals) || !make_result(cx, o, is_typed, vals, &a))
        return false;
    args.rval().setObject(*a);
    return true;
}

/* Array.prototype.toSpliced(start, skipCount, ...items). */
static bool array_to_spliced(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::RootedObject o(cx), a(cx);
    JS::RootedValueVector vals(cx);
    double len, rel = 0, skip = 0;
    if (!this_and_length(cx, args, false, &o, &len) || !sm_bi_to_integer(cx, args.get(0), &rel))
        return false;
    double start = rel < 0 ? (len + rel < 0 ? 0 : len + rel) : (rel < len ? rel : len);
    size_t insert = args.length() > 2 ? args.length() - 2 : 0;
    if (args.length() == 1) {
        skip = len - start;
    } else if (args.length() > 1) {
        if (!sm_bi_to_integer(cx, args[1], &skip))
            return false;
        skip = skip < 0 ? 0 : skip > len - start ? len - start : skip;
    }
    double new_len = len + (double)insert - skip;
    if (new_len > MAX_SAFE_INTEGER)
        return sm_bi_throw(cx, JSMSG_TOO_LONG_ARRAY, nullptr);
    if (new_len > MAX_ARRAY_LENGTH)
        return sm_bi_throw(cx, JSMSG_BAD_ARRAY_LENGTH, nullptr);
    if (!reserve(cx, &vals, new_len) || !read_range(cx, o, 0, start, &vals))
        return false;
    for (size_t i = 0; i < insert; i++)
        if (!append(cx, &vals, args[2 + i]))
            return false;
    if (!read_range(cx, o, start + skip, len, &vals) || !make_result(cx, o, false, vals, &a))
        return false;
    args.rval().setObject(*a);
    return true;
}

#define METHOD(name, body)                                                                         \
    static bool name(JSContext *cx, unsigned argc, JS::Value *vp)                                  \
    {                                                                                              \
        JS::CallArgs args = JS::CallArgsFromVp(argc, vp);                                          \
        return body;                                                                               \
    }
METHOD(array_find_last, find_last(cx, args, false, false))
METHOD(array_find_last_index, find_last(cx, args, false, true))
METHOD(array_to_reversed, to_reversed(cx, args, false))
METHOD(array_to_sorted, to_sorted(cx, args, false))
METHOD(array_with, with(cx, args, false))
METHOD(typed_find_last, find_last(cx, args, true, false))
METHOD(typed_find_last_index, find_last(cx, args, true, true))
METHOD(typed_to_reversed, to_reversed(cx, args, true))
METHOD(typed_to_sorted, to_sorted(cx, args, true))
METHOD(typed_with, with(cx, args, true))
METHOD(array_from_async, sm_bi_call_js(cx, "fromAsync", args))
#undef METHOD

/* proto.sort, kept before the guest can replace it. */
static bool keep_sort(JSContext *cx, JS::HandleObject proto, enum sm_bi_slot slot)
{
    JS::RootedObject state(cx, sm_bi_state(cx));
    JS::RootedValue sort(cx);
    if (!state || !JS_GetProperty(cx, proto, "sort", &sort))
        return false;
    JS::SetReservedSlot(state, slot, sort);
    return true;
}

static bool prototype_of(JSContext *cx, JS::HandleObject ctor, JS::MutableHandleObject out)
{
    JS::RootedValue v(cx);
    if (!JS_GetProperty(cx, ctor, "prototype", &v))
        return false;
    if (!v.isObject())
        return sm_bi_throw(cx, JSMSG_OBJECT_REQUIRED, "prototype");
    out.set(&v.toObject());
    return true;
}

bool sm_bi_install_array(JSContext *cx, JS::HandleObject ctor)
{
    static const JSFunctionSpec methods[] = {
        JS_FN("findLast", array_find_last, 1, 0),
        JS_FN("findLastIndex", array_find_last_index, 1, 0),
        JS_FN("toReversed", array_to_reversed, 0, 0),
        JS_FN("toSorted", array_to_sorted, 1, 0),
        JS_FN("toSpliced", array_to_spliced, 2, 0),
        JS_FN("with", array_with, 2, 0),
        JS_FS_END,
    };
    static const char *const unscopable[] = {"findLast", "findLastIndex", "toReversed", "toSorted",
                                             "toSpliced"};
    JS::RootedObject proto(cx), names(cx);
    JS::RootedValue v(cx);
    JS::RootedId key(
        cx, JS::PropertyKey::Symbol(JS::GetWellKnownSymbol(cx, JS::SymbolCode::unscopables)));
    if (!prototype_of(cx, ctor, &proto) || !keep_sort(cx, proto, SM_BI_ARRAY_SORT) ||
        !JS_DefineFunctions(cx, proto, methods) ||
        !JS_DefineFunction(cx, ctor, "fromAsync", array_from_async, 1, 0) ||
        !JS_GetPropertyById(cx, proto, key, &v))
        return false;
    if (!v.isObject())
        return true;
    names.set(&v.toObject());
    for (const char *name : unscopable)
        if (!JS_DefineProperty(cx, names, name, JS::TrueHandleValue, JSPROP_ENUMERATE))
            return false;
    return true;
}

bool sm_bi_install_typed_array(JSContext *cx, JS::HandleObject ctor)
{
    static const JSFunctionSpec methods[] = {
        JS_FN("findLast", typed_find_last, 1, 0),
        JS_FN("findLastIndex", typed_find_last_index, 1, 0),
        JS_FN("toReversed", typed_to_reversed, 0, 0),
        JS_FN("toSorted", typed_to_sorted, 1, 0),
        JS_FN("with", typed_with, 2, 0),
        JS_FS_END,
    };
    JS::RootedObject proto(cx), typed_proto(cx);
    return prototype_of(cx, ctor, &proto) && JS_GetPrototype(cx, proto, &typed_proto) &&
           typed_proto && keep_sort(cx, typed_proto, SM_BI_TA_SORT) &&
           JS_DefineFunctions(cx, typed_proto, methods);
}
