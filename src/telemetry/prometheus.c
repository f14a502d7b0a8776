/* telemetry/prometheus.c: the Prometheus text exposition exporter (format 0.0.4). Names follow the
 * OpenTelemetry -> Prometheus rules that `promtool check metrics` accepts: '.' -> '_', counters
 * end in _total, durations are exposed in the base unit, seconds ("sandbox_duration_seconds"). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sbx/policy.h>
#include <sbx/telemetry.h>

#include "telemetry/store.h"
#include "telemetry/text.h"
#include "util/alloc.h"
#include "util/buf.h"

#define RENDER_LIMIT (64u << 20)

struct sbx_prometheus {
    sbx_telemetry_hooks hooks;
    struct sbx__store store;
};

/* Unit suffixes rewritten to the base unit Prometheus wants, with the factor to apply. */
static const struct {
    const char *suffix;
    double scale;
} UNITS[] = {{"_ms", 1e-3}, {"_us", 1e-6}, {"_ns", 1e-9}, {"_s", 1}};

/* One series with its exposition name. */
struct entry {
    const struct sbx__series *se;
    char *name;
    double scale;
};

static bool ends_with(const char *s, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

/* Returns the exposition name of a series (caller frees) and its unit scale. */
static char *family_name(const struct sbx__series *se, double *scale)
{
    struct sbx__buf b;
    sbx__buf_init(&b, SBX__STORE_MAX_TEXT * 2);
    bool ok = sbx__telemetry_prom_name(&b, se->name, false);
    *scale = 1;
    if (ok && se->kind == SBX__METRIC_COUNTER && !ends_with(b.data, b.len, "_total"))
        ok = SBX__LIT(&b, "_total");
    for (size_t i = 0; ok && se->kind == SBX__METRIC_HISTOGRAM && i < 4; i++) {
        size_t n = strlen(UNITS[i].suffix);
        if (ends_with(b.data, b.len, UNITS[i].suffix) && b.len > n) {
            b.len -= n;
            ok = SBX__LIT(&b, "_seconds");
            *scale = UNITS[i].scale;
            break;
        }
    }
    if (!ok || b.is_truncated) {
        sbx__buf_free(&b);
        return NULL;
    }
    return sbx__buf_take(&b, NULL);
}

static int entry_cmp(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    for (size_t i = 0; c == 0 && i < x->se->label_count && i < y->se->label_count; i++) {
        c = strcmp(x->se->labels[i].key, y->se->labels[i].key);
        if (c == 0)
            c = strcmp(x->se->labels[i].value, y->se->labels[i].value);
    }
    if (c == 0)
        c = (x->se->label_count > y->se->label_count) - (x->se->label_count < y->se->label_count);
    return c;
}

static bool same_labels(const struct sbx__series *x, const struct sbx__series *y)
{
    if (x->label_count != y->label_count)
        return false;
    for (size_t i = 0; i < x->label_count; i++) {
        if (strcmp(x->labels[i].key, y->labels[i].key) ||
            strcmp(x->labels[i].value, y->labels[i].value))
            return false;
    }
    return true;
}

/* The label names as exposed: sanitised, leaving out a later key that sanitises to an earlier
 * one ("a.b" and "a_b") and, on a histogram, "le": either would make the exposition invalid. */
struct label_names {
    size_t count;
    size_t index[SBX__STORE_MAX_LABELS];
    char name[SBX__STORE_MAX_LABELS][SBX__STORE_MAX_TEXT + 2];
};

static bool label_names(const struct sbx__series *se, struct label_names *out)
{
    out->count = 0;
    for (size_t i = 0; i < se->label_count; i++) {
        struct sbx__buf nb;
        sbx__buf_init(&nb, SBX__STORE_MAX_TEXT + 1);
        if (!sbx__telemetry_prom_name(&nb, se->labels[i].key, true)) {
            sbx__buf_free(&nb);
            return false;
        }
        const char *n = nb.data ? nb.data : "";
        bool is_dup = se->kind == SBX__METRIC_HISTOGRAM && strcmp(n, "le") == 0;
        for (size_t j = 0; !is_dup && j < out->count; j++)
            is_dup = strcmp(out->name[j], n) == 0;
        if (!is_dup) {
            snprintf(out->name[out->count], sizeof(out->name[0]), "%s", n);
            out->index[out->count++] = i;
        }
        sbx__buf_free(&nb);
    }
    return true;
}

/* Appends {k="v",...} with an optional trailing le label; nothing for an empty set. */
static bool render_labels(struct sbx__buf *b, const struct sbx__series *se, const char *le)
{
    struct label_names ln;
    if (!label_names(se, &ln))
        return false;
    if (ln.count == 0 && !le)
        return true;
    bool ok = SBX__LIT(b, "{");
    for (size_t i = 0; ok && i < ln.count; i++) {
        ok = (i == 0 || SBX__LIT(b, ",")) && sbx__buf_append(b, ln.name[i], strlen(ln.name[i])) &&
             SBX__LIT(b, "=\"") &&
             sbx__telemetry_prom_label_value(b, se->labels[ln.index[i]].value) && SBX__LIT(b, "\"");
    }
    if (ok && le)
        ok = sbx__buf_appendf(b, "%sle=\"%s\"", ln.count ? "," : "", le);
    return ok && SBX__LIT(b, "}");
}

static bool render_value(struct sbx__buf *b, double v)
{
    return SBX__LIT(b, " ") && sbx__telemetry_json_double(b, v) && SBX__LIT(b, "\n");
}

static bool render_histogram(struct sbx__buf *b, const struct entry *e)
{
    const struct sbx__series *se = e->se;
    uint64_t cum = 0;
    bool ok = true;
    for (size_t i = 0; ok && i <= sbx__store_bound_count; i++) {
        char le[32] = "+Inf";
        if (i < sbx__store_bound_count)
            snprintf(le, sizeof(le), "%.15g", sbx__store_bounds[i] * e->scale);
        cum += se->bucket_counts[i];
        ok = sbx__buf_appendf(b, "%s_bucket", e->name) && render_labels(b, se, le) &&
             sbx__buf_appendf(b, " %llu\n", (unsigned long long)cum);
    }
    ok = ok && sbx__buf_appendf(b, "%s_sum", e->name) && render_labels(b, se, NULL) &&
         render_value(b, se->sum * e->scale);
    return ok && sbx__buf_appendf(b, "%s_count", e->name) && render_labels(b, se, NULL) &&
           sbx__buf_appendf(b, " %llu\n", (unsigned long long)se->count);
}

static bool render_header(struct sbx__buf *b, const struct entry *e)
{
    const char *help = sbx__store_description(e->se->name);
    bool ok = sbx__buf_appendf(b, "# HELP %s ", e->name);
    if (help)
        ok = ok && sbx__buf_append(b, help, strlen(help));
    else
        ok = ok && SBX__LIT(b, "sbx metric ") && sbx__telemetry_prom_help(b, e->se->name);
    const char *type = e->se->kind == SBX__METRIC_COUNTER ? "counter" : "histogram";
    return ok && sbx__buf_appendf(b, "\n# TYPE %s %s\n", e->name, type);
}

/* Renders sorted entries family by family. Within one exposition name the first series fixes the
 * type; a series of another type or a repeated label set (two source names that translate to one
 * exposition name) is left out rather than producing a document Prometheus rejects. */
static bool render_entries(struct sbx__buf *b, const struct entry *es, size_t n)
{
    bool ok = true;
    const struct entry *head = NULL, *prev = NULL;
    for (size_t i = 0; ok && i < n; i++) {
        const struct entry *e = &es[i];
        if (!head || strcmp(head->name, e->name) != 0) {
            head = prev = NULL;
            ok = render_header(b, e);
            head = e;
        } else if (e->se->kind != head->se->kind || same_labels(prev->se, e->se)) {
            continue;
        }
        prev = e;
        if (ok && e->se->kind == SBX__METRIC_COUNTER)
            ok = sbx__buf_appendf(b, "%s", e->name) && render_labels(b, e->se, NULL) &&
                 sbx__buf_appendf(b, " %llu\n", (unsigned long long)e->se->value);
        else if (ok)
            ok = render_histogram(b, e);
    }
    return ok;
}

static bool render_dropped(struct sbx__buf *b, uint64_t dropped)
{
    if (dropped == 0)
        return true;
    return sbx__buf_appendf(b,
                            "# HELP sbx_telemetry_dropped_samples_total Samples the exporter could "
                            "not record (series limit, type clash, memory, non-finite value).\n"
                            "# TYPE sbx_telemetry_dropped_samples_total counter\n"
                            "sbx_telemetry_dropped_samples_total %llu\n",
                            (unsigned long long)dropped);
}

/* Builds the entries for a locked snapshot and renders them. */
static bool render_locked(struct sbx__buf *b, struct sbx__series **series, size_t n,
                          uint64_t dropped)
{
    struct entry *es = sbx__calloc(n + 1, sizeof(*es));
    bool ok = es != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        es[i].se = series[i];
        es[i].name = family_name(series[i], &es[i].scale);
        ok = es[i].name != NULL;
    }
    if (ok) {
        qsort(es, n, sizeof(*es), entry_cmp);
        ok = render_entries(b, es, n) && render_dropped(b, dropped);
    }
    for (size_t i = 0; es && i < n; i++)
        sbx__free(es[i].name);
    sbx__free(es);
    return ok;
}

char *sbx_prometheus_render(sbx_prometheus *p)
{
    if (!p)
        return NULL;
    struct sbx__series **series;
    size_t n;
    if (sbx__store_snapshot(&p->store, &series, &n) != 0)
        return NULL;
    struct sbx__buf b;
    sbx__buf_init(&b, RENDER_LIMIT);
    bool ok = render_locked(&b, series, n, p->store.dropped) && !b.is_truncated;
    sbx__store_unlock(&p->store);
    sbx__free(series);
    if (!ok) {
        sbx__buf_free(&b);
        return NULL;
    }
    char *text = sbx__buf_take(&b, NULL);
    return text ? text : sbx__strdup(""); /* an empty registry is a valid, empty exposition */
}

static int write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

sbx_err sbx_prometheus_write_file(sbx_prometheus *p, const char *path)
{
    if (!p || !path)
        return SBX_E_INVALID_ARGUMENT;
    char *text = sbx_prometheus_render(p);
    char tmp[4096];
    int n = snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path);
    if (!text || n < 0 || (size_t)n >= sizeof(tmp)) {
        sbx__free(text);
        return text ? SBX_E_INVALID_ARGUMENT : SBX_E_NOMEM;
    }
    /* A scraper (node_exporter's textfile collector) must never see a half-written file. */
    int fd = mkostemp(tmp, O_CLOEXEC);
    int rc = fd < 0 ? -1 : 0;
    if (rc == 0)
        rc = write_all(fd, text, strlen(text));
    if (rc == 0)
        rc = fchmod(fd, 0644);
    int saved = errno;
    if (fd >= 0 && close(fd) != 0 && rc == 0) {
        rc = -1;
        saved = errno;
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        rc = -1;
        saved = errno;
    }
    if (rc != 0 && fd >= 0)
        unlink(tmp);
    sbx__free(text);
    errno = saved;
    return rc == 0 ? SBX_OK : SBX_E_IO;
}

static void hook_counter(void *user, const char *name, uint64_t value, const sbx_attr *attrs,
                         size_t attr_count)
{
    sbx__store_counter_add(&((sbx_prometheus *)user)->store, name, value, attrs, attr_count);
}

static void hook_histogram(void *user, const char *name, double value, const sbx_attr *attrs,
                           size_t attr_count)
{
    sbx__store_histogram_record(&((sbx_prometheus *)user)->store, name, value, attrs, attr_count);
}

sbx_err sbx_prometheus_create(sbx_prometheus **out)
{
    if (!out)
        return SBX_E_INVALID_ARGUMENT;
    *out = NULL;
    sbx_prometheus *p = sbx__calloc(1, sizeof(*p));
    if (!p)
        return SBX_E_NOMEM;
    if (sbx__store_init(&p->store) != 0) {
        sbx__free(p);
        return SBX_E_NOMEM;
    }
    p->hooks.user = p;
    p->hooks.counter_add = hook_counter;
    p->hooks.histogram_record = hook_histogram;
    *out = p;
    return SBX_OK;
}

const sbx_telemetry_hooks *sbx_prometheus_hooks(sbx_prometheus *p)
{
    return p ? &p->hooks : NULL;
}

void sbx_prometheus_destroy(sbx_prometheus *p)
{
    if (!p)
        return;
    sbx__store_destroy(&p->store);
    sbx__free(p);
}
