/* util/buf.h: a growable byte buffer with a hard cap. Bytes past the cap are counted and
 * dropped, never stored, so a guest that prints without end cannot grow the host. */
#ifndef SBX_UTIL_BUF_H
#define SBX_UTIL_BUF_H

#include <stdbool.h>
#include <stddef.h>

/* Receives bytes a buffer kept (never the dropped excess) when its owner flushes the tap. */
typedef void (*sbx__buf_tap_fn)(void *user, int stream, const char *data, size_t len);

struct sbx__buf {
    char *data; /* NUL-terminated when non-NULL */
    size_t len;
    size_t cap;   /* allocated bytes */
    size_t limit; /* hard cap on len */
    bool is_truncated;
    bool is_oom; /* an allocation failed; further appends are dropped */
    /* Streaming (sbx_run_input.on_output): kept across take and free, cleared by init. */
    sbx__buf_tap_fn tap;
    void *tap_user;
    int tap_stream;
    size_t tapped; /* bytes of data already given to the tap */
};

void sbx__buf_init(struct sbx__buf *b, size_t limit);
/* Appends up to the limit; sets is_truncated when bytes were dropped. Returns false on NOMEM. */
bool sbx__buf_append(struct sbx__buf *b, const void *data, size_t len);
bool sbx__buf_appendf(struct sbx__buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Sets (fn non-NULL) or clears the tap that sbx__buf_flush_tap() feeds. */
void sbx__buf_set_tap(struct sbx__buf *b, sbx__buf_tap_fn fn, void *user, int stream);
/* Gives the tap the bytes appended since the last flush, as one chunk; no-op without a tap.
 * The tiers flush once per guest write, so a chunk is what the guest wrote in one call. */
void sbx__buf_flush_tap(struct sbx__buf *b);
/* Hands the data (NUL-terminated, possibly NULL when empty) to the caller and resets b. */
char *sbx__buf_take(struct sbx__buf *b, size_t *len);
void sbx__buf_free(struct sbx__buf *b);

#endif
