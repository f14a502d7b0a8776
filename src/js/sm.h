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
#include <js/experimental/JSStencil.h> /* JS::Stencil */

#include "js/engine.h"

extern "C" uint64_t sbx__now_ns(void); /* core/backend.h, which is C only */

/* The global's reserved slot that caches the console inspector of its realm. */
#define SM_SLOT_INSPECT        0 /* of the JSCLASS_GLOBAL_APPLICATION_SLOTS every global has */
#define SM_SLOT_PLATFORM       1 /* the realm's platform state (js/platform/platform.cpp) */
#define SM_SLOT_BUILTINS       2 /* Int32 bits of the built-ins installed (js/builtins/builtins.cpp) */
#define SM_SLOT_BUILTINS_STATE 3 /* and their state object */

/* One pool thread's engine state: its JSContext lives as long as the thread. */
struct sm_thread;

/* The run on a thread's context, seen by the interrupt callback and the console natives. */
struct sm_run {
    const struct sbx__js_eval_in *in;
    struct sbx__js_eval_out *out;
    JSContext *cx;
    uint64_t deaf_until_ns;     /* sbx__js_test_deaf_ms */
    unsigned line_offset;       /* taken off guest line numbers (the async form's header) */
    struct sm_script *preload;  /* the preload being prepared or run, for its errors */
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

/* The file name of a run's body in stacks and messages. */
#define SM_BODY_FILE "code"

/* Frames of file `from` are reported as file `to`, line_offset lines higher (the async form's
 * header). */
struct sm_source_map {
    const char *from;
    const char *to;
    unsigned line_offset;
};

/* Appends a one-line description of thrown value exc to msg (cap bytes, NUL-terminated):
 * "Name: message (line L, column C)" for errors (with the file when it is not the body's), the
 * value as console.log shows it after "uncaught " otherwise, positioned by thrown_at (the stack
 * captured at the throw, or null). *stack gets the guest's stack text (sbx__free it) or NULL.
 * false when a guest getter or toString stopped the run. map may be NULL. */
bool sm_describe(JSContext *cx, JS::HandleValue exc, JS::HandleObject thrown_at,
                 const struct sm_source_map *map, char *msg, size_t cap, char **stack);
bool sm_is_error_object(JSContext *cx, JS::HandleValue v);

/* Appends String(obj[name]) to msg (at most 400 bytes of it); false when a getter or toString
 * stopped the run. */
bool sm_append_prop(JSContext *cx, JS::HandleObject obj, const char *name, char *msg, size_t cap);

/* A script compiled once per process and run in any realm (script.cpp): created and released
 * by any thread; each thread decodes its own stencil from the first compile's encoding. */
struct sm_script;

/* Copies name (its file name in stacks and messages) and source (UTF-8); NULL on NOMEM. */
struct sm_script *sm_script_new(const char *name, const char *source, size_t len);

/* Adds and drops an owner's reference: once the last owner is gone, threads drop their cached
 * copies at their next sweep. */
void sm_script_ref(struct sm_script *s);
void sm_script_release(struct sm_script *s);
const char *sm_script_name(const struct sm_script *s);

/* This thread's stencil of s, compiled or decoded now if need be; NULL with an exception (a
 * SyntaxError, out of memory) pending. Call outside a run's memory account: it stays cached. */
JS::Stencil *sm_script_stencil(JSContext *cx, struct sm_script *s);

/* Instantiates s in the current realm and runs it; false with an exception pending. */
bool sm_script_run(JSContext *cx, struct sm_script *s, JS::MutableHandleValue rval);

/* Drops this thread's cached stencils of retired scripts (each run), or all (thread end). */
void sm_scripts_sweep(void);
void sm_scripts_thread_end(void);

/* Gives the run its time zone and locale (zone.cpp), waiting while runs under another zone are
 * running; false when the run must stop first. sm_zone_leave after a true. */
bool sm_zone_enter(struct sm_run *run);
void sm_zone_leave(struct sm_run *run);

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
