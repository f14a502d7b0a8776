/* js/platform/host.cpp: the natives through which the platform's JavaScript reaches the host:
 * the run's clock (performance.now, coarsened to 100 us as browsers do; docs/threat-model.md),
 * the job queue (queueMicrotask), the console's streams and inspector, the kernel's CSPRNG
 * (crypto), and the sleep between timers, which uses no CPU and ends when the run must stop. */
#include "js/platform/platform.h" /* first: see sm.h */

#include <js/Conversions.h>
#include <js/Array.h>
#include <js/Promise.h>
#include <js/experimental/TypedData.h>
#include <errno.h>
#include <math.h>
#include <sys/random.h>
#include <time.h>

extern "C" {
#include "util/alloc.h"
}

/* Resolution of performance.now() and timeOrigin, in milliseconds (100 us). */
#define COARSE_MS 0.1
/* getRandomValues' limit (WebCrypto: QuotaExceededError above it). */
#define RANDOM_MAX_BYTES 65536u
/* Longest text natives.inspect returns (the console's cap applies on output anyway). */
#define INSPECT_MAX (1u << 20)
/* The sleep between timers looks at the run's stop flag and deadline this often. */
#define SLEEP_SLICE_NS 1000000u

/* The run on this thread: when its realm was made, on the monotonic and the wall clock. */
static thread_local uint64_t origin_ns;
static thread_local double origin_wall_ms;

void sm_platform_clock_start(void)
{
    struct timespec ts;
    origin_ns = sbx__now_ns();
    clock_gettime(CLOCK_REALTIME, &ts);
    origin_wall_ms = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

double sm_platform_now_ms(void)
{
    return (double)(sbx__now_ns() - origin_ns) / 1e6;
}

static double coarse(double ms)
{
    return floor(ms / COARSE_MS) * COARSE_MS;
}

bool sm_platform_sleep_ms(double ms)
{
    struct sm_run *run = sm_current();
    uint64_t until = sbx__now_ns() + (uint64_t)(ms * 1e6);
    for (uint64_t now = sbx__now_ns(); now < until; now = sbx__now_ns()) {
        if (run && sm_should_stop(run))
            return false;
        uint64_t left = until - now < SLEEP_SLICE_NS ? until - now : SLEEP_SLICE_NS;
        struct timespec ts = {0, static_cast<long>(left)};
        nanosleep(&ts, nullptr);
    }
    return !(run && sm_should_stop(run));
}

static bool coarse_now(JSContext *, unsigned argc, JS::Value *vp)
{
    JS::CallArgsFromVp(argc, vp).rval().setDouble(coarse(sm_platform_now_ms()));
    return true;
}

static bool time_origin(JSContext *, unsigned argc, JS::Value *vp)
{
    JS::CallArgsFromVp(argc, vp).rval().setDouble(coarse(origin_wall_ms));
    return true;
}

/* enqueue(fn): fn runs as a microtask (a reaction of a resolved promise, through the engine's
 * own Promise machinery, so a guest that replaced Promise.prototype.then changes nothing). */
static bool enqueue(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    if (!args.get(0).isObject() || !JS::IsCallable(&args[0].toObject())) {
        JS_ReportErrorASCII(cx, "enqueue: not a function");
        return false;
    }
    JS::RootedObject fn(cx, &args[0].toObject());
    JS::RootedObject resolved(cx, JS::CallOriginalPromiseResolve(cx, JS::UndefinedHandleValue));
    if (!resolved || !JS::AddPromiseReactions(cx, resolved, fn, nullptr))
        return false;
    args.rval().setUndefined();
    return true;
}

static bool report(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    sm_platform_report(cx, args.get(0));
    args.rval().setUndefined();
    return true;
}

/* inspect(v): the text console.log prints for v. */
static bool inspect(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    struct sbx__buf b;
    sbx__buf_init(&b, INSPECT_MAX);
    bool ok = sm_console_text(cx, args.get(0), &b);
    JSString *s = nullptr;
    if (ok && !b.is_oom)
        s = JS_NewStringCopyUTF8N(cx, JS::UTF8Chars(b.len ? b.data : "", b.len));
    else if (ok)
        JS_ReportOutOfMemory(cx);
    sbx__buf_free(&b);
    if (!s)
        return false;
    args.rval().setString(s);
    return true;
}

/* write(toStderr, text): appends text to the run's stdout or stderr, within its cap. */
static bool write_text(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    struct sm_run *run = sm_current();
    JSString *s = JS::ToString(cx, args.get(1));
    if (!s)
        return false;
    if (run) {
        struct sbx__buf *b = JS::ToBoolean(args.get(0)) ? &run->out->err : &run->out->out;
        sm_emit(cx, b, s);
        sbx__buf_flush_tap(b); /* streaming: one chunk per console call, as console.log */
    }
    args.rval().setUndefined();
    return true;
}

static bool fill_random(uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t got = getrandom(p, n, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return false;
        p += got;
        n -= (size_t)got;
    }
    return true;
}

/* randomFill(view): fills an ArrayBufferView of at most RANDOM_MAX_BYTES (the caller checked
 * the type and size for the guest's error messages) from getrandom(2); never a seeded PRNG. */
static bool random_fill(JSContext *cx, unsigned argc, JS::Value *vp)
{
    JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
    JSObject *view = args.get(0).isObject() ? &args[0].toObject() : nullptr;
    if (!view || !JS_IsArrayBufferViewObject(view)) {
        JS_ReportErrorASCII(cx, "randomFill: not an ArrayBufferView");
        return false;
    }
    size_t len = JS_GetArrayBufferViewByteLength(view);
    if (len > RANDOM_MAX_BYTES) {
        JS_ReportErrorASCII(cx, "randomFill: more than %u bytes", RANDOM_MAX_BYTES);
        return false;
    }
    bool ok;
    {
        JS::AutoCheckCannotGC nogc; /* getrandom is a system call: nothing can move the data */
        bool is_shared;
        uint8_t *data = static_cast<uint8_t *>(JS_GetArrayBufferViewData(view, &is_shared, nogc));
        ok = !len || (data && fill_random(data, len));
    }
    if (!ok) {
        JS_ReportErrorASCII(cx, "the host's random source (getrandom) failed: errno %d", errno);
        return false;
    }
    args.rval().set(args[0]);
    return true;
}

bool sm_platform_host_natives(JSContext *cx, JS::HandleObject natives)
{
    static const JSFunctionSpec fns[] = {
        JS_FN("coarseNow", coarse_now, 0, 0),   JS_FN("timeOrigin", time_origin, 0, 0),
        JS_FN("enqueue", enqueue, 1, 0),        JS_FN("report", report, 1, 0),
        JS_FN("inspect", inspect, 1, 0),        JS_FN("write", write_text, 2, 0),
        JS_FN("randomFill", random_fill, 1, 0), JS_FS_END,
    };
    return JS_DefineFunctions(cx, natives, fns);
}
