/* js/account.h: counts the engine's malloc memory per thread, so memoryBytes bounds what a guest
 * makes SpiderMonkey allocate outside its GC heap (ArrayBuffer and typed-array contents, string
 * characters, object slots and elements). Works by pointing libmozjs's own GOT entries for the
 * malloc family at counting wrappers; no other library's allocations are touched. */
#ifndef SBX_JS_ACCOUNT_H
#define SBX_JS_ACCOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h> /* time_t */

#ifdef __cplusplus
extern "C" {
#endif

/* The counting allocator itself, for the adapter's own copies of the engine's inline helpers. */
void *sbx__js_malloc(size_t n);
void *sbx__js_calloc(size_t count, size_t size);
void *sbx__js_realloc(void *p, size_t n);
void sbx__js_free(void *p);

/* Patches libmozjs's GOT once per process. Returns false if that failed (nothing is counted). */
bool sbx__js_account_install(void);

/* Gives the calling thread an account (its context's allocations count there); false if none
 * is free. Released when the thread's engine goes away. */
bool sbx__js_account_attach(void);
void sbx__js_account_detach(void);

/* Starts a run on this thread's account: it may allocate cap_bytes more than now. Once it has,
 * over(arg) is called (on this thread) so the run can be stopped at its next interrupt check;
 * allocations still succeed until the run is max(cap_bytes, 64 MiB) further, where large ones
 * (64 KiB or more) start to fail. */
void sbx__js_account_begin(uint64_t cap_bytes, void (*over)(void *arg), void *arg);

/* Ends the run; returns whether it went over its cap. */
bool sbx__js_account_end(void);

/* Whether this thread is inside the allocator now (async-signal-safe: a thread-local read). */
bool sbx__js_account_in_alloc(void);

/* Whether the current run on this thread has gone over its cap. */
bool sbx__js_account_is_over(void);

/* Blocks refused to the current run on this thread. */
uint64_t sbx__js_account_refused_count(void);

/* Bytes live on this thread's account, and the most its current run had above its start. */
uint64_t sbx__js_account_live_bytes(void);
uint64_t sbx__js_account_peak_bytes(void);

/* tz.c. The environment libmozjs sees (its GOT entry for `environ` points here): TZ only. */
extern char **sbx__js_engine_environ;

/* Sets the engine's TZ (NULL or "" = UTC; at most 64 bytes), with a standard offset of 0 until
 * set; returns whether it changed. Not thread-safe: the caller (js/zone.cpp) changes them only
 * while no run uses the engine's clock. */
bool sbx__js_tz_set(const char *tz);
void sbx__js_tz_set_standard_offset(long seconds_east);
const char *sbx__js_tz_get(void);

/* What libmozjs calls for localtime_r, mktime and tzset: the engine's zone, without DST. */
struct tm;
struct tm *sbx__js_tz_localtime_r(const time_t *t, struct tm *out);
time_t sbx__js_tz_mktime(struct tm *tm);
void sbx__js_tz_tzset(void);
extern long sbx__js_tz_timezone;
extern char *sbx__js_tz_tzname[2];

#ifdef __cplusplus
}
#endif

#endif
