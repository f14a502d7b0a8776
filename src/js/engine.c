/* js/engine.c: the only file that sees Duktape. One evaluation = one heap built from scratch on
 * the calling thread and released block by block afterwards, so nothing a guest creates (globals,
 * patched prototypes, pending work) outlives its run. A fatal engine error longjmps back here. */
#include "js/engine.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "core/backend.h"
#include "duktape/duktape.h"
#include "js/heap.h"
#include "js/text.h"
#include "util/alloc.h"

/* Longest guest-derived text in an error message; core caps messages at 512 bytes. */
#define MESSAGE_MAX 400
/* Room the engine keeps below the native stack check for unwinding and error creation. */
#if defined(__SANITIZE_ADDRESS__)
#define STACK_MARGIN (1024u * 1024u)
#else
#define STACK_MARGIN (256u * 1024u)
#endif

/* Holds a new heap's builtins and globals (Duktape 2.7 fills about 205 KiB of it, counting the
 * space its growing tables leave behind); what does not fit spills over to malloc blocks. Heaps
 * capped below SMALL_HEAP_BYTES are built without it, to leave the guest the most room. */
#define BUILD_ARENA_BYTES (224u * 1024u)
#define SMALL_HEAP_BYTES  (2u * 1024u * 1024u)

enum phase { PHASE_SETUP, PHASE_CONTEXT, PHASE_RUN, PHASE_ENCODE };

struct engine {
    struct sbx__js_heap heap;         /* first: the allocator's udata is the engine */
    duk_context *ctx;                 /* NULL if creation failed */
    pthread_t owner;                  /* the native stack check and fatal jump are per thread */
    const struct sbx__js_eval_in *in; /* NULL until the run */
    struct sbx__js_eval_out *out;
    enum phase phase;
    const char *encode_type; /* typeof a return value JSON cannot encode */
    uint64_t deaf_until_ns;  /* sbx__js_test_deaf_ms */
    jmp_buf fatal_jmp;
    char fatal_msg[128];
};

static _Thread_local uintptr_t stack_floor;
static atomic_uint test_deaf_ms;
static atomic_bool test_fatal;
static _Thread_local struct engine *current;

int sbx__js_timeout_check(void *udata)
{
    struct engine *e = udata;
    if (!e || !e->in)
        return 0;
    if (e->deaf_until_ns && sbx__now_ns() < e->deaf_until_ns)
        return 0;
    if (e->in->stop && atomic_load_explicit(e->in->stop, memory_order_relaxed) != SBX_OK)
        return 1;
    return e->in->deadline_ns && sbx__now_ns() >= e->in->deadline_ns;
}

int sbx__js_stack_check(void)
{
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    return stack_floor && sp < stack_floor;
}

/* A fatal error leaves the heap unusable: jump back to sbx__js_eval, which frees its blocks. */
static _Noreturn void on_fatal(void *udata, const char *msg)
{
    struct engine *e = udata ? udata : current;
    if (!e)
        abort(); /* unreachable: Duktape only runs inside sbx__js_eval */
    size_t n = msg ? strnlen(msg, sizeof(e->fatal_msg) - 1) : 0;
    memcpy(e->fatal_msg, msg ? msg : "", n);
    e->fatal_msg[n] = '\0';
    longjmp(e->fatal_jmp, 1);
}

void sbx__js_fatal(void *udata, const char *msg)
{
    on_fatal(udata, msg);
}

/* Sets the native stack floor of this thread once: its lowest address plus the margin. When
 * the bounds are unknown (the main thread in a jail without /proc), assumes the stack ends
 * RLIMIT_STACK (at most 8 MiB) below the current frame. */
static void init_stack_floor(void)
{
    if (stack_floor)
        return;
    pthread_attr_t attr;
    void *lo;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        if (pthread_attr_getstack(&attr, &lo, &size) != 0)
            size = 0;
        pthread_attr_destroy(&attr);
    }
    if (size > 2 * STACK_MARGIN) {
        stack_floor = (uintptr_t)lo + STACK_MARGIN;
        return;
    }
    struct rlimit rl;
    size = 8u << 20;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur < size)
        size = (size_t)rl.rlim_cur;
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    if (size > 2 * STACK_MARGIN && sp > size)
        stack_floor = sp - size + STACK_MARGIN;
}

static struct engine *engine_of(duk_context *ctx)
{
    duk_memory_functions funcs;
    duk_get_memory_functions(ctx, &funcs);
    return funcs.udata;
}

/* Returns engine text s[0..len) as NUL-terminated UTF-8 (length in *out_len), NULL on NOMEM. */
static char *to_host(const char *s, size_t len, enum sbx__js_lone mode, size_t *out_len)
{
    size_t n = sbx__js_from_cesu(s, len, mode, NULL);
    char *dst = sbx__mallocn(n + 1, 1);
    if (!dst)
        return NULL;
    sbx__js_from_cesu(s, len, mode, dst);
    dst[n] = '\0';
    if (out_len)
        *out_len = n;
    return dst;
}

/* Appends engine text to a console stream, cut at a character boundary at the cap. Converts
 * only a prefix big enough to fill the room left, so a 100 MB string costs the host nothing. */
static void emit(struct sbx__buf *b, const char *s, size_t len)
{
    size_t room = b->limit - b->len;
    if (b->is_oom || len == 0)
        return;
    if (room == 0 || b->is_truncated) { /* after a cut, later short writes must not slip in */
        b->is_truncated = true;
        return;
    }
    size_t take = len;
    if (len / 2 > room && room + room / 2 + 8 < len)
        take = room + room / 2 + 8; /* converting shrinks by at most 6:4 */
    size_t n;
    char *text = to_host(s, take, SBX_JS_LONE_REPLACE, &n);
    if (!text) {
        b->is_oom = true;
        return;
    }
    if (n > room) {
        n = sbx__js_utf8_cut(text, n, room);
        b->is_truncated = true;
    }
    sbx__buf_append(b, text, n);
    sbx__free(text);
}

static duk_ret_t encode_arg(duk_context *ctx, void *udata)
{
    (void)udata;
    duk_json_encode(ctx, -1);
    return 1;
}

/* Pushes the console text of the value at idx: strings as-is, plain objects as JSON,
 * everything else (errors, functions, primitives, cyclic objects) through String(). */
static void push_console_text(duk_context *ctx, duk_idx_t idx)
{
    duk_dup(ctx, idx);
    if (duk_is_string(ctx, -1))
        return;
    if (duk_is_symbol(ctx, -1)) {
        duk_pop(ctx);
        duk_push_string(ctx, "Symbol()");
        return;
    }
    if (duk_is_object(ctx, -1) && !duk_is_function(ctx, -1) && !duk_is_error(ctx, -1)) {
        if (duk_safe_call(ctx, encode_arg, NULL, 1, 1) == DUK_EXEC_SUCCESS &&
            duk_is_string(ctx, -1))
            return;
        duk_pop(ctx);
        duk_dup(ctx, idx);
    }
    duk_safe_to_string(ctx, -1);
}

/* console.log and friends; magic 1 = stdout, 2 = stderr. */
static duk_ret_t console_write(duk_context *ctx)
{
    struct engine *e = engine_of(ctx);
    if (atomic_load_explicit(&test_fatal, memory_order_relaxed))
        (void)duk_fatal(ctx, "test fatal from console");
    struct sbx__buf *b = duk_get_current_magic(ctx) == 2 ? &e->out->err : &e->out->out;
    duk_idx_t n = duk_get_top(ctx);
    for (duk_idx_t i = 0; i < n; i++) {
        if (i > 0)
            emit(b, " ", 1);
        push_console_text(ctx, i);
        duk_size_t len;
        const char *s = duk_get_lstring(ctx, -1, &len);
        emit(b, s ? s : "", s ? len : 0);
        duk_pop(ctx);
    }
    emit(b, "\n", 1);
    return 0;
}

static void install_console(duk_context *ctx);

/* Shapes the global object before any guest code exists. */
static duk_ret_t setup_globals(duk_context *ctx, void *udata)
{
    (void)udata;
    /* Duktape.fin/act/gc and Duktape.Thread reach below the language; the guest gets none. */
    duk_push_global_object(ctx);
    duk_del_prop_string(ctx, -1, "Duktape");
    duk_pop(ctx);
    install_console(ctx);
    return 0;
}

static void install_console(duk_context *ctx)
{
    static const struct {
        const char *name;
        int stream;
    } methods[] = {{"log", 1}, {"info", 1}, {"debug", 1}, {"error", 2}, {"warn", 2}};
    duk_push_object(ctx);
    for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
        duk_push_c_function(ctx, console_write, DUK_VARARGS);
        duk_set_magic(ctx, -1, methods[i].stream);
        duk_put_prop_string(ctx, -2, methods[i].name);
    }
    duk_put_global_string(ctx, "console");
}

/* Pushes the guest function: the code as the body of function (context), on the code's own
 * line numbers (the prefix has no newline), re-encoded as CESU-8. The literal is evaluated as
 * an expression so a body that closes the function early cannot go unnoticed. */
static void push_function(duk_context *ctx, const struct sbx__js_eval_in *in)
{
    size_t len;
    char *code = sbx__js_to_cesu(in->code ? in->code : "", in->code ? in->code_len : 0, &len);
    if (!code)
        (void)duk_error(ctx, DUK_ERR_RANGE_ERROR, "alloc failed");
    duk_push_string(ctx, "(function (context) {");
    duk_push_lstring(ctx, code, len);
    sbx__free(code);
    duk_push_string(ctx, "\n})");
    duk_concat(ctx, 3);
    duk_push_string(ctx, "code");
    duk_compile(ctx, DUK_COMPILE_EVAL);
    duk_call(ctx, 0);
    if (!duk_is_function(ctx, -1))
        (void)duk_error(ctx, DUK_ERR_SYNTAX_ERROR, "code closes its function body early");
}

static void push_context(duk_context *ctx, const struct sbx__js_eval_in *in)
{
    if (!in->context_json) {
        duk_push_null(ctx);
        return;
    }
    size_t len;
    char *json = sbx__js_to_cesu(in->context_json, in->context_len, &len);
    if (!json)
        (void)duk_error(ctx, DUK_ERR_RANGE_ERROR, "alloc failed");
    duk_push_lstring(ctx, json, len);
    sbx__free(json);
    duk_json_decode(ctx, -1);
}

/* Runs the guest and leaves the JSON text of its result on the stack. Errors propagate to the
 * caller's safe call; e->phase says which step threw. */
static duk_ret_t run_guest(duk_context *ctx, void *udata)
{
    struct engine *e = udata;
    push_function(ctx, e->in);
    e->phase = PHASE_CONTEXT;
    push_context(ctx, e->in);
    e->phase = PHASE_RUN;
    duk_call(ctx, 1);
    e->phase = PHASE_ENCODE;
    if (duk_is_undefined(ctx, -1)) {
        duk_pop(ctx);
        duk_push_string(ctx, "null");
        return 1;
    }
    e->encode_type = duk_is_function(ctx, -1) ? "function"
                     : duk_is_symbol(ctx, -1) ? "symbol"
                                              : "object";
    duk_json_encode(ctx, -1);
    if (!duk_is_string(ctx, -1)) {
        duk_pop(ctx);
        duk_push_undefined(ctx); /* run_heap reports encode_type */
    } else {
        e->encode_type = NULL;
    }
    return 1;
}

/* Appends at most MESSAGE_MAX bytes of engine text s to dst (NUL-terminated, cap bytes). */
static void append_text(char *dst, size_t cap, const char *s, size_t len)
{
    size_t have = strlen(dst);
    if (!s || have + 1 >= cap)
        return;
    if (len > MESSAGE_MAX)
        len = MESSAGE_MAX;
    size_t n;
    char *t = to_host(s, len, SBX_JS_LONE_REPLACE, &n);
    if (!t)
        return;
    n = sbx__js_utf8_cut(t, n, cap - 1 - have);
    memcpy(dst + have, t, n);
    dst[have + n] = '\0';
    sbx__free(t);
}

/* Formats the thrown value at -1 into msg: "Name: message (line N)" for errors, the value as
 * console.log would print it otherwise. Runs in a safe call. */
static duk_ret_t describe_error(duk_context *ctx, void *udata)
{
    char *msg = udata;
    duk_size_t len;
    const char *s;
    if (duk_is_error(ctx, -1)) {
        duk_get_prop_string(ctx, -1, "name");
        s = duk_safe_to_lstring(ctx, -1, &len);
        append_text(msg, MESSAGE_MAX, s, len);
        append_text(msg, MESSAGE_MAX, ": ", 2);
        duk_get_prop_string(ctx, -2, "message");
        s = duk_safe_to_lstring(ctx, -1, &len);
        append_text(msg, MESSAGE_MAX, s, len);
        duk_get_prop_string(ctx, -3, "lineNumber");
        if (duk_is_number(ctx, -1) && !strstr(msg, "(line ")) {
            char line[32];
            snprintf(line, sizeof(line), " (line %ld)", (long)duk_get_int(ctx, -1));
            append_text(msg, MESSAGE_MAX, line, strlen(line));
        }
        return 0;
    }
    append_text(msg, MESSAGE_MAX, "uncaught ", 9);
    push_console_text(ctx, -1); /* as console.log shows it: objects as JSON */
    s = duk_get_lstring(ctx, -1, &len);
    append_text(msg, MESSAGE_MAX, s, len);
    return 0;
}

static int stop_reason(const struct engine *e)
{
    int reason = e->in->stop ? atomic_load(e->in->stop) : SBX_OK;
    if (reason == SBX_OK && e->in->deadline_ns && sbx__now_ns() >= e->in->deadline_ns)
        reason = SBX_E_TIMEOUT;
    return reason;
}

static void set_error(struct sbx__js_eval_out *out, sbx_err err, sbx_limit limit, const char *msg)
{
    out->error = err;
    out->limit = limit;
    sbx__free(out->message);
    out->message = sbx__strdup(msg);
}

/* Classifies a failed run: a stop or deadline beats a memory cap, which beats the error. */
static void fail_run(struct engine *e, duk_context *ctx)
{
    char msg[MESSAGE_MAX + 64] = "";
    int reason = stop_reason(e);
    if (reason == SBX_E_ABORTED) {
        set_error(e->out, SBX_E_ABORTED, SBX_LIMIT_NONE, "run was aborted by the host");
    } else if (reason != SBX_OK) {
        set_error(e->out, SBX_E_TIMEOUT, SBX_LIMIT_TIMEOUT, "run exceeded its time limit");
    } else if (e->heap.has_hit_limit) {
        set_error(e->out, SBX_E_MEMORY_LIMIT, SBX_LIMIT_MEMORY,
                  "guest exceeded its memory limit (memoryBytes)");
    } else {
        const char *prefix = e->phase == PHASE_CONTEXT  ? "context is not valid JSON: "
                             : e->phase == PHASE_ENCODE ? "return value cannot be encoded as JSON: "
                                                        : "";
        append_text(msg, sizeof(msg), prefix, strlen(prefix));
        if (duk_safe_call(ctx, describe_error, msg, 1, 1) != DUK_EXEC_SUCCESS && !msg[0])
            append_text(msg, sizeof(msg), "unknown error", 13);
        sbx_err err = e->phase == PHASE_CONTEXT ? SBX_E_INVALID_ARGUMENT : SBX_E_EXECUTION_FAILED;
        set_error(e->out, err, SBX_LIMIT_NONE, msg);
    }
}

static void take_value(struct engine *e, duk_context *ctx)
{
    duk_size_t len;
    const char *json = duk_get_lstring(ctx, -1, &len);
    /* The value is output too: a guest must not hand the host more than maxOutputBytes. */
    if (len > e->out->out.limit) {
        char msg[128];
        snprintf(msg, sizeof(msg), "return value is %zu bytes of JSON, over maxOutputBytes (%zu)",
                 (size_t)len, e->out->out.limit);
        set_error(e->out, SBX_E_OUTPUT_LIMIT, SBX_LIMIT_OUTPUT, msg);
        return;
    }
    e->out->value_json = to_host(json, len, SBX_JS_LONE_ESCAPE, NULL);
    if (!e->out->value_json)
        set_error(e->out, SBX_E_NOMEM, SBX_LIMIT_NONE, "host ran out of memory");
}

static void run_heap(struct engine *e)
{
    duk_context *ctx = e->ctx;
    if (duk_safe_call(ctx, run_guest, e, 0, 1) != DUK_EXEC_SUCCESS) {
        fail_run(e, ctx);
    } else if (e->encode_type) {
        char msg[96];
        snprintf(msg, sizeof(msg), "return value of type %s cannot be encoded as JSON",
                 e->encode_type);
        set_error(e->out, SBX_E_EXECUTION_FAILED, SBX_LIMIT_NONE, msg);
    } else {
        take_value(e, ctx);
    }
}

static void fail_fatal(struct engine *e)
{
    char msg[sizeof(e->fatal_msg) + 32];
    snprintf(msg, sizeof(msg), "engine fatal error: %s", e->fatal_msg);
    sbx__free(e->out->value_json);
    e->out->value_json = NULL;
    set_error(e->out, SBX_E_EXECUTION_FAILED, SBX_LIMIT_NONE, msg);
}

/* Builds the heap under the current cap. Separate from the run so it can happen ahead. */
static struct sbx__js_engine *create_capped(uint64_t limit_bytes)
{
    struct engine *e = sbx__calloc(1, sizeof(*e));
    if (!e)
        return NULL;
    sbx__js_heap_init(&e->heap, limit_bytes,
                      limit_bytes >= SMALL_HEAP_BYTES ? BUILD_ARENA_BYTES : 0);
    init_stack_floor();
    current = e;
    if (setjmp(e->fatal_jmp) == 0) {
        e->ctx = duk_create_heap(sbx__js_heap_alloc, sbx__js_heap_realloc, sbx__js_heap_free, e,
                                 on_fatal);
        if (e->ctx && duk_safe_call(e->ctx, setup_globals, NULL, 0, 1) != DUK_EXEC_SUCCESS)
            e->ctx = NULL; /* a half-built global object must not run guests */
        if (e->ctx)
            duk_pop(e->ctx);
    }
    sbx__js_heap_seal(&e->heap);
    current = NULL;
    e->owner = pthread_self();
    return (struct sbx__js_engine *)e;
}

struct sbx__js_engine *sbx__js_engine_create(void)
{
    struct sbx__js_engine *js = create_capped(UINT64_MAX);
    if (js && !((struct engine *)js)->ctx) {
        sbx__js_engine_destroy(js);
        return NULL;
    }
    return js;
}

void sbx__js_engine_destroy(struct sbx__js_engine *js)
{
    struct engine *e = (struct engine *)js;
    if (!e)
        return;
    sbx__js_heap_release(&e->heap);
    sbx__free(e);
}

/* Runs on e: the heap's cap becomes the run's, and a heap already over it counts as too small. */
static void run_engine(struct engine *e)
{
    e->heap.limit_bytes = e->in->memory_bytes > SIZE_MAX ? SIZE_MAX : e->in->memory_bytes;
    if (!e->ctx || e->heap.used_bytes > e->heap.limit_bytes) {
        if (e->heap.has_hit_limit || e->heap.used_bytes > e->heap.limit_bytes)
            set_error(e->out, SBX_E_MEMORY_LIMIT, SBX_LIMIT_MEMORY,
                      "memoryBytes is too small for the engine");
        else
            set_error(e->out, SBX_E_NOMEM, SBX_LIMIT_NONE, "host ran out of memory");
        return;
    }
    unsigned deaf_ms = atomic_load(&test_deaf_ms);
    if (deaf_ms)
        e->deaf_until_ns = sbx__now_ns() + deaf_ms * 1000000ull;
    current = e;
    if (setjmp(e->fatal_jmp) == 0)
        run_heap(e);
    else
        fail_fatal(e);
    current = NULL;
}

void sbx__js_engine_run(struct sbx__js_engine *js, const struct sbx__js_eval_in *in,
                        struct sbx__js_eval_out *out)
{
    struct engine *e = (struct engine *)js;
    if (e && e->heap.arena && in->memory_bytes < SMALL_HEAP_BYTES &&
        pthread_equal(e->owner, pthread_self())) {
        sbx__js_engine_destroy(js); /* rebuild without the arena's slack */
        e = (struct engine *)create_capped(in->memory_bytes);
        js = (struct sbx__js_engine *)e;
    }
    if (!e) {
        set_error(out, SBX_E_NOMEM, SBX_LIMIT_NONE, "host ran out of memory");
        if (in->on_done)
            in->on_done(in->on_done_arg);
        return;
    }
    e->in = in;
    e->out = out;
    if (pthread_equal(e->owner, pthread_self()))
        run_engine(e);
    else
        set_error(out, SBX_E_INVALID_ARGUMENT, SBX_LIMIT_NONE, "engine used off its thread");
    out->heap_peak_bytes = e->heap.peak_bytes;
    if (in->on_done)
        in->on_done(in->on_done_arg);
    sbx__js_engine_destroy(js);
}

void sbx__js_eval(const struct sbx__js_eval_in *in, struct sbx__js_eval_out *out)
{
    sbx__js_engine_run(create_capped(in->memory_bytes), in, out);
}

void sbx__js_test_deaf_ms(unsigned ms)
{
    atomic_store(&test_deaf_ms, ms);
}

void sbx__js_test_fatal_on_console(bool on)
{
    atomic_store(&test_fatal, on);
}

void sbx__js_eval_out_init(struct sbx__js_eval_out *out, uint64_t max_output_bytes)
{
    memset(out, 0, sizeof(*out));
    size_t cap = max_output_bytes > SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t)max_output_bytes;
    sbx__buf_init(&out->out, cap);
    sbx__buf_init(&out->err, cap);
}

void sbx__js_eval_out_free(struct sbx__js_eval_out *out)
{
    sbx__free(out->message);
    sbx__free(out->value_json);
    sbx__buf_free(&out->out);
    sbx__buf_free(&out->err);
    memset(out, 0, sizeof(*out));
}
