/* js/platform/idna.cpp: domainToASCII for url.js, the URL Standard's "domain to ASCII" through
 * Debian's ICU (icu.c). SpiderMonkey carries its own ICU 71 inside libmozjs with every symbol
 * hidden, so the two never meet. */
#include "js/platform/platform.h" /* first: see sm.h */

#include <js/Conversions.h>
#include <string.h>

#include "js/platform/icu.h"

/* Longest domain handed to ICU (its output may grow: punycode, mappings). */
#define DOMAIN_MAX (1u << 16)

/* A forbidden domain code point (URL Standard 3.2): forbidden host code points, C0 controls,
 * U+0025 (%) and U+007F. */
static bool is_forbidden_domain(uint32_t c)
{
    return c <= 0x20 || c == 0x7F || (c < 0x80 && strchr("#%/:<>?@[\\]^|", (int)c));
}

/* ASCII with no label starting with "xn--" (any case): domain to ASCII is lowercasing it
 * (URL Standard 3.3, beStrict false). Returns the lowercased copy, NULL when it is not such a
 * domain, and sets *is_oom when a copy failed. */
static JSString *ascii_domain(JSContext *cx, JSLinearString *s, bool *is_oom)
{
    size_t n = JS::GetLinearStringLength(s);
    char *low = static_cast<char *>(malloc(n + 1));
    bool is_plain = low != nullptr;
    *is_oom = !low;
    for (size_t i = 0; is_plain && i < n; i++) {
        uint32_t c = JS::GetLinearStringCharAt(s, i);
        is_plain = c < 0x80;
        low[i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
        if (is_plain && low[i] == '-' && i >= 3 && low[i - 1] == '-' && low[i - 2] == 'n' &&
            low[i - 3] == 'x' && (i == 3 || low[i - 4] == '.'))
            is_plain = false; /* an "xn--" label: punycode, which ICU checks */
    }
    JSString *r = is_plain ? JS_NewStringCopyN(cx, low, n) : nullptr;
    *is_oom = *is_oom || (is_plain && !r);
    free(low);
    return r;
}

static bool has_forbidden_domain(JSLinearString *s)
{
    size_t n = JS::GetLinearStringLength(s);
    for (size_t i = 0; i < n; i++)
        if (is_forbidden_domain(JS::GetLinearStringCharAt(s, i)))
            return true;
    return false;
}

/* domainToASCII(domain): the ASCII domain, or null for a failure (the URL is invalid): UTS #46
 * failed, or the result has a forbidden domain code point. */
static bool domain_to_ascii(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::RootedString str(cx, JS::ToString(cx, args.get(0)));
    JSLinearString *s = str ? JS_EnsureLinearString(cx, str) : nullptr;
    if (!s)
        return false;
    size_t n = JS::GetLinearStringLength(s);
    bool is_oom;
    JS::RootedString fast(cx, ascii_domain(cx, s, &is_oom));
    if (is_oom) {
        JS_ReportOutOfMemory(cx);
        return false;
    }
    if (fast) {
        JSLinearString *lin = JS_EnsureLinearString(cx, fast);
        if (!lin)
            return false;
        args.rval().set(n && !has_forbidden_domain(lin) ? JS::StringValue(fast) : JS::NullValue());
        return true;
    }
    if (n > DOMAIN_MAX) {
        args.rval().setNull();
        return true;
    }
    uint16_t *in = static_cast<uint16_t *>(malloc((n + 1) * sizeof(uint16_t)));
    if (in && !JS_CopyStringChars(cx, mozilla::Range<char16_t>(reinterpret_cast<char16_t *>(in), n),
                                  JS_FORGET_STRING_LINEARNESS(s))) {
        free(in);
        return false;
    }
    size_t cap = 2 * n + 64, needed = 0;
    uint16_t *out = nullptr;
    long len = -2;
    for (int tries = 0; in && len == -2 && tries < 2; tries++) {
        free(out);
        out = static_cast<uint16_t *>(malloc(cap * sizeof(uint16_t)));
        len = out ? sm_icu_domain_to_ascii(in, n, out, cap, &needed) : -3;
        cap = needed + 1;
    }
    free(in);
    if (!in || len == -3) {
        free(out);
        JS_ReportOutOfMemory(cx);
        return false;
    }
    JSString *r =
        len > 0 ? JS_NewUCStringCopyN(cx, reinterpret_cast<char16_t *>(out), (size_t)len) : nullptr;
    free(out);
    if (len < 0) {
        JS_ReportErrorASCII(cx, "IDNA is unavailable (ICU's UTS #46 failed)");
        return false;
    }
    if (len > 0 && !r)
        return false;
    JSLinearString *lin = len > 0 ? JS_EnsureLinearString(cx, r) : nullptr;
    if (len > 0 && !lin)
        return false;
    args.rval().set(lin && !has_forbidden_domain(lin) ? JS::StringValue(r) : JS::NullValue());
    return true;
}

bool sm_platform_idna_natives(JSContext *cx, JS::HandleObject natives)
{
    return JS_DefineFunction(cx, natives, "domainToASCII", domain_to_ascii, 1, 0);
}
