/* util/buf.h: a growable byte buffer with a hard cap. Bytes past the cap are counted and
 * dropped, never stored, so a guest that prints without end cannot grow the host. */
#ifndef SBX_UTIL_BUF_H
#define SBX_UTIL_BUF_H

#include <stdbool.h>
#include <stddef.h>

struct sbx__buf {
    char *data; /* NUL-terminated when non-NULL */
    size_t len;
    size_t cap;   /* allocated bytes */
    size_t limit; /* hard cap on len */
    bool is_truncated;
    bool is_oom; /* an allocation failed; further appends are dropped */
};

void sbx__buf_init(struct sbx__buf *b, size_t limit);
/* Appends up to the limit; sets is_truncated when bytes were dropped. Returns false on NOMEM. */
bool sbx__buf_append(struct sbx__buf *b, const void *data, size_t len);
bool sbx__buf_appendf(struct sbx__buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Hands the data (NUL-terminated, possibly NULL when empty) to the caller and resets b. */
char *sbx__buf_take(struct sbx__buf *b, size_t *len);
void sbx__buf_free(struct sbx__buf *b);

#endif
