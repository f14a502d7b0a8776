/* js/builtins/set.cpp: the Set methods of ECMAScript 2025 (union, intersection, difference,
 * symmetricDifference, isSubsetOf, isSupersetOf, isDisjointFrom). The other set is read through
 * its size, has and keys as GetSetRecord says; this set's own data only through the engine's
 * Set operations and its internal forEach, so elements the other's callbacks add are visited as
 * the spec's index walk visits them. Results are plain Sets of the realm (no species). */
#include "js/builtins/builtins.h" /* first: see sm.h */

#include <js/CallAndConstruct.h>
#include <js/Conversions.h>
#include <js/Interrupt.h>
#include <js/MapAndSet.h>
#include <js/Object.h>
#include <js/Proxy.h>
#include <js/friend/ErrorMessages.h>
#include <jsfriendapi.h>
#include <math.h>

/* RequireInternalSlot(this, [[SetData]]). */
static bool this_set(JSContext *cx, JS::CallArgs &args, const char *name,
                     JS::MutableHandleObject out)
{
    js::ESClass cls = js::ESClass::Other;
    if (args.thisv().isObject()) {
        out.set(&args.thisv().toObject());
        if (!js::IsProxy(out) && !JS::GetBuiltinClass(cx, out, &cls))
            return false;
    }
    if (cls != js::ESClass::Set)
        return sm_bi_throw(cx, JSMSG_INCOMPATIBLE_PROTO, "Set", name,
                           args.thisv().isObject() ? "object" : "primitive");
    return true;
}

static bool get_callable(JSContext *cx, JS::HandleObject obj, const char *name,
                         JS::MutableHandleValue out)
{
    if (!JS_GetProperty(cx, obj, name, out))
        return false;
    if (!out.isObject() || !JS::IsCallable(&out.toObject()))
        return sm_bi_throw(cx, JSMSG_NOT_FUNCTION, name);
    return true;
}

/* GetSetRecord(other). */
static bool set_record(JSContext *cx, JS::HandleValue other, JS::MutableHandleObject obj,
                       double *size, JS::MutableHandleValue has, JS::MutableHandleValue keys)
{
    if (!other.isObject())
        return sm_bi_throw(cx, JSMSG_OBJECT_REQUIRED, "the set-like argument");
    obj.set(&other.toObject());
    JS::RootedValue raw(cx);
    double n;
    if (!JS_GetProperty(cx, obj, "size", &raw) || !JS::ToNumber(cx, raw, &n))
        return false;
    if (isnan(n))
        return sm_bi_throw(cx, JSMSG_NOT_EXPECTED_TYPE, "size", "a number", "NaN");
    *size = trunc(n) + 0.0;
    if (*size < 0)
        return sm_bi_throw(cx, JSMSG_TYPED_ARRAY_NEGATIVE_ARG, "size");
    return get_callable(cx, obj, "has", has) && get_callable(cx, obj, "keys", keys);
}

/* GetIteratorFromMethod(obj, keys). */
static bool keys_iterator(JSContext *cx, JS::HandleObject obj, JS::HandleValue keys,
                          JS::MutableHandleObject iter, JS::MutableHandleValue next)
{
    JS::RootedValue objv(cx, JS::ObjectValue(*obj)), it(cx);
    if (!JS::Call(cx, objv, keys, JS::HandleValueArray::empty(), &it))
        return false;
    if (!it.isObject())
        return sm_bi_throw(cx, JSMSG_ITER_METHOD_RETURNED_PRIMITIVE, "keys");
    iter.set(&it.toObject());
    return JS_GetProperty(cx, iter, "next", next);
}

/* IteratorStepValue: *done, or the value (-0 made +0: CanonicalizeKeyedCollectionKey). */
static bool step_value(JSContext *cx, JS::HandleObject iter, JS::HandleValue next,
                       JS::MutableHandleValue v, bool *done)
{
    JS::RootedValue itv(cx, JS::ObjectValue(*iter)), r(cx), d(cx);
    if (!JS_CheckForInterrupt(cx) || !JS::Call(cx, itv, next, JS::HandleValueArray::empty(), &r))
        return false;
    if (!r.isObject())
        return sm_bi_throw(cx, JSMSG_ITER_METHOD_RETURNED_PRIMITIVE, "next");
    JS::RootedObject ro(cx, &r.toObject());
    if (!JS_GetProperty(cx, ro, "done", &d))
        return false;
    *done = JS::ToBoolean(d);
    if (*done || !JS_GetProperty(cx, ro, "value", v))
        return *done;
    if (v.isDouble() && v.toDouble() == 0)
        v.setInt32(0);
    return true;
}

/* IteratorClose(iter, normal completion). */
static bool close_iterator(JSContext *cx, JS::HandleObject iter)
{
    JS::RootedValue ret(cx), r(cx), itv(cx, JS::ObjectValue(*iter));
    if (!JS_GetProperty(cx, iter, "return", &ret))
        return false;
    if (ret.isNullOrUndefined())
        return true;
    if (!ret.isObject() || !JS::IsCallable(&ret.toObject()))
        return sm_bi_throw(cx, JSMSG_NOT_FUNCTION, "return");
    if (!JS::Call(cx, itv, ret, JS::HandleValueArray::empty(), &r))
        return false;
    return r.isObject() || sm_bi_throw(cx, JSMSG_ITER_METHOD_RETURNED_PRIMITIVE, "return");
}

/* A live walk of a Set's data by the engine's own forEach (JS::SetForEach: the self-hosted
 * one, nothing the guest can replace), which visits each element once and those added meanwhile
 * too, as the spec's index walk does. The visitor, a native, gets the C++ callback through a
 * private reserved slot; it ends the walk early by throwing the walk's own sentinel. */
struct walk_fn {
    virtual bool visit(JSContext *cx, JS::HandleValue e, bool *go_on) = 0;
};

template <typename F> struct walk_lambda : walk_fn {
    F f;
    explicit walk_lambda(F fn) : f(fn)
    {
    }
    bool visit(JSContext *, JS::HandleValue e, bool *go_on) override
    {
        return f(e, go_on);
    }
};

static bool walk_visitor(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    walk_fn *fn =
        static_cast<walk_fn *>(js::GetFunctionNativeReserved(&args.callee(), 0).toPrivate());
    bool go_on = true;
    if (!fn->visit(cx, args.get(0), &go_on))
        return false;
    if (!go_on) { /* the sentinel: this visitor itself */
        JS::RootedValue self(cx, JS::ObjectValue(args.callee()));
        JS_SetPendingException(cx, self);
        return false;
    }
    args.rval().setUndefined();
    return true;
}

template <typename F>
static bool each_element(JSContext *cx, JS::HandleObject set, bool *stopped, F f)
{
    walk_lambda<F> fn(f);
    *stopped = false;
    JSFunction *visitor = js::NewFunctionWithReserved(cx, walk_visitor, 3, 0, nullptr);
    if (!visitor)
        return false;
    JS::RootedObject vo(cx, JS_GetFunctionObject(visitor));
    js::SetFunctionNativeReserved(vo, 0, JS::PrivateValue(static_cast<walk_fn *>(&fn)));
    JS::RootedValue vv(cx, JS::ObjectValue(*vo)), exc(cx);
    bool ok = JS::SetForEach(cx, set, vv, JS::UndefinedHandleValue);
    js::SetFunctionNativeReserved(vo, 0, JS::UndefinedValue()); /* fn dies with this frame */
    if (ok || !JS_GetPendingException(cx, &exc) || exc != vv)
        return ok;
    JS_ClearPendingException(cx);
    *stopped = true;
    return true;
}

/* A new Set holding this set's elements. */
static bool copy_set(JSContext *cx, JS::HandleObject set, JS::MutableHandleObject out)
{
    bool stopped;
    out.set(JS::NewSetObject(cx));
    return out && each_element(cx, set, &stopped,
                               [&](JS::HandleValue e, bool *) { return JS::SetAdd(cx, out, e); });
}

/* ToBoolean(Call(has, obj, e)). */
static bool other_has(JSContext *cx, JS::HandleObject obj, JS::HandleValue has, JS::HandleValue e,
                      bool *out)
{
    JS::RootedValue objv(cx, JS::ObjectValue(*obj)), r(cx);
    JS::RootedValueArray<1> args(cx);
    args[0].set(e);
    if (!JS::Call(cx, objv, has, args, &r))
        return false;
    *out = JS::ToBoolean(r);
    return true;
}

/* this, its size and GetSetRecord(other): what every method starts with. */
struct set_args {
    JS::RootedObject self, obj;
    JS::RootedValue has, keys;
    double size;
    uint32_t this_size;
    explicit set_args(JSContext *cx) : self(cx), obj(cx), has(cx), keys(cx), size(0), this_size(0)
    {
    }
};

static bool begin(JSContext *cx, JS::CallArgs &args, const char *name, set_args &a)
{
    if (!this_set(cx, args, name, &a.self) ||
        !set_record(cx, args.get(0), &a.obj, &a.size, &a.has, &a.keys))
        return false;
    a.this_size = JS::SetSize(cx, a.self);
    return true;
}

/* Steps other's keys: fn(v) for each until it returns false (*stopped) or the keys end. */
template <typename F> static bool each_key(JSContext *cx, set_args &a, bool *stopped, F fn)
{
    JS::RootedObject iter(cx);
    JS::RootedValue next(cx), v(cx);
    *stopped = false;
    if (!keys_iterator(cx, a.obj, a.keys, &iter, &next))
        return false;
    for (;;) {
        bool done, go_on;
        if (!step_value(cx, iter, next, &v, &done))
            return false;
        if (done)
            return true;
        if (!fn(v, &go_on))
            return false;
        if (!go_on) {
            *stopped = true;
            return close_iterator(cx, iter);
        }
    }
}

static bool set_union(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    set_args a(cx);
    JS::RootedObject result(cx);
    JS::RootedObject iter(cx);
    JS::RootedValue next(cx);
    bool stopped;
    if (!begin(cx, args, "union", a) || !keys_iterator(cx, a.obj, a.keys, &iter, &next) ||
        !copy_set(cx, a.self, &result))
        return false;
    JS::RootedValue v(cx);
    for (bool done = false; !done;)
        if (!step_value(cx, iter, next, &v, &done) || (!done && !JS::SetAdd(cx, result, v)))
            return false;
    (void)stopped;
    args.rval().setObject(*result);
    return true;
}

static bool set_intersection(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    set_args a(cx);
    bool stopped;
    if (!begin(cx, args, "intersection", a))
        return false;
    JS::RootedObject result(cx, JS::NewSetObject(cx));
    if (!result)
        return false;
    bool ok = a.this_size <= a.size
                  ? each_element(cx, a.self, &stopped,
                                 [&](JS::HandleValue e, bool *go_on) {
                                     bool in_other;
                                     *go_on = true;
                                     return other_has(cx, a.obj, a.has, e, &in_other) &&
                                            (!in_other || JS::SetAdd(cx, result, e));
                                 })
                  : each_key(cx, a, &stopped, [&](JS::HandleValue v, bool *go_on) {
                        bool in_this;
                        *go_on = true;
                        return JS::SetHas(cx, a.self, v, &in_this) &&
                               (!in_this || JS::SetAdd(cx, result, v));
                    });
    if (!ok)
        return false;
    args.rval().setObject(*result);
    return true;
}

static bool set_difference(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    set_args a(cx);
    JS::RootedObject result(cx);
    bool stopped, ignored;
    if (!begin(cx, args, "difference", a) || !copy_set(cx, a.self, &result))
        return false;
    /* The small branch walks the copy, which only this loop changes: a snapshot. */
    bool ok = a.this_size <= a.size
                  ? each_element(cx, result, &stopped,
                                 [&](JS::HandleValue e, bool *go_on) {
                                     bool in_other;
                                     *go_on = true;
                                     return other_has(cx, a.obj, a.has, e, &in_other) &&
                                            (!in_other || JS::SetDelete(cx, result, e, &ignored));
                                 })
                  : each_key(cx, a, &stopped, [&](JS::HandleValue v, bool *go_on) {
                        *go_on = true;
                        return JS::SetDelete(cx, result, v, &ignored);
                    });
    if (!ok)
        return false;
    args.rval().setObject(*result);
    return true;
}

static bool set_symmetric_difference(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    set_args a(cx);
    JS::RootedObject result(cx), iter(cx);
    JS::RootedValue next(cx);
    bool stopped, ignored;
    if (!begin(cx, args, "symmetricDifference", a) ||
        !keys_iterator(cx, a.obj, a.keys, &iter, &next) || !copy_set(cx, a.self, &result))
        return false;
    JS::RootedValue v(cx);
    for (bool done = false;;) {
        bool in_this, in_result;
        if (!step_value(cx, iter, next, &v, &done))
            return false;
        if (done)
            break;
        if (!JS::SetHas(cx, a.self, v, &in_this) || !JS::SetHas(cx, result, v, &in_result))
            return false;
        if (in_this ? in_result && !JS::SetDelete(cx, result, v, &ignored)
                    : !in_result && !JS::SetAdd(cx, result, v))
            return false;
    }
    (void)stopped;
    args.rval().setObject(*result);
    return true;
}

static bool set_is_subset_of(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    set_args a(cx);
    bool stopped = false;
    if (!begin(cx, args, "isSubsetOf", a))
        return false;
    if (a.this_size <= a.size &&
        !each_element(cx, a.self, &stopped, [&](JS::HandleValue e, bool *go_on) {
            return other_has(cx, a.obj, a.has, e, go_on);
        }))
        return false;
    args.rval().setBoolean(a.this_size <= a.size && !stopped);
    return true;
}

static bool set_is_superset_of(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    set_args a(cx);
    bool stopped = false;
    if (!begin(cx, args, "isSupersetOf", a))
        return false;
    if (a.this_size >= a.size && !each_key(cx, a, &stopped, [&](JS::HandleValue v, bool *go_on) {
            return JS::SetHas(cx, a.self, v, go_on);
        }))
        return false;
    args.rval().setBoolean(a.this_size >= a.size && !stopped);
    return true;
}

static bool set_is_disjoint_from(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    set_args a(cx);
    bool stopped;
    if (!begin(cx, args, "isDisjointFrom", a))
        return false;
    bool ok = a.this_size <= a.size
                  ? each_element(cx, a.self, &stopped,
                                 [&](JS::HandleValue e, bool *go_on) {
                                     bool in_other;
                                     if (!other_has(cx, a.obj, a.has, e, &in_other))
                                         return false;
                                     *go_on = !in_other;
                                     return true;
                                 })
                  : each_key(cx, a, &stopped, [&](JS::HandleValue v, bool *go_on) {
                        bool in_this;
                        if (!JS::SetHas(cx, a.self, v, &in_this))
                            return false;
                        *go_on = !in_this;
                        return true;
                    });
    if (!ok)
        return false;
    args.rval().setBoolean(!stopped);
    return true;
}

bool sm_bi_install_set(JSContext *cx, JS::HandleObject ctor)
{
    static const JSFunctionSpec methods[] = {
        JS_FN("union", set_union, 1, 0),
        JS_FN("intersection", set_intersection, 1, 0),
        JS_FN("difference", set_difference, 1, 0),
        JS_FN("symmetricDifference", set_symmetric_difference, 1, 0),
        JS_FN("isSubsetOf", set_is_subset_of, 1, 0),
        JS_FN("isSupersetOf", set_is_superset_of, 1, 0),
        JS_FN("isDisjointFrom", set_is_disjoint_from, 1, 0),
        JS_FS_END,
    };
    JS::RootedValue proto(cx);
    if (!JS_GetProperty(cx, ctor, "prototype", &proto))
        return false;
    if (!proto.isObject())
        return true;
    JS::RootedObject p(cx, &proto.toObject());
    return JS_DefineFunctions(cx, p, methods);
}
