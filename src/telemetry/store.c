/* telemetry/store.c: series table keyed by name + sorted labels (open addressing, FNV-1a).
 * The hot path (an existing series) allocates nothing; a new series costs a few allocations. */
#include "telemetry/store.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

#define SLOT_COUNT (2 * SBX__STORE_MAX_SERIES)

/* Run durations span sub-millisecond worker runs to hour-long timeouts. */
const double sbx__store_bounds[] = {0.1, 0.25, 0.5, 1,    2.5,  5,    10,    25,    50,
                                    100, 250,  500, 1000, 2500, 5000, 10000, 30000, 60000};
const size_t sbx__store_bound_count = sizeof(sbx__store_bounds) / sizeof(sbx__store_bounds[0]);

static const struct {
    const char *name, *description;
} DESCRIPTIONS[] = {
    {"sandbox.runs_total", "Sandbox runs finished, by tier and outcome."},
    {"sandbox.duration_ms", "Wall-clock duration of sandbox runs."},
    {"plugin.permission_denied_total", "Host capability calls the policy denied."},
};

const char *sbx__store_description(const char *name)
{
    for (size_t i = 0; i < sizeof(DESCRIPTIONS) / sizeof(DESCRIPTIONS[0]); i++) {
        if (strcmp(DESCRIPTIONS[i].name, name) == 0)
            return DESCRIPTIONS[i].description;
    }
    return NULL;
}

/* A label set normalised for lookup: sorted by key, duplicates and NULL keys dropped. */
struct key {
    const char *name;
    size_t name_len;
    size_t count;
    const char *k[SBX__STORE_MAX_LABELS], *v[SBX__STORE_MAX_LABELS];
    size_t klen[SBX__STORE_MAX_LABELS], vlen[SBX__STORE_MAX_LABELS];
};

static size_t text_len(const char *s)
{
    return s ? strnlen(s, SBX__STORE_MAX_TEXT) : 0;
}

static void key_insert(struct key *k, const char *key, const char *value)
{
    size_t kl = text_len(key), i = k->count;
    while (i > 0) {
        int c = strncmp(k->k[i - 1], key, SBX__STORE_MAX_TEXT);
        if (c == 0)
            return; /* first value of a repeated key wins */
        if (c < 0)
            break;
        i--;
    }
    if (k->count == SBX__STORE_MAX_LABELS)
        return;
    memmove(&k->k[i + 1], &k->k[i], (k->count - i) * sizeof(k->k[0]));
    memmove(&k->v[i + 1], &k->v[i], (k->count - i) * sizeof(k->v[0]));
    memmove(&k->klen[i + 1], &k->klen[i], (k->count - i) * sizeof(k->klen[0]));
    memmove(&k->vlen[i + 1], &k->vlen[i], (k->count - i) * sizeof(k->vlen[0]));
    k->k[i] = key;
    k->klen[i] = kl;
    k->v[i] = value ? value : "";
    k->vlen[i] = text_len(value);
    k->count++;
}

static void key_make(struct key *k, const char *name, const sbx_attr *attrs, size_t attr_count)
{
    k->name = name;
    k->name_len = text_len(name);
    k->count = 0;
    for (size_t i = 0; attrs && i < attr_count; i++) {
        if (attrs[i].key && attrs[i].key[0])
            key_insert(k, attrs[i].key, attrs[i].value);
    }
}

static uint64_t fnv(uint64_t h, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211u;
    return (h ^ 0xff) * 1099511628211u; /* separator so ("ab","c") != ("a","bc") */
}

static uint64_t key_hash(const struct key *k)
{
    uint64_t h = fnv(14695981039346656037u, k->name, k->name_len);
    for (size_t i = 0; i < k->count; i++)
        h = fnv(fnv(h, k->k[i], k->klen[i]), k->v[i], k->vlen[i]);
    return h;
}

static bool text_eq(const char *stored, const char *s, size_t len)
{
    return strlen(stored) == len && memcmp(stored, s, len) == 0;
}

static bool key_matches(const struct key *k, const struct sbx__series *se)
{
    if (se->label_count != k->count || !text_eq(se->name, k->name, k->name_len))
        return false;
    for (size_t i = 0; i < k->count; i++) {
        if (!text_eq(se->labels[i].key, k->k[i], k->klen[i]) ||
            !text_eq(se->labels[i].value, k->v[i], k->vlen[i]))
            return false;
    }
    return true;
}

static void series_free(struct sbx__series *se)
{
    if (!se)
        return;
    sbx__free(se->name);
    for (size_t i = 0; i < se->label_count; i++) {
        sbx__free((char *)se->labels[i].key);
        sbx__free((char *)se->labels[i].value);
    }
    sbx__free(se->bucket_counts);
    sbx__free(se);
}

static struct sbx__series *series_new(const struct key *k, enum sbx__metric_kind kind)
{
    struct sbx__series *se = sbx__calloc(1, sizeof(*se));
    if (!se)
        return NULL;
    se->kind = kind;
    se->name = sbx__strndup(k->name, k->name_len);
    bool ok = se->name != NULL;
    for (size_t i = 0; ok && i < k->count; i++) {
        se->labels[i].key = sbx__strndup(k->k[i], k->klen[i]);
        se->labels[i].value = sbx__strndup(k->v[i], k->vlen[i]);
        se->label_count = i + 1;
        ok = se->labels[i].key && se->labels[i].value;
    }
    if (ok && kind == SBX__METRIC_HISTOGRAM) {
        se->bucket_counts = sbx__calloc(sbx__store_bound_count + 1, sizeof(uint64_t));
        ok = se->bucket_counts != NULL;
    }
    if (!ok) {
        series_free(se);
        return NULL;
    }
    return se;
}

/* Finds or creates the series for k; NULL (and a drop counted) when full, clashing or NOMEM.
 * Called with the lock held. */
static struct sbx__series *lookup(struct sbx__store *s, const struct key *k,
                                  enum sbx__metric_kind kind)
{
    size_t i = (size_t)(key_hash(k) % SLOT_COUNT);
    while (s->slots[i]) {
        if (key_matches(k, s->slots[i])) {
            if (s->slots[i]->kind == kind)
                return s->slots[i];
            break;
        }
        i = (i + 1) % SLOT_COUNT;
    }
    struct sbx__series *se = NULL;
    if (!s->slots[i] && s->series_count < SBX__STORE_MAX_SERIES)
        se = series_new(k, kind);
    if (!se) {
        s->dropped++;
        return NULL;
    }
    s->slots[i] = se;
    s->series_count++;
    return se;
}

int sbx__store_init(struct sbx__store *s)
{
    memset(s, 0, sizeof(*s));
    s->slots = sbx__calloc(SLOT_COUNT, sizeof(s->slots[0]));
    if (!s->slots)
        return -1;
    if (pthread_mutex_init(&s->lock, NULL) != 0) {
        sbx__free(s->slots);
        s->slots = NULL;
        return -1;
    }
    return 0;
}

void sbx__store_destroy(struct sbx__store *s)
{
    if (!s->slots)
        return;
    for (size_t i = 0; i < SLOT_COUNT; i++)
        series_free(s->slots[i]);
    sbx__free(s->slots);
    s->slots = NULL;
    pthread_mutex_destroy(&s->lock);
}

void sbx__store_counter_add(struct sbx__store *s, const char *name, uint64_t value,
                            const sbx_attr *attrs, size_t attr_count)
{
    if (!name || !name[0])
        return;
    struct key k;
    key_make(&k, name, attrs, attr_count);
    pthread_mutex_lock(&s->lock);
    struct sbx__series *se = lookup(s, &k, SBX__METRIC_COUNTER);
    if (se) {
        se->value += value;
        s->updates++;
    }
    pthread_mutex_unlock(&s->lock);
}

static void histogram_add(struct sbx__series *se, double value)
{
    size_t b = 0;
    while (b < sbx__store_bound_count && value > sbx__store_bounds[b])
        b++; /* bucket b holds (bounds[b-1], bounds[b]]: upper bounds are inclusive */
    se->bucket_counts[b]++;
    se->min = se->count == 0 || value < se->min ? value : se->min;
    se->max = se->count == 0 || value > se->max ? value : se->max;
    se->count++;
    se->sum += value;
}

void sbx__store_histogram_record(struct sbx__store *s, const char *name, double value,
                                 const sbx_attr *attrs, size_t attr_count)
{
    if (!name || !name[0])
        return;
    struct key k;
    key_make(&k, name, attrs, attr_count);
    pthread_mutex_lock(&s->lock);
    struct sbx__series *se = isfinite(value) ? lookup(s, &k, SBX__METRIC_HISTOGRAM) : NULL;
    if (se) {
        histogram_add(se, value);
        s->updates++;
    } else if (!isfinite(value))
        s->dropped++; /* neither exposition format can carry NaN or Inf in a sum */
    pthread_mutex_unlock(&s->lock);
}

static int series_cmp(const void *a, const void *b)
{
    const struct sbx__series *x = *(struct sbx__series *const *)a;
    const struct sbx__series *y = *(struct sbx__series *const *)b;
    int c = strcmp(x->name, y->name);
    for (size_t i = 0; c == 0 && i < x->label_count && i < y->label_count; i++) {
        c = strcmp(x->labels[i].key, y->labels[i].key);
        if (c == 0)
            c = strcmp(x->labels[i].value, y->labels[i].value);
    }
    if (c == 0)
        c = (x->label_count > y->label_count) - (x->label_count < y->label_count);
    return c;
}

int sbx__store_snapshot(struct sbx__store *s, struct sbx__series ***out, size_t *count)
{
    pthread_mutex_lock(&s->lock);
    struct sbx__series **arr = sbx__calloc(s->series_count + 1, sizeof(*arr));
    if (!arr) {
        pthread_mutex_unlock(&s->lock);
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < SLOT_COUNT; i++) {
        if (s->slots[i])
            arr[n++] = s->slots[i];
    }
    qsort(arr, n, sizeof(*arr), series_cmp);
    *out = arr;
    *count = n;
    return 0;
}

void sbx__store_unlock(struct sbx__store *s)
{
    pthread_mutex_unlock(&s->lock);
}
