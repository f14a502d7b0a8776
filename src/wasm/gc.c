/* wasm/gc.c: the store's garbage-collected heap (gc.h): blocks, size classes, allocation,
 * conservative root scanning, precise marking, sweeping. One store runs on one thread at a time,
 * so nothing here locks. */
#include <setjmp.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#include "util/alloc.h"
#include "wasm/code.h"
#include "wasm/gc.h"
#include "wasm/runtime.h"

#define BLOCK_SHIFT    16u
#define BLOCK          (1u << BLOCK_SHIFT)
#define SMALL_MAX      8192u
#define COMMIT_STEP    16u        /* blocks made accessible at a time */
#define MIN_GC         (4u << 20) /* allocate at least this much between two collections */
#define POLL_EVERY     1024u      /* objects marked between two looks at the interrupt flag */
#define MARK_STACK_MAX (1u << 17) /* entries: the mark stack's bound */
/* Empty small blocks a collection keeps (charged, their slots on the free lists) instead of
 * giving them back: a program that makes garbage at a steady rate then reuses them without a
 * madvise and 16 page faults per block; a collection after a failed allocation keeps none. */
#define KEEP_EMPTY      (MIN_GC >> BLOCK_SHIFT)
#define DEFAULT_RESERVE ((uint64_t)4 << 30) /* an unlimited store's heap */
#define MAX_RESERVE     ((uint64_t)64 << 30)

static const uint16_t class_size[] = {
    16,  32,  48,  64,   80,   96,   112,  128,  160,  192,  224,  256,  320,  384,  448,  512,
    640, 768, 896, 1024, 1280, 1536, 1792, 2048, 2560, 3072, 3584, 4096, 5120, 6144, 7168, 8192};
#define NCLASS (sizeof(class_size) / sizeof(class_size[0]))

enum { BLK_FREE = 0, BLK_LARGE = 0xFE, BLK_TAIL = 0xFF }; /* else 1 + the size class */

struct block {
    uint8_t cls;
    uint32_t bump; /* small: bytes carved so far */
    uint32_t run;  /* LARGE: blocks in the run; TAIL: the run's first block */
};

struct root {
    uint8_t kind; /* enum wasm_gc_root_kind */
    uint32_t idx;
    void *obj;
};

struct wasm_gc_heap {
    uint8_t *lo;
    uint32_t nblocks;   /* reserved */
    uint32_t hw;        /* blocks ever used: objects lie in [lo, lo + hw * BLOCK) */
    uint32_t committed; /* blocks made accessible */
    uint32_t scan_hint; /* where the search for a free block starts */
    struct block *blocks;
    void *free_list[NCLASS];
    uint32_t cur[NCLASS]; /* the block being carved for a class, + 1; 0 = none */
    uint64_t in_use;      /* blocks in use */
    uint64_t since_gc;    /* bytes allocated since the last collection */
    uint64_t threshold;
    uint8_t epoch;
    bool is_failed; /* the reservation could not be made */
    uint64_t collections, live_objects, live_bytes;
    struct wasm_gc_obj **stack; /* marking */
    uint32_t sp, cap;
    bool overflowed;
    struct root *roots;
    uint32_t nroots, rcap;
};

static inline uint8_t *block_base(const struct wasm_gc_heap *h, uint32_t b)
{
    return h->lo + ((size_t)b << BLOCK_SHIFT);
}

static unsigned class_of(uint32_t bytes)
{
    if (bytes <= 128)
        return bytes <= 16 ? 0 : (bytes + 15) / 16 - 1;
    unsigned c = 8;
    while (class_size[c] < bytes)
        c++;
    return c;
}

/* --- the reservation and blocks ---------------------------------------------------------- */

static struct wasm_gc_heap *heap_new(struct wasm_store *s)
{
    if (!s->gc && (s->gc = sbx__calloc(1, sizeof(*s->gc))) != NULL) {
        s->gc->threshold = MIN_GC;
        s->gc->epoch = 1;
    }
    return s->gc;
}

/* The heap, reserved on first use; NULL when that failed. */
static struct wasm_gc_heap *heap_get(struct wasm_store *s)
{
    struct wasm_gc_heap *h = heap_new(s);
    if (!h || h->is_failed)
        return NULL;
    if (h->lo)
        return h;
    uint64_t want = s->limits.max_bytes ? s->limits.max_bytes : DEFAULT_RESERVE;
    if (want > MAX_RESERVE)
        want = MAX_RESERVE;
    want = (want + BLOCK - 1) & ~(uint64_t)(BLOCK - 1);
    /* Under RLIMIT_AS a large reservation may not fit: halve down to 16 blocks. */
    void *p = MAP_FAILED;
    for (; want >= 16u * BLOCK; want /= 2) {
        p = mmap(NULL, want, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p != MAP_FAILED)
            break;
    }
    h->blocks = p != MAP_FAILED ? sbx__calloc(want >> BLOCK_SHIFT, sizeof(*h->blocks)) : NULL;
    if (!h->blocks) {
        if (p != MAP_FAILED)
            munmap(p, want);
        h->is_failed = true;
        return NULL;
    }
    h->lo = p;
    h->nblocks = (uint32_t)(want >> BLOCK_SHIFT);
    return h;
}

/* Makes blocks [0, upto) accessible. */
static bool commit(struct wasm_gc_heap *h, uint32_t upto)
{
    if (upto <= h->committed)
        return true;
    uint32_t to = (upto + COMMIT_STEP - 1) / COMMIT_STEP * COMMIT_STEP;
    if (to > h->nblocks)
        to = h->nblocks;
    if (mprotect(block_base(h, h->committed), (size_t)(to - h->committed) << BLOCK_SHIFT,
                 PROT_READ | PROT_WRITE) != 0)
        return false;
    h->committed = to;
    return true;
}

/* Finds n free contiguous blocks (n == 1 for small classes), charges them and returns the
 * first, or UINT32_MAX when none fit (reservation or max_bytes). */
static uint32_t take_blocks(struct wasm_store *s, struct wasm_gc_heap *h, uint32_t n)
{
    uint64_t bytes = (uint64_t)n << BLOCK_SHIFT;
    if (!sbx__wasm_store_fits(s, bytes))
        return UINT32_MAX;
    uint32_t start = UINT32_MAX, len = 0;
    for (uint32_t b = h->scan_hint; b < h->hw; b++) {
        if (h->blocks[b].cls != BLK_FREE) {
            len = 0;
            continue;
        }
        if (len++ == 0)
            start = b;
        if (len == n)
            break;
    }
    if (len != n) { /* extend the high water, reusing a free tail */
        if (len == 0 || start + len != h->hw)
            start = h->hw;
        if ((uint64_t)start + n > h->nblocks || !commit(h, start + n))
            return UINT32_MAX;
        h->hw = start + n;
    }
    if (n == 1 && start == h->scan_hint)
        h->scan_hint = start + 1;
    sbx__wasm_store_charge(s, bytes);
    h->in_use += n;
    return start;
}

/* Gives blocks [b, b + n) back: their memory to the system, their bytes to max_bytes. */
static void release_blocks(struct wasm_store *s, struct wasm_gc_heap *h, uint32_t b, uint32_t n)
{
    madvise(block_base(h, b), (size_t)n << BLOCK_SHIFT, MADV_DONTNEED); /* zero when reused */
    for (uint32_t i = 0; i < n; i++)
        h->blocks[b + i] = (struct block){0};
    sbx__wasm_store_refund(s, (uint64_t)n << BLOCK_SHIFT);
    h->in_use -= n;
    if (b < h->scan_hint)
        h->scan_hint = b;
}

/* --- finding objects ------------------------------------------------------------------------ */

/* The object whose bytes hold address a (interior), or NULL; with exact, only its start. */
static struct wasm_gc_obj *object_at(const struct wasm_gc_heap *h, uintptr_t a, bool exact)
{
    uintptr_t lo = (uintptr_t)h->lo;
    if (a < lo || a >= lo + ((uintptr_t)h->hw << BLOCK_SHIFT))
        return NULL;
    uint32_t b = (uint32_t)((a - lo) >> BLOCK_SHIFT);
    const struct block *blk = &h->blocks[b];
    struct wasm_gc_obj *o;
    if (blk->cls == BLK_FREE) {
        return NULL;
    } else if (blk->cls == BLK_LARGE || blk->cls == BLK_TAIL) {
        uint32_t head = blk->cls == BLK_TAIL ? blk->run : b;
        o = (struct wasm_gc_obj *)block_base(h, head);
    } else {
        uint32_t size = class_size[blk->cls - 1], off = (uint32_t)(a - (uintptr_t)block_base(h, b));
        if (off >= blk->bump)
            return NULL;
        o = (struct wasm_gc_obj *)(block_base(h, b) + off / size * size);
    }
    if (exact && (uintptr_t)o != a)
        return NULL;
    return o->kind == WASM_GC_FREE ? NULL : o;
}

/* --- marking -------------------------------------------------------------------------------- */

static void push(struct wasm_gc_heap *h, struct wasm_gc_obj *o)
{
    if (h->sp == h->cap) {
        uint32_t n = h->cap ? h->cap * 2 : 4096;
        /* host memory outside max_bytes: bounded (1 MiB), past it the rescan takes over */
        struct wasm_gc_obj **p =
            n <= MARK_STACK_MAX ? sbx__reallocn(h->stack, n, sizeof(*p)) : NULL;
        if (!p) { /* found again by the rescan of marked objects */
            h->overflowed = true;
            return;
        }
        h->stack = p, h->cap = n;
    }
    h->stack[h->sp++] = o;
}

static void mark(struct wasm_gc_heap *h, struct wasm_gc_obj *o)
{
    if (o->epoch == h->epoch)
        return;
    o->epoch = h->epoch;
    push(h, o);
}

/* A field's value: a reference to an object, or something else (null, i31, a host value). */
static void mark_value(struct wasm_gc_heap *h, uint64_t v)
{
    if (v == 0 || (v & 1))
        return;
    struct wasm_gc_obj *o = object_at(h, (uintptr_t)v, true);
    if (o)
        mark(h, o);
}

/* A stack word: an object it points into, and the one it points just past. */
static void mark_word(struct wasm_gc_heap *h, uintptr_t w)
{
    struct wasm_gc_obj *o = object_at(h, w, false);
    if (o)
        mark(h, o);
    if (w & 15)
        return; /* objects start 16-aligned: w ends one only then */
    o = object_at(h, w - 1, false);
    if (o)
        mark(h, o);
}

/* Reads every word of [from, to): other functions' frames too, whose ASan redzones are
 * poisoned, hence not instrumented. */
__attribute__((no_sanitize_address)) static void scan_range(struct wasm_gc_heap *h,
                                                            const void *from, const void *to)
{
    uintptr_t a = ((uintptr_t)from + 7) & ~(uintptr_t)7;
    for (; a + 8 <= (uintptr_t)to; a += 8)
        mark_word(h, *(const uintptr_t *)a);
}

/* The types of an exception package's values: its tag's (struct wasm_tag's first member). */
static void trace_exn(struct wasm_gc_heap *h, const struct wasm_gc_obj *o)
{
    const struct wasm_rtt *const *tag = o->type;
    const struct wasm_rtt *ft = *tag;
    const uint64_t *v = (const uint64_t *)(o + 1);
    for (uint32_t i = 0, k = 0; i < ft->param_count; i++) {
        wasm_vtype t = ft->types[i];
        if (sbx__wasm_ctype_is_gc(t))
            mark_value(h, v[k]);
        k += t == WASM_V128 ? 2 : 1;
    }
}

static void trace(struct wasm_gc_heap *h, const struct wasm_gc_obj *o)
{
    const uint8_t *p = (const uint8_t *)o;
    switch (o->kind) {
    case WASM_GC_STRUCT: {
        const struct wasm_rtt *t = o->type;
        for (uint32_t i = 0; i < t->ref_count; i++) {
            uint64_t v;
            memcpy(&v, p + t->ref_offsets[i], 8);
            mark_value(h, v);
        }
        break;
    }
    case WASM_GC_ARRAY: {
        const struct wasm_rtt *t = o->type;
        if (!t->elem_is_ref)
            break;
        const uint64_t *e = (const uint64_t *)(p + WASM_GC_HEADER);
        for (uint32_t i = 0; i < o->len; i++)
            mark_value(h, e[i]);
        break;
    }
    case WASM_GC_EXN:
        trace_exn(h, o);
        break;
    default: /* boxes hold no heap references */
        break;
    }
}

/* Drains the mark stack; false when the interrupt flag stopped it. */
static bool drain(struct wasm_store *s, struct wasm_gc_heap *h, uint32_t *ticks)
{
    while (h->sp > 0) {
        trace(h, h->stack[--h->sp]);
        if (++*ticks % POLL_EVERY == 0 &&
            atomic_load_explicit(&s->is_interrupted, memory_order_relaxed))
            return false;
    }
    return true;
}

/* Calls fn on every object of the heap. */
static void each_object(struct wasm_gc_heap *h,
                        void (*fn)(struct wasm_gc_heap *, struct wasm_gc_obj *))
{
    for (uint32_t b = 0; b < h->hw; b++) {
        struct block *blk = &h->blocks[b];
        if (blk->cls == BLK_LARGE) {
            struct wasm_gc_obj *o = (struct wasm_gc_obj *)block_base(h, b);
            if (o->kind != WASM_GC_FREE)
                fn(h, o);
        } else if (blk->cls != BLK_FREE && blk->cls != BLK_TAIL) {
            uint32_t size = class_size[blk->cls - 1];
            for (uint32_t off = 0; off + size <= blk->bump; off += size) {
                struct wasm_gc_obj *o = (struct wasm_gc_obj *)(block_base(h, b) + off);
                if (o->kind != WASM_GC_FREE)
                    fn(h, o);
            }
        }
    }
}

static void retrace_marked(struct wasm_gc_heap *h, struct wasm_gc_obj *o)
{
    if (o->epoch == h->epoch)
        trace(h, o);
}

static void clear_epoch(struct wasm_gc_heap *h, struct wasm_gc_obj *o)
{
    (void)h;
    o->epoch = 0;
}

static void mark_roots(struct wasm_gc_heap *h)
{
    for (uint32_t i = 0; i < h->nroots; i++) {
        struct root *r = &h->roots[i];
        if (r->kind == WASM_GC_ROOT_GLOBAL) {
            mark_value(h, ((struct wasm_global *)r->obj)->value.i64);
        } else if (r->kind == WASM_GC_ROOT_TABLE) {
            const struct wasm_table *t = r->obj;
            for (uint32_t k = 0; k < t->size; k++)
                mark_value(h, (uintptr_t)t->elems[k]);
        } else {
            const struct wasm_instance *inst = r->obj;
            void **refs = inst->elem_refs[r->idx];
            for (uint32_t k = 0; refs && k < inst->elem_sizes[r->idx]; k++)
                mark_value(h, (uintptr_t)refs[k]);
        }
    }
}

/* The stacks: the interpreter's slots in use, and the native stack from here to the outermost
 * call's frame, with the registers the callers keep values in saved into this frame. */
__attribute__((noinline)) static void mark_stacks(struct wasm_store *s, struct wasm_gc_heap *h)
{
    struct wasm_exec *ex = s->exec;
    if (!ex)
        return;
    /* exception packages (code.h struct wasm_exn, malloc'd): their slots, conservatively */
    for (const struct wasm_exn *e = ex->exns; e; e = e->next)
        scan_range(h, e->slots, e->slots + e->nslots);
    if (ex->sp > ex->stack)
        scan_range(h, ex->stack, ex->sp);
    if (!ex->native_top)
        return;
    jmp_buf regs;
    __builtin_unwind_init();
    setjmp(regs);
    /* rbx, r12-r15 in regs (glibc mangles only rbp, rsp and the pc there); rbp and what
     * __builtin_unwind_init pushed lie between regs and the frame address, so the scan starts
     * at whichever of the two is lower */
    scan_range(h, &regs, (const uint8_t *)&regs + sizeof(regs));
    const void *lo = __builtin_frame_address(0);
    if ((const void *)&regs < lo)
        lo = &regs;
    scan_range(h, lo, ex->native_top);
}

/* --- sweeping ------------------------------------------------------------------------------- */

/* Frees the unmarked objects; empty small blocks go back to the system, but for the first keep
 * of them. */
static void sweep(struct wasm_store *s, struct wasm_gc_heap *h, uint32_t keep)
{
    uint64_t live = 0, live_bytes = 0;
    uint32_t kept = 0;
    for (unsigned c = 0; c < NCLASS; c++)
        h->free_list[c] = NULL;
    for (uint32_t b = 0; b < h->hw; b++) {
        struct block *blk = &h->blocks[b];
        if (blk->cls == BLK_LARGE) {
            struct wasm_gc_obj *o = (struct wasm_gc_obj *)block_base(h, b);
            if (o->epoch == h->epoch) {
                live++, live_bytes += (uint64_t)blk->run << BLOCK_SHIFT;
                continue;
            }
            o->kind = WASM_GC_FREE;
            release_blocks(s, h, b, blk->run);
            continue;
        }
        if (blk->cls == BLK_FREE || blk->cls == BLK_TAIL)
            continue;
        unsigned c = blk->cls - 1u;
        uint32_t size = class_size[c], n = 0;
        void *chain = NULL, **tail = &chain;
        for (uint32_t off = 0; off + size <= blk->bump; off += size) {
            struct wasm_gc_obj *o = (struct wasm_gc_obj *)(block_base(h, b) + off);
            if (o->kind != WASM_GC_FREE && o->epoch == h->epoch) {
                n++;
                continue;
            }
            o->kind = WASM_GC_FREE;
            *tail = o;
            tail = (void **)o;
        }
        if (n == 0 && h->cur[c] != b + 1 && kept++ >= keep) {
            release_blocks(s, h, b, 1);
            continue;
        }
        *tail = h->free_list[c];
        h->free_list[c] = chain;
        live += n, live_bytes += (uint64_t)n * size;
    }
    while (h->hw > 0 && h->blocks[h->hw - 1].cls == BLK_FREE)
        h->hw--; /* keep the range the scan looks at tight */
    h->live_objects = live;
    h->live_bytes = live_bytes;
}

static enum wasm_trap_kind collect(struct wasm_store *s, uint32_t keep)
{
    struct wasm_gc_heap *h = s->gc;
    if (!h || !h->lo)
        return WASM_TRAP_NONE;
    if (++h->epoch == 0) { /* after 255 collections: every object back to 0 */
        each_object(h, clear_epoch);
        h->epoch = 1;
    }
    h->collections++;
    h->sp = 0;
    h->overflowed = false;
    uint32_t ticks = 0;
    mark_roots(h);
    mark_stacks(s, h);
    bool ok = drain(s, h, &ticks);
    while (ok && h->overflowed) {
        h->overflowed = false;
        each_object(h, retrace_marked);
        ok = drain(s, h, &ticks);
    }
    if (!ok)
        return WASM_TRAP_INTERRUPTED;
    sweep(s, h, keep);
    h->since_gc = 0;
    h->threshold = h->live_bytes > MIN_GC ? h->live_bytes : MIN_GC;
    return WASM_TRAP_NONE;
}

enum wasm_trap_kind sbx__wasm_gc_collect(struct wasm_store *s)
{
    return collect(s, KEEP_EMPTY);
}

/* --- allocation ----------------------------------------------------------------------------- */

/* Whether a collection may run now: inside a call (so the stacks are known), not at
 * instantiation, whose constant expressions hold values only in C locals. */
static bool may_collect(const struct wasm_store *s)
{
    return s->exec && s->exec->native_top;
}

static struct wasm_gc_obj *alloc(struct wasm_store *s, uint32_t bytes, enum wasm_trap_kind *tk)
{
    struct wasm_gc_heap *h = heap_get(s);
    if (!h) {
        s->was_refused = true;
        *tk = WASM_TRAP_HEAP_EXHAUSTED;
        return NULL;
    }
    bool is_small = bytes <= SMALL_MAX;
    uint32_t collections = 0; /* here: the second one keeps no empty block */
    unsigned c = is_small ? class_of(bytes) : 0;
    uint32_t nblocks = is_small ? 1 : (bytes + BLOCK - 1) >> BLOCK_SHIFT;
    for (;;) {
        if (is_small && h->free_list[c]) {
            struct wasm_gc_obj *o = h->free_list[c];
            h->free_list[c] = *(void **)o;
            memset(o, 0, class_size[c]);
            h->since_gc += class_size[c];
            return o;
        }
        if (is_small && h->cur[c]) {
            struct block *blk = &h->blocks[h->cur[c] - 1];
            if (blk->bump + class_size[c] <= BLOCK) {
                struct wasm_gc_obj *o =
                    (struct wasm_gc_obj *)(block_base(h, h->cur[c] - 1) + blk->bump);
                blk->bump += class_size[c];
                h->since_gc += class_size[c];
                return o; /* never used since it was zeroed */
            }
            h->cur[c] = 0;
        }
        bool wants_gc = h->since_gc >= h->threshold;
        uint32_t b = UINT32_MAX;
        if (!wants_gc || collections > 0 || !may_collect(s))
            b = take_blocks(s, h, nblocks);
        if (b == UINT32_MAX) {
            if (collections == 2 || !may_collect(s)) {
                s->was_refused = true; /* the run's outcome says memory limit */
                *tk = WASM_TRAP_HEAP_EXHAUSTED;
                return NULL;
            }
            enum wasm_trap_kind k = collect(s, collections++ == 0 ? KEEP_EMPTY : 0);
            if (k != WASM_TRAP_NONE) {
                *tk = k;
                return NULL;
            }
            continue;
        }
        if (!is_small) {
            h->since_gc += (uint64_t)nblocks << BLOCK_SHIFT;
            h->blocks[b] = (struct block){.cls = BLK_LARGE, .run = nblocks};
            for (uint32_t i = 1; i < nblocks; i++)
                h->blocks[b + i] = (struct block){.cls = BLK_TAIL, .run = b};
            return (struct wasm_gc_obj *)block_base(h, b);
        }
        h->blocks[b] = (struct block){.cls = (uint8_t)(c + 1)};
        h->cur[c] = b + 1;
    }
}

struct wasm_gc_obj *sbx__wasm_gc_new(struct wasm_store *s, const struct wasm_rtt *rtt, uint32_t len,
                                     enum wasm_trap_kind *tk)
{
    uint64_t bytes =
        rtt->kind == WASM_COMP_ARRAY ? WASM_GC_HEADER + (uint64_t)len * rtt->elem_size : rtt->size;
    if (bytes > UINT32_MAX - BLOCK) {
        s->was_refused = true;
        *tk = WASM_TRAP_HEAP_EXHAUSTED;
        return NULL;
    }
    struct wasm_gc_obj *o = alloc(s, (uint32_t)bytes, tk);
    if (!o)
        return NULL;
    o->type = rtt;
    o->len = len;
    o->kind = rtt->kind == WASM_COMP_ARRAY ? WASM_GC_ARRAY : WASM_GC_STRUCT;
    return o;
}

struct wasm_gc_obj *sbx__wasm_gc_new_raw(struct wasm_store *s, uint8_t kind, const void *type,
                                         uint32_t payload, enum wasm_trap_kind *tk)
{
    struct wasm_gc_obj *o = alloc(s, WASM_GC_HEADER + payload, tk);
    if (!o)
        return NULL;
    o->type = type;
    o->kind = kind;
    return o;
}

bool sbx__wasm_gc_add_root(struct wasm_store *s, enum wasm_gc_root_kind kind, void *obj,
                           uint32_t idx)
{
    struct wasm_gc_heap *h = heap_new(s); /* reserved on the first allocation */
    if (!h)
        return false;
    if (h->nroots == h->rcap) {
        uint32_t n = h->rcap ? h->rcap * 2 : 16;
        struct root *p = sbx__reallocn(h->roots, n, sizeof(*p));
        if (!p)
            return false;
        h->roots = p, h->rcap = n;
    }
    h->roots[h->nroots++] = (struct root){.kind = (uint8_t)kind, .idx = idx, .obj = obj};
    return true;
}

/* --- conversions and tests ----------------------------------------------------------------- */

uint64_t sbx__wasm_gc_internalize(struct wasm_store *s, uint64_t ext, enum wasm_trap_kind *tk)
{
    if (ext == 0)
        return 0;
    struct wasm_gc_heap *h = s->gc;
    struct wasm_gc_obj *o = h && h->lo ? object_at(h, (uintptr_t)ext, true) : NULL;
    if (o) /* an externalized reference: an i31 in its box, or an object */
        return o->kind == WASM_GC_I31 ? *(uint64_t *)(o + 1) : ext;
    o = sbx__wasm_gc_new_raw(s, WASM_GC_EXTERN, NULL, 8, tk);
    if (!o)
        return 0;
    *(uint64_t *)(o + 1) = ext;
    return (uintptr_t)o;
}

uint64_t sbx__wasm_gc_externalize(struct wasm_store *s, uint64_t any, enum wasm_trap_kind *tk)
{
    if (any == 0)
        return 0;
    if (any & 1) {
        struct wasm_gc_obj *o = sbx__wasm_gc_new_raw(s, WASM_GC_I31, NULL, 8, tk);
        if (!o)
            return 0;
        *(uint64_t *)(o + 1) = any;
        return (uintptr_t)o;
    }
    const struct wasm_gc_obj *o = (const struct wasm_gc_obj *)(uintptr_t)any;
    return o->kind == WASM_GC_EXTERN ? *(const uint64_t *)(o + 1) : any;
}

bool sbx__wasm_gc_test(uint64_t v, uint32_t abs, const struct wasm_rtt *rtt, bool is_nullable)
{
    if (v == 0)
        return is_nullable;
    if (rtt) {
        if (rtt->kind == WASM_COMP_FUNC)
            return sbx__wasm_rtt_sub(((const struct wasm_func *)(uintptr_t)v)->rtt, rtt);
        if (v & 1)
            return false;
        const struct wasm_gc_obj *o = (const struct wasm_gc_obj *)(uintptr_t)v;
        return (o->kind == WASM_GC_STRUCT || o->kind == WASM_GC_ARRAY) &&
               sbx__wasm_rtt_sub(o->type, rtt);
    }
    switch (abs) {
    case WASM_HT_ANY:
    case WASM_HT_FUNC:
    case WASM_HT_EXTERN:
    case WASM_HT_EXN:
        return true;
    case WASM_HT_I31:
        return (v & 1) != 0;
    case WASM_HT_EQ:
    case WASM_HT_STRUCT:
    case WASM_HT_ARRAY: {
        if (v & 1)
            return abs == WASM_HT_EQ;
        uint8_t k = ((const struct wasm_gc_obj *)(uintptr_t)v)->kind;
        return abs == WASM_HT_STRUCT  ? k == WASM_GC_STRUCT
               : abs == WASM_HT_ARRAY ? k == WASM_GC_ARRAY
                                      : k == WASM_GC_STRUCT || k == WASM_GC_ARRAY;
    }
    default: /* the bottoms: only null */
        return false;
    }
}

/* --- the rest ----------------------------------------------------------------------------- */

void sbx__wasm_gc_destroy(struct wasm_store *s)
{
    struct wasm_gc_heap *h = s->gc;
    if (!h)
        return;
    if (h->lo)
        munmap(h->lo, (size_t)h->nblocks << BLOCK_SHIFT);
    sbx__free(h->blocks);
    sbx__free(h->stack);
    sbx__free(h->roots);
    sbx__free(h);
    s->gc = NULL;
}

void sbx__wasm_gc_stats(const struct wasm_store *s, struct wasm_gc_stats *out)
{
    const struct wasm_gc_heap *h = s->gc;
    memset(out, 0, sizeof(*out));
    if (!h)
        return;
    out->blocks = h->in_use;
    out->collections = h->collections;
    out->live_objects = h->live_objects;
    out->live_bytes = h->live_bytes;
}
