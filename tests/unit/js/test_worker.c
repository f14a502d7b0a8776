/* tests/unit/js/test_worker.c: the worker tier through the public API, one case per behaviour
 * in issue 3: values, console, context, timeouts (with the 50 ms bound measured), abort, limits,
 * isolation between runs, emoji, 1000 runs (leak-checked under SAN=1) and 64 concurrent runs. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sbx.h>

#include "core/backend.h"
#include "js/worker.h"
#include "run_delay.h"
#include "sbx_test.h"

/* The bound the issue sets on regaining control after a deadline or an abort. */
#define BOUND_MS 50.0

struct run {
    sbx_result r;
    double wall_ms; /* measured around sbx_sandbox_run */
};

static sbx_sandbox *sandbox(const char *policy_json)
{
    return sbx_test_sandbox(SBX_BACKEND_WORKER, policy_json);
}

static void run_on(sbx_sandbox *sb, const char *code, const char *context, struct run *out)
{
    sbx_run_input in = {.code = code, .code_len = strlen(code), .context_json = context};
    uint64_t t0 = sbx__now_ns();
    ck_assert_int_eq(sbx_sandbox_run(sb, &in, &out->r), SBX_OK);
    out->wall_ms = (double)(sbx__now_ns() - t0) / 1e6;
}

/* One run in a fresh sandbox under policy_json (NULL = defaults). */
static void run1(const char *policy_json, const char *code, const char *context, struct run *out)
{
    sbx_sandbox *sb = sandbox(policy_json);
    run_on(sb, code, context, out);
    sbx_sandbox_destroy(sb);
}

static void expect_value(const char *code, const char *context, const char *json)
{
    struct run x;
    run1(NULL, code, context, &x);
    ck_assert_msg(x.r.ok, "%s: %s", code, x.r.error_message ? x.r.error_message : "");
    ck_assert_str_eq(x.r.value_json, json);
    sbx_result_free(&x.r);
}

static void expect_error(const char *policy, const char *code, sbx_err err, const char *needle)
{
    struct run x;
    run1(policy, code, NULL, &x);
    ck_assert_msg(!x.r.ok && x.r.error == err, "%s: got %s (%s)", code, sbx_err_name(x.r.error),
                  x.r.error_message ? x.r.error_message : "");
    if (needle)
        ck_assert_msg(strstr(x.r.error_message, needle), "%s: message '%s' lacks '%s'", code,
                      x.r.error_message, needle);
    sbx_result_free(&x.r);
}

/* Asserts a stopped run came back within timeout + BOUND_MS, as seen by the caller, not
 * counting the time the caller's thread was ready but the host ran others after the deadline
 * (run_delay.h: its wake-up at the deadline raced the load; at load ~18 on 2 cores that alone
 * missed the bound twice in a row). When the bound is still missed, the run is repeated once
 * and the repeat must meet it (a miss is reported on stderr, so a real regression fails both). */
static void expect_timeout(const char *code, unsigned timeout_ms)
{
    char policy[64];
    snprintf(policy, sizeof(policy), "{\"timeoutMs\":%u}", timeout_ms);
    for (int attempt = 1;; attempt++) {
        struct run x;
        struct sbx_test_wait_probe probe;
        sbx_test_wait_probe_start(&probe, sbx__now_ns() + timeout_ms * 500000ull); /* halfway */
        run1(policy, code, NULL, &x);
        double waited_ms = sbx_test_wait_probe_end(&probe);
        ck_assert_msg(x.r.error == SBX_E_TIMEOUT, "%s: %s", code, sbx_err_name(x.r.error));
        ck_assert_int_eq(x.r.limit, SBX_LIMIT_TIMEOUT);
        ck_assert_msg(x.wall_ms >= timeout_ms - 1, "%s: early after %.1f ms", code, x.wall_ms);
        bool in_bound = x.wall_ms - waited_ms <= timeout_ms + BOUND_MS;
        sbx_result_free(&x.r);
        if (in_bound)
            return;
        fprintf(stderr,
                "note: %s: returned after %.1f ms (%.1f ms of it waiting for a CPU, probe %.1f ms "
                "late; timeout %u), attempt %d\n",
                code, x.wall_ms, waited_ms, probe.late_ms, timeout_ms, attempt);
        ck_assert_msg(attempt < 2, "%s: bound missed twice", code);
    }
}

/* Abandoned workers must be reaped once their engine reaches a poll point. */
static void expect_reaped(void)
{
    for (int i = 0; i < 1000 && sbx__js_abandoned_count() > 0; i++)
        usleep(10000);
    ck_assert_int_eq(sbx__js_abandoned_count(), 0);
}

START_TEST(simple_value)
{
    expect_value("return context.a + 1", "{\"a\":41}", "42");
    expect_value("return 'a' + 'b'", NULL, "\"ab\"");
    expect_value("return [1, {x: null}, true]", NULL, "[1,{\"x\":null},true]");
    expect_value("return undefined", NULL, "null");
    expect_value("var x = 1", NULL, "null");
    expect_value("return 2 // trailing comment", NULL, "2");
}
END_TEST

START_TEST(console_capture)
{
    struct run x;
    run1(NULL,
         "console.log('a', 1, {b: [2]}, null, undefined); console.info('i'); console.debug('d');"
         "console.error('e', new Error('boom')); console.warn('w'); return 0",
         NULL, &x);
    ck_assert(x.r.ok);
    ck_assert_str_eq(x.r.stdout_data, "a 1 { b: [ 2 ] } null undefined\ni\nd\n");
    ck_assert_str_eq(x.r.stderr_data, "e Error: boom\nw\n");
    ck_assert_uint_eq(x.r.stdout_len, strlen(x.r.stdout_data));
    ck_assert(!x.r.stdout_truncated && !x.r.stderr_truncated);
    sbx_result_free(&x.r);
}
END_TEST

START_TEST(context_injection)
{
    expect_value("return context", "{\"n\":[1,2.5,-3],\"s\":\"q\\\"\",\"o\":{\"t\":true}}",
                 "{\"n\":[1,2.5,-3],\"s\":\"q\\\"\",\"o\":{\"t\":true}}");
    expect_value("return context === null", NULL, "true");
    /* A copy, not a host object: __proto__ in JSON is an own data property, not a prototype. */
    expect_value("return [({}).polluted, context.polluted, Object.keys(context)]",
                 "{\"__proto__\":{\"polluted\":1}}", "[null,null,[\"__proto__\"]]");
    struct run x;
    run1(NULL, "return context", "{not json", &x);
    ck_assert_int_eq(x.r.error, SBX_E_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(x.r.error_message, "context"));
    sbx_result_free(&x.r);
}
END_TEST

START_TEST(timeout_loops)
{
    expect_timeout("while (true) {}", 100);
    expect_timeout("try { while (true) {} } catch (e) {}", 100);
    expect_timeout("for (;;) { try { while (true) {} } catch (e) {} finally { continue; } }", 100);
    expect_timeout("function f() { try { f(); } catch (e) { f(); } } f();", 100);
}
END_TEST

START_TEST(timeout_regexp)
{
    expect_timeout("return /(a+)+b/.test('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')", 100);
    expect_timeout("return /^(\\w+\\s?)*$/.test('a'.repeat(5000) + '!')", 100);
}
END_TEST

/* One long native call: a default sort of 2M strings never returns to the bytecode loop, yet
 * the caller is back in time. (300k numbers sort too fast to be sure to hold the deadline, and
 * SpiderMonkey scans huge sparse array-likes such as {length: 2**31 - 1} by their few real
 * keys, so those are quick there.) */
/* One default sort whose cost does not depend on the host's speed: SORT_COUNT substrings of
 * one flat string, SORT_BYTES long, that differ only near their ends, in reverse order. They
 * share the string's characters (dependent strings: no memory per element), so building them
 * takes milliseconds, while each of the sort's ~10^5 comparisons scans megabytes: about 1 ms of
 * CPU each here, minutes in all, so no host finishes before the deadline or the abort. The
 * engine polls for interrupts once per comparison (CompareStringValues), never in between. */
#define SORT_INPUT                                                                                 \
    "var L = 4e6, N = 20000, big = 'a'.repeat(L) + 'b'.repeat(N); big.indexOf('c');"               \
    "var a = []; for (var i = N - 1; i >= 0; i--) a.push(big.substring(i, i + L));"
#define LONG_SORT SORT_INPUT "a.sort(); return a.length"

/* The deadline falls inside one long native call (the sort), yet the caller is back in time.
 * Control: building the input alone ends well within the same timeout. */
START_TEST(timeout_native_call)
{
    struct run x;
    run1("{\"timeoutMs\":500}", SORT_INPUT "return a.length", NULL, &x);
    ck_assert_msg(x.r.ok, "building the input: %s", x.r.error_message);
    ck_assert_str_eq(x.r.value_json, "20000");
    sbx_result_free(&x.r);
    expect_timeout(LONG_SORT, 500);
    expect_reaped();
}
END_TEST

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Issue 10, item 4: naive substring searches (8 MB haystack, 256 KiB needle, no hit: about
 * 2 * 10^12 byte comparisons) run inside one native call SpiderMonkey never interrupts. Each
 * caller is back in time; 16 such stuck runs then use almost no CPU (their threads are
 * throttled from 100 ms after the stop) and the tier still serves the next run. */
START_TEST(stuck_runs_throttled)
{
    static const char *const stuck[] = {
        "var h = 'a'.repeat(8e6); return h.indexOf('a'.repeat(262144) + 'b')",
        "var h = 'a'.repeat(8e6); return h.split('a'.repeat(262144) + 'b')",
        "var h = 'a'.repeat(8e6); return h.replace('a'.repeat(262144) + 'b', '')",
    };
    for (int i = 0; i < 16; i++)
        expect_timeout(stuck[i % 3], 300);
    ck_assert_int_ge(sbx__js_abandoned_count(), 16); /* still stuck: the control */
    usleep(300 * 1000);
    double t0 = cpu_ms();
    usleep(1000 * 1000);
    double used = cpu_ms() - t0;
    ck_assert_msg(used < 150, "16 stuck runs used %.0f ms of CPU in 1 s", used);
    expect_value("return [1, 2].map(x => x * 2)", NULL, "[2,4]");
}
END_TEST

/* An engine that does not react to its stop (simulated with the test switch) is abandoned: the
 * caller is back in time, the worker is reaped later, and too many such workers make new runs
 * fail fast with SANDBOX_UNAVAILABLE instead of piling up threads. */
START_TEST(abandoned_workers)
{
    sbx__js_test_deaf_ms(500);
    struct run y;
    struct sbx_test_wait_probe probe;
    sbx_test_wait_probe_start(&probe, sbx__now_ns() + 25 * 1000000ull);
    run1("{\"timeoutMs\":50}", "while (true) {}", NULL, &y);
    double waited_ms = sbx_test_wait_probe_end(&probe);
    ck_assert_int_eq(y.r.error, SBX_E_TIMEOUT);
    ck_assert_ptr_nonnull(strstr(y.r.error_message, "background"));
    ck_assert_msg(
        y.wall_ms - waited_ms < 400,
        "not abandoned: back after %.1f ms (%.1f of it waiting for a CPU, probe %.1f ms late)",
        y.wall_ms, waited_ms, probe.late_ms);
    sbx_result_free(&y.r);
    ck_assert_int_eq(sbx__js_abandoned_count(), 1);
    expect_reaped();
    sbx__js_test_deaf_ms(8000);
    sbx_sandbox *sb = sandbox("{\"timeoutMs\":20}");
    struct run x;
    for (int i = 0; i < SBX_JS_MAX_ABANDONED; i++) {
        run_on(sb, "while (true) {}", NULL, &x);
        ck_assert_int_eq(x.r.error, SBX_E_TIMEOUT);
        ck_assert_ptr_nonnull(strstr(x.r.error_message, "background"));
        sbx_result_free(&x.r);
    }
    ck_assert_int_eq(sbx__js_abandoned_count(), SBX_JS_MAX_ABANDONED);
    sbx_run_input in = {.code = "return 1", .code_len = 8};
    ck_assert_int_eq(sbx_sandbox_run(sb, &in, &x.r), SBX_E_UNAVAILABLE);
    ck_assert_int_eq(x.r.error, SBX_E_UNAVAILABLE);
    sbx_result_free(&x.r);
    sbx__js_test_deaf_ms(0);
    expect_reaped();
    sbx_sandbox_destroy(sb);
    /* The tier serves again (under the default deadline: 20 ms is less than a loaded host may
     * take to start an engine, and "return 1" then timed out). */
    expect_value("return 1", NULL, "1");
}
END_TEST

START_TEST(syntax_error)
{
    expect_error(NULL, "var a = 1;\nreturn a +;", SBX_E_EXECUTION_FAILED, "SyntaxError");
    expect_error(NULL, "var a = 1;\nreturn a +;", SBX_E_EXECUTION_FAILED, "(line 2, column 11)");
    /* the async form (its header lines are not the body's) */
    expect_error(NULL, "await 1;\n  return (;", SBX_E_EXECUTION_FAILED, "(line 2, column 11)");
    expect_error(NULL, "} + {", SBX_E_EXECUTION_FAILED, "SyntaxError");
    expect_error(NULL, "return 1 } function x() {", SBX_E_EXECUTION_FAILED, "SyntaxError");
}
END_TEST

/* Issue 23, item 8: line and column, and the guest's stack as Node prints it, in both forms
 * of the body and for a thrown non-Error (its position where it was thrown). stack: a part of
 * the result's error_stack. */
static void expect_stack(const char *code, const char *message, const char *stack)
{
    struct run x;
    run1(NULL, code, NULL, &x);
    ck_assert_msg(!x.r.ok && x.r.error_message && strstr(x.r.error_message, message),
                  "%s: message '%s' lacks '%s'", code, x.r.error_message, message);
    ck_assert_msg(x.r.error_stack && strstr(x.r.error_stack, stack), "%s: stack '%s' lacks '%s'",
                  code, x.r.error_stack, stack);
    sbx_result_free(&x.r);
}

START_TEST(error_positions)
{
    const char *body = "function f(o) {\n  return o.x.y;\n}\nvar z = [1].map(() => f({}));";
    expect_stack(body,
                 "TypeError: can't access property \"y\", o.x is undefined (line 2, column 3)",
                 "TypeError: can't access property \"y\", o.x is undefined\n    at f (code:2:3)\n  "
                 "  at z< (code:4:24)\n"
                 "    at code:4:13");
    char async_body[256];
    snprintf(async_body, sizeof(async_body), "await null;\n%s", body);
    expect_stack(async_body,
                 "TypeError: can't access property \"y\", o.x is undefined (line 3, column 3)",
                 "TypeError: can't access property \"y\", o.x is undefined\n    at f (code:3:3)\n  "
                 "  at anonymous/z< (code:5:24)\n"
                 "    at anonymous (code:5:13)");
    expect_stack("var a = 1;\n  throw {a};", "uncaught { a: 1 } (line 2, column ",
                 "uncaught { a: 1 }\n    at code:2:");
    /* Issue 26, item 4: a compile error has a stack too: its line and its own position (it had
     * none: the compiler runs before any frame). Both forms of the body. */
    expect_stack("var a = 1;\n  return (;",
                 "SyntaxError: expected expression, got ';' (line 2, "
                 "column 11)",
                 "SyntaxError: expected expression, got ';'\n    at code:2:11");
    expect_stack("await 1;\nreturn (;", "(line 2, column 9)",
                 "SyntaxError: expected expression, got ';'\n    at code:2:9");
    /* A SyntaxError in code compiled at run time: its position is in that code, never shown as
     * the body's own line (it was "(line 1, column 4)"); the stack is where it was called. */
    expect_stack("var a = 1;\n  eval('1 +')",
                 "(line 1, column 4 of the code given to eval or Function, called at line 2, "
                 "column 3)",
                 "\n    at code:2:3");
    expect_stack("await 1;\neval('\\n\\n x y')",
                 "(line 3, column 4 of the code given to eval or Function, called at line 2, "
                 "column 1)",
                 "(code:2:1)");
    /* The controls: a RegExp pattern's and JSON's errors are at their caller. */
    expect_stack("var a = 1;\n  new RegExp('(')", "unterminated parenthetical (line 2, column 3)",
                 "\n    at code:2:3");
    expect_stack("var a = 1;\n  JSON.parse('{')", "JSON data (line 2, column 8)",
                 "\n    at code:2:8");
    /* A minified bundle's one long line: the column finds the spot. */
    static char line[8192];
    size_t n = 0;
    for (int i = 0; i < 500; i++) /* about 6,300 characters */
        n += (size_t)snprintf(line + n, sizeof(line) - n, "var v%d=%d;", i, i);
    snprintf(line + n, sizeof(line) - n, "null.x;");
    char want[96], frame[96];
    snprintf(want, sizeof(want), "(line 1, column %zu)", n + 1);
    snprintf(frame, sizeof(frame), "\n    at code:1:%zu", n + 1);
    expect_stack(line, want, frame);
}
END_TEST

START_TEST(runtime_error)
{
    expect_error(NULL, "var a = 1;\n\nnope();", SBX_E_EXECUTION_FAILED, "ReferenceError");
    expect_error(NULL, "var a = 1;\n\nnope();", SBX_E_EXECUTION_FAILED, "(line 3, column 1)");
    expect_error(NULL, "null.x", SBX_E_EXECUTION_FAILED, "TypeError");
    expect_error(NULL, "throw new RangeError('custom')", SBX_E_EXECUTION_FAILED, "custom");
    expect_error(NULL, "throw 42", SBX_E_EXECUTION_FAILED, "42");
    expect_error(NULL, "throw {code: 7}", SBX_E_EXECUTION_FAILED, "uncaught { code: 7 }");
    expect_error(NULL, "return function () {}", SBX_E_EXECUTION_FAILED, "function");
    expect_error(NULL, "var a = {}; a.a = a; return a", SBX_E_EXECUTION_FAILED, "JSON");
}
END_TEST

struct aborter {
    sbx_sandbox *sb;
    unsigned delay_ms;
    pid_t caller;
    uint64_t abort_ns;     /* when sbx_sandbox_abort was called */
    double caller_wait_ms; /* then, the caller's run_delay (run_delay.h) */
};

static void *abort_later(void *arg)
{
    struct aborter *a = arg;
    usleep(a->delay_ms * 1000);
    a->abort_ns = sbx__now_ns();
    a->caller_wait_ms = sbx_test_run_delay_ms(a->caller);
    sbx_sandbox_abort(a->sb);
    return NULL;
}

/* Returns the latency from sbx_sandbox_abort() to the run's return, less the time the caller
 * waited for a CPU in between (run_delay.h). */
static double abort_once(const char *code)
{
    sbx_sandbox *sb = sandbox("{\"timeoutMs\":10000}");
    struct aborter a = {.sb = sb, .delay_ms = 100, .caller = gettid()};
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, abort_later, &a), 0);
    struct run x;
    run_on(sb, code, NULL, &x);
    uint64_t back_ns = sbx__now_ns();
    double wait_ms = sbx_test_run_delay_ms(gettid());
    pthread_join(t, NULL);
    ck_assert_msg(x.r.error == SBX_E_ABORTED, "%s: %s", code, sbx_err_name(x.r.error));
    sbx_result_free(&x.r);
    sbx_sandbox_abort(sb); /* idle: remembered for a next run, and freed with the handle */
    sbx_sandbox_destroy(sb);
    double waited_ms = wait_ms > a.caller_wait_ms ? wait_ms - a.caller_wait_ms : 0;
    return (double)(back_ns - a.abort_ns) / 1e6 - waited_ms;
}

/* Same bound, discount and single retry on a busy host as expect_timeout. */
static void expect_abort(const char *code)
{
    double ms = abort_once(code);
    if (ms <= BOUND_MS)
        return;
    fprintf(stderr, "note: %s: back %.1f ms after the abort, retrying\n", code, ms);
    ms = abort_once(code);
    ck_assert_msg(ms <= BOUND_MS, "%s: back %.1f ms after the abort (twice)", code, ms);
}

START_TEST(abort_other_thread)
{
    expect_abort("while (true) {}");
    expect_abort("try { while (true) {} } catch (e) { while (true) {} }");
    expect_abort(LONG_SORT); /* the abort comes 100 ms in, inside the sort */
    expect_reaped();
}
END_TEST

START_TEST(memory_cap)
{
    /* A deadline far off (the check's own timeout is 30 s): the default 5 s raced the cap on a
     * loaded host, where the bomb got too little CPU to reach 8 MiB in time (SANDBOX_TIMEOUT). */
    const char *policy = "{\"memoryBytes\":8388608,\"timeoutMs\":20000}";
    struct run x;
    run1(policy, "var a = []; while (true) a.push({i: a.length, s: 'x' + a.length});", NULL, &x);
    ck_assert_int_eq(x.r.error, SBX_E_MEMORY_LIMIT);
    ck_assert_int_eq(x.r.limit, SBX_LIMIT_MEMORY);
    sbx_result_free(&x.r);
    /* Flat strings: their characters are malloc memory, counted like buffers. (s = s + s alone
     * builds ropes, which hit the engine's string length limit at almost no memory.) */
    expect_error(policy, "var s = 'x'; while (true) { s = s + s; s.indexOf('y'); }",
                 SBX_E_MEMORY_LIMIT, "memory");
    expect_error(policy, "return new ArrayBuffer(16 * 1024 * 1024)", SBX_E_MEMORY_LIMIT, NULL);
    /* A guest that survives its own allocation failure is fine. */
    expect_value("try { 'x'.repeat(1 << 29).indexOf('y'); } catch (e) { return 'caught'; }", NULL,
                 "\"caught\"");
    /* The smallest heap a policy allows still runs small code. */
    struct run y;
    run1("{\"memoryBytes\":262144}", "return [1, 2].length", NULL, &y);
    ck_assert_msg(y.r.ok, "%s", y.r.error_message);
    sbx_result_free(&y.r);
}
END_TEST

START_TEST(output_cap)
{
    struct run x;
    run1("{\"maxOutputBytes\":100}",
         "for (var i = 0; i < 1000; i++) { console.log('line ' + i); console.error('\u00e9'); }"
         "return 'done'",
         NULL, &x);
    ck_assert(x.r.ok);
    ck_assert_str_eq(x.r.value_json, "\"done\"");
    ck_assert(x.r.stdout_truncated && x.r.stderr_truncated);
    ck_assert_uint_eq(x.r.stdout_len, 100);
    ck_assert(strncmp(x.r.stdout_data, "line 0\nline 1\n", 14) == 0);
    /* 2-byte characters + newline: the cut never splits a character. */
    ck_assert_uint_eq(x.r.stderr_len, 99);
    sbx_result_free(&x.r);
    /* The returned value is capped too: over the cap it is an error, not a silent cut. */
    expect_error("{\"maxOutputBytes\":100}", "return 'v'.repeat(200)", SBX_E_OUTPUT_LIMIT,
                 "return value is 202 bytes of JSON, over maxOutputBytes (100)");
    run1("{\"maxOutputBytes\":100}", "return 'v'.repeat(98)", NULL, &x);
    ck_assert(x.r.ok);
    ck_assert_int_eq(x.r.limit, SBX_LIMIT_NONE);
    sbx_result_free(&x.r);
    /* A line a little longer than twice the room left: the conversion takes no more than the
     * line (SAN=1 saw a read past its end). */
    run1("{\"maxOutputBytes\":4}", "console.log('hello world'); return 1", NULL, &x);
    ck_assert(x.r.ok && x.r.stdout_truncated);
    ck_assert_uint_eq(x.r.stdout_len, 4);
    ck_assert(memcmp(x.r.stdout_data, "hell", 4) == 0);
    sbx_result_free(&x.r);
}
END_TEST

START_TEST(huge_throw)
{
    /* Default 64 MiB heap: the string cannot even be built. */
    expect_error(NULL, "throw 'x'.repeat(100 * 1024 * 1024)", SBX_E_MEMORY_LIMIT, NULL);
    /* With room for it, the host copies only a bounded prefix into the message. */
    struct run x;
    run1("{\"memoryBytes\":268435456}", "throw 'x'.repeat(100 * 1024 * 1024)", NULL, &x);
    ck_assert_int_eq(x.r.error, SBX_E_EXECUTION_FAILED);
    ck_assert_uint_le(strlen(x.r.error_message), 512);
    ck_assert_ptr_nonnull(strstr(x.r.error_message, "xxxx"));
    sbx_result_free(&x.r);
    run1("{\"memoryBytes\":268435456}", "throw new Error('y'.repeat(100 * 1024 * 1024))", NULL, &x);
    ck_assert_int_eq(x.r.error, SBX_E_EXECUTION_FAILED);
    ck_assert_uint_le(strlen(x.r.error_message), 512);
    sbx_result_free(&x.r);
}
END_TEST

START_TEST(deep_recursion)
{
    /* SpiderMonkey names these InternalError; its JSON parser is iterative (no recursion). */
    expect_error(NULL, "function f() { return f() + 1; } return f()", SBX_E_EXECUTION_FAILED,
                 "InternalError: too much recursion");
    expect_error(NULL, "function f() { return [1].map(f); } return f()", SBX_E_EXECUTION_FAILED,
                 "too much recursion");
    expect_error(NULL, "return eval('('.repeat(100000) + '1' + ')'.repeat(100000))",
                 SBX_E_EXECUTION_FAILED, "too much recursion");
    expect_error(NULL, "return new RegExp('('.repeat(50000) + 'a' + ')'.repeat(50000))",
                 SBX_E_EXECUTION_FAILED, "too many parentheses");
    expect_error(NULL, "return JSON.parse('['.repeat(100000))", SBX_E_EXECUTION_FAILED,
                 "SyntaxError");
    expect_error(NULL, "var a = []; for (var i = 0; i < 100000; i++) a = [a]; return a",
                 SBX_E_EXECUTION_FAILED, "too much recursion");
}
END_TEST

START_TEST(isolation)
{
    sbx_sandbox *sb = sandbox(NULL);
    struct run x;
    run_on(sb,
           "Object.prototype.polluted = 1; Array.prototype.push = null; this.leak = 5;"
           "JSON.stringify = null; String.prototype.trim = function () { return 'x'; };"
           "return typeof Duktape",
           NULL, &x);
    ck_assert(x.r.ok);
    ck_assert_str_eq(x.r.value_json, "\"undefined\"");
    sbx_result_free(&x.r);
    run_on(sb,
           "return [({}).polluted === undefined, typeof [].push, typeof leak,"
           " typeof JSON.stringify, ' a '.trim(), typeof Duktape]",
           NULL, &x);
    ck_assert(x.r.ok);
    ck_assert_str_eq(x.r.value_json, "[true,\"function\",\"undefined\",\"function\",\"a\","
                                     "\"undefined\"]");
    sbx_result_free(&x.r);
    sbx_sandbox_destroy(sb);
}
END_TEST

START_TEST(emoji_round_trip)
{
    struct run x;
    run1(NULL,
         "console.log(context.s, '\xf0\x9f\x8e\x89'); console.error({e: context.s});"
         "return {s: context.s, n: context.s.length, c: context.s.charCodeAt(0),"
         " t: '\xf0\x9f\x8e\x89', u: '\\ud83d\\ude00', k: String.fromCharCode(0xd83d, 0xde00)}",
         "{\"s\":\"\xf0\x9f\x98\x80\"}", &x);
    ck_assert_msg(x.r.ok, "%s", x.r.error_message);
    ck_assert_str_eq(x.r.value_json, "{\"s\":\"\xf0\x9f\x98\x80\",\"n\":2,\"c\":55357,"
                                     "\"t\":\"\xf0\x9f\x8e\x89\",\"u\":\"\xf0\x9f\x98\x80\","
                                     "\"k\":\"\xf0\x9f\x98\x80\"}");
    ck_assert_str_eq(x.r.stdout_data, "\xf0\x9f\x98\x80 \xf0\x9f\x8e\x89\n");
    ck_assert_str_eq(x.r.stderr_data, "{ e: '\xf0\x9f\x98\x80' }\n");
    sbx_result_free(&x.r);
    /* A lone surrogate is U+FFFD in the value (JSON parsers refuse a \ud800 escape, and the
     * value was then shown as a string: issue 23, item 4) as on the console. */
    run1(NULL, "console.log('\\ud800'); return {a: '\\ud800'}", NULL, &x);
    ck_assert(x.r.ok);
    ck_assert_str_eq(x.r.value_json, "{\"a\":\"\\ufffd\"}");
    ck_assert_str_eq(x.r.stdout_data, "\xef\xbf\xbd\n");
    sbx_result_free(&x.r);
    expect_error(NULL, "throw new Error('\xf0\x9f\x98\x80')", SBX_E_EXECUTION_FAILED,
                 "\xf0\x9f\x98\x80");
}
END_TEST

START_TEST(thousand_runs)
{
    sbx_sandbox *sb = sandbox(NULL);
    char ctx[64];
    for (int i = 0; i < 1000; i++) {
        snprintf(ctx, sizeof(ctx), "{\"a\":%d}", i);
        struct run x;
        run_on(sb, "var o = {v: context.a + 1}; console.log(o.v); return o.v", ctx, &x);
        ck_assert(x.r.ok);
        ck_assert_int_eq(strtol(x.r.value_json, NULL, 10), i + 1);
        sbx_result_free(&x.r);
    }
    sbx_sandbox_destroy(sb);
}
END_TEST

START_TEST(dispose)
{
    sbx_sandbox *sb = sandbox(NULL);
    sbx_sandbox_dispose(sb);
    sbx_sandbox_dispose(sb);
    struct run x;
    run_on(sb, "return 1", NULL, &x);
    ck_assert_int_eq(x.r.error, SBX_E_DISPOSED);
    sbx_result_free(&x.r);
    sbx_sandbox_destroy(sb);
}
END_TEST

/* A child forked after the engine started has none of its threads (SpiderMonkey's GC helpers
 * among them): its runs fail at once with a clear error instead of hanging. */
static int child_after_fork(void)
{
    sbx_policy *p = NULL;
    sbx_sandbox *sb = NULL;
    if (sbx_policy_parse("{\"timeoutMs\":100}", 17, &p, NULL, 0) != SBX_OK ||
        sbx_sandbox_create(SBX_BACKEND_WORKER, p, &sb) != SBX_OK)
        return 11;
    sbx_run_input in = {.code = "return 1", .code_len = 8};
    sbx_result r;
    if (sbx_sandbox_run(sb, &in, &r) != SBX_OK || r.ok || r.error != SBX_E_UNAVAILABLE ||
        !strstr(r.error_message, "forked"))
        return 12;
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    sbx_policy_destroy(p);
    return 0;
}

/* Forks a child that runs once and leaves through exit() (the engine's exit handler runs there
 * too); fails unless it reported the fork and exited within 3 s. */
static void expect_forked_child_fails_fast(void)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0)
        exit(child_after_fork());
    int status = 0;
    pid_t got = 0;
    for (int i = 0; i < 300 && (got = waitpid(pid, &status, WNOHANG)) == 0; i++)
        usleep(10000);
    if (got == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    ck_assert_msg(got == pid, "the forked child hung");
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
}

START_TEST(forked_child)
{
    struct run x; /* a run first, so the engine has started */
    run1(NULL, "return 1", NULL, &x);
    ck_assert(x.r.ok);
    sbx_result_free(&x.r);
    expect_forked_child_fails_fast();
}
END_TEST

/* Forks while the watchdog is busy (it polls an abandoned deaf run every 2 ms, under its lock):
 * a child forked while the lock was taken used to wait for it forever. */
START_TEST(forked_while_watched)
{
    sbx__js_test_deaf_ms(1500);
    struct run y;
    run1("{\"timeoutMs\":20}", "while (true) {}", NULL, &y);
    ck_assert_int_eq(y.r.error, SBX_E_TIMEOUT);
    sbx_result_free(&y.r);
    sbx__js_test_deaf_ms(0);
    for (int i = 0; i < 40; i++)
        expect_forked_child_fails_fast();
    expect_reaped();
}
END_TEST

/* The pool threads' pause points (sbx__js_test_pause, js/worker.h): the threads reaching the
 * armed one wait there until the test lets some go. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int armed; /* SBX__JS_PAUSE_*, or -1 */
    int held;  /* threads at the armed point now */
    int let_go;
    int passed;
} pause_pt = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, -1, 0, 0, 0};

void sbx__js_test_pause(int where)
{
    pthread_mutex_lock(&pause_pt.lock);
    if (where == pause_pt.armed) {
        pause_pt.held++;
        pthread_cond_broadcast(&pause_pt.cond);
        while (pause_pt.passed >= pause_pt.let_go)
            pthread_cond_wait(&pause_pt.cond, &pause_pt.lock);
        pause_pt.passed++;
        pause_pt.held--;
        pthread_cond_broadcast(&pause_pt.cond);
    }
    pthread_mutex_unlock(&pause_pt.lock);
}

static void pause_arm(int where)
{
    pthread_mutex_lock(&pause_pt.lock);
    pause_pt.armed = where;
    pthread_mutex_unlock(&pause_pt.lock);
}

/* Lets n more held threads go (-1: all, now and later, and disarms). */
static void pause_let_go(int n)
{
    pthread_mutex_lock(&pause_pt.lock);
    pause_pt.let_go = n < 0 ? 1 << 30 : pause_pt.let_go + n;
    if (n < 0)
        pause_pt.armed = -1;
    pthread_cond_broadcast(&pause_pt.cond);
    pthread_mutex_unlock(&pause_pt.lock);
}

/* Waits (at most 20 s) until *count reaches n; returns it. */
static int pause_wait(const int *count, int n)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 20;
    pthread_mutex_lock(&pause_pt.lock);
    while (*count < n && pthread_cond_timedwait(&pause_pt.cond, &pause_pt.lock, &until) == 0)
        ;
    int got = *count;
    pthread_mutex_unlock(&pause_pt.lock);
    return got;
}

static void *abort_when_held(void *arg)
{
    if (pause_wait(&pause_pt.held, 1) == 1)
        sbx_sandbox_abort(arg);
    return NULL;
}

/* A run stopped (deadline, or abort) before its pool thread has even started it is abandoned:
 * the caller is back at once, with the right reason, and the thread ends the job when it gets to
 * it. Which reason came back, and a release before the thread recorded itself as the runner,
 * depended on the host's load until the test held the thread back. */
START_TEST(stopped_before_its_thread_ran)
{
    bool is_abort = _i == 1;
    pause_arm(SBX__JS_PAUSE_RUN);
    sbx_sandbox *sb = sandbox(is_abort ? "{\"timeoutMs\":30000}" : "{\"timeoutMs\":50}");
    pthread_t t;
    if (is_abort)
        ck_assert_int_eq(pthread_create(&t, NULL, abort_when_held, sb), 0);
    struct run x;
    run_on(sb, "return 1", NULL, &x);
    if (is_abort)
        pthread_join(t, NULL);
    ck_assert_int_eq(pause_wait(&pause_pt.held, 1), 1); /* the control: the thread was held */
    ck_assert_msg(x.r.error == (is_abort ? SBX_E_ABORTED : SBX_E_TIMEOUT), "%s",
                  sbx_err_name(x.r.error));
    ck_assert_int_eq(x.r.limit, is_abort ? SBX_LIMIT_NONE : SBX_LIMIT_TIMEOUT);
    ck_assert_ptr_nonnull(
        strstr(x.r.error_message, is_abort ? "aborted by the host" : "time limit"));
    ck_assert_ptr_nonnull(strstr(x.r.error_message, "background"));
    ck_assert_msg(x.wall_ms < 10000, "back after %.0f ms", x.wall_ms);
    sbx_result_free(&x.r);
    ck_assert_int_eq(sbx__js_abandoned_count(), 1);
    pause_let_go(-1);
    expect_reaped();
    run_on(sb, "return 2", NULL, &x);
    ck_assert_str_eq(x.r.value_json, "2");
    sbx_result_free(&x.r);
    sbx_sandbox_destroy(sb);
}
END_TEST

/* A stop given before the caller starts waiting ends that wait at once: the caller names the
 * reason it has seen. The wait compared with the reason as of its own start, so an abort that
 * came between the job's start and the wait was missed until the deadline whenever the engine
 * did not end the job by itself (here its thread is held, so it cannot). */
START_TEST(stop_before_wait_not_missed)
{
    pause_arm(SBX__JS_PAUSE_RUN);
    struct sbx__js_eval_in in = {.code = "return 1",
                                 .code_len = 8,
                                 .memory_bytes = 64u << 20,
                                 .max_output_bytes = 1024,
                                 .deadline_ns = sbx__now_ns() + 60000000000ull};
    struct sbx__js_job *job = sbx__js_job_create(&in);
    ck_assert_ptr_nonnull(job);
    ck_assert_int_eq(sbx__js_job_start(job), SBX_OK);
    sbx__js_job_stop(job, SBX_E_ABORTED);
    uint64_t t0 = sbx__now_ns();
    ck_assert(!sbx__js_job_wait(job, t0 + 20000000000ull, SBX_OK));
    ck_assert_msg(sbx__now_ns() - t0 < 10000000000ull, "the stop given before the wait was missed");
    ck_assert_int_eq(sbx__js_job_stop_reason(job), SBX_E_ABORTED);
    /* the same reason again: only done (or the time) ends this wait */
    t0 = sbx__now_ns();
    ck_assert(!sbx__js_job_wait(job, t0 + 50000000u, SBX_E_ABORTED));
    ck_assert_uint_ge(sbx__now_ns() - t0, 50000000u);
    ck_assert_int_eq(pause_wait(&pause_pt.held, 1), 1);
    sbx__js_job_release(job); /* abandoned: its thread ends it */
    ck_assert_int_eq(sbx__js_abandoned_count(), 1);
    pause_let_go(-1);
    expect_reaped();
}
END_TEST

/* At most SBX_JS_IDLE_MAX threads stay idle, also when others went idle while a thread built
 * its spare engine: here the threads of SBX_JS_IDLE_MAX + 1 runs are all held there (each run
 * needs a new thread, none of them being idle yet); the first SBX_JS_IDLE_MAX let go become
 * idle, the last one then leaves. That thread was reached only by runs ending together. */
START_TEST(idle_bound_kept_for_late_spares)
{
    pause_arm(SBX__JS_PAUSE_IDLE);
    for (int i = 0; i <= SBX_JS_IDLE_MAX; i++) {
        expect_value("return 7", NULL, "7");
        ck_assert_int_eq(pause_wait(&pause_pt.held, i + 1), i + 1);
    }
    ck_assert_int_eq(sbx__js_idle_count(), 0);
    pause_let_go(SBX_JS_IDLE_MAX);
    for (int i = 0; i < 2000 && sbx__js_idle_count() < SBX_JS_IDLE_MAX; i++)
        usleep(10000);
    ck_assert_int_eq(sbx__js_idle_count(), SBX_JS_IDLE_MAX);
    pause_let_go(1);
    ck_assert_int_eq(pause_wait(&pause_pt.passed, SBX_JS_IDLE_MAX + 1), SBX_JS_IDLE_MAX + 1);
    usleep(300 * 1000); /* the last one's decision (it does not add itself: it leaves) */
    ck_assert_int_eq(sbx__js_idle_count(), SBX_JS_IDLE_MAX);
    pause_let_go(-1);
    expect_value("return [1, 2].length", NULL, "2");
}
END_TEST

struct par {
    int k;
    const char *code;
    unsigned timeout_ms;
    struct run x;
};

static void *par_main(void *arg)
{
    struct par *p = arg;
    char policy[64], ctx[32];
    snprintf(policy, sizeof(policy), "{\"timeoutMs\":%u}", p->timeout_ms);
    snprintf(ctx, sizeof(ctx), "{\"k\":%d}", p->k);
    run1(policy, p->code, ctx, &p->x);
    return NULL;
}

/* 64 runs from 64 host threads at once, next to one stuck run: each gets its own answer and
 * none waits for the stuck one. */
START_TEST(concurrent_runs)
{
    enum { N = 64 };
    static struct par ps[N + 1];
    pthread_t t[N + 1];
    ps[N] = (struct par){.k = -1, .code = "while (true) {}", .timeout_ms = 3000};
    ck_assert_int_eq(pthread_create(&t[N], NULL, par_main, &ps[N]), 0);
    for (int i = 0; i < N; i++) {
        ps[i] = (struct par){.k = i,
                             .code = "globalThis.g = (this.g || 0) + 1; var s = 0;"
                                     "for (var i = 0; i < 20000; i++) s += i;"
                                     "return [context.k, s, g]",
                             .timeout_ms = 3000};
        ck_assert_int_eq(pthread_create(&t[i], NULL, par_main, &ps[i]), 0);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(t[i], NULL);
        char want[64];
        snprintf(want, sizeof(want), "[%d,199990000,1]", i);
        ck_assert_msg(ps[i].x.r.ok, "run %d: %s", i, ps[i].x.r.error_message);
        ck_assert_str_eq(ps[i].x.r.value_json, want);
        ck_assert_msg(ps[i].x.wall_ms < 2500, "run %d took %.1f ms", i, ps[i].x.wall_ms);
        sbx_result_free(&ps[i].x.r);
    }
    pthread_join(t[N], NULL);
    ck_assert_int_eq(ps[N].x.r.error, SBX_E_TIMEOUT);
    sbx_result_free(&ps[N].x.r);
}
END_TEST

static void add(Suite *s, const char *name, const TTest *test, int timeout_s)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, timeout_s);
    tcase_add_test(tc, test);
    suite_add_tcase(s, tc);
}

int main(void)
{
    Suite *s = suite_create("js_worker");
    add(s, "simple_value", simple_value, 10);
    add(s, "console_capture", console_capture, 10);
    add(s, "context_injection", context_injection, 10);
    add(s, "timeout_loops", timeout_loops, 20);
    add(s, "timeout_regexp", timeout_regexp, 20);
    add(s, "timeout_native_call", timeout_native_call, 30);
    add(s, "stuck_runs_throttled", stuck_runs_throttled, 60);
    add(s, "abandoned_workers", abandoned_workers, 60);
    add(s, "syntax_error", syntax_error, 10);
    add(s, "runtime_error", runtime_error, 10);
    add(s, "error_positions", error_positions, 10);
    add(s, "abort_other_thread", abort_other_thread, 30);
    add(s, "memory_cap", memory_cap, 30);
    add(s, "output_cap", output_cap, 10);
    add(s, "huge_throw", huge_throw, 30);
    add(s, "deep_recursion", deep_recursion, 30);
    add(s, "isolation", isolation, 10);
    add(s, "emoji_round_trip", emoji_round_trip, 10);
    add(s, "thousand_runs", thousand_runs, 120);
    add(s, "dispose", dispose, 10);
    add(s, "concurrent_runs", concurrent_runs, 60);
    add(s, "forked_child", forked_child, 20);
    add(s, "forked_while_watched", forked_while_watched, 60);
    TCase *tc = tcase_create("stopped_before_its_thread_ran");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, stopped_before_its_thread_ran, 0, 2);
    suite_add_tcase(s, tc);
    add(s, "stop_before_wait_not_missed", stop_before_wait_not_missed, 60);
    add(s, "idle_bound_kept_for_late_spares", idle_bound_kept_for_late_spares, 60);
    return sbx_test_main(s);
}
