/* js/zone.cpp: the time zone and locale a run sees: UTC and en-US unless its policy's env sets
 * TZ (or LC_ALL, LC_MESSAGES, LANG), as the process tier's guest sees them with that env and no
 * other. The locale belongs to the thread's context (JS_SetDefaultLocale); the zone is the
 * engine's, one per process (js/tz.c): runs under different zones take turns, a run waiting
 * (within its deadline) while runs under another zone are running. */
#include "js/sm.h" /* first: see there */

#include <js/CompilationAndEvaluation.h>
#include <js/Date.h>
#include <js/LocaleSensitive.h>
#include <js/SourceText.h>
#include <time.h>

/* How often a waiting run looks at its deadline and stop flag. */
#define WAIT_POLL_NS (2u * 1000000u)

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond; /* the zone's users or its waiters changed */
    int users;           /* runs under the current zone */
    int waiting;         /* runs waiting for another zone: new runs queue behind them */
} zone = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};

static const JSClass scratch_class = {
    "global", JSCLASS_GLOBAL_FLAGS, &JS::DefaultGlobalClassOps, nullptr, nullptr, nullptr};

/* The zone's standard offset this year (the smaller of January's and July's, so DST is out),
 * through ICU's data (Intl with an explicit zone); false when ICU does not know the zone. */
static const char OFFSET_JS[] =
    "(function (tz) {"
    " var f = new Intl.DateTimeFormat('en-US', {timeZone: tz, hourCycle: 'h23', year: 'numeric',"
    "  month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric'});"
    " function off(t) { var p = {}; f.formatToParts(t).forEach(function (x) { p[x.type] ="
    "  x.value; }); return (Date.UTC(+p.year, p.month - 1, +p.day, +p.hour, +p.minute, +p.second)"
    "  - t) / 1000; }"
    " var y = new Date().getUTCFullYear();"
    " return Math.min(off(Date.UTC(y, 0, 1)), off(Date.UTC(y, 6, 1))); })";

static bool standard_offset(JSContext *cx, const char *tz, long *seconds_east)
{
    JS::RealmOptions options;
    options.creationOptions().setNewCompartmentAndZone();
    JS::RootedObject global(
        cx, JS_NewGlobalObject(cx, &scratch_class, nullptr, JS::FireOnNewGlobalHook, options));
    if (!global)
        return false;
    JSAutoRealm ar(cx, global);
    JS::CompileOptions opts(cx);
    JS::SourceText<mozilla::Utf8Unit> src;
    JS::RootedValue fn(cx), rval(cx);
    JS::RootedValueArray<1> args(cx);
    args[0].setString(JS_NewStringCopyZ(cx, tz));
    bool ok = args[0].isString() &&
              src.init(cx, OFFSET_JS, sizeof(OFFSET_JS) - 1, JS::SourceOwnership::Borrowed) &&
              JS::Evaluate(cx, opts, src, &fn) &&
              JS::Call(cx, JS::UndefinedHandleValue, fn, args, &rval) && rval.isNumber() &&
              rval.toNumber() > -86400 && rval.toNumber() < 86400;
    JS_ClearPendingException(cx);
    if (ok)
        *seconds_east = (long)rval.toNumber();
    return ok;
}

/* Makes tz the engine's zone (no run uses it now); an unknown zone is UTC, never the host's. */
static void switch_to(JSContext *cx, const char *tz)
{
    long offset = 0;
    sbx__js_tz_set(tz);
    JS::ResetTimeZone();
    if (strcmp(tz, "UTC") != 0 && !standard_offset(cx, tz, &offset)) {
        sbx__js_tz_set("UTC");
        JS::ResetTimeZone();
        return;
    }
    sbx__js_tz_set_standard_offset(offset);
    JS::ResetTimeZone();
}

static bool is_current(const char *tz)
{
    return strcmp(sbx__js_tz_get(), tz) == 0;
}

bool sm_zone_enter(struct sm_run *run)
{
    const char *tz = run->in->tz[0] ? run->in->tz : "UTC";
    bool is_waiting = false, ok = true;
    pthread_mutex_lock(&zone.lock);
    /* Queue behind runs waiting for another zone, so a stream of runs cannot starve them. */
    while (!is_current(tz) ? zone.users > 0 : zone.waiting > 0 && !is_waiting) {
        if (!is_current(tz) && !is_waiting) {
            is_waiting = true;
            zone.waiting++;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += WAIT_POLL_NS;
        ts.tv_sec += ts.tv_nsec / 1000000000;
        ts.tv_nsec %= 1000000000;
        pthread_cond_timedwait(&zone.cond, &zone.lock, &ts);
        if (sm_should_stop(run)) {
            ok = false;
            break;
        }
    }
    if (is_waiting)
        zone.waiting--;
    if (ok) {
        if (!is_current(tz))
            switch_to(run->cx, tz);
        zone.users++;
    }
    pthread_cond_broadcast(&zone.cond);
    pthread_mutex_unlock(&zone.lock);
    if (ok && !JS_SetDefaultLocale(JS_GetRuntime(run->cx),
                                   run->in->locale[0] ? run->in->locale : "en-US"))
        JS_SetDefaultLocale(JS_GetRuntime(run->cx), "en-US");
    return ok;
}

void sm_zone_leave(struct sm_run *run)
{
    (void)run;
    pthread_mutex_lock(&zone.lock);
    zone.users--;
    pthread_cond_broadcast(&zone.cond);
    pthread_mutex_unlock(&zone.lock);
}
