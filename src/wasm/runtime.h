/* wasm/runtime.h: the runtime objects of a store, shared by instance.c (creation, linking) and
 * the interpreter (direct access on the hot path). Not visible outside src/wasm/. */
#ifndef SBX_WASM_RUNTIME_H
#define SBX_WASM_RUNTIME_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "wasm/wasm.h"

/* Linear memory. data is reserved up front for the largest size this memory may reach, so the
 * pointer never moves: grow only changes size. Bytes past size are inaccessible. A guarded
 * memory reserves WASM_GUARD_RESERVE instead, all that a 32-bit address plus a 32-bit offset
 * plus the widest access (16 bytes) can reach, so compiled code that drops its bounds checks
 * faults inside the reservation on every out-of-bounds access (jit/fault.c). */
#define WASM_GUARD_RESERVE ((8ull << 30) + (64u << 10)) /* 2^33 + one wasm page */

struct wasm_memory {
    uint8_t *data;
    uint64_t size; /* bytes = pages * WASM_PAGE_SIZE */
    uint32_t pages;
    uint32_t max_pages;       /* effective ceiling: min(type max, store limit) */
    uint64_t reserved;        /* bytes of address space reserved at data */
    bool is_guarded;          /* reserved == WASM_GUARD_RESERVE: compiled code may skip checks */
    struct wasm_memtype type; /* type.limits.min tracks the current size for import matching */
    struct wasm_store *store; /* charged for every page */
};

/* A table of references (struct wasm_func * for funcref, opaque pointers for externref). */
struct wasm_table {
    void **elems;
    uint32_t size;
    uint32_t max; /* effective ceiling */
    struct wasm_tabletype type;
    struct wasm_store *store; /* charged for every element */
};

struct wasm_global {
    wasm_value value;
    struct wasm_globaltype type;
};

/* An exception tag (exception handling): its identity is the object; its type a function
 * type without results (the values an exception of this tag carries). */
struct wasm_tag {
    const struct wasm_functype *type;
    const struct wasm_rtt *rtt; /* canonical: import matching compares these */
    uint32_t index;             /* in the defining module's tag index space (messages) */
    const struct wasm_instance *inst;
};

/* A function: defined in an instance (inst != NULL) or provided by the host. */
struct wasm_func {
    const struct wasm_functype *type;
    /* Its canonical type (types.h): call_indirect and import matching compare these. */
    const struct wasm_rtt *rtt;
    struct wasm_instance *inst; /* NULL for host functions */
    uint32_t def_index;         /* index into inst->module->funcs / module->compiled */
    wasm_host_fn host_fn;
    void *host_user;
    void (*jit_entry)(uint64_t *slots); /* compiled code, slot ABI (jit/jit.h); NULL = interpret */
    /* Its on-stack replacement entry (jit/emit.h), or NULL: only functions with loops. */
    uint32_t (*osr_entry)(uint64_t *slots, uint32_t loop);
    /* Hot-only tier-up (jit/lazy.c): calls and back-edges interpreted so far, and of them
     * calls, the store's thread only; hits is LAZY_QUEUED once handed to the worker. */
    uint32_t hits, calls;
    /* Queued without an OSR entry (it got hot through calls): its frames' back-edges stop
     * offering themselves (lazy.c). */
    bool is_call_hot;
    /* Its baseline code (base/base.h), and its entries counted until it gets some
     * (UINT32_MAX: it cannot). The store's thread only. */
    struct sbx__base_fn *base;
    uint32_t base_hits;
    struct wasm_functype host_type; /* owned copy for host functions */
};

struct wasm_instance {
    const struct wasm_module *module;
    enum wasm_trap_kind init_trap; /* a constant expression's allocation failed (instance.c) */
    struct wasm_store *store;
    struct wasm_func **funcs; /* module->func_count, imported first */
    struct wasm_table **tables;
    struct wasm_memory **mems;
    struct wasm_global **globals;
    struct wasm_tag **tags;   /* module->tag_count, imported first */
    struct wasm_memory *mem0; /* mems[0] or NULL: the interpreter's fast path */
    /* Element segments as references, evaluated at instantiation; count 0 once dropped
     * (elem.drop, or active/declarative after instantiation). */
    void ***elem_refs;
    uint32_t *elem_sizes;
    bool *data_dropped; /* data.drop, or active after instantiation */
    struct wasm_instance *next;
};

/* The AUTO tier's background compile of a store (jit/tierup.c). */
enum wasm_tierup_state {
    WASM_TIERUP_IDLE = 0, /* interpreting; not yet entered, or not hot */
    WASM_TIERUP_ARMED,    /* entered: the worker looks again when enough time may have passed */
    WASM_TIERUP_COMPILING,
    WASM_TIERUP_FAILED, /* stays interpreted (no LLVM, SIMD, memory budget, cancelled) */
    /* From here calls and back-edges look for native code (the interpreter tests >= NATIVE). */
    WASM_TIERUP_NATIVE, /* every instance of the snapshot has native code: calls switch to it */
    WASM_TIERUP_LAZY,   /* hot-only: functions get native code one batch at a time (lazy.c) */
    /* No LLVM: calls and back-edges only look for baseline code (base/base.h; SBX_TEST_BASE=1
     * in an interp-tier store). */
    WASM_TIERUP_BASE,
};

/* A function handed to the hot-only worker. */
struct wasm_lazy_item {
    struct wasm_instance *inst;
    uint32_t def;
    bool wants_osr;   /* it got hot in a loop: compile its OSR entry too (lazy.c) */
    bool is_one_call; /* ... within its first call: one frame loops for long */
};

struct wasm_tierup {
    _Atomic uint8_t state;       /* enum wasm_tierup_state; NATIVE is published with release */
    atomic_bool cancel;          /* the store is being destroyed: stop at the next function */
    _Atomic uint64_t busy_ns;    /* interpretation time of finished outermost calls */
    _Atomic uint64_t entered_ns; /* start of the current outermost call, 0 outside one */
    uint64_t deadline_ns;        /* the worker's next look (under its lock) */
    uint64_t native_entries;     /* entries into compiled code (the store's thread) */
    uint64_t osr_entries;        /* of them, at a loop back-edge of an interpreted frame */
    uint64_t interp_fallbacks;   /* native tier, yet a call ran interpreted (interp_call.c) */
    struct wasm_instance *insts; /* the instances to compile: the list as it was when armed */
    struct wasm_store *next;     /* the worker's list of armed stores */
    /* LAZY: hot functions not yet compiled (under the worker's lock), and how many got code. */
    struct wasm_lazy_item *queue;
    uint32_t queue_len, queue_cap;
    bool has_looked_in_cache; /* LAZY: the worker tried the whole images of the cache */
    _Atomic uint32_t lazy_compiled;
    _Atomic uint32_t lazy_batches;
    _Atomic uint32_t lazy_hot_level; /* of lazy_compiled, those at the hot-set level */
};

/* Everything the store owns, freed together by sbx__wasm_store_destroy(). */
struct wasm_store_object;

struct wasm_store {
    struct wasm_store_limits limits; /* defaults resolved: no zero fields */
    atomic_bool is_interrupted;
    bool is_metered;
    uint64_t fuel;       /* left, when is_metered */
    uint64_t bytes_used; /* charged against limits.max_bytes */
    bool was_refused;    /* a grow hit the store's limits (sbx__wasm_store_was_refused) */
    struct wasm_instance *instances;
    struct wasm_store_object *objects; /* funcs, tables, memories, globals */
    struct wasm_exec *exec;            /* the interpreter's stacks, created on first call */
    struct wasm_jit_store *jit;        /* compiled code (jit/jit.h), created on first use */
    struct wasm_gc_heap *gc;           /* GC objects (gc.c), created on first use */
    struct wasm_tierup tierup;
    /* The baseline tier (base/base.h): 0 not yet decided, 1 off, 2 on; its code memory; the
     * back-edges its code may take before it returns to the interpreter's back-edge path. */
    uint8_t base_mode;
    int32_t base_budget;
    struct base_arena *base_arena;
    /* The interpreter's registers baseline code reads and moves when it calls and returns
     * without it: set before each entry, read back after (interp.c). */
    struct wasm_base_regs {
        struct wasm_frame *frp, *frames_end; /* the next free frame record, the depth limit */
        uint64_t *stack_end;
        uint64_t *fp; /* the current frame, on return */
        const struct wasm_code *code;
        bool is_back; /* on return: stopped at a loop header, for the back-edge path */
    } base_regs;
};

/* Whether a guard region can be reserved now (address space, RLIMIT_AS): the variant of
 * compiled code a new memory would get (memory.c). */
bool sbx__wasm_memory_can_guard(void);

/* memory.grow / fill / copy / init on any memory (the interpreter's and compiled code's paths
 * for a memory other than a 32-bit memory 0), addresses, lengths and deltas as u64 (an i32
 * memory's zero-extended): the old size in pages or UINT64_MAX; the trap kind or NONE. */
uint64_t sbx__wasm_memory_grow64(struct wasm_memory *mem, uint64_t delta);
enum wasm_trap_kind sbx__wasm_memory_fill(struct wasm_memory *mem, uint64_t d, uint8_t val,
                                          uint64_t n);
enum wasm_trap_kind sbx__wasm_memory_copy(struct wasm_memory *dm, struct wasm_memory *sm,
                                          uint64_t d, uint64_t s, uint64_t n);
enum wasm_trap_kind sbx__wasm_memory_init(struct wasm_memory *mem, const uint8_t *bytes,
                                          uint32_t len, uint64_t d, uint64_t s, uint64_t n);

/* Registers an object for freeing with the store (free_fn(ptr) at destroy). false on NOMEM. */
bool sbx__wasm_store_own(struct wasm_store *store, void *ptr, void (*free_fn)(void *));

/* Charges bytes against the store's max_bytes; false (nothing charged) when they do not fit. */
bool sbx__wasm_store_charge(struct wasm_store *store, uint64_t bytes);
void sbx__wasm_store_refund(struct wasm_store *store, uint64_t bytes);
/* True if bytes more would fit under max_bytes (nothing is charged). */
bool sbx__wasm_store_fits(const struct wasm_store *store, uint64_t bytes);

/* Frees the interpreter's per-store state (interp.c). */
void sbx__wasm_exec_destroy(struct wasm_exec *exec);

#endif
