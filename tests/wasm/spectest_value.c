/* tests/wasm/spectest_value.c: wast2json values: integers and float bit patterns as unsigned
 * decimal strings, nan:canonical / nan:arithmetic, v128 as lanes, references as "null" or a
 * host number. Floats are compared as bits so NaN payloads and zero signs count. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spectest.h"
#include "wasm/gc.h"

static const struct {
    const char *name;
    wasm_vtype type;
} type_names[] = {
    {"i32", WASM_I32},
    {"i64", WASM_I64},
    {"f32", WASM_F32},
    {"f64", WASM_F64},
    {"v128", WASM_V128},
    {"funcref", WASM_FUNCREF},
    {"externref", WASM_EXTERNREF},
    {"anyref", WASM_REF(1, WASM_HT_ANY)},
    {"eqref", WASM_REF(1, WASM_HT_EQ)},
    {"structref", WASM_REF(1, WASM_HT_STRUCT)},
    {"arrayref", WASM_REF(1, WASM_HT_ARRAY)},
    {"i31ref", WASM_REF(1, WASM_HT_I31)},
    {"exnref", WASM_REF(1, WASM_HT_EXN)},
    {"nullref", WASM_REF(1, WASM_HT_NONE)},
    {"nullfuncref", WASM_REF(1, WASM_HT_NOFUNC)},
    {"nullexternref", WASM_REF(1, WASM_HT_NOEXTERN)},
    {"nullexnref", WASM_REF(1, WASM_HT_NOEXN)},
    {"refnull", SPECTEST_REFNULL}, /* a result: any null reference */
    {"i8", 8},
    {"i16", 16},
};

static bool type_from_name(const char *s, wasm_vtype *out)
{
    for (size_t i = 0; s && i < sizeof(type_names) / sizeof(type_names[0]); i++) {
        if (strcmp(type_names[i].name, s) == 0) {
            *out = type_names[i].type;
            return true;
        }
    }
    return false;
}

const char *spectest_type_name(wasm_vtype type)
{
    for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++) {
        if (type_names[i].type == type)
            return type_names[i].name;
    }
    return wasm_vtype_is_ref(type) ? "reference" : "?";
}

void *spectest_extern_ref(uint64_t n)
{
    return (void *)(uintptr_t)(n + 1);
}

static bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    if (!s || !*s || *s == '-')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > max)
        return false;
    *out = v;
    return true;
}

static uint8_t nan_class(const char *s)
{
    if (s && strcmp(s, "nan:canonical") == 0)
        return NAN_CANONICAL;
    if (s && strcmp(s, "nan:arithmetic") == 0)
        return NAN_ARITHMETIC;
    return NAN_NONE;
}

static unsigned lane_bytes(uint8_t lane_type)
{
    switch (lane_type) {
    case 8:
        return 1;
    case 16:
        return 2;
    case WASM_I32:
    case WASM_F32:
        return 4;
    default:
        return 8;
    }
}

/* Fills v128 lanes from an array of decimal strings (or NaN classes into nan[]). */
static bool parse_lanes(json_t *arr, uint8_t lane_type, uint8_t *bytes, uint8_t *nan)
{
    unsigned width = lane_bytes(lane_type);
    unsigned n = 16 / width;
    if (!json_is_array(arr) || json_array_size(arr) != n)
        return false;
    uint64_t max = width == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * width)) - 1;
    for (unsigned i = 0; i < n; i++) {
        const char *s = json_string_value(json_array_get(arr, i));
        uint64_t lane = 0;
        if (nan && (nan[i] = nan_class(s)) != NAN_NONE)
            continue;
        if (!parse_u64(s, max, &lane))
            return false;
        for (unsigned b = 0; b < width; b++)
            bytes[i * width + b] = (uint8_t)(lane >> (8 * b));
    }
    return true;
}

static bool parse_ref(wasm_vtype type, const char *s, wasm_value *v)
{
    uint64_t n;
    if (s && strcmp(s, "null") == 0) {
        v->ref = NULL;
        return true;
    }
    /* ref.extern N, ref.host N: host reference N (an anyref's the caller boxes: spectest_script.c)
     */
    if ((type != WASM_EXTERNREF && type != WASM_REF(1, WASM_HT_ANY)) ||
        !parse_u64(s, UINT32_MAX, &n))
        return false;
    v->ref = spectest_extern_ref(n);
    return true;
}

/* Parses j's value as `type` into v; nan (may be NULL) gets the NaN class of each lane. */
static bool parse_body(json_t *j, wasm_vtype type, wasm_value *v, uint8_t *nan)
{
    json_t *val = json_object_get(j, "value");
    const char *s = json_string_value(val);
    uint64_t n;
    memset(v, 0, sizeof(*v));
    if (nan && (type == WASM_F32 || type == WASM_F64) && (nan[0] = nan_class(s)) != NAN_NONE)
        return true;
    switch (type) {
    case WASM_I32:
    case WASM_F32:
        if (!parse_u64(s, UINT32_MAX, &n))
            return false;
        v->i32 = (uint32_t)n;
        return true;
    case WASM_I64:
    case WASM_F64:
        if (!parse_u64(s, UINT64_MAX, &n))
            return false;
        v->i64 = n;
        return true;
    case WASM_V128: {
        wasm_vtype lane_type;
        if (!type_from_name(json_string_value(json_object_get(j, "lane_type")), &lane_type))
            return false;
        return parse_lanes(val, (uint8_t)lane_type, v->v128, nan);
    }
    default:
        return parse_ref(type, s, v);
    }
}

bool spectest_parse_value(json_t *j, wasm_vtype *type, wasm_value *v, char *why, size_t whylen)
{
    const char *tname = json_string_value(json_object_get(j, "type"));
    if (!type_from_name(tname, type) || !parse_body(j, *type, v, NULL)) {
        snprintf(why, whylen, "unsupported argument value of type %s", tname ? tname : "?");
        return false;
    }
    return true;
}

bool spectest_parse_expect(json_t *j, struct expect *e, char *why, size_t whylen)
{
    memset(e, 0, sizeof(*e));
    const char *tname = json_string_value(json_object_get(j, "type"));
    if (!type_from_name(tname, &e->type)) {
        snprintf(why, whylen, "unsupported expected type %s", tname ? tname : "?");
        return false;
    }
    if (!json_object_get(j, "value")) {
        e->is_any = e->type != SPECTEST_REFNULL;
        return true;
    }
    wasm_vtype lane_type = 0;
    if (e->type == WASM_V128 &&
        type_from_name(json_string_value(json_object_get(j, "lane_type")), &lane_type))
        e->lane_type = (uint8_t)lane_type;
    if (!parse_body(j, e->type, &e->v, e->nan)) {
        snprintf(why, whylen, "unsupported expected value of type %s", tname);
        return false;
    }
    return true;
}

static bool f32_matches(uint8_t nan, uint32_t want, uint32_t got)
{
    if (nan == NAN_CANONICAL)
        return (got & 0x7fffffffu) == 0x7fc00000u;
    if (nan == NAN_ARITHMETIC)
        return (got & 0x7fc00000u) == 0x7fc00000u;
    return want == got;
}

static bool f64_matches(uint8_t nan, uint64_t want, uint64_t got)
{
    const uint64_t quiet = UINT64_C(0x7ff8000000000000);
    if (nan == NAN_CANONICAL)
        return (got & UINT64_C(0x7fffffffffffffff)) == quiet;
    if (nan == NAN_ARITHMETIC)
        return (got & quiet) == quiet;
    return want == got;
}

static bool v128_matches(const struct expect *e, const uint8_t *got)
{
    unsigned width = lane_bytes(e->lane_type);
    for (unsigned i = 0; i < 16 / width; i++) {
        const uint8_t *w = e->v.v128 + i * width, *g = got + i * width;
        bool ok;
        if (e->lane_type == WASM_F32) {
            uint32_t a, b;
            memcpy(&a, w, 4);
            memcpy(&b, g, 4);
            ok = f32_matches(e->nan[i], a, b);
        } else if (e->lane_type == WASM_F64) {
            uint64_t a, b;
            memcpy(&a, w, 8);
            memcpy(&b, g, 8);
            ok = f64_matches(e->nan[i], a, b);
        } else {
            ok = memcmp(w, g, width) == 0;
        }
        if (!ok)
            return false;
    }
    return true;
}

static bool value_matches(const struct expect *e, wasm_value got)
{
    switch (e->type) {
    case WASM_I32:
        return e->v.i32 == got.i32;
    case WASM_I64:
        return e->v.i64 == got.i64;
    case WASM_F32:
        return f32_matches(e->nan[0], e->v.f32, got.f32);
    case WASM_F64:
        return f64_matches(e->nan[0], e->v.f64, got.f64);
    case WASM_V128:
        return v128_matches(e, got.v128);
    default:
        return e->v.ref == got.ref;
    }
}

static void format_value(char *buf, size_t len, uint8_t type, wasm_value v, uint8_t nan)
{
    if (nan)
        snprintf(buf, len, "%s:%s", spectest_type_name(type),
                 nan == NAN_CANONICAL ? "nan:canonical" : "nan:arithmetic");
    else if (type == WASM_I32 || type == WASM_F32)
        snprintf(buf, len, "%s:0x%08" PRIx32, spectest_type_name(type), v.i32);
    else if (type == WASM_I64 || type == WASM_F64)
        snprintf(buf, len, "%s:0x%016" PRIx64, spectest_type_name(type), v.i64);
    else if (type == WASM_V128) {
        uint32_t l[4];
        memcpy(l, v.v128, 16);
        snprintf(buf, len,
                 "v128:i32x4 0x%08" PRIx32 " 0x%08" PRIx32 " 0x%08" PRIx32 " 0x%08" PRIx32, l[0],
                 l[1], l[2], l[3]);
    } else
        snprintf(buf, len, "%s:%p", spectest_type_name(type), v.ref);
}

/* A reference result: refnull or a null value wants null, no value any non-null reference,
 * a host number that one. */
static bool ref_matches(const struct expect *e, wasm_value got)
{
    uint64_t v = (uintptr_t)got.ref;
    uint32_t bottom = wasm_vtype_is_ref(e->type) ? wasm_vtype_heap(e->type) : 0;
    if (e->type == SPECTEST_REFNULL || bottom == WASM_HT_NONE || bottom == WASM_HT_NOFUNC ||
        bottom == WASM_HT_NOEXTERN || bottom == WASM_HT_NOEXN)
        return v == 0; /* (ref.null), or a bottom type's only value */
    if (e->is_any) {   /* (ref.i31), (ref.struct) ...: non-null, and of that kind */
        uint32_t ht = wasm_vtype_heap(e->type);
        bool is_gc =
            ht == WASM_HT_EQ || ht == WASM_HT_I31 || ht == WASM_HT_STRUCT || ht == WASM_HT_ARRAY;
        return v != 0 && (!is_gc || sbx__wasm_gc_test(v, ht, NULL, false));
    }
    if (e->type == WASM_REF(1, WASM_HT_ANY) && v && !(v & 1)) { /* a host reference, boxed */
        const struct wasm_gc_obj *o = (const struct wasm_gc_obj *)(uintptr_t)v;
        if (o->kind == WASM_GC_EXTERN)
            v = *(const uint64_t *)(o + 1);
    }
    return (uintptr_t)e->v.ref == v;
}

bool spectest_match(const struct expect *e, wasm_vtype type, wasm_value got, char *why,
                    size_t whylen)
{
    char want_s[96], got_s[96];
    if (wasm_vtype_is_ref(e->type) && wasm_vtype_is_ref(type)) {
        if (ref_matches(e, got))
            return true;
        snprintf(why, whylen, "expected %s%s, got %p", e->is_any ? "non-null " : "",
                 spectest_type_name(e->type), got.ref);
        return false;
    }
    if (e->type != type) {
        snprintf(why, whylen, "expected a %s, the function returns %s", spectest_type_name(e->type),
                 spectest_type_name(type));
        return false;
    }
    if (e->is_any || value_matches(e, got))
        return true;
    uint8_t nan = e->type == WASM_V128 ? 0 : e->nan[0];
    if (e->type == WASM_V128 && (e->lane_type == WASM_F32 || e->lane_type == WASM_F64)) {
        for (int i = 0; i < 4; i++)
            nan = nan ? nan : e->nan[i];
    }
    format_value(want_s, sizeof(want_s), e->type, e->v, nan);
    format_value(got_s, sizeof(got_s), type, got, 0);
    snprintf(why, whylen, "expected %s, got %s", want_s, got_s);
    return false;
}
