/* js/builtins/buffer.cpp: binary data. ArrayBuffer.prototype.transfer, transferToFixedLength and
 * detached (ECMAScript 2024; SpiderMonkey 102 has no resizable buffers, so every buffer is
 * fixed-length), and float16 (2025): DataView.prototype.getFloat16/setFloat16 and Math.f16round,
 * rounding a double straight to binary16 (ties to even), never through float32 (which would
 * round twice). Float16Array itself is a new typed array kind the engine would have to know. */
#include "js/builtins/builtins.h" /* first: see sm.h */

#include <js/ArrayBuffer.h>
#include <js/Conversions.h>
#include <js/experimental/TypedData.h>
#include <js/friend/ErrorMessages.h>
#include <math.h>

#define MAX_SAFE_INTEGER 9007199254740991.0

/* ToIndex(v). */
static bool to_index(JSContext *cx, JS::HandleValue v, double *out)
{
    if (!sm_bi_to_integer(cx, v, out))
        return false;
    if (*out < 0 || *out > MAX_SAFE_INTEGER)
        return sm_bi_throw(cx, JSMSG_BAD_INDEX);
    return true;
}

/* The binary16 bits nearest to d, ties to even. */
static uint16_t to_half(double d)
{
    uint16_t sign = signbit(d) ? 0x8000 : 0;
    double a = fabs(d);
    if (isnan(d))
        return 0x7E00;
    if (a >= 65520.0) /* half-way from 65504 (the largest half) to 2^16: rounds to infinity */
        return sign | 0x7C00;
    if (a < 6.103515625e-05) /* 2^-14: subnormal (0 included), in units of 2^-24 */
        return sign | (uint16_t)rint(a * 16777216.0);
    int e;
    double m = frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    double mant = rint((m * 2.0 - 1.0) * 1024.0);
    e -= 1;
    if (mant == 1024.0) {
        mant = 0;
        e++;
    }
    return sign | (uint16_t)((e + 15) << 10) | (uint16_t)mant;
}

static double from_half(uint16_t h)
{
    double sign = (h & 0x8000) ? -1.0 : 1.0;
    int e = (h >> 10) & 0x1F, mant = h & 0x3FF;
    if (e == 0)
        return sign * ldexp(mant, -24);
    if (e == 31)
        return mant ? NAN : sign * INFINITY;
    return sign * ldexp(1024 + mant, e - 25);
}

static bool math_f16round(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    double d;
    if (!JS::ToNumber(cx, args.get(0), &d))
        return false;
    args.rval().setDouble(isnan(d) ? d : from_half(to_half(d)));
    return true;
}

/* The DataView this, or a TypeError. */
static bool this_view(JSContext *cx, JS::CallArgs &args, const char *name,
                      JS::MutableHandleObject out)
{
    if (!args.thisv().isObject() || !JS::DataView::fromObject(&args.thisv().toObject()))
        return sm_bi_throw(cx, JSMSG_INCOMPATIBLE_PROTO, "DataView", name,
                           args.thisv().isObject() ? "object" : "primitive");
    out.set(&args.thisv().toObject());
    return true;
}

/* Checks that two bytes at index are in the view: a detached view is a TypeError, out of it a
 * RangeError (GetViewValue / SetViewValue, after their coercions). */
static bool check_view(JSContext *cx, JS::HandleObject view, double index)
{
    if (JS::ArrayBufferView::fromObject(view).isDetached())
        return sm_bi_throw(cx, JSMSG_TYPED_ARRAY_DETACHED);
    if (index + 2 > (double)JS_GetArrayBufferViewByteLength(view))
        return sm_bi_throw(cx, JSMSG_BAD_INDEX);
    return true;
}

static uint8_t *view_bytes(JS::HandleObject view, double index, const JS::AutoRequireNoGC &nogc)
{
    bool is_shared;
    return static_cast<uint8_t *>(JS_GetArrayBufferViewData(view, &is_shared, nogc)) +
           (size_t)index;
}

static bool view_get_float16(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::RootedObject view(cx);
    double index;
    if (!this_view(cx, args, "getFloat16", &view) || !to_index(cx, args.get(0), &index))
        return false;
    bool is_little = JS::ToBoolean(args.get(1));
    if (!check_view(cx, view, index))
        return false;
    uint16_t h;
    {
        JS::AutoCheckCannotGC nogc;
        const uint8_t *p = view_bytes(view, index, nogc);
        h = is_little ? (uint16_t)(p[0] | p[1] << 8) : (uint16_t)(p[1] | p[0] << 8);
    }
    args.rval().setDouble(from_half(h));
    return true;
}

static bool view_set_float16(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::RootedObject view(cx);
    double index, d;
    if (!this_view(cx, args, "setFloat16", &view) || !to_index(cx, args.get(0), &index) ||
        !JS::ToNumber(cx, args.get(1), &d))
        return false;
    bool is_little = JS::ToBoolean(args.get(2));
    uint16_t h = to_half(d);
    if (!check_view(cx, view, index))
        return false;
    JS::AutoCheckCannotGC nogc;
    uint8_t *p = view_bytes(view, index, nogc);
    p[is_little ? 0 : 1] = (uint8_t)(h & 0xFF);
    p[is_little ? 1 : 0] = (uint8_t)(h >> 8);
    args.rval().setUndefined();
    return true;
}

/* The (unshared) ArrayBuffer this, or a TypeError. */
static bool this_buffer(JSContext *cx, JS::CallArgs &args, const char *name,
                        JS::MutableHandleObject out)
{
    if (!args.thisv().isObject() || !JS::IsArrayBufferObject(&args.thisv().toObject()))
        return sm_bi_throw(cx, JSMSG_INCOMPATIBLE_PROTO, "ArrayBuffer", name,
                           args.thisv().isObject() ? "object" : "primitive");
    out.set(&args.thisv().toObject());
    return true;
}

/* ArrayBufferCopyAndDetach(this, newLength): a fixed-length buffer either way here. */
static bool copy_and_detach(JSContext *cx, JS::CallArgs &args, const char *name)
{
    JS::RootedObject buf(cx), out(cx);
    double len;
    if (!this_buffer(cx, args, name, &buf))
        return false;
    if (args.get(0).isUndefined())
        len = (double)JS::GetArrayBufferByteLength(buf);
    else if (!to_index(cx, args.get(0), &len))
        return false;
    bool has_key = false; /* the engine sets it only when true (a wasm or asm.js buffer) */
    if (JS::IsDetachedArrayBufferObject(buf))
        return sm_bi_throw(cx, JSMSG_TYPED_ARRAY_DETACHED);
    if (!JS::HasDefinedArrayBufferDetachKey(cx, buf, &has_key))
        return false;
    if (has_key)
        return sm_bi_throw(cx, JSMSG_TYPED_ARRAY_BAD_ARGS);
    out.set(JS::NewArrayBuffer(cx, (size_t)len));
    if (!out)
        return false;
    size_t old_len = JS::GetArrayBufferByteLength(buf);
    size_t n = old_len < (size_t)len ? old_len : (size_t)len;
    if ((n && !JS::ArrayBufferCopyData(cx, out, 0, buf, 0, n)) || !JS::DetachArrayBuffer(cx, buf))
        return false;
    args.rval().setObject(*out);
    return true;
}

static bool buffer_transfer(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    return copy_and_detach(cx, args, "transfer");
}

static bool buffer_transfer_fixed(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    return copy_and_detach(cx, args, "transferToFixedLength");
}

static bool buffer_detached(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::RootedObject buf(cx);
    if (!this_buffer(cx, args, "detached", &buf))
        return false;
    args.rval().setBoolean(JS::IsDetachedArrayBufferObject(buf));
    return true;
}

static bool define_on_prototype(JSContext *cx, JS::HandleObject ctor, const JSFunctionSpec *fns,
                                const JSPropertySpec *props)
{
    JS::RootedValue proto(cx);
    if (!JS_GetProperty(cx, ctor, "prototype", &proto))
        return false;
    if (!proto.isObject())
        return true;
    JS::RootedObject p(cx, &proto.toObject());
    return (!fns || JS_DefineFunctions(cx, p, fns)) &&
           (!props || JS_DefineProperties(cx, p, props));
}

bool sm_bi_install_array_buffer(JSContext *cx, JS::HandleObject ctor)
{
    static const JSFunctionSpec fns[] = {
        JS_FN("transfer", buffer_transfer, 0, 0),
        JS_FN("transferToFixedLength", buffer_transfer_fixed, 0, 0),
        JS_FS_END,
    };
    static const JSPropertySpec props[] = {JS_PSG("detached", buffer_detached, 0), JS_PS_END};
    return define_on_prototype(cx, ctor, fns, props);
}

bool sm_bi_install_data_view(JSContext *cx, JS::HandleObject ctor)
{
    static const JSFunctionSpec fns[] = {
        JS_FN("getFloat16", view_get_float16, 1, 0),
        JS_FN("setFloat16", view_set_float16, 2, 0),
        JS_FS_END,
    };
    return define_on_prototype(cx, ctor, fns, nullptr);
}

bool sm_bi_install_math(JSContext *cx, JS::HandleObject math)
{
    return JS_DefineFunction(cx, math, "f16round", math_f16round, 1, 0);
}
