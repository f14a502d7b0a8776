/* telemetry/store.h: the metric registry both exporters aggregate into. One series per
 * (name, sorted labels); the series count and label sizes are capped so guest-chosen label values
 * (capability names) cannot grow the host without bound. Every function takes the store's lock. */
#ifndef SBX_TELEMETRY_STORE_H
#define SBX_TELEMETRY_STORE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <sbx/telemetry.h>

#define SBX__STORE_MAX_SERIES 1024
#define SBX__STORE_MAX_LABELS 8
#define SBX__STORE_MAX_TEXT   256 /* bytes kept of a name, label key or label value */

enum sbx__metric_kind { SBX__METRIC_COUNTER, SBX__METRIC_HISTOGRAM };

struct sbx__series {
    enum sbx__metric_kind kind;
    char *name;
    size_t label_count;
    sbx_attr labels[SBX__STORE_MAX_LABELS]; /* sorted by key; strings owned */
    uint64_t value;                         /* counter */
    uint64_t *bucket_counts;                /* histogram: bound_count + 1 entries */
    uint64_t count;
    double sum, min, max;
};

struct sbx__store {
    pthread_mutex_t lock;
    struct sbx__series **slots; /* open addressing, capacity 2 * SBX__STORE_MAX_SERIES */
    size_t series_count;
    uint64_t dropped; /* samples not recorded: table full, kind clash, NOMEM, NaN */
    uint64_t updates; /* samples recorded; lets an exporter skip resending unchanged totals */
};

/* The explicit histogram bounds, in the instrument's unit (ms for *_ms). */
extern const double sbx__store_bounds[];
extern const size_t sbx__store_bound_count;

/* Returns the description of an instrument the library emits, or NULL for another name. */
const char *sbx__store_description(const char *name);

int sbx__store_init(struct sbx__store *s);
void sbx__store_destroy(struct sbx__store *s);
void sbx__store_counter_add(struct sbx__store *s, const char *name, uint64_t value,
                            const sbx_attr *attrs, size_t attr_count);
void sbx__store_histogram_record(struct sbx__store *s, const char *name, double value,
                                 const sbx_attr *attrs, size_t attr_count);

/* Locks the store and returns its series sorted by name, then labels, in *out (free with
 * sbx__free). Returns -1 on NOMEM, with the store unlocked. Call sbx__store_unlock() after. */
int sbx__store_snapshot(struct sbx__store *s, struct sbx__series ***out, size_t *count);
void sbx__store_unlock(struct sbx__store *s);

#endif
