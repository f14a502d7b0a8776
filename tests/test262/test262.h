/* tests/test262/test262.h: the test262 runner's pieces. A test is read from the sample, composed
 * into one global script (meta.c), run through a libsbx tier and judged (runner.c), and its
 * outcome compared with the expected-failures list (expect.c). */
#ifndef SBX_TEST262_H
#define SBX_TEST262_H

#include <stdbool.h>
#include <stddef.h>

#define T262_INCLUDES_MAX 16
#define T262_REASON_MAX   160

/* What a test's front matter asks for (INTERPRETING.md of test262). */
struct t262_meta {
    bool only_strict, no_strict, raw, async;
    char negative_phase[16]; /* "", "parse", "resolution", "runtime" */
    char negative_type[48];  /* constructor name of the error the test must throw */
    char includes[T262_INCLUDES_MAX][64];
    size_t include_count;
    char features[160]; /* "a, b, c" as written, for reasons */
};

struct t262_test {
    char *path; /* relative to the sample root: "test/built-ins/Array/..." */
    bool ran, passed;
    char features[160]; /* copied from the front matter, for derived reasons */
    char missing[48];   /* the built-in its area tests, when the engine lacks it and the test
                           lists it as a feature: a reason "NAME not implemented" */
    char reason[T262_REASON_MAX]; /* why it failed: "SyntaxError: ...", "SANDBOX_TIMEOUT: ..." */
};

/* Reads the whole file at path into a NUL-terminated buffer (free()); NULL with errno set. */
char *t262_read_file(const char *path, size_t *len);

/* Parses the front matter between / *--- and ---* / of src into *m. Returns 0, or -1 with a
 * message in err when the block is missing or a value cannot be stored. */
int t262_meta_parse(const char *src, struct t262_meta *m, char *err, size_t errlen);

/* Builds the script the test262 rules compose: "use strict" for onlyStrict, then assert.js,
 * sta.js, doneprintHandle.js (async) and the includes from root/harness, then the test; a raw
 * test runs alone. Returns a malloc'd string, or NULL with a message in err. */
char *t262_compose(const char *root, const struct t262_meta *m, const char *test_src,
                   size_t test_len, char *err, size_t errlen);

/* The expected-failures list: path -> reason, sorted by path. */
struct t262_expect_entry {
    char *path;
    char *reason;
};
struct t262_expect {
    struct t262_expect_entry *entries;
    size_t count;
};

/* Loads the list at file; a missing file is an empty list. Returns 0, or -1 with err set (a
 * malformed line names its line number). */
int t262_expect_load(const char *file, struct t262_expect *x, char *err, size_t errlen);

/* Returns the entry for path, or NULL. */
const struct t262_expect_entry *t262_expect_find(const struct t262_expect *x, const char *path);

/* Rewrites file from the tests (sorted by path): every failing test that ran is listed, with
 * the reason of its old entry (but "NAME not implemented", derived again) or a derived one;
 * entries of tests that did not run are kept. Returns 0 or -1 (errno). */
int t262_expect_write(const char *file, const char *engine, const struct t262_expect *old,
                      const struct t262_test *tests, size_t count);

void t262_expect_free(struct t262_expect *x);

/* Writes the area of a test path (its two path components after "test/") to dst. */
void t262_area(const char *path, char *dst, size_t cap);

#endif
