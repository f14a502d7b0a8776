/* js/engine.cpp: one evaluation on SpiderMonkey. Each run gets a fresh global (its own realm,
 * compartment and zone) on the thread's context; nothing a run creates is reachable from the
 * next, its leftover promise jobs are dropped with it, and its zone is collected later. The body
 * is compiled as the body of function (context), or of an async function when it uses await. */
#include "js/sm.h" /* first: see there */

#include <js/CompilationAndEvaluation.h>
#include <js/Conversions.h>
#include <js/Exception.h>
#include <js/GCAPI.h>
#include <js/JSON.h>
#include <js/Object.h>
#include <js/Promise.h>
#include <js/Realm.h>
#include <js/SourceText.h>
#include <js/String.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "js/platform/platform.h"
#include "js/text.h"
extern "C" {
#include "util/alloc.h"
#include "util/json_text.h"
}

/* Longest guest-derived text in an error message; core caps messages at 512 bytes. */
#define MESSAGE_MAX 400
/* The GC heap grows in 1 MiB chunks and a fresh realm takes about 100 KiB of them: a smaller
 * cap (the policy's own minimum) could not be enforced faithfully, so it is refused. */
#define MIN_MEMORY_BYTES (256u * 1024u)
/* "async function anonymous(context\n) {\n" precedes a body given to the AsyncFunction
 * constructor. */
#define ASYNC_HEADER_LINES 2
#define ASYNC_FILE         "<unknown> line 0 > AsyncFunction"
/* A full GC runs every GC_EVERY_RUNS runs on a thread, or at once when the GC heap grew this
 * much since the last one or a run peaked at it (see after_run). */
#define GC_SLACK_BYTES (8u * 1024u * 1024u)
#define GC_EVERY_RUNS  16u

enum phase {
    PHASE_SETUP,
    PHASE_PRELOAD,
    PHASE_CONTEXT,
    PHASE_COMPILE,
    PHASE_RUN,
    PHASE_SETTLE,
    PHASE_ENCODE
};

struct engine {
    pthread_t owner;
};

static std::atomic<unsigned> test_deaf_ms;
static thread_local uint32_t gc_bytes_after_gc;
static thread_local unsigned runs_since_gc;

/* The platform's ops: the standard classes and the platform's globals resolve lazily. */
static const JSClass global_class = {
    "global", JSCLASS_GLOBAL_FLAGS, &sm_platform_global_ops, nullptr, nullptr, nullptr};

static void set_error(struct sbx__js_eval_out *out, sbx_err err, sbx_limit limit, const char *msg)
{
    out->error = err;
    out->limit = limit;
    sbx__free(out->message);
    out->message = sbx__strdup(msg);
}

static void append_c(char *msg, size_t cap, const char *s)
{
    size_t have = strlen(msg);
    snprintf(msg + have, cap - have, "%s", s);
}

static int stop_reason(const struct sm_run *run)
{
    const struct sbx__js_eval_in *in = run->in;
    int reason = in->stop ? in->stop->load() : SBX_OK;
    if (reason == SBX_OK && in->deadline_ns && sbx__now_ns() >= in->deadline_ns)
        reason = SBX_E_TIMEOUT;
    return reason;
}

/* Sets the outcome of a stop or limit; false if none applies. */
static bool fail_limit(struct sm_run *run)
{
    int reason = stop_reason(run);
    if (reason == SBX_E_ABORTED)
        set_error(run->out, SBX_E_ABORTED, SBX_LIMIT_NONE, "run was aborted by the host");
    else if (reason != SBX_OK)
        set_error(run->out, SBX_E_TIMEOUT, SBX_LIMIT_TIMEOUT, "run exceeded its time limit");
    else if (run->is_oom || run->is_buffer_oom || sbx__js_account_is_over())
        set_error(run->out, SBX_E_MEMORY_LIMIT, SBX_LIMIT_MEMORY,
                  "guest exceeded its memory limit (memoryBytes)");
    else
        return false;
    return true;
}

/* A run that returned after going over its cap (past it the engine keeps allocating until the
 * next interrupt check, account.c) still ends as the limit it hit. */
static void fail_memory(struct sm_run *run)
{
    if (sbx__js_account_is_over()) /* not a refusal the guest caught: memory it did hold */
        set_error(run->out, SBX_E_MEMORY_LIMIT, SBX_LIMIT_MEMORY,
                  "guest exceeded its memory limit (memoryBytes)");
}

/* fail_limit, naming the preload that was running when the limit hit (never the body). */
static bool fail_limit_in(struct sm_run *run, enum phase phase)
{
    if (!fail_limit(run))
        return false;
    if (phase == PHASE_PRELOAD && run->preload && run->out->message) {
        char msg[MESSAGE_MAX];
        snprintf(msg, sizeof(msg), "%s, in preload %s", run->out->message,
                 sm_script_name(run->preload));
        set_error(run->out, run->out->error, run->out->limit, msg);
    }
    return true;
}

/* Classifies a failed step: a stop or deadline beats a memory cap, which beats the error. The
 * description runs guest getters, which can themselves be stopped (issue 10, item 7). */
static void fail_run(struct sm_run *run, enum phase phase)
{
    JSContext *cx = run->cx;
    JS::ExceptionStack exc(cx);
    bool has_exc = JS_IsExceptionPending(cx) && JS::StealPendingExceptionStack(cx, &exc);
    JS_ClearPendingException(cx);
    if (fail_limit_in(run, phase))
        return;
    char msg[MESSAGE_MAX + 160] = "";
    append_c(msg, sizeof(msg),
             phase == PHASE_CONTEXT  ? "context is not valid JSON: "
             : phase == PHASE_ENCODE ? "return value cannot be encoded as JSON: "
                                     : "");
    if (phase == PHASE_PRELOAD && run->preload) { /* never reported as the body's */
        append_c(msg, sizeof(msg), "preload ");
        append_c(msg, sizeof(msg), sm_script_name(run->preload));
        append_c(msg, sizeof(msg), ": ");
    }
    /* The AsyncFunction constructor names the async form's source after its (absent) caller;
     * its syntax errors have no file name at all. */
    struct sm_source_map map = {phase == PHASE_COMPILE ? "" : ASYNC_FILE, SM_BODY_FILE,
                                run->line_offset};
    char *stack = nullptr;
    bool ok = has_exc && sm_describe(cx, exc.exception(), exc.stack(),
                                     run->line_offset ? &map : nullptr, msg, sizeof(msg), &stack);
    JS_ClearPendingException(cx);
    if (fail_limit_in(run, phase)) {
        sbx__free(stack);
        return;
    }
    if (!has_exc)
        append_c(msg, sizeof(msg), "run ended without an exception");
    else if (!ok)
        append_c(msg, sizeof(msg), "(the error could not be described)");
    set_error(run->out, phase == PHASE_CONTEXT ? SBX_E_INVALID_ARGUMENT : SBX_E_EXECUTION_FAILED,
              SBX_LIMIT_NONE, msg);
    sbx__free(run->out->stack);
    run->out->stack = stack;
}

static bool parse_context(JSContext *cx, const struct sbx__js_eval_in *in,
                          JS::MutableHandleValue ctx)
{
    if (!in->context_json) {
        ctx.setNull();
        return true;
    }
    size_t n;
    uint16_t *json = sbx__js_utf8_to_utf16(in->context_json, in->context_len, &n);
    if (!json) {
        JS_ReportOutOfMemory(cx);
        return false;
    }
    bool ok = n <= UINT32_MAX &&
              JS_ParseJSON(cx, reinterpret_cast<const char16_t *>(json), (uint32_t)n, ctx);
    sbx__free(json);
    return ok;
}

/* The async form goes through the AsyncFunction constructor, which parses the body on its own
 * (a body cannot close the function early); its two header lines are taken off line numbers. */
static JSObject *compile_async(JSContext *cx, JS::HandleString body)
{
    JS::RootedValue ctor(cx);
    JS::RootedObject proto(cx);
    const char *probe = "(async function () {}).constructor";
    JS::CompileOptions opts(cx);
    JS::SourceText<mozilla::Utf8Unit> src;
    if (!src.init(cx, probe, strlen(probe), JS::SourceOwnership::Borrowed) ||
        !JS::Evaluate(cx, opts, src, &ctor) || !ctor.isObject())
        return nullptr;
    JS::RootedValueArray<2> args(cx);
    args[0].setString(JS_NewStringCopyZ(cx, "context"));
    args[1].setString(body);
    JS::RootedObject fn(cx);
    if (!args[0].isString() || !JS::Construct(cx, ctor, args, &fn))
        return nullptr;
    return fn;
}

/* Whether the pending exception's message mentions await (the sync form's complaint). */
static bool is_about_await(JSContext *cx, JS::HandleValue exc)
{
    char msg[MESSAGE_MAX + 64] = "";
    if (!sm_is_error_object(cx, exc))
        return false;
    JS::RootedObject obj(cx, &exc.toObject());
    bool ok = sm_append_prop(cx, obj, "message", msg, sizeof(msg));
    JS_ClearPendingException(cx);
    return ok && strstr(msg, "await");
}

/* Compiles the body as function (context) { body }; on a SyntaxError tries the async form. Of
 * two errors the first is kept, unless it was about await (then the async form's is the real
 * one). The async form's header adds lines, which *line_offset takes off again. */
static JSObject *compile(JSContext *cx, const uint16_t *code, size_t n, unsigned *line_offset)
{
    static const char *const argnames[] = {"context"};
    JS::CompileOptions opts(cx);
    opts.setFileAndLine("code", 0); /* the body starts one line below the synthesized header */
    /* No Debugger ever observes a run: unhidden, a named script's creation makes the engine
     * build the realm's Array class (~15 us), which a run that uses no array never needs. */
    opts.setHideScriptFromDebugger();
    JS::SourceText<char16_t> src;
    if (!src.init(cx, reinterpret_cast<const char16_t *>(code), n, JS::SourceOwnership::Borrowed))
        return nullptr;
    JS::RootedObjectVector env(cx);
    JSFunction *sync = JS::CompileFunction(cx, env, opts, nullptr, 1, argnames, src);
    if (sync || !JS_IsExceptionPending(cx))
        return sync ? JS_GetFunctionObject(sync) : nullptr;
    JS::RootedValue first(cx);
    JS_GetPendingException(cx, &first);
    JS_ClearPendingException(cx);
    JS::RootedString body(cx, JS_NewUCStringCopyN(cx, reinterpret_cast<const char16_t *>(code), n));
    JSObject *fn = body ? compile_async(cx, body) : nullptr;
    *line_offset = ASYNC_HEADER_LINES;
    if (!fn && JS_IsExceptionPending(cx)) {
        JS::RootedValue second(cx);
        JS_GetPendingException(cx, &second);
        JS_ClearPendingException(cx);
        bool use_second = is_about_await(cx, first);
        JS_SetPendingException(cx, use_second ? second : first);
        *line_offset = use_second ? ASYNC_HEADER_LINES : 0;
    }
    return fn;
}

/* A promise still pending with no job left can never settle (no timer is left and a realm has no
 * I/O): the run sleeps until its deadline or stop, and ends as a timeout. */
static void wait_out(struct sm_run *run)
{
    struct timespec tick = {0, 1000000};
    while ((run->in->deadline_ns || run->in->stop) && !sm_should_stop(run))
        nanosleep(&tick, nullptr);
    if (!sm_should_stop(run))
        JS_ReportErrorASCII(run->cx, "the returned promise never settles");
}

/* One more task of the run's event loop while its promise is pending: the next timer or
 * immediate (platform/), else what a GC may find: FinalizationRegistry cleanups of targets that
 * died (a guest cannot call gc()). *more: whether anything ran or was queued. */
static bool next_task(JSContext *cx, bool *more)
{
    if (!sm_platform_turn(cx, more))
        return false;
    if (!*more)
        *more = sm_collect_for_cleanups(cx);
    return true;
}

/* A promise or thenable result settles by draining the job queue and running the run's event
 * loop (timers); a rejection is thrown, and so is a callback's uncaught exception
 * (queueMicrotask, a timer). Any other value is the result at once: nothing queued runs. */
static bool settle(JSContext *cx, JS::MutableHandleValue rval)
{
    if (!rval.isObject())
        return true;
    JS::RootedObject obj(cx, &rval.toObject());
    JS::RootedValue then(cx);
    if (!JS::IsPromiseObject(obj)) {
        if (!JS_GetProperty(cx, obj, "then", &then))
            return false;
        if (!then.isObject() || !JS::IsCallable(&then.toObject()))
            return true;
    }
    JS::RootedObject promise(cx, JS::CallOriginalPromiseResolve(cx, rval));
    if (!promise)
        return false;
    bool more = true;
    for (;;) {
        if (!sm_drain_jobs(cx) || !sm_platform_check(cx))
            return false;
        if (JS::GetPromiseState(promise) != JS::PromiseState::Pending || !more)
            break;
        if (!next_task(cx, &more))
            return false;
    }
    JS::RootedValue result(cx, JS::GetPromiseResult(promise));
    switch (JS::GetPromiseState(promise)) {
    case JS::PromiseState::Fulfilled:
        rval.set(result);
        return true;
    case JS::PromiseState::Rejected:
        JS_SetPendingException(cx, result);
        return false;
    default:
        wait_out(sm_current()); /* never settles: only the deadline or a stop ends the run */
        return false;
    }
}

struct json_sink {
    struct sbx__buf *buf;
    uint64_t limit;
    uint64_t len;
    bool is_over;
};

static bool on_json(const char16_t *s, uint32_t n, void *data)
{
    json_sink *sink = static_cast<json_sink *>(data);
    const uint16_t *u = reinterpret_cast<const uint16_t *>(s);
    size_t len = sbx__js_utf16_to_utf8(u, n, nullptr);
    sink->len += len;
    if (sink->len > sink->limit) {
        sink->is_over = true;
        return true; /* keep counting; the text is dropped */
    }
    char *dst = static_cast<char *>(sbx__mallocn(len + 1, 1));
    if (!dst)
        return false;
    sbx__js_utf16_to_utf8(u, n, dst);
    bool ok = sbx__buf_append(sink->buf, dst, len);
    sbx__free(dst);
    return ok;
}

/* Encodes the result; JSON has no undefined, so that (and functions, symbols) are reported. */
static bool encode(struct sm_run *run, JS::MutableHandleValue rval)
{
    JSContext *cx = run->cx;
    if (rval.isUndefined()) {
        run->out->value_json = sbx__strdup("null");
        return true;
    }
    /* JS_Stringify writes "null" for what JSON cannot represent at the top; say so instead. */
    if (rval.isSymbol() || (rval.isObject() && JS::IsCallable(&rval.toObject()))) {
        char msg[96];
        snprintf(msg, sizeof(msg), "return value of type %s cannot be encoded as JSON",
                 rval.isSymbol() ? "symbol" : "function");
        set_error(run->out, SBX_E_EXECUTION_FAILED, SBX_LIMIT_NONE, msg);
        return true;
    }
    struct sbx__buf buf;
    sbx__buf_init(&buf, SIZE_MAX / 2);
    json_sink sink = {&buf, run->out->out.limit, 0, false};
    JS::RootedObject replacer(cx);
    bool ok = JS_Stringify(cx, rval, replacer, JS::NullHandleValue, on_json, &sink);
    if (ok && sink.is_over) {
        char msg[128];
        snprintf(msg, sizeof(msg), "return value is %llu bytes of JSON, over maxOutputBytes (%zu)",
                 (unsigned long long)sink.len, run->out->out.limit);
        set_error(run->out, SBX_E_OUTPUT_LIMIT, SBX_LIMIT_OUTPUT, msg);
    } else if (ok) {
        size_t len = 0;
        run->out->value_json = buf.is_oom ? nullptr : sbx__buf_take(&buf, &len);
        if (!run->out->value_json)
            set_error(run->out, SBX_E_NOMEM, SBX_LIMIT_NONE, "host ran out of memory");
        else /* JSON.stringify escapes lone surrogates (\ud800), which JSON parsers refuse */
            sbx__json_text_replace_lone_surrogates(run->out->value_json, len);
    }
    sbx__buf_free(&buf);
    return ok;
}

/* Runs the guest in the current (fresh) realm; on failure *phase says which step threw. */
static bool run_guest(struct sm_run *run, JS::HandleObject global, enum phase *phase)
{
    JSContext *cx = run->cx;
    JS::RootedValue ctx(cx), rval(cx);
    *phase = PHASE_SETUP;
    if (!sm_console_install(cx, global) || !sm_platform_install(cx, global))
        return false;
    *phase = PHASE_PRELOAD;
    for (size_t i = 0; i < run->in->preload_count; i++) {
        run->preload = reinterpret_cast<struct sm_script *>(run->in->preloads[i]);
        if (!sm_script_run(cx, run->preload, &rval))
            return false;
    }
    *phase = PHASE_CONTEXT;
    if (!parse_context(cx, run->in, &ctx))
        return false;
    *phase = PHASE_COMPILE;
    size_t n;
    uint16_t *code = sbx__js_utf8_to_utf16(run->in->code ? run->in->code : "",
                                           run->in->code ? run->in->code_len : 0, &n);
    if (!code) {
        JS_ReportOutOfMemory(cx);
        return false;
    }
    JS::RootedValue fn(cx, JS::ObjectOrNullValue(compile(cx, code, n, &run->line_offset)));
    sbx__free(code);
    if (fn.isNull())
        return false;
    *phase = PHASE_RUN;
    JS::RootedValueArray<1> args(cx);
    args[0].set(ctx);
    if (!JS::Call(cx, JS::UndefinedHandleValue, fn, args, &rval))
        return false;
    *phase = PHASE_SETTLE;
    /* A settle interrupted by a limit returns at once, without waiting out the deadline: a
     * memory cap hit inside a promise job used to be reported as a timeout after it. */
    if (!settle(cx, &rval))
        return false;
    *phase = PHASE_ENCODE;
    return encode(run, &rval);
}

/* The preloads' stencils, compiled (or decoded) once per thread, before the run's memory
 * account starts: they stay cached for later runs. A preload that does not compile fails the
 * run (its SyntaxError pending). */
static bool prepare_scripts(struct sm_run *run, enum phase *phase)
{
    *phase = PHASE_PRELOAD;
    for (size_t i = 0; i < run->in->preload_count; i++) {
        run->preload = reinterpret_cast<struct sm_script *>(run->in->preloads[i]);
        if (!sm_script_stencil(run->cx, run->preload))
            return false;
    }
    return true;
}

/* The GC heap may grow by the run's cap over what is live now (dead realms of earlier runs are
 * garbage the last-ditch GC reclaims before the cap is enforced). */
static void set_gc_cap(struct sm_run *run, uint64_t memory_bytes)
{
    JSContext *cx = run->cx;
    uint64_t now = JS_GetGCParameter(cx, JSGC_BYTES);
    uint64_t cap = sm_heap_cap_begin(run, now + memory_bytes);
    JS_SetGCParameter(cx, JSGC_MAX_BYTES, cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap);
    /* Malloc memory (buffers, string characters) has a hard cap but no last-ditch GC: a zone
     * GC starts once a quarter of the cap is malloc'd, so garbage goes before the cap is hit. */
    uint64_t mb = memory_bytes / 4 >> 20;
    JS_SetGCParameter(cx, JSGC_MALLOC_THRESHOLD_BASE, mb < 1 ? 1 : mb > 1024 ? 1024 : (uint32_t)mb);
}

/* Called from inside the engine's allocator once the run's malloc memory passed its cap: the
 * run stops at its next interrupt check. */
static void on_over_cap(void *arg)
{
    struct sm_run *run = static_cast<struct sm_run *>(arg);
    run->is_buffer_oom = true;
    JS_RequestInterruptCallback(run->cx);
}

/* Dead realms go in a full GC every GC_EVERY_RUNS runs on a thread; between them JS_MaybeGC.
 * That GC keeps the arenas and chunks it empties: the next runs' realms reuse those pages (16
 * realms' worth: bench-worker's RSS stays flat). Shrinking at each (and malloc_trim), as this
 * did every 64 runs, handed them back only for the next runs to fault them in again: 19 page
 * faults and twice the engine's CPU per `return context.a + 1` run, in bursts that were most
 * of sbx serve's p99 tail (docs/serve.md, "Latency"). A run that peaked GC_SLACK_BYTES over
 * the heap the last GC left (GC heap + malloc'd), or a GC heap grown that much, left big
 * garbage: that GC shrinks and trims, so the memory goes back to the system. */
static void after_run(JSContext *cx, size_t run_peak_bytes)
{
    JS_SetGCParameter(cx, JSGC_MAX_BYTES, UINT32_MAX);
    uint32_t bytes = JS_GetGCParameter(cx, JSGC_BYTES);
    size_t slack = (size_t)gc_bytes_after_gc + GC_SLACK_BYTES;
    bool is_big = run_peak_bytes > slack || bytes > slack;
    if (++runs_since_gc >= GC_EVERY_RUNS || is_big) {
        JS::PrepareForFullGC(cx);
        JS::NonIncrementalGC(cx, is_big ? JS::GCOptions::Shrink : JS::GCOptions::Normal,
                             JS::GCReason::API);
        if (is_big)
            malloc_trim(0); /* glibc keeps the freed memory in its arenas otherwise */
        gc_bytes_after_gc = JS_GetGCParameter(cx, JSGC_BYTES);
        runs_since_gc = 0;
    } else {
        JS_MaybeGC(cx);
    }
}

static void run_engine(JSContext *cx, const struct sbx__js_eval_in *in,
                       struct sbx__js_eval_out *out)
{
    struct sm_run run = {};
    run.in = in;
    run.out = out;
    run.cx = cx;
    unsigned deaf_ms = test_deaf_ms.load();
    if (deaf_ms)
        run.deaf_until_ns = sbx__now_ns() + deaf_ms * 1000000ull;
    sm_set_current(&run);
    sm_watch(&run);
    if (!sm_zone_enter(&run)) {
        fail_limit(&run);
        sm_unwatch(&run);
        sm_set_current(nullptr);
        if (in->on_done)
            in->on_done(in->on_done_arg);
        return;
    }
    /* Scripts compiled once per process (script.cpp): retired ones leave this thread's cache. */
    sm_scripts_sweep();
    set_gc_cap(&run, in->memory_bytes);
    {
        JS::RealmOptions options;
        /* A registry's callbacks run within its run only (sm_cleanups_begin/_end). */
        options.creationOptions()
            .setNewCompartmentAndZone()
            .setWeakRefsEnabled(JS::WeakRefSpecifier::EnabledWithoutCleanupSome)
            .setPropertyErrorMessageFixEnabled(true);
        JS::RootedObject global(
            cx, JS_NewGlobalObject(cx, &global_class, nullptr, JS::FireOnNewGlobalHook, options));
        enum phase phase = PHASE_SETUP;
        if (!global) {
            fail_run(&run, phase);
        } else {
            JSAutoRealm ar(cx, global);
            bool is_prepared = prepare_scripts(&run, &phase);
            sbx__js_account_begin(in->memory_bytes, on_over_cap, &run);
            sm_cleanups_begin(&run, JS::GetObjectRealmOrNull(global));
            if (!is_prepared || !run_guest(&run, global, &phase))
                fail_run(&run, phase);
            else
                fail_memory(&run);
            sm_cleanups_end(&run);
        }
        out->heap_peak_bytes = JS_GetGCParameter(cx, JSGC_BYTES) + sbx__js_account_peak_bytes();
    }
    sbx__js_account_end();
    sm_heap_cap_end(&run);
    sm_zone_leave(&run);
    JS::ClearKeptObjects(cx); /* WeakRef targets of the run may go with the next GC */
    sm_unwatch(&run);
    sm_set_current(nullptr);
    if (out->error != SBX_OK) {
        sbx__free(out->value_json);
        out->value_json = nullptr;
    }
    size_t peak_bytes = out->heap_peak_bytes; /* *out is the waiter's once on_done ran */
    if (in->on_done)
        in->on_done(in->on_done_arg);
    after_run(cx, peak_bytes);
}

struct sbx__js_engine *sbx__js_engine_create(void)
{
    if (!sm_enter())
        return nullptr;
    bool ok = sm_thread_cx() != nullptr;
    sm_leave();
    if (!ok)
        return nullptr;
    struct engine *e = static_cast<struct engine *>(sbx__calloc(1, sizeof(*e)));
    if (e)
        e->owner = pthread_self();
    return reinterpret_cast<struct sbx__js_engine *>(e);
}

void sbx__js_engine_destroy(struct sbx__js_engine *js)
{
    sbx__free(js);
}

void sbx__js_engine_run(struct sbx__js_engine *js, const struct sbx__js_eval_in *in,
                        struct sbx__js_eval_out *out)
{
    struct engine *e = reinterpret_cast<struct engine *>(js);
    bool is_in = sm_enter();
    const char *jit_refusal = sm_jit_refusal(in->jit);
    JSContext *cx = e && is_in && !jit_refusal ? sm_thread_cx() : nullptr;
    if (!is_in) {
        set_error(out, SBX_E_UNAVAILABLE, SBX_LIMIT_NONE, "the process is exiting");
    } else if (jit_refusal) {
        set_error(out, SBX_E_UNAVAILABLE, SBX_LIMIT_NONE, jit_refusal);
    } else if (sm_oom_refusal()) {
        set_error(out, SBX_E_UNAVAILABLE, SBX_LIMIT_NONE, sm_oom_refusal());
    } else if (cx && in->memory_bytes < MIN_MEMORY_BYTES) {
        set_error(out, SBX_E_MEMORY_LIMIT, SBX_LIMIT_MEMORY,
                  "memoryBytes is too small for the engine (at least 256 KiB)");
    } else if (!cx && sm_is_forked()) {
        set_error(out, SBX_E_UNAVAILABLE, SBX_LIMIT_NONE,
                  "the JavaScript engine cannot run in a process forked after it started");
    } else if (!cx) {
        set_error(out, SBX_E_NOMEM, SBX_LIMIT_NONE, "JavaScript engine could not start");
    } else if (!pthread_equal(e->owner, pthread_self())) {
        set_error(out, SBX_E_INVALID_ARGUMENT, SBX_LIMIT_NONE, "engine used off its thread");
    } else {
        sbx__js_engine_destroy(js);
        run_engine(cx, in, out);
        sm_leave();
        return;
    }
    sbx__js_engine_destroy(js);
    if (in->on_done)
        in->on_done(in->on_done_arg);
    if (is_in)
        sm_leave();
}

void sbx__js_test_deaf_ms(unsigned ms)
{
    test_deaf_ms.store(ms);
}
