/* telemetry/otlp_json.c: OTLP/JSON encoding (opentelemetry-proto, "JSON Protobuf Encoding"):
 * lowerCamelCase field names, trace and span IDs as lower-case hex, enums as integers, and 64-bit
 * integers (fixed64 times, counts, asInt) as decimal strings. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "telemetry/otlp.h"
#include "telemetry/text.h"
#include "util/alloc.h"

#define SPAN_KIND_INTERNAL                 1
#define STATUS_CODE_ERROR                  2
#define AGGREGATION_TEMPORALITY_CUMULATIVE 2

static bool hex_id(struct sbx__buf *b, const uint8_t *id, size_t len)
{
    char tmp[2 * 16 + 3];
    size_t n = 0;
    tmp[n++] = '"';
    for (size_t i = 0; i < len; i++) {
        tmp[n++] = "0123456789abcdef"[id[i] >> 4];
        tmp[n++] = "0123456789abcdef"[id[i] & 15];
    }
    tmp[n++] = '"';
    return sbx__buf_append(b, tmp, n);
}

/* Appends a double; NaN and the infinities as the proto3 JSON mapping spells them. */
static bool json_double(struct sbx__buf *b, double d)
{
    if (d != d)
        return SBX__LIT(b, "\"NaN\"");
    if (d > 1.7976931348623157e308 || d < -1.7976931348623157e308)
        return d > 0 ? SBX__LIT(b, "\"Infinity\"") : SBX__LIT(b, "\"-Infinity\"");
    return sbx__telemetry_json_double(b, d);
}

/* Appends an AnyValue: intValue as a decimal string (a 64-bit integer), doubleValue, boolValue
 * or stringValue. */
static bool any_value(struct sbx__buf *b, const sbx_attr *a)
{
    struct sbx__otlp_value v;
    switch (sbx__otlp_value_of(a, &v)) {
    case SBX_ATTR_INT:
        return sbx__buf_appendf(b, "{\"intValue\":\"%lld\"}", v.i);
    case SBX_ATTR_DOUBLE:
        return SBX__LIT(b, "{\"doubleValue\":") && json_double(b, v.d) && SBX__LIT(b, "}");
    case SBX_ATTR_BOOL:
        return v.b ? SBX__LIT(b, "{\"boolValue\":true}") : SBX__LIT(b, "{\"boolValue\":false}");
    default:
        return SBX__LIT(b, "{\"stringValue\":") && sbx__telemetry_json_string(b, a->value) &&
               SBX__LIT(b, "}");
    }
}

/* Appends "attributes":[{"key":..,"value":{..}},...] */
static bool attributes(struct sbx__buf *b, const sbx_attr *attrs, size_t count)
{
    bool ok = SBX__LIT(b, "\"attributes\":[");
    for (size_t i = 0; ok && i < count; i++) {
        ok = (i == 0 || SBX__LIT(b, ",")) && SBX__LIT(b, "{\"key\":") &&
             sbx__telemetry_json_string(b, attrs[i].key) && SBX__LIT(b, ",\"value\":") &&
             any_value(b, &attrs[i]) && SBX__LIT(b, "}");
    }
    return ok && SBX__LIT(b, "]");
}

/* Appends "resource":{...},"scope<kind>":[{"scope":{...},"<items>":[ */
static bool envelope_open(struct sbx__buf *b, const sbx_otlp *o, const char *top,
                          const char *scope_list, const char *items)
{
    return sbx__buf_appendf(b, "{\"%s\":[{\"resource\":{", top) &&
           attributes(b, o->cfg.resource, o->cfg.resource_count) &&
           sbx__buf_appendf(b,
                            "},\"%s\":[{\"scope\":{\"name\":\"sbx\",\"version\":\"%s\"},\"%s\":[",
                            scope_list, SBX_VERSION, items);
}

static bool envelope_close(struct sbx__buf *b)
{
    return SBX__LIT(b, "]}]}]}");
}

static bool span(struct sbx__buf *b, const struct sbx__span *s)
{
    bool ok = SBX__LIT(b, "{\"traceId\":") && hex_id(b, s->trace_id, 16) &&
              SBX__LIT(b, ",\"spanId\":") && hex_id(b, s->span_id, 8) &&
              SBX__LIT(b, ",\"name\":") && sbx__telemetry_json_string(b, s->name) &&
              sbx__buf_appendf(b, ",\"kind\":%d,\"startTimeUnixNano\":", SPAN_KIND_INTERNAL) &&
              sbx__telemetry_json_u64(b, s->start_ns) && SBX__LIT(b, ",\"endTimeUnixNano\":") &&
              sbx__telemetry_json_u64(b, s->end_ns) && SBX__LIT(b, ",") &&
              attributes(b, s->attrs, s->attr_count) && SBX__LIT(b, ",\"status\":{");
    /* Success leaves the status UNSET, as the API specification asks of instrumentation. */
    if (ok && s->is_error) {
        ok = sbx__buf_appendf(b, "\"code\":%d", STATUS_CODE_ERROR);
        if (ok && s->status_message)
            ok = SBX__LIT(b, ",\"message\":") && sbx__telemetry_json_string(b, s->status_message);
    }
    return ok && SBX__LIT(b, "}}");
}

bool sbx__otlp_encode_traces(struct sbx__buf *b, const sbx_otlp *o, const struct sbx__span *list)
{
    bool ok = envelope_open(b, o, "resourceSpans", "scopeSpans", "spans");
    for (const struct sbx__span *s = list; ok && s; s = s->next)
        ok = (s == list || SBX__LIT(b, ",")) && span(b, s);
    return ok && envelope_close(b);
}

const char *sbx__otlp_unit_of(const struct sbx__series *se)
{
    static const char *const suffixes[][2] = {
        {"_ms", "ms"}, {"_us", "us"}, {"_ns", "ns"}, {"_s", "s"}};
    size_t len = strlen(se->name);
    for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
        size_t n = strlen(suffixes[i][0]);
        if (len > n && strcmp(se->name + len - n, suffixes[i][0]) == 0)
            return suffixes[i][1];
    }
    return se->kind == SBX__METRIC_COUNTER ? "1" : "";
}

static bool point_open(struct sbx__buf *b, const struct sbx__series *se, uint64_t start_ns,
                       uint64_t now_ns)
{
    return SBX__LIT(b, "{") && attributes(b, se->labels, se->label_count) &&
           SBX__LIT(b, ",\"startTimeUnixNano\":") && sbx__telemetry_json_u64(b, start_ns) &&
           SBX__LIT(b, ",\"timeUnixNano\":") && sbx__telemetry_json_u64(b, now_ns);
}

static bool histogram_point(struct sbx__buf *b, const struct sbx__series *se)
{
    bool ok = SBX__LIT(b, ",\"count\":") && sbx__telemetry_json_u64(b, se->count) &&
              SBX__LIT(b, ",\"sum\":") && sbx__telemetry_json_double(b, se->sum) &&
              SBX__LIT(b, ",\"bucketCounts\":[");
    for (size_t i = 0; ok && i <= sbx__store_bound_count; i++)
        ok = (i == 0 || SBX__LIT(b, ",")) && sbx__telemetry_json_u64(b, se->bucket_counts[i]);
    ok = ok && SBX__LIT(b, "],\"explicitBounds\":[");
    for (size_t i = 0; ok && i < sbx__store_bound_count; i++)
        ok = (i == 0 || SBX__LIT(b, ",")) && sbx__telemetry_json_double(b, sbx__store_bounds[i]);
    ok = ok && SBX__LIT(b, "]");
    if (ok && se->count > 0)
        ok = SBX__LIT(b, ",\"min\":") && sbx__telemetry_json_double(b, se->min) &&
             SBX__LIT(b, ",\"max\":") && sbx__telemetry_json_double(b, se->max);
    return ok && SBX__LIT(b, "}");
}

/* Appends one Metric holding the n series (same name, first one's kind) from series[0]. */
static bool metric(struct sbx__buf *b, struct sbx__series *const *series, size_t n,
                   uint64_t start_ns, uint64_t now_ns)
{
    const struct sbx__series *first = series[0];
    bool is_sum = first->kind == SBX__METRIC_COUNTER;
    const char *desc = sbx__store_description(first->name);
    bool ok = SBX__LIT(b, "{\"name\":") && sbx__telemetry_json_string(b, first->name) &&
              SBX__LIT(b, ",\"description\":") && sbx__telemetry_json_string(b, desc ? desc : "") &&
              SBX__LIT(b, ",\"unit\":") &&
              sbx__telemetry_json_string(b, sbx__otlp_unit_of(first)) &&
              sbx__buf_appendf(b, ",\"%s\":{\"dataPoints\":[", is_sum ? "sum" : "histogram");
    bool is_first = true;
    for (size_t i = 0; ok && i < n; i++) {
        if (series[i]->kind != first->kind)
            continue; /* one name, one instrument type: a clash is left out */
        ok = (is_first || SBX__LIT(b, ",")) && point_open(b, series[i], start_ns, now_ns);
        is_first = false;
        if (ok && is_sum)
            ok = SBX__LIT(b, ",\"asInt\":") && sbx__telemetry_json_u64(b, series[i]->value) &&
                 SBX__LIT(b, "}");
        else if (ok)
            ok = histogram_point(b, series[i]);
    }
    ok = ok &&
         sbx__buf_appendf(b, "],\"aggregationTemporality\":%d", AGGREGATION_TEMPORALITY_CUMULATIVE);
    if (ok && is_sum)
        ok = SBX__LIT(b, ",\"isMonotonic\":true");
    return ok && SBX__LIT(b, "}}");
}

bool sbx__otlp_encode_metrics(struct sbx__buf *b, const sbx_otlp *o,
                              struct sbx__series *const *series, size_t n, uint64_t now_ns)
{
    bool ok = envelope_open(b, o, "resourceMetrics", "scopeMetrics", "metrics");
    for (size_t i = 0, j; ok && i < n; i = j) {
        for (j = i + 1; j < n && strcmp(series[j]->name, series[i]->name) == 0; j++)
            ;
        ok = (i == 0 || SBX__LIT(b, ",")) && metric(b, series + i, j - i, o->start_ns, now_ns);
    }
    return ok && envelope_close(b);
}

/* partialSuccess of ExportTraceServiceResponse / ExportMetricsServiceResponse: rejectedSpans or
 * rejectedDataPoints (an int64, so a string, though a number is accepted) and errorMessage. */
bool sbx__otlp_json_partial(const char *body, size_t len, uint64_t *rejected, char *msg, size_t cap)
{
    json_t *root = json_loadb(body, len, 0, NULL);
    json_t *ps = json_object_get(root, "partialSuccess");
    json_t *n = json_object_get(ps, "rejectedSpans");
    n = n ? n : json_object_get(ps, "rejectedDataPoints");
    const char *text = json_string_value(json_object_get(ps, "errorMessage"));
    *rejected = json_is_integer(n)  ? (uint64_t)json_integer_value(n)
                : json_is_string(n) ? strtoull(json_string_value(n), NULL, 10)
                                    : 0;
    snprintf(msg, cap, "%s", text ? text : "");
    bool has = *rejected > 0 || (text && text[0]);
    json_decref(root);
    return has;
}
