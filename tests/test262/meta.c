/* tests/test262/meta.c: a test's front matter (the YAML subset test262 uses: top-level keys,
 * inline [a, b] lists, "- item" lists, and the two-key `negative:` map) and the script the
 * test262 rules compose from it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test262.h"

char *t262_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 16384;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                errno = ENOMEM;
                return NULL;
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, 4096, f);
        n += got;
        if (got < 4096)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        errno = EIO;
        return NULL;
    }
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

/* Copies [s, e) without surrounding blanks and quotes into dst; -1 if it does not fit. */
static int copy_trimmed(char *dst, size_t cap, const char *s, const char *e)
{
    while (s < e && (*s == ' ' || *s == '\t' || *s == '\'' || *s == '"'))
        s++;
    while (e > s &&
           (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\'' || e[-1] == '"'))
        e--;
    if ((size_t)(e - s) >= cap)
        return -1;
    memcpy(dst, s, (size_t)(e - s));
    dst[e - s] = '\0';
    return 0;
}

static int add_item(struct t262_meta *m, const char *key, const char *s, const char *e)
{
    char item[64];
    if (strcmp(key, "flags") != 0 && strcmp(key, "includes") != 0 && strcmp(key, "features") != 0)
        return 0;
    if (copy_trimmed(item, sizeof(item), s, e))
        return -1;
    if (!item[0])
        return 0;
    if (strcmp(key, "flags") == 0) {
        m->only_strict |= strcmp(item, "onlyStrict") == 0;
        m->no_strict |= strcmp(item, "noStrict") == 0;
        m->raw |= strcmp(item, "raw") == 0;
        m->async |= strcmp(item, "async") == 0;
    } else if (strcmp(key, "includes") == 0) {
        if (m->include_count == T262_INCLUDES_MAX)
            return -1;
        memcpy(m->includes[m->include_count++], item, sizeof(item));
    } else if (strcmp(key, "features") == 0) {
        size_t have = strlen(m->features);
        snprintf(m->features + have, sizeof(m->features) - have, "%s%s", have ? ", " : "", item);
    }
    return 0;
}

/* An inline list "[a, b]" or a single scalar after "key:". */
static int add_inline(struct t262_meta *m, const char *key, const char *s, const char *e)
{
    const char *open = memchr(s, '[', (size_t)(e - s));
    if (!open)
        return add_item(m, key, s, e);
    const char *close = memchr(open, ']', (size_t)(e - open));
    if (!close)
        return -1;
    for (const char *p = open + 1; p < close;) {
        const char *comma = memchr(p, ',', (size_t)(close - p));
        const char *end = comma ? comma : close;
        if (add_item(m, key, p, end))
            return -1;
        p = end + 1;
    }
    return 0;
}

/* One line of the block: "key: value", "  - item" or "  phase: parse" under negative. */
static int meta_line(struct t262_meta *m, char *key, const char *s, const char *e)
{
    if (s == e)
        return 0;
    if (*s != ' ' && *s != '\t') {
        const char *colon = memchr(s, ':', (size_t)(e - s));
        if (!colon || copy_trimmed(key, 32, s, colon))
            return key[0] = '\0', 0; /* a continued description: not ours */
        return add_inline(m, key, colon + 1, e);
    }
    while (s < e && (*s == ' ' || *s == '\t'))
        s++;
    if (s < e && *s == '-')
        return add_item(m, key, s + 1, e);
    if (strcmp(key, "negative") != 0)
        return 0;
    const char *colon = memchr(s, ':', (size_t)(e - s));
    if (!colon)
        return 0;
    if ((size_t)(colon - s) == 5 && memcmp(s, "phase", 5) == 0)
        return copy_trimmed(m->negative_phase, sizeof(m->negative_phase), colon + 1, e);
    if ((size_t)(colon - s) == 4 && memcmp(s, "type", 4) == 0)
        return copy_trimmed(m->negative_type, sizeof(m->negative_type), colon + 1, e);
    return 0;
}

int t262_meta_parse(const char *src, struct t262_meta *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof(*m));
    const char *start = strstr(src, "/*---");
    const char *end = start ? strstr(start, "---*/") : NULL;
    if (!end) {
        snprintf(err, errlen, "no /*--- ---*/ front matter");
        return -1;
    }
    char key[32] = "";
    for (const char *p = strchr(start, '\n'); p && p < end;) {
        p++;
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        if (meta_line(m, key, p, le)) {
            snprintf(err, errlen, "front matter value too long or too many in '%s'", key);
            return -1;
        }
        p = nl;
    }
    return 0;
}

struct strbuf {
    char *s;
    size_t len, cap;
};

static int sb_add(struct strbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = (b->len + n + 1) * 2;
        char *ns = realloc(b->s, cap);
        if (!ns)
            return -1;
        b->s = ns;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
    return 0;
}

static int add_harness(struct strbuf *b, const char *root, const char *name, char *err,
                       size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/harness/%s", root, name);
    size_t n;
    char *text = t262_read_file(path, &n);
    if (!text) {
        snprintf(err, errlen, "harness %s: %s", name, strerror(errno));
        return -1;
    }
    int rc = sb_add(b, text, n) || sb_add(b, "\n", 1);
    free(text);
    if (rc)
        snprintf(err, errlen, "out of memory");
    return rc ? -1 : 0;
}

char *t262_compose(const char *root, const struct t262_meta *m, const char *test_src,
                   size_t test_len, char *err, size_t errlen)
{
    struct strbuf b = {0};
    if (!m->raw) {
        static const char strict[] = "\"use strict\";\n";
        if (m->only_strict && sb_add(&b, strict, sizeof(strict) - 1))
            goto nomem;
        if (add_harness(&b, root, "assert.js", err, errlen) ||
            add_harness(&b, root, "sta.js", err, errlen) ||
            (m->async && add_harness(&b, root, "doneprintHandle.js", err, errlen)))
            goto fail;
        for (size_t i = 0; i < m->include_count; i++)
            if (add_harness(&b, root, m->includes[i], err, errlen))
                goto fail;
    }
    if (sb_add(&b, test_src, test_len))
        goto nomem;
    return b.s;
nomem:
    snprintf(err, errlen, "out of memory");
fail:
    free(b.s);
    return NULL;
}
