/* tests/test262/runner.c: runs the test262 sample through a libsbx tier in this one process,
 * a sandbox per thread reused from test to test, and checks the outcomes against the
 * expected-failures list. The guest body evaluates the composed test as a global script with
 * indirect eval; `print` (async tests) writes to stdout, which is where the verdict is read. */
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>
#include <pthread.h>
#include <sbx.h>

#include "test262.h"

/* ES5 on purpose: it must parse on every engine the tier has had. Built-ins the test may
 * replace are captured before it runs; the verdict is a plain string. */
static const char guest_body[] =
    "var g = (0, eval)('this'), S = String, c = console, done = null, printed = false;\n"
    "var P = typeof Promise === 'function' ? Promise : null;\n"
    "g.print = function (s) { c.log(S(s)); printed = true; if (done) done('async'); };\n"
    "function describe(e) {\n"
    "  var n = '?', m = '?';\n"
    "  try { n = S(e !== null && e !== undefined && e.constructor ? e.constructor.name\n"
    "                                                             : typeof e); } catch (x) {}\n"
    "  try { m = S(e !== null && typeof e === 'object' && 'message' in e ? e.message : e); }\n"
    "  catch (x) {}\n"
    "  return 'throw ' + n + ': ' + m;\n"
    "}\n"
    "try { (0, eval)(context.src); } catch (e) { return describe(e); }\n"
    "if (!context.async) return 'ok';\n"
    "if (printed || !P) return 'async';\n"
    "return new P(function (resolve) { done = resolve; });\n";

struct opts {
    const char *root, *expected, *engine, *filter, *results, *backend_name;
    unsigned jobs, every, timeout_ms, memory_mb;
    bool update, verbose;
};

static struct opts opt = {
    .root = "../shared/test262",
    .engine = "the worker tier",
    .backend_name = "worker",
    .jobs = 2,
    .every = 1,
    .timeout_ms = 10000,
    .memory_mb = 256,
};

enum opt_kind { OPT_STR, OPT_UINT, OPT_FLAG };
static const struct {
    const char *name;
    enum opt_kind kind;
    size_t offset;
    const char *help;
} options[] = {
    {"--root", OPT_STR, offsetof(struct opts, root), "DIR     the sample (../shared/test262)"},
    {"--expected", OPT_STR, offsetof(struct opts, expected), "FILE  expected-failures list"},
    {"--update", OPT_FLAG, offsetof(struct opts, update), "        rewrite the list from this run"},
    {"--engine", OPT_STR, offsetof(struct opts, engine), "NAME    engine named in the list"},
    {"--backend", OPT_STR, offsetof(struct opts, backend_name), "TIER   worker or process"},
    {"--filter", OPT_STR, offsetof(struct opts, filter), "TEXT    only paths containing TEXT"},
    {"--every", OPT_UINT, offsetof(struct opts, every), "N        every Nth test only"},
    {"--jobs", OPT_UINT, offsetof(struct opts, jobs), "N         threads (2)"},
    {"--timeout-ms", OPT_UINT, offsetof(struct opts, timeout_ms), "N   per test (10000)"},
    {"--memory-mb", OPT_UINT, offsetof(struct opts, memory_mb), "N    per test (256)"},
    {"--results", OPT_STR, offsetof(struct opts, results), "FILE   PASS/FAIL line per test"},
    {"--verbose", OPT_FLAG, offsetof(struct opts, verbose), "       print every failure"},
};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int usage(const char *why)
{
    fprintf(stderr, "test262: %s\nusage: test262 [options]\n", why);
    for (size_t i = 0; i < COUNT(options); i++)
        fprintf(stderr, "  %s %s\n", options[i].name, options[i].help);
    return 2;
}

static int parse_opts(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        size_t k = 0;
        while (k < COUNT(options) && strcmp(argv[i], options[k].name) != 0)
            k++;
        if (k == COUNT(options))
            return usage(argv[i]);
        char *field = (char *)&opt + options[k].offset;
        if (options[k].kind == OPT_FLAG) {
            *(bool *)field = true;
            continue;
        }
        if (++i == argc)
            return usage("option needs a value");
        if (options[k].kind == OPT_STR) {
            *(const char **)field = argv[i];
            continue;
        }
        char *end;
        unsigned long v = strtoul(argv[i], &end, 10);
        if (*end || v == 0 || v > 1000000)
            return usage("want a number in 1..1000000");
        *(unsigned *)field = (unsigned)v;
    }
    return 0;
}

/* The tests, sorted by path. */
static struct t262_test *tests;
static size_t test_count, test_cap;
static size_t root_len;

static int collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    size_t n = strlen(path);
    if (type != FTW_F || n < 3 || strcmp(path + n - 3, ".js") != 0 || strstr(path, "_FIXTURE"))
        return 0;
    const char *rel = path + root_len + 1;
    if (opt.filter && !strstr(rel, opt.filter))
        return 0;
    if (test_count == test_cap) {
        test_cap = test_cap ? test_cap * 2 : 1024;
        struct t262_test *nt = realloc(tests, test_cap * sizeof(*nt));
        if (!nt)
            return -1;
        tests = nt;
    }
    memset(&tests[test_count], 0, sizeof(*tests));
    if (!(tests[test_count].path = strdup(rel)))
        return -1;
    test_count++;
    return 0;
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const struct t262_test *)a)->path, ((const struct t262_test *)b)->path);
}

/* Every --every'th test of the sorted list is kept. */
static int collect_tests(void)
{
    char dir[4096];
    root_len = strlen(opt.root);
    snprintf(dir, sizeof(dir), "%s/test", opt.root);
    if (nftw(dir, collect, 32, FTW_PHYS) != 0)
        return -1;
    if (test_count)
        qsort(tests, test_count, sizeof(*tests), by_path);
    size_t kept = 0;
    for (size_t i = 0; i < test_count; i++) {
        if (i % opt.every == 0)
            tests[kept++] = tests[i];
        else
            free(tests[i].path);
    }
    test_count = kept;
    return 0;
}

__attribute__((format(printf, 2, 3))) static void fail(struct t262_test *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    t->passed = false;
    vsnprintf(t->reason, sizeof(t->reason), fmt, ap);
    va_end(ap);
    for (char *p = t->reason; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
}

/* The verdict the guest body returned: "ok", "async" or "throw NAME: MESSAGE". */
static void judge_verdict(struct t262_test *t, const struct t262_meta *m, const char *v,
                          const sbx_result *r)
{
    const char *neg = m->negative_type;
    size_t n = strlen(neg);
    t->passed = true;
    if (strncmp(v, "throw ", 6) == 0) {
        if (!neg[0])
            fail(t, "%s", v + 6);
        else if (strncmp(v + 6, neg, n) != 0 || v[6 + n] != ':')
            fail(t, "expected %s, got %s", neg, v + 6);
    } else if (neg[0]) {
        fail(t, "expected %s (%s phase), ran to completion", neg, m->negative_phase);
    } else if (strcmp(v, "async") == 0) {
        const char *out = r->stdout_data ? r->stdout_data : "";
        const char *bad = strstr(out, "Test262:AsyncTestFailure");
        if (bad)
            fail(t, "%.*s", (int)strcspn(bad, "\n"), bad);
        else if (!strstr(out, "Test262:AsyncTestComplete"))
            fail(t, "async test did not complete");
    } else if (strcmp(v, "ok") != 0) {
        fail(t, "unexpected verdict %.60s", v);
    }
}

static void judge(struct t262_test *t, const struct t262_meta *m, const sbx_result *r)
{
    t->ran = true;
    if (!r->ok) {
        fail(t, "%s: %s", sbx_err_name(r->error), r->error_message ? r->error_message : "");
        return;
    }
    json_t *v = r->value_json ? json_loads(r->value_json, JSON_DECODE_ANY, NULL) : NULL;
    if (json_is_string(v))
        judge_verdict(t, m, json_string_value(v), r);
    else
        fail(t, "unexpected value %.60s", r->value_json ? r->value_json : "(none)");
    json_decref(v);
}

/* The built-ins/NAME areas whose NAME the engine lacks as a global, probed once up front. */
static char missing_areas[64][48];
static size_t missing_area_count;

/* True when the comma-separated list has item as one of its entries. */
static bool has_item(const char *list, const char *item)
{
    size_t n = strlen(item);
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, item, n) == 0)
            return true;
        p += len;
        p += strspn(p, ", ");
    }
    return false;
}

static void area_missing(struct t262_test *t)
{
    char area[256];
    t262_area(t->path, area, sizeof(area));
    if (strncmp(area, "built-ins/", 10) != 0 || !has_item(t->features, area + 10))
        return;
    for (size_t i = 0; i < missing_area_count; i++)
        if (strcmp(area + 10, missing_areas[i]) == 0)
            memcpy(t->missing, missing_areas[i], sizeof(t->missing));
}

static const sbx_policy *policy;
static sbx_backend backend;

/* built-ins/ areas named after intrinsics that no engine has as a global. */
static bool is_intrinsic_area(const char *name)
{
    static const char *const intrinsics[] = {
        "TypedArray",    "TypedArrayConstructors", "NativeErrors",           "ThrowTypeError",
        "AsyncFunction", "GeneratorFunction",      "AsyncGeneratorFunction", "global",
    };
    size_t n = strlen(name);
    if (n > 9 && strcmp(name + n - 9, "Prototype") == 0)
        return true;
    for (size_t i = 0; i < COUNT(intrinsics); i++)
        if (strcmp(name, intrinsics[i]) == 0)
            return true;
    return false;
}

/* Asks the engine which built-ins/NAME areas name no global. */
static void probe_areas(void)
{
    static const char probe[] = "return typeof (0, eval)('this')[context];";
    sbx_sandbox *sb = NULL;
    if (sbx_sandbox_create(backend, policy, &sb))
        return;
    for (size_t i = 0; i < test_count && missing_area_count < COUNT(missing_areas); i++) {
        char area[256], ctx[300];
        t262_area(tests[i].path, area, sizeof(area));
        if (strncmp(area, "built-ins/", 10) != 0 || strlen(area + 10) >= 48 ||
            is_intrinsic_area(area + 10) ||
            (i > 0 && strncmp(tests[i - 1].path + 5, area, strlen(area)) == 0))
            continue;
        snprintf(ctx, sizeof(ctx), "\"%s\"", area + 10);
        sbx_run_input in = {.code = probe, .code_len = sizeof(probe) - 1, .context_json = ctx};
        sbx_result r = {0};
        sbx_sandbox_run(sb, &in, &r);
        if (r.ok && r.value_json && strcmp(r.value_json, "\"undefined\"") == 0)
            snprintf(missing_areas[missing_area_count++], 48, "%s", area + 10);
        sbx_result_free(&r);
    }
    sbx_sandbox_destroy(sb);
}

/* Composes the test and its context {"src": SCRIPT, "async": BOOL}; NULL with t failed. */
static char *test_context(struct t262_test *t, struct t262_meta *m)
{
    char path[4096], err[256];
    snprintf(path, sizeof(path), "%s/%s", opt.root, t->path);
    size_t len;
    char *src = t262_read_file(path, &len), *script = NULL, *ctx = NULL;
    if (!src) {
        fail(t, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    if (t262_meta_parse(src, m, err, sizeof(err)) ||
        !(script = t262_compose(opt.root, m, src, len, err, sizeof(err)))) {
        fail(t, "runner: %s", err);
    } else {
        snprintf(t->features, sizeof(t->features), "%s", m->features);
        area_missing(t);
        json_t *o = json_pack("{s:s,s:b}", "src", script, "async", m->async);
        if (!o || !(ctx = json_dumps(o, JSON_COMPACT)))
            fail(t, "runner: test is not UTF-8 or out of memory");
        json_decref(o);
    }
    free(src);
    free(script);
    return ctx;
}

static atomic_size_t next_test;

/* Runs one test on *sb; a run that timed out or left the tier unusable gets a new sandbox. */
static void run_test(sbx_sandbox **sb, struct t262_test *t)
{
    struct t262_meta m;
    char *ctx = test_context(t, &m);
    if (!ctx)
        return;
    sbx_err e = *sb ? SBX_OK : sbx_sandbox_create(backend, policy, sb);
    if (e) {
        fail(t, "runner: cannot create a sandbox: %s", sbx_err_name(e));
    } else {
        sbx_run_input in = {
            .code = guest_body, .code_len = sizeof(guest_body) - 1, .context_json = ctx};
        sbx_result r = {0};
        sbx_sandbox_run(*sb, &in, &r);
        judge(t, &m, &r);
        if (r.limit == SBX_LIMIT_TIMEOUT || r.error == SBX_E_UNAVAILABLE ||
            r.error == SBX_E_DISPOSED) {
            sbx_sandbox_destroy(*sb);
            *sb = NULL;
        }
        sbx_result_free(&r);
    }
    free(ctx);
}

static void *run_thread(void *arg)
{
    (void)arg;
    sbx_sandbox *sb = NULL;
    for (size_t i; (i = atomic_fetch_add(&next_test, 1)) < test_count;) {
        tests[i].ran = true;
        run_test(&sb, &tests[i]);
    }
    sbx_sandbox_destroy(sb);
    return NULL;
}

static sbx_policy *make_policy(unsigned timeout_ms)
{
    char json[128], err[256];
    snprintf(json, sizeof(json), "{\"timeoutMs\": %u, \"memoryBytes\": %llu}", timeout_ms,
             (unsigned long long)opt.memory_mb << 20);
    sbx_policy *p;
    if (sbx_policy_parse(json, strlen(json), &p, err, sizeof(err)) != SBX_OK) {
        fprintf(stderr, "test262: policy: %s\n", err);
        return NULL;
    }
    return p;
}

/* Runs every test on opt.jobs threads. */
static int run_all(void)
{
    sbx_policy *p = make_policy(opt.timeout_ms);
    if (!p)
        return -1;
    policy = p;
    probe_areas();
    pthread_t th[64];
    unsigned n = opt.jobs < COUNT(th) ? opt.jobs : COUNT(th), started = 0;
    while (started < n && pthread_create(&th[started], NULL, run_thread, NULL) == 0)
        started++;
    if (started == 0)
        run_thread(NULL);
    for (unsigned i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    sbx_policy_destroy(p);
    return 0;
}

/* A timeout on a loaded host is not a verdict: tests that timed out and are not listed to fail
 * (all of them when rewriting the list) run again, one at a time, with RETRY_FACTOR times the
 * time. The slowest passing tests need 2.5 s of CPU; a real hang fails again. */
#define RETRY_FACTOR 4
static void retry_timeouts(const struct t262_expect *x)
{
    sbx_policy *p = make_policy(opt.timeout_ms * RETRY_FACTOR);
    sbx_sandbox *sb = NULL;
    if (!p)
        return;
    policy = p;
    for (size_t i = 0; i < test_count; i++) {
        struct t262_test *t = &tests[i];
        if (t->passed || strncmp(t->reason, "SANDBOX_TIMEOUT", 15) != 0 ||
            (!opt.update && t262_expect_find(x, t->path)))
            continue;
        run_test(&sb, t);
        printf("retried %s alone with %u ms: %s\n", t->path, opt.timeout_ms * RETRY_FACTOR,
               t->passed ? "passed" : t->reason);
    }
    sbx_sandbox_destroy(sb);
    sbx_policy_destroy(p);
}

/* The per-area table: tests are sorted by path, so an area is one contiguous run. */
static void print_areas(void)
{
    printf("%-40s %6s %6s %6s %7s\n", "area", "tests", "pass", "fail", "pass%");
    for (size_t i = 0; i < test_count;) {
        char area[256], other[256];
        t262_area(tests[i].path, area, sizeof(area));
        size_t total = 0, pass = 0;
        for (; i < test_count; i++, total++) {
            t262_area(tests[i].path, other, sizeof(other));
            if (strcmp(area, other) != 0)
                break;
            pass += tests[i].passed;
        }
        printf("%-40s %6zu %6zu %6zu %6.1f%%\n", area, total, pass, total - pass,
               100.0 * (double)pass / (double)total);
    }
}

static int write_results(void)
{
    FILE *f = fopen(opt.results, "w");
    if (!f)
        return -1;
    for (size_t i = 0; i < test_count; i++)
        fprintf(f, "%s %s%s%s\n", tests[i].passed ? "PASS" : "FAIL", tests[i].path,
                tests[i].passed ? "" : "  # ", tests[i].passed ? "" : tests[i].reason);
    return fclose(f);
}

/* Compares with the list: an unlisted failure and a listed pass (stale entry) each fail.
 * Returns the number of mismatches. */
static size_t check_expected(const struct t262_expect *x)
{
    size_t bad = 0;
    for (size_t i = 0; i < test_count; i++) {
        const struct t262_test *t = &tests[i];
        bool listed = t262_expect_find(x, t->path) != NULL;
        if (!t->passed && !listed)
            printf("FAIL %s: unexpected failure: %s\n", t->path, t->reason);
        else if (t->passed && listed)
            printf("FAIL %s: passes but is listed as expected to fail (stale entry)\n", t->path);
        else if (opt.verbose && !t->passed)
            printf("xfail %s: %s\n", t->path, t->reason);
        bad += t->passed == listed;
    }
    if (opt.filter || opt.every > 1)
        return bad;
    for (size_t i = 0; i < x->count; i++) {
        struct t262_test key = {.path = x->entries[i].path};
        if (!bsearch(&key, tests, test_count, sizeof(*tests), by_path)) {
            printf("FAIL %s: listed but not in the sample (stale entry)\n", key.path);
            bad++;
        }
    }
    return bad;
}

int main(int argc, char **argv)
{
    int rc = parse_opts(argc, argv);
    if (rc)
        return rc;
    if (sbx_backend_from_name(opt.backend_name, &backend) || backend == SBX_BACKEND_WASM)
        return usage("--backend is worker or process");
    if (collect_tests() || test_count == 0) {
        fprintf(stderr, "test262: no tests under %s/test%s%s\n", opt.root,
                opt.filter ? " matching " : "", opt.filter ? opt.filter : "");
        return 1;
    }
    char err[512];
    struct t262_expect x = {0};
    if (opt.expected && t262_expect_load(opt.expected, &x, err, sizeof(err))) {
        fprintf(stderr, "test262: %s\n", err);
        return 1;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (run_all())
        return 1;
    retry_timeouts(&x);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    size_t pass = 0;
    for (size_t i = 0; i < test_count; i++)
        pass += tests[i].passed;
    print_areas();
    printf("test262 on %s (%s tier, %u threads): %zu passed, %zu failed of %zu (%.1f%%) in "
           "%.1f s\n",
           opt.engine, opt.backend_name, opt.jobs, pass, test_count - pass, test_count,
           100.0 * (double)pass / (double)test_count, secs);
    if (opt.results && write_results())
        fprintf(stderr, "test262: %s: %s\n", opt.results, strerror(errno));
    if (opt.update) {
        if (!opt.expected || t262_expect_write(opt.expected, opt.engine, &x, tests, test_count)) {
            fprintf(stderr, "test262: cannot write %s: %s\n",
                    opt.expected ? opt.expected : "(no --expected)", strerror(errno));
            return 1;
        }
        printf("wrote %s\n", opt.expected);
        t262_expect_free(&x);
        return 0;
    }
    size_t bad = check_expected(&x);
    /* The line scripts/run-tests.sh counts: outcomes as expected vs not. */
    printf("expectations: %zu passed, %zu failed\n", test_count - bad, bad);
    t262_expect_free(&x);
    return bad ? 1 : 0;
}
