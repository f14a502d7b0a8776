/* js/heap_cap.cpp: memoryBytes on the GC heap of a run with the JIT on. SpiderMonkey 102's own
 * cap (JSGC_MAX_BYTES) wedges the engine when JIT code allocates into a full heap: a loop inside
 * the VM that neither reports out of memory nor checks for interrupts (an object bomb ran past
 * its deadline for good). So with the JIT the engine's cap sits HEADROOM_BYTES above the run's
 * and sbx enforces the run's: a GC that leaves the heap over it asks for an interrupt, where a
 * full GC (as the engine's last-ditch GC would) decides whether the run stops. */
#include "js/sm.h" /* first: see there */

#include <js/GCAPI.h>

/* Above the run's cap: one nursery's worth of tenuring (2 MiB) and the objects allocated
 * tenured between two GCs, with room to spare. */
#define HEADROOM_BYTES (16u << 20)

static void check(JSContext *cx)
{
    struct sm_run *run = sm_current();
    if (!run || !run->gc_cap_bytes || run->is_gc_over_cap)
        return;
    if (JS_GetGCParameter(cx, JSGC_BYTES) > run->gc_cap_bytes) {
        run->is_gc_over_cap = true;
        JS_RequestInterruptCallback(cx);
    }
}

static void on_nursery(JSContext *cx, JS::GCNurseryProgress progress, JS::GCReason)
{
    if (progress == JS::GCNurseryProgress::GC_NURSERY_COLLECTION_END)
        check(cx);
}

static void on_gc(JSContext *cx, JSGCStatus status, JS::GCReason, void *)
{
    if (status == JSGC_END)
        check(cx);
}

uint64_t sm_heap_cap_begin(struct sm_run *run, uint64_t cap_bytes)
{
    if (!run->in->jit)
        return cap_bytes; /* the interpreters report out of memory at the engine's cap */
    run->gc_cap_bytes = cap_bytes;
    JS::SetGCNurseryCollectionCallback(run->cx, on_nursery);
    JS_SetGCCallback(run->cx, on_gc, nullptr);
    return cap_bytes + HEADROOM_BYTES;
}

void sm_heap_cap_end(struct sm_run *run)
{
    if (!run->gc_cap_bytes)
        return;
    JS::SetGCNurseryCollectionCallback(run->cx, nullptr);
    JS_SetGCCallback(run->cx, nullptr, nullptr);
    run->gc_cap_bytes = 0;
}

bool sm_heap_cap_ok(struct sm_run *run)
{
    if (!run->is_gc_over_cap)
        return true;
    JSContext *cx = run->cx;
    JS::PrepareForFullGC(cx);
    JS::NonIncrementalGC(cx, JS::GCOptions::Normal, JS::GCReason::API);
    bool ok = JS_GetGCParameter(cx, JSGC_BYTES) <= run->gc_cap_bytes;
    run->is_gc_over_cap = !ok;
    run->is_oom = run->is_oom || !ok;
    return ok;
}
