/* js/platform/codec.cpp: the byte codecs behind TextEncoder/TextDecoder and atob/btoa: UTF-8 and
 * UTF-16LE/BE exactly as the WHATWG Encoding Standard decodes them (U+FFFD per error, or a
 * failure in fatal mode; a stream keeps an incomplete sequence for the next call), and forgiving
 * base64 as Node 20 checks it. Bulk work is native: the guest runs without a JIT, where a loop
 * per byte in JavaScript costs about 100x more. */
#include "js/platform/platform.h" /* first: see sm.h */

#include <js/Conversions.h>
#include <js/Array.h>
#include <js/ArrayBuffer.h>
#include <js/experimental/TypedData.h>
#include <string.h>

enum codec { CODEC_UTF8, CODEC_UTF16LE, CODEC_UTF16BE };

/* One decoder's state between bytes (Encoding Standard 8.1.1, 9.1.1). */
struct decoder {
    enum codec codec;
    bool is_fatal;
    bool has_error; /* fatal mode met an error */
    /* UTF-8 */
    uint32_t cp, needed, seen, lower, upper;
    /* UTF-16 */
    int lead_byte;      /* -1: none */
    int lead_surrogate; /* -1: none */
    char16_t *out;
    size_t len;
};

static void emit_error(struct decoder *d)
{
    if (d->is_fatal)
        d->has_error = true;
    d->out[d->len++] = 0xFFFD;
}

static void emit_cp(struct decoder *d, uint32_t cp)
{
    if (cp >= 0x10000) {
        cp -= 0x10000;
        d->out[d->len++] = (char16_t)(0xD800 + (cp >> 10));
        d->out[d->len++] = (char16_t)(0xDC00 + (cp & 0x3FF));
    } else {
        d->out[d->len++] = (char16_t)cp;
    }
}

/* Encoding Standard 8.1.1, the UTF-8 decoder's handler for one byte. */
static void utf8_byte(struct decoder *d, uint8_t b)
{
    for (;;) {
        if (d->needed == 0) {
            if (b <= 0x7F) {
                emit_cp(d, b);
            } else if (b >= 0xC2 && b <= 0xDF) {
                d->needed = 1;
                d->cp = b & 0x1F;
            } else if (b >= 0xE0 && b <= 0xEF) {
                d->lower = b == 0xE0 ? 0xA0 : 0x80;
                d->upper = b == 0xED ? 0x9F : 0xBF;
                d->needed = 2;
                d->cp = b & 0xF;
            } else if (b >= 0xF0 && b <= 0xF4) {
                d->lower = b == 0xF0 ? 0x90 : 0x80;
                d->upper = b == 0xF4 ? 0x8F : 0xBF;
                d->needed = 3;
                d->cp = b & 0x7;
            } else {
                emit_error(d);
            }
            return;
        }
        if (b < d->lower || b > d->upper) {
            d->cp = d->needed = d->seen = 0;
            d->lower = 0x80;
            d->upper = 0xBF;
            emit_error(d);
            continue; /* the byte is processed again, as the start of a sequence */
        }
        d->lower = 0x80;
        d->upper = 0xBF;
        d->cp = (d->cp << 6) | (b & 0x3F);
        if (++d->seen == d->needed) {
            emit_cp(d, d->cp);
            d->cp = d->needed = d->seen = 0;
        }
        return;
    }
}

/* Encoding Standard 9.1.1, the shared UTF-16 decoder's handler for one byte. */
static void utf16_byte(struct decoder *d, uint8_t b)
{
    if (d->lead_byte < 0) {
        d->lead_byte = b;
        return;
    }
    uint32_t cu = d->codec == CODEC_UTF16LE ? (uint32_t)d->lead_byte + ((uint32_t)b << 8)
                                            : ((uint32_t)d->lead_byte << 8) + b;
    d->lead_byte = -1;
    if (d->lead_surrogate >= 0) {
        uint32_t lead = (uint32_t)d->lead_surrogate;
        d->lead_surrogate = -1;
        if (cu >= 0xDC00 && cu <= 0xDFFF) {
            emit_cp(d, 0x10000 + ((lead - 0xD800) << 10) + (cu - 0xDC00));
            return;
        }
        emit_error(d); /* then cu is decoded on its own */
    }
    if (cu >= 0xD800 && cu <= 0xDBFF)
        d->lead_surrogate = (int)cu;
    else if (cu >= 0xDC00 && cu <= 0xDFFF)
        emit_error(d);
    else
        emit_cp(d, cu);
}

/* How many of the bytes fed so far are an incomplete sequence (kept by a stream). */
static size_t decoder_pending(const struct decoder *d)
{
    if (d->codec == CODEC_UTF8)
        return d->needed ? d->seen + 1 : 0;
    return (d->lead_byte >= 0 ? 1 : 0) + (d->lead_surrogate >= 0 ? 2 : 0);
}

/* The end of the input when not streaming: an incomplete sequence is one error. */
static void decoder_end(struct decoder *d)
{
    if (decoder_pending(d))
        emit_error(d);
}

static void decoder_feed(struct decoder *d, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n && !d->has_error; i++) {
        if (d->codec == CODEC_UTF8)
            utf8_byte(d, p[i]);
        else
            utf16_byte(d, p[i]);
    }
}

/* The bytes of an ArrayBuffer or a view (NULL, 0 for anything else); valid under nogc. */
static const uint8_t *buffer_source(JSObject *obj, size_t *len, const JS::AutoCheckCannotGC &nogc)
{
    bool is_shared;
    *len = 0;
    if (!obj)
        return nullptr;
    if (JS_IsArrayBufferViewObject(obj)) {
        *len = JS_GetArrayBufferViewByteLength(obj);
        return static_cast<const uint8_t *>(JS_GetArrayBufferViewData(obj, &is_shared, nogc));
    }
    if (JS::IsArrayBufferObject(obj)) {
        uint8_t *data;
        JS::GetArrayBufferLengthAndData(obj, len, &is_shared, &data);
        return data;
    }
    return nullptr;
}

/* decode(codec, pending, input, fatal, stream): [text, pending] or null when fatal failed.
 * pending: the previous call's incomplete sequence (a Uint8Array of at most 3 bytes) or null. */
static bool decode(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    struct decoder d = {};
    d.codec = static_cast<enum codec>(args.get(0).isInt32() ? args[0].toInt32() : 0);
    d.is_fatal = JS::ToBoolean(args.get(3));
    d.lower = 0x80;
    d.upper = 0xBF;
    d.lead_byte = d.lead_surrogate = -1;
    bool is_stream = JS::ToBoolean(args.get(4));
    JSObject *prev = args.get(1).isObject() ? &args[1].toObject() : nullptr;
    JSObject *input = args.get(2).isObject() ? &args[2].toObject() : nullptr;
    uint8_t keep[4];
    size_t keep_len = 0;
    {
        JS::AutoCheckCannotGC nogc;
        size_t plen, ilen;
        const uint8_t *p = buffer_source(prev, &plen, nogc);
        const uint8_t *in = buffer_source(input, &ilen, nogc);
        if (plen > 3 || ilen > SIZE_MAX / 2 - 8)
            plen = ilen = 0; /* not ours, or impossible */
        d.out = static_cast<char16_t *>(malloc((plen + ilen + 2) * sizeof(char16_t)));
        if (d.out) {
            decoder_feed(&d, p, plen);
            decoder_feed(&d, in, ilen);
            keep_len = is_stream ? decoder_pending(&d) : 0;
            if (!is_stream)
                decoder_end(&d);
            for (size_t i = 0; i < keep_len; i++) { /* the last keep_len bytes of p + in */
                size_t at = plen + ilen - keep_len + i;
                keep[i] = at >= plen ? in[at - plen] : p[at];
            }
        }
    }
    if (!d.out) {
        JS_ReportOutOfMemory(cx);
        return false;
    }
    if (d.has_error) {
        free(d.out);
        args.rval().setNull();
        return true;
    }
    JS::RootedValueArray<2> pair(cx);
    JSString *s = JS_NewUCStringCopyN(cx, d.out, d.len);
    free(d.out);
    if (!s)
        return false;
    pair[0].setString(s);
    if (keep_len) {
        JSObject *rest = JS_NewUint8Array(cx, keep_len);
        if (!rest)
            return false;
        JS::AutoCheckCannotGC nogc;
        bool is_shared;
        memcpy(JS_GetArrayBufferViewData(rest, &is_shared, nogc), keep, keep_len);
        pair[1].setObject(*rest);
    }
    JSObject *arr = JS::NewArrayObject(cx, pair);
    if (!arr)
        return false;
    args.rval().setObject(*arr);
    return true;
}

/* The next code point of s[i..n) (a lone surrogate reads as U+FFFD); *units: 1 or 2. */
static uint32_t next_cp(const JS::Latin1Char *l1, const char16_t *s, size_t i, size_t n,
                        size_t *units)
{
    *units = 1;
    if (l1)
        return l1[i];
    uint32_t c = s[i];
    if (c >= 0xD800 && c <= 0xDBFF && i + 1 < n && s[i + 1] >= 0xDC00 && s[i + 1] <= 0xDFFF) {
        *units = 2;
        return 0x10000 + ((c - 0xD800) << 10) + (s[i + 1] - 0xDC00);
    }
    return c >= 0xD800 && c <= 0xDFFF ? 0xFFFD : c;
}

static size_t put_utf8(uint8_t *o, uint32_t cp)
{
    if (cp < 0x80) {
        o[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (uint8_t)(0xC0 | (cp >> 6));
        o[1] = (uint8_t)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (uint8_t)(0xE0 | (cp >> 12));
        o[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (uint8_t)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (uint8_t)(0xF0 | (cp >> 18));
    o[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (uint8_t)(0x80 | (cp & 0x3F));
    return 4;
}

/* Encodes s as UTF-8 into dst (cap bytes; NULL: only counts) up to the last code point that
 * fits. Returns the bytes written; *read gets the code units consumed. */
static size_t encode_utf8(JSLinearString *s, uint8_t *dst, size_t cap, size_t *read,
                          const JS::AutoCheckCannotGC &nogc)
{
    size_t n = JS::GetLinearStringLength(s), i = 0, w = 0, units;
    const JS::Latin1Char *l1 =
        JS::LinearStringHasLatin1Chars(s) ? JS::GetLatin1LinearStringChars(nogc, s) : nullptr;
    const char16_t *u = l1 ? nullptr : JS::GetTwoByteLinearStringChars(nogc, s);
    uint8_t tmp[4];
    while (i < n) {
        uint32_t cp = next_cp(l1, u, i, n, &units);
        size_t k = put_utf8(tmp, cp);
        if (w + k > cap)
            break;
        if (dst)
            memcpy(dst + w, tmp, k);
        w += k;
        i += units;
    }
    *read = i;
    return w;
}

static JSLinearString *linear_arg(JSContext *cx, JS::HandleValue v)
{
    JS::RootedString s(cx, JS::ToString(cx, v));
    return s ? JS_EnsureLinearString(cx, s) : nullptr;
}

/* utf8Encode(string): a Uint8Array of its UTF-8 (lone surrogates as U+FFFD). */
static bool utf8_encode(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::Rooted<JSLinearString *> s(cx, linear_arg(cx, args.get(0)));
    if (!s)
        return false;
    size_t read, len;
    {
        JS::AutoCheckCannotGC nogc;
        len = encode_utf8(s, nullptr, SIZE_MAX, &read, nogc);
    }
    JS::RootedObject out(cx, JS_NewUint8Array(cx, len));
    if (!out)
        return false;
    {
        JS::AutoCheckCannotGC nogc;
        bool is_shared;
        uint8_t *dst = static_cast<uint8_t *>(JS_GetArrayBufferViewData(out, &is_shared, nogc));
        encode_utf8(s, dst, len, &read, nogc);
    }
    args.rval().setObject(*out);
    return true;
}

/* utf8EncodeInto(string, uint8array): [code units read, bytes written]. */
static bool utf8_encode_into(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::Rooted<JSLinearString *> s(cx, linear_arg(cx, args.get(0)));
    if (!s)
        return false;
    JSObject *dest = args.get(1).isObject() ? &args[1].toObject() : nullptr;
    if (!dest || !JS_IsArrayBufferViewObject(dest)) {
        JS_ReportErrorASCII(cx, "utf8EncodeInto: not a Uint8Array");
        return false;
    }
    size_t read = 0, written;
    {
        JS::AutoCheckCannotGC nogc;
        bool is_shared;
        size_t cap = JS_GetArrayBufferViewByteLength(dest);
        uint8_t *dst = static_cast<uint8_t *>(JS_GetArrayBufferViewData(dest, &is_shared, nogc));
        written = encode_utf8(s, dst, dst ? cap : 0, &read, nogc);
    }
    JS::RootedValueArray<2> pair(cx);
    pair[0].setNumber((double)read);
    pair[1].setNumber((double)written);
    JSObject *arr = JS::NewArrayObject(cx, pair);
    if (!arr)
        return false;
    args.rval().setObject(*arr);
    return true;
}

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int b64_value(uint32_t c)
{
    if (c >= 'A' && c <= 'Z')
        return (int)(c - 'A');
    if (c >= 'a' && c <= 'z')
        return (int)(c - 'a' + 26);
    if (c >= '0' && c <= '9')
        return (int)(c - '0' + 52);
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

static bool is_b64_space(uint32_t c)
{
    return c == 0x09 || c == 0x0A || c == 0x0C || c == 0x0D || c == 0x20;
}

static uint32_t char_at(const JS::Latin1Char *l1, const char16_t *u, size_t i)
{
    return l1 ? l1[i] : u[i];
}

/* Node 20's checks of forgiving-base64 (infra spec 3.3, same accepted set): 0 when s decodes,
 * 1 for "Invalid character", 2 for "not correctly encoded". */
static int b64_check(const JS::Latin1Char *l1, const char16_t *u, size_t n)
{
    size_t data = 0, pad = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t c = char_at(l1, u, i);
        if (is_b64_space(c))
            continue;
        if (c != '=' && b64_value(c) < 0)
            return 1;
        data++;
        if (c == '=')
            pad++;
        else if (pad)
            return 1; /* data after padding */
        if (pad > 2)
            return 1;
    }
    size_t rem = data % 4;
    if (!rem)
        rem = (data - pad) % 4;
    else if (pad)
        return 1;
    return rem == 1 ? 2 : 0;
}

/* atob(string): the decoded bytes as a Latin-1 string, or 1 or 2 (b64_check) when invalid. */
static bool atob(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::Rooted<JSLinearString *> s(cx, linear_arg(cx, args.get(0)));
    if (!s)
        return false;
    size_t n = JS::GetLinearStringLength(s), len = 0;
    char *out = static_cast<char *>(malloc(n / 4 * 3 + 3));
    if (!out) {
        JS_ReportOutOfMemory(cx);
        return false;
    }
    int bad;
    {
        JS::AutoCheckCannotGC nogc;
        const JS::Latin1Char *l1 =
            JS::LinearStringHasLatin1Chars(s) ? JS::GetLatin1LinearStringChars(nogc, s) : nullptr;
        const char16_t *u = l1 ? nullptr : JS::GetTwoByteLinearStringChars(nogc, s);
        bad = b64_check(l1, u, n);
        uint32_t acc = 0, bits = 0;
        for (size_t i = 0; !bad && i < n; i++) {
            int v = b64_value(char_at(l1, u, i));
            if (v < 0)
                continue; /* space or padding */
            acc = (acc << 6) | (uint32_t)v;
            bits += 6;
            if (bits >= 8) {
                bits -= 8;
                out[len++] = (char)((acc >> bits) & 0xFF);
            }
        }
    }
    JSString *r = bad ? nullptr : JS_NewStringCopyN(cx, out, len);
    free(out);
    if (bad) {
        args.rval().setInt32(bad);
        return true;
    }
    if (!r)
        return false;
    args.rval().setString(r);
    return true;
}

/* btoa(string): base64 of its Latin-1 bytes, or null when a character is above U+00FF. */
static bool btoa(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::Rooted<JSLinearString *> s(cx, linear_arg(cx, args.get(0)));
    if (!s)
        return false;
    size_t n = JS::GetLinearStringLength(s), len = 0;
    if (n > SIZE_MAX / 2) {
        JS_ReportOutOfMemory(cx);
        return false;
    }
    char *out = static_cast<char *>(malloc((n + 2) / 3 * 4 + 1));
    if (!out) {
        JS_ReportOutOfMemory(cx);
        return false;
    }
    bool is_wide = false;
    {
        JS::AutoCheckCannotGC nogc;
        const JS::Latin1Char *l1 =
            JS::LinearStringHasLatin1Chars(s) ? JS::GetLatin1LinearStringChars(nogc, s) : nullptr;
        const char16_t *u = l1 ? nullptr : JS::GetTwoByteLinearStringChars(nogc, s);
        for (size_t i = 0; i < n && !is_wide; i += 3) {
            uint32_t c[3] = {0, 0, 0};
            size_t k = n - i < 3 ? n - i : 3;
            for (size_t j = 0; j < k; j++) {
                c[j] = char_at(l1, u, i + j);
                is_wide |= c[j] > 0xFF;
            }
            uint32_t v = (c[0] << 16) | (c[1] << 8) | c[2];
            out[len++] = b64_alphabet[(v >> 18) & 63];
            out[len++] = b64_alphabet[(v >> 12) & 63];
            out[len++] = k > 1 ? b64_alphabet[(v >> 6) & 63] : '=';
            out[len++] = k > 2 ? b64_alphabet[v & 63] : '=';
        }
    }
    JSString *r = is_wide ? nullptr : JS_NewStringCopyN(cx, out, len);
    free(out);
    if (is_wide) {
        args.rval().setNull();
        return true;
    }
    if (!r)
        return false;
    args.rval().setString(r);
    return true;
}

bool sm_platform_codec_natives(JSContext *cx, JS::HandleObject natives)
{
    static const JSFunctionSpec fns[] = {
        JS_FN("decode", decode, 5, 0),
        JS_FN("utf8Encode", utf8_encode, 1, 0),
        JS_FN("utf8EncodeInto", utf8_encode_into, 2, 0),
        JS_FN("atob", atob, 1, 0),
        JS_FN("btoa", btoa, 1, 0),
        JS_FS_END,
    };
    return JS_DefineFunctions(cx, natives, fns);
}
