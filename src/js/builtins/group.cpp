/* js/builtins/group.cpp: Object.groupBy and Map.groupBy (ECMAScript 2024). The iteration is
 * the engine's own for-of protocol (JS::ForOfIterator): GetIterator, IteratorStepValue, and
 * IteratorClose when the callback or the key's coercion throws. Groups are built in the result
 * itself, which the guest sees only once it is returned. */
#include "js/builtins/builtins.h" /* first: see sm.h */

#include <js/Array.h>
#include <js/CallAndConstruct.h>
#include <js/ForOfIterator.h>
#include <js/Interrupt.h>
#include <js/MapAndSet.h>
#include <js/friend/ErrorMessages.h>

#define MAX_SAFE_INTEGER 9007199254740991.0

/* Appends v to the array under key (creating it): in the null-prototype object (is_map false,
 * key a property key) or the Map. */
static bool add_to_group(JSContext *cx, JS::HandleObject groups, bool is_map, JS::HandleValue key,
                         JS::HandleValue v)
{
    JS::RootedValue list(cx);
    JS::RootedId id(cx);
    if (is_map ? !JS::MapGet(cx, groups, key, &list)
               : !JS_ValueToId(cx, key, &id) || !JS_GetPropertyById(cx, groups, id, &list))
        return false;
    JS::RootedObject arr(cx);
    uint32_t len = 0;
    if (list.isObject()) {
        arr.set(&list.toObject());
        if (!JS::GetArrayLength(cx, arr, &len))
            return false;
    } else {
        arr.set(JS::NewArrayObject(cx, 0));
        if (!arr)
            return false;
        list.setObject(*arr);
        if (is_map ? !JS::MapSet(cx, groups, key, list)
                   : !JS_DefinePropertyById(cx, groups, id, list, JSPROP_ENUMERATE))
            return false;
    }
    return JS_DefineElement(cx, arr, len, v, JSPROP_ENUMERATE);
}

/* The key of one value: the callback's result as a property key, or -0 made +0 for a Map. */
static bool group_key(JSContext *cx, JS::HandleValue callback, JS::HandleValue v, double k,
                      bool is_map, JS::MutableHandleValue key)
{
    JS::RootedValueArray<2> cargs(cx);
    cargs[0].set(v);
    cargs[1].setNumber(k);
    if (!JS::Call(cx, JS::UndefinedHandleValue, callback, cargs, key))
        return false;
    if (is_map) {
        if (key.isDouble() && key.toDouble() == 0)
            key.setInt32(0);
        return true;
    }
    JS::RootedId id(cx);
    return JS_ValueToId(cx, key, &id) && JS_IdToValue(cx, id, key);
}

/* GroupBy(items, callback, keyCoercion) into groups. */
static bool group_by(JSContext *cx, JS::CallArgs &args, bool is_map, JS::HandleObject groups)
{
    JS::HandleValue items = args.get(0), callback = args.get(1);
    if (items.isNullOrUndefined())
        return sm_bi_throw(cx, JSMSG_CANT_CONVERT_TO, items.isNull() ? "null" : "undefined",
                           "object");
    if (!callback.isObject() || !JS::IsCallable(&callback.toObject()))
        return sm_bi_throw(cx, JSMSG_NOT_FUNCTION, "callback");
    JS::ForOfIterator it(cx);
    if (!it.init(items))
        return false;
    JS::RootedValue v(cx), key(cx);
    for (double k = 0;; k++) {
        bool done;
        if (k >= MAX_SAFE_INTEGER) {
            sm_bi_throw(cx, JSMSG_TOO_LONG_ARRAY);
            it.closeThrow();
            return false;
        }
        if (!it.next(&v, &done))
            return false;
        if (done)
            return true;
        if (!JS_CheckForInterrupt(cx))
            return false;
        if (!group_key(cx, callback, v, k, is_map, &key)) {
            if (JS_IsExceptionPending(cx)) /* not a stop, which must not run guest code */
                it.closeThrow();
            return false;
        }
        if (!add_to_group(cx, groups, is_map, key, v))
            return false;
    }
}

static bool object_group_by(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::RootedObject groups(cx, JS_NewObjectWithGivenProto(cx, nullptr, nullptr));
    if (!groups || !group_by(cx, args, false, groups))
        return false;
    args.rval().setObject(*groups);
    return true;
}

static bool map_group_by(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::RootedObject groups(cx, JS::NewMapObject(cx));
    if (!groups || !group_by(cx, args, true, groups))
        return false;
    args.rval().setObject(*groups);
    return true;
}

bool sm_bi_install_object(JSContext *cx, JS::HandleObject ctor)
{
    return JS_DefineFunction(cx, ctor, "groupBy", object_group_by, 2, 0);
}

bool sm_bi_install_map(JSContext *cx, JS::HandleObject ctor)
{
    return JS_DefineFunction(cx, ctor, "groupBy", map_group_by, 2, 0);
}
