/* telemetry/otlp_proto.c: OTLP protobuf encoding (opentelemetry-proto v1, the http/protobuf
 * payload) written by hand: varints, fixed64 and length-delimited fields, no descriptor. A nested
 * message reserves five bytes for its length and is moved back over the unused ones when it
 * ends. Strings are repaired to valid UTF-8, as proto3 requires. Field numbers are those of
 * trace.proto, metrics.proto, common.proto and the collector's service protos. */
#include <string.h>

#include "telemetry/otlp.h"
#include "telemetry/text.h"

enum { WIRE_VARINT = 0, WIRE_I64 = 1, WIRE_LEN = 2 };

#define LEN_RESERVE 5 /* a varint of up to 2^35 - 1: more than the body limit */

#define SPAN_KIND_INTERNAL                 1
#define STATUS_CODE_ERROR                  2
#define AGGREGATION_TEMPORALITY_CUMULATIVE 2

static bool varint(struct sbx__buf *b, uint64_t v)
{
    uint8_t tmp[10];
    size_t n = 0;
    do {
        tmp[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return sbx__buf_append(b, tmp, n);
}

static bool tag(struct sbx__buf *b, unsigned field, unsigned wire)
{
    return varint(b, (uint64_t)field << 3 | wire);
}

static bool fixed64(struct sbx__buf *b, unsigned field, uint64_t v)
{
    uint8_t tmp[8];
    for (size_t i = 0; i < 8; i++)
        tmp[i] = (uint8_t)(v >> (8 * i));
    return tag(b, field, WIRE_I64) && sbx__buf_append(b, tmp, 8);
}

static bool double_field(struct sbx__buf *b, unsigned field, double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof(v));
    return fixed64(b, field, v);
}

static bool varint_field(struct sbx__buf *b, unsigned field, uint64_t v)
{
    return tag(b, field, WIRE_VARINT) && varint(b, v);
}

/* Opens a length-delimited field; *start is where its content begins. */
static bool open_len(struct sbx__buf *b, unsigned field, size_t *start)
{
    static const uint8_t zeros[LEN_RESERVE];
    bool ok = tag(b, field, WIRE_LEN) && sbx__buf_append(b, zeros, LEN_RESERVE);
    *start = b->len;
    return ok;
}

/* Writes the length of the field opened at start and moves its content back to follow it. */
static bool close_len(struct sbx__buf *b, size_t start)
{
    if (b->is_truncated || b->is_oom || start > b->len)
        return false;
    uint64_t len = b->len - start;
    uint8_t tmp[LEN_RESERVE];
    size_t n = 0;
    do {
        tmp[n++] = (uint8_t)((len & 0x7f) | (len > 0x7f ? 0x80 : 0));
        len >>= 7;
    } while (len && n < LEN_RESERVE);
    char *at = b->data + start - LEN_RESERVE;
    memcpy(at, tmp, n);
    memmove(at + n, b->data + start, b->len - start);
    b->len -= LEN_RESERVE - n;
    b->data[b->len] = '\0';
    return true;
}

static bool string_field(struct sbx__buf *b, unsigned field, const char *s)
{
    size_t at;
    return open_len(b, field, &at) && sbx__telemetry_utf8(b, s) && close_len(b, at);
}

static bool bytes_field(struct sbx__buf *b, unsigned field, const uint8_t *p, size_t n)
{
    return tag(b, field, WIRE_LEN) && varint(b, n) && sbx__buf_append(b, p, n);
}

/* AnyValue: string_value 1, bool_value 2, int_value 3, double_value 4. */
static bool any_value(struct sbx__buf *b, const sbx_attr *a)
{
    struct sbx__otlp_value v;
    switch (sbx__otlp_value_of(a, &v)) {
    case SBX_ATTR_INT:
        return varint_field(b, 3, (uint64_t)v.i);
    case SBX_ATTR_DOUBLE:
        return double_field(b, 4, v.d);
    case SBX_ATTR_BOOL:
        return varint_field(b, 2, v.b);
    default:
        return string_field(b, 1, a->value);
    }
}

/* repeated KeyValue (key 1, value 2) as field number field. */
static bool attributes(struct sbx__buf *b, unsigned field, const sbx_attr *attrs, size_t n)
{
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++) {
        size_t kv, val;
        ok = open_len(b, field, &kv) && string_field(b, 1, attrs[i].key) && open_len(b, 2, &val) &&
             any_value(b, &attrs[i]) && close_len(b, val) && close_len(b, kv);
    }
    return ok;
}

/* Resource{attributes 1} as field 1 and InstrumentationScope{name 1, version 2} as field 1 of
 * the scope list opened as field 2; *scope_list is left open for the items. */
static bool envelope_open(struct sbx__buf *b, const sbx_otlp *o, size_t *top, size_t *scope_list)
{
    size_t res, scope;
    return open_len(b, 1, top) && open_len(b, 1, &res) &&
           attributes(b, 1, o->cfg.resource, o->cfg.resource_count) && close_len(b, res) &&
           open_len(b, 2, scope_list) && open_len(b, 1, &scope) && string_field(b, 1, "sbx") &&
           string_field(b, 2, SBX_VERSION) && close_len(b, scope);
}

/* Span: trace_id 1, span_id 2, name 5, kind 6, start 7, end 8, attributes 9, status 15
 * (message 2, code 3). */
static bool span(struct sbx__buf *b, const struct sbx__span *s)
{
    size_t at, st;
    bool ok = open_len(b, 2, &at) && bytes_field(b, 1, s->trace_id, 16) &&
              bytes_field(b, 2, s->span_id, 8) && string_field(b, 5, s->name) &&
              varint_field(b, 6, SPAN_KIND_INTERNAL) && fixed64(b, 7, s->start_ns) &&
              fixed64(b, 8, s->end_ns) && attributes(b, 9, s->attrs, s->attr_count) &&
              open_len(b, 15, &st);
    if (ok && s->is_error) {
        ok = (!s->status_message || string_field(b, 2, s->status_message)) &&
             varint_field(b, 3, STATUS_CODE_ERROR);
    }
    return ok && close_len(b, st) && close_len(b, at);
}

bool sbx__otlp_proto_traces(struct sbx__buf *b, const sbx_otlp *o, const struct sbx__span *list)
{
    size_t top, scope_spans;
    bool ok = envelope_open(b, o, &top, &scope_spans);
    for (const struct sbx__span *s = list; ok && s; s = s->next)
        ok = span(b, s);
    return ok && close_len(b, scope_spans) && close_len(b, top);
}

static bool packed_fixed64(struct sbx__buf *b, unsigned field, const uint64_t *v, size_t n)
{
    bool ok = tag(b, field, WIRE_LEN) && varint(b, 8 * n);
    for (size_t i = 0; ok && i < n; i++) {
        uint8_t tmp[8];
        for (size_t j = 0; j < 8; j++)
            tmp[j] = (uint8_t)(v[i] >> (8 * j));
        ok = sbx__buf_append(b, tmp, 8);
    }
    return ok;
}

static bool packed_double(struct sbx__buf *b, unsigned field, const double *d, size_t n)
{
    bool ok = tag(b, field, WIRE_LEN) && varint(b, 8 * n);
    for (size_t i = 0; ok && i < n; i++) {
        uint64_t v;
        memcpy(&v, &d[i], sizeof(v));
        uint8_t tmp[8];
        for (size_t j = 0; j < 8; j++)
            tmp[j] = (uint8_t)(v >> (8 * j));
        ok = sbx__buf_append(b, tmp, 8);
    }
    return ok;
}

/* NumberDataPoint: start 2, time 3, as_int 6 (sfixed64), attributes 7. */
static bool number_point(struct sbx__buf *b, const struct sbx__series *se, uint64_t start_ns,
                         uint64_t now_ns)
{
    size_t at;
    return open_len(b, 1, &at) && attributes(b, 7, se->labels, se->label_count) &&
           fixed64(b, 2, start_ns) && fixed64(b, 3, now_ns) && fixed64(b, 6, se->value) &&
           close_len(b, at);
}

/* HistogramDataPoint: start 2, time 3, count 4, sum 5, bucket_counts 6, explicit_bounds 7,
 * attributes 9, min 11, max 12. */
static bool histogram_point(struct sbx__buf *b, const struct sbx__series *se, uint64_t start_ns,
                            uint64_t now_ns)
{
    size_t at;
    bool ok = open_len(b, 1, &at) && attributes(b, 9, se->labels, se->label_count) &&
              fixed64(b, 2, start_ns) && fixed64(b, 3, now_ns) && fixed64(b, 4, se->count) &&
              double_field(b, 5, se->sum) &&
              packed_fixed64(b, 6, se->bucket_counts, sbx__store_bound_count + 1) &&
              packed_double(b, 7, sbx__store_bounds, sbx__store_bound_count);
    if (ok && se->count > 0)
        ok = double_field(b, 11, se->min) && double_field(b, 12, se->max);
    return ok && close_len(b, at);
}

/* Metric: name 1, description 2, unit 3, sum 7 {points 1, temporality 2, monotonic 3} or
 * histogram 9 {points 1, temporality 2}; n series of one name, the first one's kind. */
static bool metric(struct sbx__buf *b, const sbx_otlp *o, struct sbx__series *const *series,
                   size_t n, uint64_t now_ns)
{
    const struct sbx__series *first = series[0];
    bool is_sum = first->kind == SBX__METRIC_COUNTER;
    const char *desc = sbx__store_description(first->name);
    size_t at, data;
    bool ok = open_len(b, 2, &at) && string_field(b, 1, first->name) &&
              string_field(b, 2, desc ? desc : "") &&
              string_field(b, 3, sbx__otlp_unit_of(first)) && open_len(b, is_sum ? 7 : 9, &data);
    for (size_t i = 0; ok && i < n; i++) {
        if (series[i]->kind != first->kind)
            continue; /* one name, one instrument type: a clash is left out */
        ok = is_sum ? number_point(b, series[i], o->start_ns, now_ns)
                    : histogram_point(b, series[i], o->start_ns, now_ns);
    }
    ok = ok && varint_field(b, 2, AGGREGATION_TEMPORALITY_CUMULATIVE);
    if (ok && is_sum)
        ok = varint_field(b, 3, 1);
    return ok && close_len(b, data) && close_len(b, at);
}

bool sbx__otlp_proto_metrics(struct sbx__buf *b, const sbx_otlp *o,
                             struct sbx__series *const *series, size_t n, uint64_t now_ns)
{
    size_t top, scope_metrics;
    bool ok = envelope_open(b, o, &top, &scope_metrics);
    for (size_t i = 0, j; ok && i < n; i = j) {
        for (j = i + 1; j < n && strcmp(series[j]->name, series[i]->name) == 0; j++)
            ;
        ok = metric(b, o, series + i, j - i, now_ns);
    }
    return ok && close_len(b, scope_metrics) && close_len(b, top);
}

/* ---- reading a response ---- */

struct reader {
    const uint8_t *p, *end;
};

static bool read_varint(struct reader *r, uint64_t *v)
{
    *v = 0;
    for (unsigned shift = 0; shift < 64 && r->p < r->end; shift += 7) {
        uint8_t c = *r->p++;
        *v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return true;
    }
    return false;
}

/* Reads one field's key; a LEN field's content is returned in *sub, others are skipped. */
static bool read_field(struct reader *r, unsigned *field, unsigned *wire, uint64_t *v,
                       struct reader *sub)
{
    uint64_t key;
    if (!read_varint(r, &key))
        return false;
    *field = (unsigned)(key >> 3);
    *wire = (unsigned)(key & 7);
    switch (*wire) {
    case WIRE_VARINT:
        return read_varint(r, v);
    case WIRE_I64:
    case 5: /* I32 */ {
        size_t n = *wire == WIRE_I64 ? 8 : 4;
        if ((size_t)(r->end - r->p) < n)
            return false;
        r->p += n;
        return true;
    }
    case WIRE_LEN:
        if (!read_varint(r, v) || *v > (uint64_t)(r->end - r->p))
            return false;
        *sub = (struct reader){r->p, r->p + *v};
        r->p += *v;
        return true;
    default:
        return false;
    }
}

/* Export*ServiceResponse { partial_success 1 { rejected_spans / rejected_data_points 1 (int64),
 * error_message 2 } }. */
bool sbx__otlp_proto_partial(const uint8_t *body, size_t len, uint64_t *rejected, char *msg,
                             size_t cap)
{
    struct reader r = {body, body + len}, ps = {0}, sub;
    unsigned field, wire;
    uint64_t v;
    *rejected = 0;
    msg[0] = '\0';
    while (r.p < r.end && read_field(&r, &field, &wire, &v, &sub)) {
        if (field == 1 && wire == WIRE_LEN)
            ps = sub;
    }
    while (ps.p && ps.p < ps.end && read_field(&ps, &field, &wire, &v, &sub)) {
        if (field == 1 && wire == WIRE_VARINT)
            *rejected = v;
        else if (field == 2 && wire == WIRE_LEN && cap > 0) {
            size_t n = (size_t)(sub.end - sub.p) < cap - 1 ? (size_t)(sub.end - sub.p) : cap - 1;
            memcpy(msg, sub.p, n);
            msg[n] = '\0';
        }
    }
    return *rejected > 0 || msg[0];
}
