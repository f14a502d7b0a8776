/* js/builtins/promise.cpp: Promise.withResolvers (ECMAScript 2024) and Promise.try (2025), on
 * NewPromiseCapability(C) for any constructor C: the executor is a native whose two reserved
 * slots receive resolve and reject, as the spec's GetCapabilitiesExecutor closure does. */
#include "js/builtins/builtins.h" /* first: see sm.h */

#include <js/CallAndConstruct.h>
#include <js/friend/ErrorMessages.h>
#include <jsfriendapi.h>

enum { SLOT_RESOLVE, SLOT_REJECT };

static bool capability_executor(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JSObject *self = &args.callee();
    if (!js::GetFunctionNativeReserved(self, SLOT_RESOLVE).isUndefined() ||
        !js::GetFunctionNativeReserved(self, SLOT_REJECT).isUndefined())
        return sm_bi_throw(cx, JSMSG_PROMISE_CAPABILITY_HAS_SOMETHING_ALREADY);
    js::SetFunctionNativeReserved(self, SLOT_RESOLVE, args.get(0));
    js::SetFunctionNativeReserved(self, SLOT_REJECT, args.get(1));
    args.rval().setUndefined();
    return true;
}

/* NewPromiseCapability(c): the promise and its two functions. */
static bool new_capability(JSContext *cx, JS::HandleValue c, JS::MutableHandleObject promise,
                           JS::MutableHandleValue resolve, JS::MutableHandleValue reject)
{
    if (!c.isObject() || !JS::IsConstructor(&c.toObject()))
        return sm_bi_throw(cx, JSMSG_NOT_CONSTRUCTOR, "this");
    JSFunction *fn = js::NewFunctionWithReserved(cx, capability_executor, 2, 0, nullptr);
    if (!fn)
        return false;
    JS::RootedObject executor(cx, JS_GetFunctionObject(fn));
    JS::RootedValueArray<1> cargs(cx);
    cargs[0].setObject(*executor);
    if (!JS::Construct(cx, c, cargs, promise))
        return false;
    resolve.set(js::GetFunctionNativeReserved(executor, SLOT_RESOLVE));
    reject.set(js::GetFunctionNativeReserved(executor, SLOT_REJECT));
    if (!resolve.isObject() || !JS::IsCallable(&resolve.toObject()) || !reject.isObject() ||
        !JS::IsCallable(&reject.toObject()))
        return sm_bi_throw(cx, JSMSG_PROMISE_RESOLVE_FUNCTION_NOT_CALLABLE);
    return true;
}

static bool promise_with_resolvers(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::RootedObject promise(cx);
    JS::RootedValue resolve(cx), reject(cx);
    if (!new_capability(cx, args.thisv(), &promise, &resolve, &reject))
        return false;
    JS::RootedObject out(cx, JS_NewPlainObject(cx));
    if (!out || !JS_DefineProperty(cx, out, "promise", promise, JSPROP_ENUMERATE) ||
        !JS_DefineProperty(cx, out, "resolve", resolve, JSPROP_ENUMERATE) ||
        !JS_DefineProperty(cx, out, "reject", reject, JSPROP_ENUMERATE))
        return false;
    args.rval().setObject(*out);
    return true;
}

static bool promise_try(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    if (!args.thisv().isObject())
        return sm_bi_throw(cx, JSMSG_OBJECT_REQUIRED, "Promise.try's this");
    JS::RootedObject promise(cx);
    JS::RootedValue resolve(cx), reject(cx), status(cx), ignored(cx);
    if (!new_capability(cx, args.thisv(), &promise, &resolve, &reject))
        return false;
    JS::RootedValueVector rest(cx);
    if (args.length() > 1 && !rest.append(args.array() + 1, args.length() - 1)) {
        JS_ReportOutOfMemory(cx);
        return false;
    }
    bool is_ok = JS::Call(cx, JS::UndefinedHandleValue, args.get(0), rest, &status);
    if (!is_ok) {
        if (!JS_GetPendingException(cx, &status)) /* a stop: nothing more runs */
            return false;
        JS_ClearPendingException(cx);
    }
    JS::RootedValueArray<1> sargs(cx);
    sargs[0].set(status);
    if (!JS::Call(cx, JS::UndefinedHandleValue, is_ok ? resolve : reject, sargs, &ignored))
        return false;
    args.rval().setObject(*promise);
    return true;
}

bool sm_bi_install_promise(JSContext *cx, JS::HandleObject ctor)
{
    static const JSFunctionSpec methods[] = {
        JS_FN("withResolvers", promise_with_resolvers, 0, 0),
        JS_FN("try", promise_try, 1, 0),
        JS_FS_END,
    };
    return JS_DefineFunctions(cx, ctor, methods);
}
