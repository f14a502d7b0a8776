/* One set of JavaScript snippets through the worker and the process tier: value, stdout, stderr
 * and error code must be identical. Prints a diff for every difference and a summary line.
 * Given case files (tiers FILE.js...), runs those instead, each also checked
 * against its "//! key: value" header: value (JSON), stdout (JSON string), error (code), message
 * (substring), context and policy (JSON). */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sbx.h>

struct snippet {
    const char *name;
    const char *code;
    const char *context; /* JSON or NULL */
    const char *policy;  /* JSON or NULL for the shared default */
};

static const struct snippet snippets[] = {
    {"number", "return 1;", NULL, NULL},
    {"string", "return 'str';", NULL, NULL},
    {"true", "return true;", NULL, NULL},
    {"false", "return false;", NULL, NULL},
    {"null", "return null;", NULL, NULL},
    {"undefined", "return undefined;", NULL, NULL},
    {"no-return", "var x = 1;", NULL, NULL},
    {"array", "return [1, 'two', [3]];", NULL, NULL},
    {"object", "return {a: {b: [1, {c: null}]}, d: 'e'};", NULL, NULL},
    {"float", "return 1.5e-7;", NULL, NULL},
    {"negative-zero", "return -0;", NULL, NULL},
    {"nan", "return NaN;", NULL, NULL},
    {"big", "return 12345678901234567890;", NULL, NULL},
    {"console-log", "console.log('hello'); return 1;", NULL, NULL},
    {"console-args", "console.log('a', 1, {b: 2}, [3], null, true); return 0;", NULL, NULL},
    {"console-error", "console.error('oops'); console.warn('careful'); return 0;", NULL, NULL},
    {"console-info", "console.info('i'); console.debug('d'); return 0;", NULL, NULL},
    {"context-number", "return context.x * 2;", "{\"x\": 21}", NULL},
    {"context-nested", "return context.list.length + context.o.k;",
     "{\"list\":[1,2],\"o\":{\"k\":1}}", NULL},
    {"context-null", "return context;", NULL, NULL},
    {"context-string", "return typeof context;", "\"text\"", NULL},
    {"throw-error", "throw new Error('boom');", NULL, NULL},
    {"throw-string", "throw 'plain';", NULL, NULL},
    {"syntax-error", "return (;", NULL, NULL},
    {"reference-error", "return notDefined + 1;", NULL, NULL},
    {"type-error", "var o = null; return o.x;", NULL, NULL},
    {"timeout", "while (true) {}", NULL, "{\"timeoutMs\": 300}"},
    {"timeout-try", "while (true) { try { while (true) {} } catch (e) {} }", NULL,
     "{\"timeoutMs\": 300}"},
    {"output-cap", "for (var i = 0; i < 1000; i++) console.log('0123456789'); return i;", NULL,
     "{\"maxOutputBytes\": 100}"},
    {"value-cap", "return 'v'.repeat(200);", NULL, "{\"maxOutputBytes\": 100}"},
    {"unicode",
     "console.log('\\u65e5\\u672c \xF0\x9F\x98\x80'); return 'h\xC3\xA9llo \xF0\x9F\x98\x80';",
     NULL, NULL},
    {"unicode-context", "return context.s + '!';", "{\"s\": \"\xF0\x9F\x98\x80\"}", NULL},
    {"cyclic", "var a = {}; a.self = a; return a;", NULL, NULL},
    {"date", "return new Date(0).toISOString();", NULL, NULL},
    {"regexp", "return 'abcb'.replace(/b/g, 'x');", NULL, NULL},
    {"sort", "return [3, 1, 2].sort();", NULL, NULL},
    {"json-roundtrip", "return JSON.parse(JSON.stringify({k: [1, 2]}));", NULL, NULL},
    {"no-process", "return typeof process + ' ' + typeof require;", NULL, NULL},
    {"pollution-write", "Object.prototype.polluted = 1; return ({}).polluted;", NULL, NULL},
    {"pollution-read", "return ({}).polluted === undefined;", NULL, NULL},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int same(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

static int run(sbx_backend backend, const struct snippet *s, sbx_result *r)
{
    char err[256];
    sbx_policy *p = NULL;
    const char *pol = s->policy ? s->policy : "{}";
    if (sbx_policy_parse(pol, strlen(pol), &p, err, sizeof(err)) != SBX_OK) {
        fprintf(stderr, "%s: %s\n", s->name, err);
        return -1;
    }
    sbx_sandbox *sb = NULL;
    sbx_err e = sbx_sandbox_create(backend, p, &sb);
    sbx_policy_destroy(p);
    if (e) {
        fprintf(stderr, "%s: create %s: %s\n", s->name, sbx_backend_name(backend), sbx_err_name(e));
        return -1;
    }
    sbx_run_input in = {.code = s->code, .code_len = strlen(s->code), .context_json = s->context};
    sbx_sandbox_run(sb, &in, r);
    sbx_sandbox_destroy(sb);
    return 0;
}

static int compare(const struct snippet *s, const sbx_result *w, const sbx_result *p)
{
    int diffs = 0;
#define DIFF(field, fmt, a, b)                                                                     \
    do {                                                                                           \
        printf("FAIL %s: %s differs\n  - worker:  " fmt "\n  + process: " fmt "\n", s->name,       \
               field, a, b);                                                                       \
        diffs++;                                                                                   \
    } while (0)
    if (w->ok != p->ok)
        DIFF("ok", "%d", w->ok, p->ok);
    if (w->error != p->error)
        DIFF("error", "%s", sbx_err_name(w->error), sbx_err_name(p->error));
    if (!same(w->value_json, p->value_json))
        DIFF("value", "%s", w->value_json ? w->value_json : "(none)",
             p->value_json ? p->value_json : "(none)");
    if (!same(w->stdout_data, p->stdout_data) || w->stdout_truncated != p->stdout_truncated)
        DIFF("stdout", "%.200s", w->stdout_data ? w->stdout_data : "",
             p->stdout_data ? p->stdout_data : "");
    if (!same(w->stderr_data, p->stderr_data) || w->stderr_truncated != p->stderr_truncated)
        DIFF("stderr", "%.200s", w->stderr_data ? w->stderr_data : "",
             p->stderr_data ? p->stderr_data : "");
    /* Error messages: identical except for timeouts, whose text may name the tier's clock. */
    if (w->error != SBX_E_TIMEOUT && !same(w->error_message, p->error_message))
        DIFF("message", "%s", w->error_message ? w->error_message : "(none)",
             p->error_message ? p->error_message : "(none)");
#undef DIFF
    return diffs;
}

/* A case file: its text is the body, its header the expectations. */
struct case_file {
    char *text;
    char *value, *stdout_json, *error, *message, *context, *policy;
};

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    char chunk[4096];
    size_t n;
    while (mem && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        fwrite(chunk, 1, n, mem);
    fclose(f);
    if (!mem || fclose(mem) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int load_case(const char *path, struct case_file *c)
{
    static const struct {
        const char *key;
        size_t offset;
    } keys[] = {
        {"value", offsetof(struct case_file, value)},
        {"stdout", offsetof(struct case_file, stdout_json)},
        {"error", offsetof(struct case_file, error)},
        {"message", offsetof(struct case_file, message)},
        {"context", offsetof(struct case_file, context)},
        {"policy", offsetof(struct case_file, policy)},
    };
    memset(c, 0, sizeof(*c));
    if (!(c->text = read_text(path)))
        return -1;
    for (char *line = c->text; line && strncmp(line, "//! ", 4) == 0;) {
        char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        for (size_t k = 0; k < COUNT(keys); k++) {
            size_t kl = strlen(keys[k].key);
            if (len > kl + 5 && strncmp(line + 4, keys[k].key, kl) == 0 && line[4 + kl] == ':')
                *(char **)((char *)c + keys[k].offset) = strndup(line + 6 + kl, len - 6 - kl);
        }
        line = nl ? nl + 1 : NULL;
    }
    return c->value || c->error ? 0 : -1;
}

static void free_case(struct case_file *c)
{
    free(c->text);
    free(c->value);
    free(c->stdout_json);
    free(c->error);
    free(c->message);
    free(c->context);
    free(c->policy);
}

/* Prints one FAIL line; returns 1, to be added to a count. */
__attribute__((format(printf, 1, 2))) static int failf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("FAIL ", stdout);
    vprintf(fmt, ap);
    putchar('\n');
    va_end(ap);
    return 1;
}

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

static int check_error(const char *name, const struct case_file *c, const sbx_result *r)
{
    int bad = 0;
    if (r->ok || strcmp(sbx_err_name(r->error), c->error) != 0)
        bad +=
            failf("%s: error %s, want %s", name, r->ok ? "none" : sbx_err_name(r->error), c->error);
    if (c->message && !strstr(or_empty(r->error_message), c->message))
        bad += failf("%s: message '%s' lacks '%s'", name, or_empty(r->error_message), c->message);
    return bad;
}

static int check_value(const char *name, const struct case_file *c, const sbx_result *r)
{
    if (!r->ok)
        return failf("%s: %s: %s", name, sbx_err_name(r->error), or_empty(r->error_message));
    json_t *want = json_loads(c->value, JSON_DECODE_ANY, NULL);
    json_t *got = r->value_json ? json_loads(r->value_json, JSON_DECODE_ANY, NULL) : NULL;
    int bad = !want || !got || !json_equal(want, got);
    if (bad)
        failf("%s: value %s, want %s", name, r->value_json ? r->value_json : "(none)", c->value);
    json_decref(want);
    json_decref(got);
    return bad;
}

/* The worker's result (the process tier's is identical by then) against the header. */
static int check_case(const char *name, const struct case_file *c, const sbx_result *r)
{
    int bad = 0;
    json_t *out = json_loads(c->stdout_json ? c->stdout_json : "\"\"", JSON_DECODE_ANY, NULL);
    if (!json_is_string(out) || !same(json_string_value(out), r->stdout_data))
        bad += failf("%s: stdout '%s', want %s", name, or_empty(r->stdout_data),
                     or_empty(c->stdout_json));
    json_decref(out);
    return bad + (c->error ? check_error(name, c, r) : check_value(name, c, r));
}

static int run_cases(int argc, char **argv)
{
    int passed = 0, failed = 0;
    for (int i = 1; i < argc; i++) {
        const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
        struct case_file c;
        sbx_result w = {0}, p = {0};
        int bad = 1;
        if (load_case(argv[i], &c) != 0) {
            printf("FAIL %s: cannot read it, or it has neither //! value nor //! error\n", name);
        } else {
            struct snippet s = {name, c.text, c.context, c.policy};
            if (run(SBX_BACKEND_WORKER, &s, &w) == 0 && run(SBX_BACKEND_PROCESS, &s, &p) == 0)
                bad = compare(&s, &w, &p) + check_case(name, &c, &w);
        }
        if (!bad)
            printf("ok   %-24s %s\n", name, w.ok ? "ok" : sbx_err_name(w.error));
        passed += !bad;
        failed += !!bad;
        free_case(&c);
        sbx_result_free(&w);
        sbx_result_free(&p);
    }
    printf("tiers: %d passed, %d failed\n", passed, failed);
    return failed || passed == 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        return run_cases(argc, argv);
    int passed = 0, failed = 0;
    for (size_t i = 0; i < COUNT(snippets); i++) {
        sbx_result w = {0}, p = {0};
        if (run(SBX_BACKEND_WORKER, &snippets[i], &w) ||
            run(SBX_BACKEND_PROCESS, &snippets[i], &p)) {
            failed++;
        } else if (compare(&snippets[i], &w, &p) == 0) {
            printf("ok   %-18s %s\n", snippets[i].name, w.ok ? "ok" : sbx_err_name(w.error));
            passed++;
        } else {
            failed++;
        }
        sbx_result_free(&w);
        sbx_result_free(&p);
    }
    printf("tiers: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
