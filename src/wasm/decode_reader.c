/* wasm/decode_reader.c: the bounded cursor every binary read goes through. A read past r->end fails
 * with "unexpected end" when r->end is the end of the module and "unexpected end of section or
 * function" otherwise, matching the spec interpreter's texts. */
#include <stdarg.h>
#include <stdio.h>

#include "wasm/decode.h"
#include "wasm/leb.h"

__attribute__((format(printf, 4, 0))) static void
vrecord(struct wasm_reader *r, const char *prefix, const uint8_t *at, const char *fmt, va_list ap)
{
    if (r->is_failed)
        return;
    r->is_failed = true;
    if (r->err == NULL || r->errlen == 0)
        return;
    int n = snprintf(r->err, r->errlen, "%s: ", prefix);
    if (n < 0 || (size_t)n >= r->errlen)
        return;
    int m = vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
    if (m < 0 || (size_t)(n + m) >= r->errlen || at == NULL)
        return;
    snprintf(r->err + n + m, r->errlen - (size_t)(n + m), " at offset %zu", (size_t)(at - r->base));
}

bool sbx__wasm_rd_fail(struct wasm_reader *r, const uint8_t *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vrecord(r, "malformed", at, fmt, ap);
    va_end(ap);
    return false;
}

bool sbx__wasm_rd_invalid(struct wasm_reader *r, const uint8_t *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vrecord(r, "invalid", at, fmt, ap);
    va_end(ap);
    return false;
}

bool sbx__wasm_rd_record(struct wasm_reader *r, const char *prefix, const uint8_t *at,
                         const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vrecord(r, prefix, at, fmt, ap);
    va_end(ap);
    return false;
}

bool sbx__wasm_rd_limit(struct wasm_reader *r, const uint8_t *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vrecord(r, "implementation limit", at, fmt, ap);
    va_end(ap);
    return false;
}

bool sbx__wasm_rd_unsupported(struct wasm_reader *r, const uint8_t *at, unsigned feature,
                              const char *what)
{
    return sbx__wasm_rd_record(r, "unsupported", at,
                               "%s needs %s (WebAssembly 3.0), not supported yet", what,
                               sbx__wasm_feature_text(feature));
}

static bool fail_end(struct wasm_reader *r)
{
    if (r->end == r->file_end && !r->is_in_section)
        return sbx__wasm_rd_fail(r, r->p, "unexpected end");
    return sbx__wasm_rd_fail(r, r->p, "unexpected end of section or function");
}

static bool leb_fail(struct wasm_reader *r, enum wasm_leb_status st, const uint8_t *at)
{
    if (st == WASM_LEB_END) {
        r->p = at;
        return fail_end(r);
    }
    return sbx__wasm_rd_fail(r, at, "%s", sbx__wasm_leb_text(st));
}

bool sbx__wasm_rd_byte(struct wasm_reader *r, uint8_t *out)
{
    if (r->is_failed)
        return false;
    if (r->p >= r->end)
        return fail_end(r);
    *out = *r->p++;
    return true;
}

bool sbx__wasm_rd_u32(struct wasm_reader *r, uint32_t *out)
{
    if (r->is_failed)
        return false;
    const uint8_t *p = r->p;
    enum wasm_leb_status st = sbx__wasm_leb_u32(&p, r->end, out);
    if (st != WASM_LEB_OK)
        return leb_fail(r, st, p);
    r->p = p;
    return true;
}

bool sbx__wasm_rd_s32(struct wasm_reader *r, int32_t *out)
{
    if (r->is_failed)
        return false;
    const uint8_t *p = r->p;
    enum wasm_leb_status st = sbx__wasm_leb_s32(&p, r->end, out);
    if (st != WASM_LEB_OK)
        return leb_fail(r, st, p);
    r->p = p;
    return true;
}

bool sbx__wasm_rd_u64(struct wasm_reader *r, uint64_t *out)
{
    if (r->is_failed)
        return false;
    const uint8_t *p = r->p;
    enum wasm_leb_status st = sbx__wasm_leb_u64(&p, r->end, out);
    if (st != WASM_LEB_OK)
        return leb_fail(r, st, p);
    r->p = p;
    return true;
}

bool sbx__wasm_rd_s64(struct wasm_reader *r, int64_t *out)
{
    if (r->is_failed)
        return false;
    const uint8_t *p = r->p;
    enum wasm_leb_status st = sbx__wasm_leb_s64(&p, r->end, out);
    if (st != WASM_LEB_OK)
        return leb_fail(r, st, p);
    r->p = p;
    return true;
}

bool sbx__wasm_rd_count(struct wasm_reader *r, uint32_t min_size, uint32_t *out)
{
    if (!sbx__wasm_rd_u32(r, out))
        return false;
    /* Each element takes at least min_size bytes: a larger count cannot be honest. */
    if ((uint64_t)*out * min_size > (uint64_t)(r->end - r->p)) {
        r->p = r->end;
        return fail_end(r);
    }
    return true;
}

bool sbx__wasm_rd_vec(struct wasm_reader *r, uint32_t min_size, uint32_t *count, uint32_t *cap)
{
    if (!sbx__wasm_rd_u32(r, count))
        return false;
    uint64_t fit = (uint64_t)(r->end - r->p) / min_size + 1;
    *cap = *count < fit ? *count : (uint32_t)fit;
    return true;
}

bool sbx__wasm_rd_room(struct wasm_reader *r, uint32_t i, uint32_t cap)
{
    if (sbx__wasm_guard_poll(r->guard, &r->ticks))
        return sbx__wasm_rd_fail(r, r->p, "loading stopped");
    if (i < cap)
        return true;
    r->p = r->end;
    return fail_end(r);
}

bool sbx__wasm_rd_name(struct wasm_reader *r, const uint8_t **out, uint32_t *len)
{
    const uint8_t *at = r->p;
    if (!sbx__wasm_rd_u32(r, len))
        return false;
    if (*len > (size_t)(r->end - r->p)) {
        if (*len > (size_t)(r->file_end - r->p))
            return sbx__wasm_rd_fail(r, at, "length out of bounds");
        r->p = r->end;
        return fail_end(r);
    }
    if (!sbx__wasm_utf8_valid(r->p, *len))
        return sbx__wasm_rd_fail(r, r->p, "malformed UTF-8 encoding");
    *out = r->p;
    r->p += *len;
    return true;
}

/* A heap type (3.0): an abstract one's code, 0x69 (exn) .. 0x74 (noexn), one byte (a negative
 * s33), or a type index as a non-negative s33. */
bool sbx__wasm_rd_heaptype(struct wasm_reader *r, uint32_t *out)
{
    const uint8_t *at = r->p;
    if (r->p < r->end && !r->is_failed && *r->p >= 0x69 && *r->p <= 0x74) {
        *out = WASM_HT(*r->p++);
        return true;
    }
    int64_t v = 0;
    enum wasm_leb_status st = sbx__wasm_leb_s33(&r->p, r->end, &v);
    if (st == WASM_LEB_END) {
        uint8_t dummy;
        return sbx__wasm_rd_byte(r, &dummy);
    }
    if (st != WASM_LEB_OK)
        return sbx__wasm_rd_fail(r, r->p, "%s", sbx__wasm_leb_text(st));
    if (v < 0)
        return sbx__wasm_rd_fail(r, at, "malformed heap type");
    /* An index past any module's types (WASM_MAX_TYPES) is kept out of the abstract range;
     * validation reports it unknown. */
    *out = v >= (int64_t)WASM_HT_ABSTRACT ? WASM_HT_ABSTRACT - 1 : (uint32_t)v;
    return true;
}

/* The reference type forms after their first byte b: (ref null ht), (ref ht), or an abstract
 * heap type's shorthand for (ref null ht). */
static bool rd_ref_after(struct wasm_reader *r, uint8_t b, const uint8_t *at, wasm_vtype *out,
                         const char *what)
{
    uint32_t ht;
    if (b == WASM_REF_NULL_CODE || b == WASM_REF_CODE) {
        if (!sbx__wasm_rd_heaptype(r, &ht))
            return false;
        *out = WASM_REF(b == WASM_REF_NULL_CODE, ht);
        return true;
    }
    if (b >= 0x69 && b <= 0x74) {
        *out = WASM_REF(1, WASM_HT(b));
        return true;
    }
    return sbx__wasm_rd_fail(r, at, "malformed %s", what);
}

bool sbx__wasm_rd_valtype(struct wasm_reader *r, wasm_vtype *out)
{
    const uint8_t *at = r->p;
    uint8_t b = 0;
    if (!sbx__wasm_rd_byte(r, &b))
        return false;
    switch (b) {
    case WASM_I32:
    case WASM_I64:
    case WASM_F32:
    case WASM_F64:
    case WASM_V128:
        *out = b;
        return true;
    default:
        return rd_ref_after(r, b, at, out, "value type");
    }
}

bool sbx__wasm_rd_reftype(struct wasm_reader *r, wasm_vtype *out)
{
    const uint8_t *at = r->p;
    uint8_t b = 0;
    return sbx__wasm_rd_byte(r, &b) && rd_ref_after(r, b, at, out, "reference type");
}

/* Unicode 2.5 / RFC 3629: shortest form only, no surrogates, at most U+10FFFF. */
bool sbx__wasm_utf8_valid(const uint8_t *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        uint8_t c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t n;
        uint32_t cp, min;
        if ((c & 0xE0) == 0xC0) {
            n = 2, cp = c & 0x1Fu, min = 0x80;
        } else if ((c & 0xF0) == 0xE0) {
            n = 3, cp = c & 0x0Fu, min = 0x800;
        } else if ((c & 0xF8) == 0xF0) {
            n = 4, cp = c & 0x07u, min = 0x10000;
        } else {
            return false;
        }
        if (len - i < n)
            return false;
        for (size_t k = 1; k < n; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return false;
            cp = (cp << 6) | (s[i + k] & 0x3Fu);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += n;
    }
    return true;
}
