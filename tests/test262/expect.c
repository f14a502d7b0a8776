/* tests/test262/expect.c: the expected-failures list. One entry a line, "PATH  # REASON",
 * grouped under "## AREA (N)" headers; other '#' lines and blank lines are comments. A run
 * passes when exactly the listed tests fail. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test262.h"

void t262_area(const char *path, char *dst, size_t cap)
{
    const char *s = strncmp(path, "test/", 5) == 0 ? path + 5 : path;
    const char *slash = strchr(s, '/');
    const char *e = slash ? strchr(slash + 1, '/') : NULL;
    size_t n = e ? (size_t)(e - s) : (slash ? (size_t)(slash - s) : strlen(s));
    snprintf(dst, cap, "%.*s", (int)n, s);
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const struct t262_expect_entry *)a)->path,
                  ((const struct t262_expect_entry *)b)->path);
}

static int add_entry(struct t262_expect *x, size_t *cap, const char *path, const char *reason)
{
    if (x->count == *cap) {
        *cap = *cap ? *cap * 2 : 256;
        struct t262_expect_entry *ne = realloc(x->entries, *cap * sizeof(*ne));
        if (!ne)
            return -1;
        x->entries = ne;
    }
    char *p = strdup(path), *r = strdup(reason);
    if (!p || !r) {
        free(p);
        free(r);
        return -1;
    }
    x->entries[x->count++] = (struct t262_expect_entry){p, r};
    return 0;
}

/* Splits one entry line in place; -1 when it has no reason. */
static int split_line(char *line, char **path, char **reason)
{
    char *hash = strstr(line, "  # ");
    if (!hash)
        return -1;
    *hash = '\0';
    *path = line;
    *reason = hash + 4;
    size_t n = strlen(*reason);
    while (n && isspace((unsigned char)(*reason)[n - 1]))
        (*reason)[--n] = '\0';
    return **path && **reason ? 0 : -1;
}

int t262_expect_load(const char *file, struct t262_expect *x, char *err, size_t errlen)
{
    memset(x, 0, sizeof(*x));
    FILE *f = fopen(file, "r");
    if (!f)
        return errno == ENOENT ? 0 : (snprintf(err, errlen, "%s: %s", file, strerror(errno)), -1);
    char line[4096];
    size_t cap = 0;
    int lineno = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof(line), f)) {
        lineno++;
        line[strcspn(line, "\n")] = '\0';
        if (!line[0] || line[0] == '#')
            continue;
        char *path, *reason;
        if (split_line(line, &path, &reason)) {
            snprintf(err, errlen, "%s:%d: want 'PATH  # REASON'", file, lineno);
            rc = -1;
        } else if (add_entry(x, &cap, path, reason)) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
        }
    }
    fclose(f);
    if (x->count) /* qsort's base must not be NULL, even for no elements */
        qsort(x->entries, x->count, sizeof(*x->entries), by_path);
    for (size_t i = 1; rc == 0 && i < x->count; i++)
        if (strcmp(x->entries[i - 1].path, x->entries[i].path) == 0) {
            snprintf(err, errlen, "%s: %s listed twice", file, x->entries[i].path);
            rc = -1;
        }
    return rc;
}

const struct t262_expect_entry *t262_expect_find(const struct t262_expect *x, const char *path)
{
    struct t262_expect_entry key = {(char *)path, NULL};
    if (!x->count)
        return NULL;
    return bsearch(&key, x->entries, x->count, sizeof(*x->entries), by_path);
}

void t262_expect_free(struct t262_expect *x)
{
    for (size_t i = 0; i < x->count; i++) {
        free(x->entries[i].path);
        free(x->entries[i].reason);
    }
    free(x->entries);
    memset(x, 0, sizeof(*x));
}

/* Drops " (line N)" and the like, which change with every harness edit. */
static void strip_lines(char *s)
{
    char *p;
    while ((p = strstr(s, " (line ")) != NULL) {
        char *q = strchr(p, ')');
        if (!q)
            break;
        memmove(p, q + 1, strlen(q + 1) + 1);
    }
}

/* A missing global: Duktape says "identifier 'X' undefined", SpiderMonkey "X is not defined",
 * V8 the same. Writes X to name when it looks like a built-in (capitalised). */
static bool missing_global(const char *reason, char *name, size_t cap)
{
    const char *s = NULL, *e = NULL;
    if (strncmp(reason, "ReferenceError: ", 16) != 0)
        return false;
    const char *msg = reason + 16;
    if (strncmp(msg, "identifier '", 12) == 0 && (e = strchr(msg + 12, '\'')) != NULL &&
        strcmp(e, "' undefined") == 0)
        s = msg + 12;
    else if ((e = strstr(msg, " is not defined")) != NULL && e[15] == '\0')
        s = msg;
    if (!s || !isupper((unsigned char)*s) || (size_t)(e - s) >= cap)
        return false;
    snprintf(name, cap, "%.*s", (int)(e - s), s);
    return true;
}

/* The reason a new entry gets: "Temporal not implemented" for a missing built-in (the test's
 * area, or the global a ReferenceError names), otherwise
 * the failure's first line, with the test's features after a parse error. */
static void derive_reason(const struct t262_test *t, char *dst, size_t cap)
{
    char text[T262_REASON_MAX], name[64];
    snprintf(text, sizeof(text), "%s", t->reason);
    text[strcspn(text, "\r\n")] = '\0';
    strip_lines(text);
    if (t->missing[0])
        snprintf(dst, cap, "%s not implemented", t->missing);
    else if (missing_global(text, name, sizeof(name)))
        snprintf(dst, cap, "%s not implemented", name);
    else if (strncmp(text, "SyntaxError", 11) == 0 && t->features[0])
        snprintf(dst, cap, "%s [%s]", text, t->features);
    else
        snprintf(dst, cap, "%s", text[0] ? text : "failed");
}

static int by_test_path(const void *key, const void *elem)
{
    return strcmp(key, ((const struct t262_test *)elem)->path);
}

/* The reason a failing test gets: its old entry's, but a "NAME not implemented" one, a fact
 * about the engine, is derived again. */
static void entry_reason(const struct t262_test *t, const struct t262_expect_entry *was, char *dst,
                         size_t cap)
{
    size_t n = was ? strlen(was->reason) : 0;
    if (was && (n <= 16 || strcmp(was->reason + n - 16, " not implemented") != 0))
        snprintf(dst, cap, "%s", was->reason);
    else
        derive_reason(t, dst, cap);
}

/* The merged list: the failing tests, and the old entries of tests not run (another --filter or
 * --every). tests is sorted by path. */
static int merge(struct t262_expect *out, const struct t262_expect *old,
                 const struct t262_test *tests, size_t count)
{
    size_t cap = 0;
    char reason[T262_REASON_MAX * 2];
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < count; i++) {
        const struct t262_test *t = &tests[i];
        if (!t->ran || t->passed)
            continue;
        entry_reason(t, t262_expect_find(old, t->path), reason, sizeof(reason));
        if (add_entry(out, &cap, t->path, reason))
            return -1;
    }
    for (size_t i = 0; i < old->count; i++) {
        const struct t262_expect_entry *e = &old->entries[i];
        const struct t262_test *t =
            count ? bsearch(e->path, tests, count, sizeof(*tests), by_test_path) : NULL;
        if ((!t || !t->ran) && add_entry(out, &cap, e->path, e->reason))
            return -1;
    }
    if (out->count)
        qsort(out->entries, out->count, sizeof(*out->entries), by_path);
    return 0;
}

static void write_entries(FILE *f, const struct t262_expect *x)
{
    char area[256], next[256];
    for (size_t i = 0; i < x->count; i++) {
        t262_area(x->entries[i].path, area, sizeof(area));
        if (i == 0 ||
            (t262_area(x->entries[i - 1].path, next, sizeof(next)), strcmp(area, next) != 0)) {
            size_t n = 0;
            for (size_t j = i; j < x->count; j++, n++)
                if (t262_area(x->entries[j].path, next, sizeof(next)), strcmp(area, next) != 0)
                    break;
            fprintf(f, "%s## %s (%zu)\n", i ? "\n" : "", area, n);
        }
        fprintf(f, "%s  # %s\n", x->entries[i].path, x->entries[i].reason);
    }
}

int t262_expect_write(const char *file, const char *engine, const struct t262_expect *old,
                      const struct t262_test *tests, size_t count)
{
    struct t262_expect x;
    if (merge(&x, old, tests, count)) {
        t262_expect_free(&x);
        errno = ENOMEM;
        return -1;
    }
    char tmp[4096];
    snprintf(tmp, sizeof(tmp), "%s.tmp", file);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        t262_expect_free(&x);
        return -1;
    }
    fprintf(f,
            "# test262 sample tests expected to fail on %s: %zu of them, one a line as\n"
            "# PATH  # REASON, grouped by area. A listed test that passes fails the suite, as\n"
            "# does an unlisted failure. Regenerate: make test262 TEST262_UPDATE=1 (reasons\n"
            "# of entries still failing are kept).\n\n",
            engine, x.count);
    write_entries(f, &x);
    t262_expect_free(&x);
    if (fclose(f) != 0 || rename(tmp, file) != 0) {
        int e = errno;
        remove(tmp);
        errno = e;
        return -1;
    }
    return 0;
}
