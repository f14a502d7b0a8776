/* js/sm.h: what the SpiderMonkey adapter files (C++) share: the per-thread context, the run
 * being executed on it, and the console. Never included from C; engine.h is the C seam. */
#ifndef SBX_JS_SM_H
#define SBX_JS_SM_H

/* Every C++ adapter file includes this first. The engine's inline helpers (js_malloc, js_free,
 * the vectors' alloc policies) are compiled into these files; they must allocate and free as the
 * library does, through the counting wrappers of account.c, or a block tagged by one would reach
 * glibc's free untagged. So the system headers come first, then the names are redirected. */
#include <algorithm>
#include <malloc.h>
#include <pthread.h>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "js/account.h"
namespace std
{ /* for headers that say std::free */
using ::sbx__js_calloc;
using ::sbx__js_free;
using ::sbx__js_malloc;
using ::sbx__js_realloc;
} // namespace std
#define malloc  sbx__js_malloc
#define calloc  sbx__js_calloc
#define realloc sbx__js_realloc
#define free    sbx__js_free

#include <jsapi.h>

#include "js/engine.h"

extern "C" uint64_t sbx__now_ns(void); /* core/backend.h, which is C only */

/* The global's reserved slot that caches the console inspector of its realm. */
#define SM_SLOT_INSPECT  0 /* of the JSCLASS_GLOBAL_APPLICATION_SLOTS every global has */
#define SM_SLOT_PLATFORM 1 /* the realm's platform state (js/platform/platform.cpp) */

/* One pool thread's engine state: its JSContext lives as long as the thread. */
struct sm_thread;

/* The run on a thread's context, seen by the interrupt callback and the console natives. */
struct sm_run {
    const struct sbx__js_eval_in *in;
    struct sbx__js_eval_out *out;
    JSContext *cx;
    uint64_t deaf_until_ns;     /* sbx__js_test_deaf_ms */
    unsigned line_offset;       /* taken off guest line numbers (the async form's header) */
    bool is_oom;                /* the engine reported out of memory */
    bool is_buffer_oom;         /* an ArrayBuffer allocation went over the cap */
    uint64_t buffer_bytes;      /* ArrayBuffer contents allocated by this run */
    uint64_t buffer_cap;        /* and the most it may allocate */
    uint64_t gc_cap_bytes;      /* with the JIT: the GC heap's cap, enforced by sbx; else 0 */
    bool is_gc_over_cap;        /* a GC left the heap over gc_cap_bytes (heap_cap.cpp) */
    JS::Realm *realm;           /* the run's realm, whose registries' cleanups may run */
    struct sm_run *watch_next;  /* in the watchdog's list */
    pthread_t thread;           /* the run's thread, for throttling */
    uint64_t stop_seen_ns;      /* when the watchdog first saw the run must stop; 0 = not yet */
    uint64_t throttle_until_ns; /* the throttled thread sleeps until then (watchdog sets it) */
    uint64_t throttle_cpu_ns;   /* the thread's CPU time at the last throttle signal */
    bool is_watched;
};

/* Brackets every use of the engine (a run, building or destroying a context), so that the exit
 * handler shuts the engine down only while no thread is inside. sm_enter fails once it has. */
bool sm_enter(void);
void sm_leave(void);

/* Fixes the process's JIT mode to want unless a run (or the engine's start, with false) already
 * did; returns the mode in effect. Thread-safe. */
bool sm_jit_claim(bool want);

/* Returns why a run asking for JIT mode want cannot run in this process (static text), or NULL
 * when the process's mode is want (claiming it first if none was). */
const char *sm_jit_refusal(bool want);

/* Returns this thread's context, creating it (and the process-wide engine) on first use; NULL
 * when the engine cannot start. */
JSContext *sm_thread_cx(void);

/* Sets the engine's build id (libmozjs's ELF build id and sbx's version), before JS_Init. */
void sm_set_build_id(void);

/* Gives cx the engine's self-hosted code: from the stencil file, or parsed (selfhosted.cpp). */
bool sm_init_self_hosted(JSContext *cx);

/* Whether this process was forked after its engine started (the engine cannot run here). */
bool sm_is_forked(void);

/* The run now executing on this thread, or NULL. */
struct sm_run *sm_current(void);
void sm_set_current(struct sm_run *run);

/* Runs queued promise jobs until the queue is empty or a job fails uncatchably (a stop).
 * Returns false when a job failed that way. */
bool sm_drain_jobs(JSContext *cx);

/* Between the two, GCs queue the FinalizationRegistry cleanups of realm (the run's) and
 * sm_drain_jobs runs them; sm_cleanups_end drops what is still queued, with every job. */
void sm_cleanups_begin(struct sm_run *run, JS::Realm *realm);
void sm_cleanups_end(struct sm_run *run);

/* Runs a full GC so that registries whose targets died get their cleanups queued; returns
 * whether any is queued. */
bool sm_collect_for_cleanups(JSContext *cx);

/* Starts and ends the watchdog's view of run: between the two, a passed deadline or a set stop
 * flag interrupts the guest (from the watchdog thread). */
void sm_watch(struct sm_run *run);
void sm_unwatch(struct sm_run *run);

/* Whether the run must stop now: its stop flag or deadline (and not deaf). */
bool sm_should_stop(const struct sm_run *run);

/* Returns the GC heap cap to give the engine for a run whose own cap is cap_bytes; with the JIT
 * on, sbx enforces cap_bytes itself (heap_cap.cpp) until sm_heap_cap_end. */
uint64_t sm_heap_cap_begin(struct sm_run *run, uint64_t cap_bytes);
void sm_heap_cap_end(struct sm_run *run);

/* For the interrupt callback: false when the run's GC heap stays over its cap after a full GC
 * (then run->is_oom is set). */
bool sm_heap_cap_ok(struct sm_run *run);

/* Turns the engine's unhandlable out-of-memory crash into the end of the run and the retirement
 * of its thread (oom.cpp), before JS_Init; false where that is not possible (the crash stays). */
bool sm_oom_install(void);
bool sm_oom_is_contained(void);
int sm_oom_retired_count(void);

/* Why no run may start (too many retired threads: static text), or NULL. */
const char *sm_oom_refusal(void);

/* Defines `console` on the current global. */
bool sm_console_install(JSContext *cx, JS::HandleObject global);

/* Appends the console text of v (as Node's console.log shows it) to b; the caller has a pending
 * exception when this returns false. */
bool sm_console_text(JSContext *cx, JS::HandleValue v, struct sbx__buf *b);

/* Appends engine text s to b, cut at a character boundary at b's cap; converts only as much of a
 * long string as can fit. */
void sm_emit(JSContext *cx, struct sbx__buf *b, JSString *s);
void sm_emit_ascii(struct sbx__buf *b, const char *s, size_t len);

#endif
