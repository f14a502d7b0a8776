/* One set of JavaScript snippets through the worker and the process tier: value, stdout, stderr
 * and error code must be identical. Prints a diff for every difference and a summary line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(void)
{
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
