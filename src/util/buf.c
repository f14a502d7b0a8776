/* util/buf.c: capped growable buffer. */
#include "util/buf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"

void sbx__buf_init(struct sbx__buf *b, size_t limit)
{
    memset(b, 0, sizeof(*b));
    b->limit = limit;
}

static bool reserve(struct sbx__buf *b, size_t need)
{
    if (need + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need + 1)
        cap = cap > SIZE_MAX / 2 ? need + 1 : cap * 2;
    char *p = sbx__reallocn(b->data, cap, 1);
    if (!p) {
        b->is_oom = true;
        return false;
    }
    b->data = p;
    b->cap = cap;
    return true;
}

bool sbx__buf_append(struct sbx__buf *b, const void *data, size_t len)
{
    if (b->is_oom)
        return false;
    size_t room = b->limit - b->len;
    if (len > room) {
        b->is_truncated = true;
        len = room;
    }
    if (len == 0)
        return true;
    if (!reserve(b, b->len + len))
        return false;
    memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    return true;
}

bool sbx__buf_appendf(struct sbx__buf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0)
        return false;
    if ((size_t)n < sizeof(small))
        return sbx__buf_append(b, small, (size_t)n);
    char *big = sbx__mallocn((size_t)n + 1, 1);
    if (!big) {
        b->is_oom = true;
        return false;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    bool ok = sbx__buf_append(b, big, (size_t)n);
    sbx__free(big);
    return ok;
}

void sbx__buf_set_tap(struct sbx__buf *b, sbx__buf_tap_fn fn, void *user, int stream)
{
    b->tap = fn;
    b->tap_user = user;
    b->tap_stream = stream;
    b->tapped = b->len;
}

void sbx__buf_flush_tap(struct sbx__buf *b)
{
    if (!b->tap || b->len <= b->tapped)
        return;
    size_t from = b->tapped;
    b->tapped = b->len; /* first: a tap that appends to b must not see its chunk twice */
    b->tap(b->tap_user, b->tap_stream, b->data + from, b->len - from);
}

/* Empties b but keeps its limit and its tap. */
static void reset(struct sbx__buf *b)
{
    sbx__buf_tap_fn fn = b->tap;
    void *user = b->tap_user;
    int stream = b->tap_stream;
    sbx__buf_init(b, b->limit);
    sbx__buf_set_tap(b, fn, user, stream);
}

char *sbx__buf_take(struct sbx__buf *b, size_t *len)
{
    char *d = b->data;
    if (len)
        *len = b->len;
    reset(b);
    return d;
}

void sbx__buf_free(struct sbx__buf *b)
{
    sbx__free(b->data);
    reset(b);
}
