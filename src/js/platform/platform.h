/* js/platform/platform.h: the globals a Node Worker gives beyond ECMAScript (docs/worker.md,
 * "Globals"): timers, URL, TextEncoder, structuredClone, crypto, performance... Most are
 * JavaScript (the .js files beside this one), compiled once per process and instantiated into a
 * realm only when the guest first touches one of their names (the global's resolve hook); natives
 * do what JavaScript cannot (the host's CSPRNG and clock, ICU's IDNA, bulk text codecs). */
#ifndef SBX_JS_PLATFORM_H
#define SBX_JS_PLATFORM_H

#include "js/sm.h" /* first: see there */

/* The hooks of every run's global class: the standard classes' lazy resolution plus the
 * platform's names. */
extern const JSClassOps sm_platform_global_ops;

/* Sets the platform up in a fresh realm (the run's clock origin, console's added methods);
 * call once per run, in the global's realm, before guest code. */
bool sm_platform_install(JSContext *cx, JS::HandleObject global);

/* After a drain of the job queue: false, with it pending, when a callback (queueMicrotask,
 * a timer) threw an exception the guest did not catch; the first one wins. */
bool sm_platform_check(JSContext *cx);

/* Runs the run's next macrotask (a due timer or an immediate), sleeping without CPU until one
 * is due; *ran says whether one ran (false: none is pending). false: the guest must stop (no
 * exception) or a callback threw (pending). The caller drains the job queue after each. */
bool sm_platform_turn(JSContext *cx, bool *ran);

/* The exports of module sbx:<name>.js in the current realm (instantiated on first use). */
bool sm_platform_module(JSContext *cx, const char *name, JS::MutableHandleObject exports);

/* Releases this thread's compiled platform modules; call before its JS_DestroyContext. */
void sm_platform_thread_end(void);

/* What the platform's files share. */

/* The realm's platform state (created on first use), or NULL with an exception pending. */
JSObject *sm_platform_state(JSContext *cx);

/* Records e as the run's first uncaught callback error (sm_platform_check throws it). */
void sm_platform_report(JSContext *cx, JS::HandleValue e);

/* Defines the natives of each file on the object handed to the platform's JavaScript. */
bool sm_platform_host_natives(JSContext *cx, JS::HandleObject natives);
bool sm_platform_codec_natives(JSContext *cx, JS::HandleObject natives);
bool sm_platform_clone_natives(JSContext *cx, JS::HandleObject natives);
bool sm_platform_idna_natives(JSContext *cx, JS::HandleObject natives);
bool sm_platform_url_natives(JSContext *cx, JS::HandleObject natives);

/* Marks the run's start on this thread (sm_platform_install). */
void sm_platform_clock_start(void);

/* Milliseconds since the run's realm was made (full precision, for the host only). */
double sm_platform_now_ms(void);

/* Sleeps ms milliseconds without CPU; false as soon as the current run must stop. */
bool sm_platform_sleep_ms(double ms);

#endif
