/* js/platform/urlcodec.cpp: the character-level work of urlparse.js, native because the guest
 * runs without a JIT, where a JavaScript loop or regular expression costs microseconds per step:
 * the input's clean-up (USVString, C0/space trim, tab and newline removal), runs of characters
 * a parser state only collects, and the URL Standard's percent-encode sets. Each reads a string
 * and returns a string or an index; none holds guest data past the call. */
#include "js/platform/platform.h" /* first: see sm.h */

#include <js/Conversions.h>
#include <ctype.h>
#include <pthread.h>
#include <string.h>

/* The URL Standard's percent-encode sets (section 1.3) over ASCII; every code point above
 * U+007E is in all of them. One bit per set in a byte per character. */
enum {
    SET_C0 = 1,        /* C0 control percent-encode set */
    SET_FRAGMENT = 2,  /* + space " < > ` */
    SET_QUERY = 4,     /* C0 + space " # < > */
    SET_SQUERY = 8,    /* query + ' */
    SET_PATH = 16,     /* query + ? ` { } */
    SET_USERINFO = 32, /* path + / : ; = @ [ \ ] ^ | */
    SET_FORM = 64,     /* userinfo + $ % & + , ! ' ( ) ~ (application/x-www-form-urlencoded) */
};

static uint8_t sets[128];

static void add(const char *chars, uint8_t bits)
{
    for (const char *c = chars; *c; c++)
        sets[(unsigned char)*c] |= bits;
}

static void init_sets(void)
{
    const uint8_t all =
        SET_C0 | SET_FRAGMENT | SET_QUERY | SET_SQUERY | SET_PATH | SET_USERINFO | SET_FORM;
    for (int c = 0; c < 0x20; c++)
        sets[c] = all;
    sets[0x7F] = all;
    add(" \"<>", all & ~SET_C0);
    add("`", SET_FRAGMENT | SET_PATH | SET_USERINFO | SET_FORM);
    add("#", SET_QUERY | SET_SQUERY | SET_PATH | SET_USERINFO | SET_FORM);
    add("'", SET_SQUERY | SET_FORM);
    add("?{}", SET_PATH | SET_USERINFO | SET_FORM);
    add("/:;=@[\\]^|", SET_USERINFO | SET_FORM);
    add("$%&+,!()~", SET_FORM);
}

static bool in_set(uint32_t c, uint8_t set)
{
    return c > 0x7E || (sets[c] & set);
}

/* Runs of characters that only go to a state's buffer: each stops at the characters listed. */
static const char *const run_stops[] = {
    "@/?#\\",   /* 0 authority (special) */
    "@/?#",     /* 1 authority */
    ":/?#\\[]", /* 2 host (special) */
    ":/?#[]",   /* 3 host */
    "/?#\\",    /* 4 path (special) */
    "/?#",      /* 5 path */
    "/\\",      /* 6 path, a setter's (special) */
    "/",        /* 7 path, a setter's */
    "/\\?#",    /* 8 file host */
    "?#",       /* 9 opaque path */
};
#define RUN_SCHEME 10 /* while ASCII alphanumeric, + - . */
#define RUN_DIGITS 11 /* while ASCII digits */
#define RUN_COUNT  12

static bool run_continues(int kind, uint32_t c)
{
    if (kind == RUN_SCHEME)
        return c < 0x80 && (isalnum((int)c) || c == '+' || c == '-' || c == '.');
    if (kind == RUN_DIGITS)
        return c >= '0' && c <= '9';
    return c >= 0x80 || c == 0 || !strchr(run_stops[kind], (int)c);
}

/* Calls fn(i, c) on the string's code units until it returns false; returns where it stopped. */
template <typename F> static size_t scan(JSLinearString *s, size_t from, F fn)
{
    JS::AutoCheckCannotGC nogc;
    size_t n = JS::GetLinearStringLength(s), i = from;
    if (JS::LinearStringHasLatin1Chars(s)) {
        const JS::Latin1Char *l1 = JS::GetLatin1LinearStringChars(nogc, s);
        while (i < n && fn(i, (uint32_t)l1[i]))
            i++;
    } else {
        const char16_t *u = JS::GetTwoByteLinearStringChars(nogc, s);
        while (i < n && fn(i, (uint32_t)u[i]))
            i++;
    }
    return i;
}

static JSLinearString *linear(JSContext *cx, JS::HandleValue v)
{
    JS::RootedString s(cx, JS::ToString(cx, v));
    return s ? JS_EnsureLinearString(cx, s) : nullptr;
}

/* urlRun(input, from, kind): the run of input starting at from that a state collects. */
static bool url_run(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::Rooted<JSLinearString *> s(cx, linear(cx, args.get(0)));
    int32_t from = args.get(1).isInt32() ? args[1].toInt32() : -1;
    int kind = args.get(2).isInt32() ? args[2].toInt32() : -1;
    if (!s)
        return false;
    size_t n = JS::GetLinearStringLength(s);
    if (from < 0 || (size_t)from > n || kind < 0 || kind >= RUN_COUNT) {
        JS_ReportErrorASCII(cx, "urlRun: bad arguments");
        return false;
    }
    size_t end =
        scan(s, (size_t)from, [kind](size_t, uint32_t c) { return run_continues(kind, c); });
    JS::RootedString str(cx, JS_FORGET_STRING_LINEARNESS(s));
    JSString *r = JS_NewDependentString(cx, str, (size_t)from, end - (size_t)from);
    if (!r)
        return false;
    args.rval().setString(r);
    return true;
}

static void put_hex(char16_t *o, size_t *len, uint32_t byte)
{
    static const char hex[] = "0123456789ABCDEF";
    o[(*len)++] = '%';
    o[(*len)++] = (char16_t)hex[byte >> 4];
    o[(*len)++] = (char16_t)hex[byte & 15];
}

/* Appends the UTF-8 percent-encoding of code point c. */
static void put_encoded(char16_t *o, size_t *len, uint32_t c)
{
    if (c < 0x80) {
        put_hex(o, len, c);
    } else if (c < 0x800) {
        put_hex(o, len, 0xC0 | (c >> 6));
        put_hex(o, len, 0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        put_hex(o, len, 0xE0 | (c >> 12));
        put_hex(o, len, 0x80 | ((c >> 6) & 0x3F));
        put_hex(o, len, 0x80 | (c & 0x3F));
    } else {
        put_hex(o, len, 0xF0 | (c >> 18));
        put_hex(o, len, 0x80 | ((c >> 12) & 0x3F));
        put_hex(o, len, 0x80 | ((c >> 6) & 0x3F));
        put_hex(o, len, 0x80 | (c & 0x3F));
    }
}

/* Encodes units[0..n) into o (room for 9 units per input unit: a pair becomes 12 for 2). */
static size_t encode_units(const char16_t *u, const JS::Latin1Char *l1, size_t n, uint8_t set,
                           bool space_as_plus, char16_t *o)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t c = l1 ? l1[i] : u[i];
        if (!l1 && c >= 0xD800 && c <= 0xDBFF && i + 1 < n && u[i + 1] >= 0xDC00 &&
            u[i + 1] <= 0xDFFF) {
            c = 0x10000 + ((c - 0xD800) << 10) + (u[++i] - 0xDC00);
        } else if (!l1 && c >= 0xD800 && c <= 0xDFFF) {
            c = 0xFFFD; /* a lone surrogate (a USVString has none) */
        }
        if (space_as_plus && c == ' ')
            o[len++] = '+';
        else if (in_set(c, set))
            put_encoded(o, &len, c);
        else
            o[len++] = (char16_t)c;
    }
    return len;
}

/* urlEncode(string, set, spaceAsPlus): the string UTF-8 percent-encoded with one of the sets
 * (itself when nothing needs it). */
static bool url_encode(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::Rooted<JSLinearString *> s(cx, linear(cx, args.get(0)));
    int32_t set = args.get(1).isInt32() ? args[1].toInt32() : 0;
    bool space_as_plus = JS::ToBoolean(args.get(2));
    if (!s)
        return false;
    size_t n = JS::GetLinearStringLength(s);
    uint8_t bits = (uint8_t)set;
    size_t plain = scan(s, 0, [bits, space_as_plus](size_t, uint32_t c) {
        return !(space_as_plus && c == ' ') && !in_set(c, bits);
    });
    if (plain == n) {
        args.rval().setString(JS_FORGET_STRING_LINEARNESS(s));
        return true;
    }
    if (n > SIZE_MAX / 24) {
        JS_ReportOutOfMemory(cx);
        return false;
    }
    char16_t *o = static_cast<char16_t *>(malloc(n * 12 * sizeof(char16_t)));
    if (!o) {
        JS_ReportOutOfMemory(cx);
        return false;
    }
    size_t len;
    {
        JS::AutoCheckCannotGC nogc;
        bool is_l1 = JS::LinearStringHasLatin1Chars(s);
        len = encode_units(is_l1 ? nullptr : JS::GetTwoByteLinearStringChars(nogc, s),
                           is_l1 ? JS::GetLatin1LinearStringChars(nogc, s) : nullptr, n, bits,
                           space_as_plus, o);
    }
    JSString *r = JS_NewUCStringCopyN(cx, o, len);
    free(o);
    if (!r)
        return false;
    args.rval().setString(r);
    return true;
}

#define INPUT_TRIM 1 /* leading and trailing C0 controls and spaces go */
#define INPUT_TABS 2 /* tabs and newlines go */

/* Copies units[0..n) to o as the URL parser's input: lone surrogates become U+FFFD (WebIDL's
 * USVString), then what flags say goes. Returns the length. */
static size_t clean_units(const char16_t *u, const JS::Latin1Char *l1, size_t n, int flags,
                          char16_t *o)
{
    size_t a = 0, b = n, len = 0;
    if (flags & INPUT_TRIM) {
        while (a < b && (l1 ? l1[a] : u[a]) <= 0x20)
            a++;
        while (b > a && (l1 ? l1[b - 1] : u[b - 1]) <= 0x20)
            b--;
    }
    for (size_t i = a; i < b; i++) {
        char16_t c = l1 ? l1[i] : u[i];
        if ((flags & INPUT_TABS) && (c == '\t' || c == '\n' || c == '\r'))
            continue;
        if (c >= 0xD800 && c <= 0xDBFF && i + 1 < b && u[i + 1] >= 0xDC00 && u[i + 1] <= 0xDFFF) {
            o[len++] = c;
            o[len++] = u[++i];
            continue;
        }
        o[len++] = c >= 0xD800 && c <= 0xDFFF ? 0xFFFD : c;
    }
    return len;
}

/* urlInput(value, flags): String(value) as a USVString, trimmed and without tabs and newlines
 * as flags say; the same string when nothing changes. */
static bool url_input(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::Rooted<JSLinearString *> s(cx, linear(cx, args.get(0)));
    int flags = args.get(1).isInt32() ? args[1].toInt32() : 0;
    if (!s)
        return false;
    size_t n = JS::GetLinearStringLength(s);
    bool is_l1 = JS::LinearStringHasLatin1Chars(s);
    bool pair = false;
    size_t clean = scan(s, 0, [&](size_t i, uint32_t c) {
        if ((flags & INPUT_TRIM) && (i == 0 || i == n - 1) && c <= 0x20)
            return false;
        if ((flags & INPUT_TABS) && (c == '\t' || c == '\n' || c == '\r'))
            return false;
        if (c >= 0xDC00 && c <= 0xDFFF && !pair)
            return false;
        bool is_lead = c >= 0xD800 && c <= 0xDBFF;
        if (pair && !(c >= 0xDC00 && c <= 0xDFFF))
            return false; /* the lead before was alone */
        pair = is_lead;
        return true;
    });
    if (clean == n && !pair) {
        args.rval().setString(JS_FORGET_STRING_LINEARNESS(s));
        return true;
    }
    char16_t *o = static_cast<char16_t *>(malloc((n ? n : 1) * sizeof(char16_t)));
    if (!o) {
        JS_ReportOutOfMemory(cx);
        return false;
    }
    size_t len;
    {
        JS::AutoCheckCannotGC nogc;
        len = clean_units(is_l1 ? nullptr : JS::GetTwoByteLinearStringChars(nogc, s),
                          is_l1 ? JS::GetLatin1LinearStringChars(nogc, s) : nullptr, n, flags, o);
    }
    JSString *r = JS_NewUCStringCopyN(cx, o, len);
    free(o);
    if (!r)
        return false;
    args.rval().setString(r);
    return true;
}

bool sm_platform_url_natives(JSContext *cx, JS::HandleObject natives)
{
    static const JSFunctionSpec fns[] = {
        JS_FN("urlInput", url_input, 2, 0),
        JS_FN("urlRun", url_run, 3, 0),
        JS_FN("urlEncode", url_encode, 3, 0),
        JS_FS_END,
    };
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, init_sets);
    return JS_DefineFunctions(cx, natives, fns);
}
