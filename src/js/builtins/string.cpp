/* js/builtins/string.cpp: String.prototype.isWellFormed and toWellFormed (ECMAScript 2024): a
 * scan of the string's UTF-16 code units for lone surrogates (a Latin-1 string has none), and a
 * copy with each replaced by U+FFFD. RegExp.escape (2025): a string made safe inside a pattern. */
#include "js/builtins/builtins.h" /* first: see sm.h */

#include <js/Conversions.h>
#include <js/String.h>
#include <mozilla/Vector.h>
#include <js/friend/ErrorMessages.h>

static bool is_lead(char16_t c)
{
    return c >= 0xD800 && c <= 0xDBFF;
}

static bool is_trail(char16_t c)
{
    return c >= 0xDC00 && c <= 0xDFFF;
}

/* The index of the first lone surrogate of s[0..len), or len. */
static size_t first_lone(const char16_t *s, size_t len, size_t from)
{
    for (size_t i = from; i < len; i++) {
        if (is_lead(s[i]) && i + 1 < len && is_trail(s[i + 1]))
            i++;
        else if (is_lead(s[i]) || is_trail(s[i]))
            return i;
    }
    return len;
}

/* ToString(RequireObjectCoercible(this)), linear. */
static JSLinearString *this_string(JSContext *cx, JS::CallArgs &args, const char *name)
{
    if (args.thisv().isNullOrUndefined()) {
        sm_bi_throw(cx, JSMSG_INCOMPATIBLE_PROTO, "String", name,
                    args.thisv().isNull() ? "null" : "undefined");
        return nullptr;
    }
    JS::RootedString s(cx, JS::ToString(cx, args.thisv()));
    return s ? JS_EnsureLinearString(cx, s) : nullptr;
}

static bool string_is_well_formed(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JSLinearString *s = this_string(cx, args, "isWellFormed");
    if (!s)
        return false;
    size_t len = JS::GetLinearStringLength(s);
    JS::AutoCheckCannotGC nogc;
    args.rval().setBoolean(JS::LinearStringHasLatin1Chars(s) ||
                           first_lone(JS::GetTwoByteLinearStringChars(nogc, s), len, 0) == len);
    return true;
}

static bool string_to_well_formed(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JS::Rooted<JSLinearString *> s(cx, this_string(cx, args, "toWellFormed"));
    if (!s)
        return false;
    size_t len = JS::GetLinearStringLength(s);
    JS::UniqueTwoByteChars copy;
    {
        JS::AutoCheckCannotGC nogc;
        const char16_t *chars =
            JS::LinearStringHasLatin1Chars(s) ? nullptr : JS::GetTwoByteLinearStringChars(nogc, s);
        size_t i = chars ? first_lone(chars, len, 0) : len;
        if (i == len) {
            args.rval().setString(JS_FORGET_STRING_LINEARNESS(s));
            return true;
        }
        copy.reset(js_pod_malloc<char16_t>(len));
        if (copy) {
            memcpy(copy.get(), chars, len * sizeof(char16_t));
            for (; i < len; i = first_lone(chars, len, i + 1))
                copy[i] = 0xFFFD;
        }
    }
    JSString *out = copy ? JS_NewUCStringCopyN(cx, copy.get(), len) : nullptr;
    if (!copy)
        JS_ReportOutOfMemory(cx);
    if (!out)
        return false;
    args.rval().setString(out);
    return true;
}

typedef mozilla::Vector<char16_t, 64, js::TempAllocPolicy> char_vector;

/* Whether c (a code point) is WhiteSpace or LineTerminator. */
static bool is_space(uint32_t c)
{
    return c == 0x09 || c == 0x0B || c == 0x0C || c == 0x20 || c == 0xA0 || c == 0xFEFF ||
           c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x202F || c == 0x205F ||
           c == 0x3000 || c == 0x0A || c == 0x0D || c == 0x2028 || c == 0x2029;
}

/* EncodeForRegExpEscape(c), appended to out. */
static bool escape_code_point(uint32_t c, char_vector &out)
{
    static const char syntax[] = "^$\\.*+?()[]{}|/";
    static const char punctuators[] = ",-=<>#&!%:;@~'`\"";
    static const char controls[] = "\t\n\v\f\r", letters[] = "tnvfr";
    static const char hex[] = "0123456789abcdef";
    if (c < 0x80 && c && strchr(syntax, (int)c))
        return out.append(u'\\') && out.append((char16_t)c);
    if (c < 0x80 && c && strchr(controls, (int)c))
        return out.append(u'\\') &&
               out.append((char16_t)letters[strchr(controls, (int)c) - controls]);
    bool is_surrogate = c >= 0xD800 && c <= 0xDFFF;
    if ((c < 0x80 && c && strchr(punctuators, (int)c)) || is_space(c) || is_surrogate) {
        if (c <= 0xFF)
            return out.append(u'\\') && out.append(u'x') && out.append((char16_t)hex[c >> 4]) &&
                   out.append((char16_t)hex[c & 15]);
        return out.append(u'\\') && out.append(u'u') && out.append((char16_t)hex[c >> 12]) &&
               out.append((char16_t)hex[(c >> 8) & 15]) &&
               out.append((char16_t)hex[(c >> 4) & 15]) && out.append((char16_t)hex[c & 15]);
    }
    if (c > 0xFFFF)
        return out.append((char16_t)(0xD800 + ((c - 0x10000) >> 10))) &&
               out.append((char16_t)(0xDC00 + ((c - 0x10000) & 0x3FF)));
    return out.append((char16_t)c);
}

static bool regexp_escape(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    if (!args.get(0).isString())
        return sm_bi_throw(cx, JSMSG_NOT_EXPECTED_TYPE, "RegExp.escape", "a string",
                           args.get(0).isObject() ? "an object" : "another primitive");
    JS::Rooted<JSLinearString *> s(cx, JS_EnsureLinearString(cx, args[0].toString()));
    if (!s)
        return false;
    char_vector out(cx);
    size_t len = JS::GetLinearStringLength(s);
    for (size_t i = 0; i < len; i++) {
        uint32_t c = JS::GetLinearStringCharAt(s, i);
        if (is_lead((char16_t)c) && i + 1 < len && is_trail(JS::GetLinearStringCharAt(s, i + 1)))
            c = 0x10000 + ((c - 0xD800) << 10) + (JS::GetLinearStringCharAt(s, ++i) - 0xDC00);
        bool is_alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        bool ok = out.empty() && is_alnum ? out.append(u'\\') && out.append(u'x') &&
                                                out.append((char16_t)"0123456789abcdef"[c >> 4]) &&
                                                out.append((char16_t)"0123456789abcdef"[c & 15])
                                          : escape_code_point(c, out);
        if (!ok)
            return false;
    }
    JSString *r = JS_NewUCStringCopyN(cx, out.begin(), out.length());
    if (!r)
        return false;
    args.rval().setString(r);
    return true;
}

bool sm_bi_install_regexp(JSContext *cx, JS::HandleObject ctor)
{
    return JS_DefineFunction(cx, ctor, "escape", regexp_escape, 1, 0);
}

bool sm_bi_install_string(JSContext *cx, JS::HandleObject ctor)
{
    static const JSFunctionSpec methods[] = {
        JS_FN("isWellFormed", string_is_well_formed, 0, 0),
        JS_FN("toWellFormed", string_to_well_formed, 0, 0),
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
