/* js/duk_overrides.h: SBX_OVERRIDES_BEGIN. Not a header: mk/js.mk pastes it into the generated
 * duk_config.h. Turns on the hooks the worker tier relies on (timeout, native stack check),
 * routes fatal errors to the tier and keeps Duktape's symbols out of libsbx's exports. */

/* The executor calls the timeout hook every DUK_HTHREAD_INTCTR_DEFAULT instructions; patched
 * native loops (property access, regexp steps) call it too, see js/duk_poll.inc. */
#define DUK_USE_INTERRUPT_COUNTER
#define DUK_USE_EXEC_TIMEOUT_CHECK(udata) sbx__js_timeout_check(udata)
int sbx__js_timeout_check(void *udata);

/* Recursion in the compiler, regexp and call paths checks the native stack of its worker. */
#define DUK_USE_NATIVE_STACK_CHECK() sbx__js_stack_check()
int sbx__js_stack_check(void);

/* Only used without a heap (duk_create_heap failing early); per-heap fatals go to the handler
 * passed to duk_create_heap. */
#define DUK_USE_FATAL_HANDLER(udata, msg) sbx__js_fatal((udata), (msg))
void sbx__js_fatal(void *udata, const char *msg);

/* libsbx exports only sbx_ symbols. */
#undef DUK_EXTERNAL_DECL
#undef DUK_EXTERNAL
#define DUK_EXTERNAL_DECL __attribute__((visibility("hidden"))) extern
#define DUK_EXTERNAL      __attribute__((visibility("hidden")))

#if defined(DUK_COMPILING_DUKTAPE)
/* A new heap would otherwise start with a full mark-and-sweep of its own builtins on its first
 * allocation; short runs never need it (reference counting frees their garbage). Later
 * triggers and the collection on allocation failure are Duktape's. */
#define SBX_DUK_FIRST_GC_ALLOCS 32768
struct duk_hthread;
static void sbx__duk_poll_slow(struct duk_hthread *thr);
/* Counts native work against the executor's interrupt counter; polls the hook when it runs out. */
#define SBX_DUK_POLL_COST(thr, cost)                                                               \
    do {                                                                                           \
        if (((thr)->interrupt_counter -= (duk_int_t)(cost)) <= 0)                                  \
            sbx__duk_poll_slow(thr);                                                               \
    } while (0)
#define SBX_DUK_POLL(thr) SBX_DUK_POLL_COST(thr, 1)
#endif
