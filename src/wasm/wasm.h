/* wasm/wasm.h: the engine's API inside libsbx (the spec runner, src/wasi/ and the plugin host
 * use only this). The engine knows nothing of WASI: imports are resolved by a callback.
 * A store owns every runtime object created in it and is used by one thread at a time;
 * only sbx__wasm_store_interrupt() may be called from another thread. */
#ifndef SBX_WASM_WASM_H
#define SBX_WASM_WASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sbx/error.h>

#include "wasm/module.h"

#define WASM_PAGE_SIZE 65536u

struct wasm_store;
struct wasm_instance;
struct wasm_func;
struct wasm_table;
struct wasm_memory;
struct wasm_global;
struct wasm_tag;  /* exception handling (runtime.h) */
struct wasm_call; /* the context a host function is called with */

enum wasm_trap_kind {
    WASM_TRAP_NONE = 0,
    WASM_TRAP_UNREACHABLE,           /* "unreachable" */
    WASM_TRAP_MEMORY_OOB,            /* "out of bounds memory access" */
    WASM_TRAP_TABLE_OOB,             /* "out of bounds table access" */
    WASM_TRAP_DIV_ZERO,              /* "integer divide by zero" */
    WASM_TRAP_INT_OVERFLOW,          /* "integer overflow" */
    WASM_TRAP_INVALID_CONVERSION,    /* "invalid conversion to integer" */
    WASM_TRAP_UNDEFINED_ELEMENT,     /* "undefined element" */
    WASM_TRAP_UNINITIALIZED_ELEMENT, /* "uninitialized element" */
    WASM_TRAP_INDIRECT_TYPE,         /* "indirect call type mismatch" */
    WASM_TRAP_STACK_EXHAUSTED,       /* "call stack exhausted" */
    WASM_TRAP_FUEL_EXHAUSTED,        /* "fuel exhausted" */
    WASM_TRAP_INTERRUPTED,           /* "interrupted": sbx__wasm_store_interrupt() was called */
    WASM_TRAP_HOST,                  /* a host function failed; message says why */
    WASM_TRAP_EXIT,                  /* a host function ended the guest (proc_exit) */
    /* 3.0 (appended: compiled code holds these numbers) */
    WASM_TRAP_NULL_REFERENCE,  /* "null reference" (ref.as_non_null, ref.cast) */
    WASM_TRAP_NULL_FUNC_REF,   /* "null function reference" (call_ref) */
    WASM_TRAP_NULL_STRUCT_REF, /* "null structure reference" */
    WASM_TRAP_NULL_ARRAY_REF,  /* "null array reference" */
    WASM_TRAP_NULL_I31_REF,    /* "null i31 reference" */
    WASM_TRAP_NULL_EXN_REF,    /* "null exception reference" (throw_ref) */
    WASM_TRAP_CAST,            /* "cast failure" */
    WASM_TRAP_ARRAY_OOB,       /* "out of bounds array access" */
    WASM_TRAP_EXCEPTION,       /* an exception no handler caught; message names its tag */
    WASM_TRAP_HEAP_EXHAUSTED,  /* "out of memory": the GC heap cannot grow (memoryBytes) */
    WASM_TRAP_KIND_COUNT       /* not a kind: how many there are */
};

/* A trap's details. message is NUL-terminated; for a trap inside a named function it reads
 * "out of bounds memory access in func_name". */
struct wasm_trap {
    enum wasm_trap_kind kind;
    int exit_code; /* WASM_TRAP_EXIT only */
    char message[256];
};

/* Returns the spec's text for a trap kind ("integer divide by zero"). Static, never NULL. */
const char *sbx__wasm_trap_text(enum wasm_trap_kind kind);

struct wasm_extern {
    uint8_t kind; /* enum wasm_extern_kind */
    union {
        struct wasm_func *func;
        struct wasm_table *table;
        struct wasm_memory *memory;
        struct wasm_global *global;
        struct wasm_tag *tag;
    } u;
};

/* Which engine runs a store's code (policy.wasm.tier). AUTO starts in the interpreter and,
 * once the store has interpreted for tierup_ms, compiles its instances with LLVM on a
 * background thread, then switches calls to native code; COMPILED compiles each instance at
 * instantiation (src/wasm/jit/). */
enum wasm_tier { WASM_TIER_AUTO = 0, WASM_TIER_INTERP, WASM_TIER_COMPILED };

struct wasm_store_limits {
    uint32_t max_memory_pages; /* no memory of this store grows past it; 0 = 65536 */
    uint32_t max_table_elems;  /* no table grows past it; 0 = 10,000,000 */
    uint32_t max_call_depth;   /* 0 = default (e.g. 10,000 frames) */
    size_t max_stack_bytes;    /* value stack; 0 = default (e.g. 8 MiB) */
    uint64_t fuel;             /* instruction budget; 0 = unmetered */
    /* Bytes the store may allocate for its guests: memories (per page), tables (per element),
     * their growth, the interpreter's stacks (charged at creation), element segments and
     * per-function records of instances; 0 = unlimited. */
    uint64_t max_bytes;
    uint8_t tier;       /* enum wasm_tier; metered calls always interpret */
    uint32_t tierup_ms; /* AUTO: interpretation time before compiling; 0 = 200 ms */
    bool use_cache;     /* native code goes through the on-disk cache (jit/cache.h) */
    uint8_t hot_only;   /* enum wasm_hot_only: AUTO's hot-only tier-up (jit/lazy.c) */
};

/* Under AUTO, whether a store compiles only its hot functions (a batch at a time) instead of
 * whole modules: by default when one of its modules has SBX__JIT_HOT_ONLY_BYTES of code. */
enum wasm_hot_only { WASM_HOT_DEFAULT = 0, WASM_HOT_OFF, WASM_HOT_ON };

/* --- module (module.c / decode.c / validate.c / compile.c) --------------------------------- */

/* Decodes, validates and translates a binary module. On failure returns
 * SBX_E_WASM_INVALID_MODULE with "malformed: <reason> at offset N" or "invalid: <reason> in
 * function N" in err. bytes are copied. */
sbx_err sbx__wasm_module_load(const uint8_t *bytes, size_t len, struct wasm_module **out, char *err,
                              size_t errlen);
/* The same under a guard (may be NULL): returns SBX_E_TIMEOUT past its deadline, or the code
 * its stop flag holds (SBX_E_ABORTED), with a message in err. guard is borrowed for the call. */
sbx_err sbx__wasm_module_load_guarded(const uint8_t *bytes, size_t len,
                                      const struct wasm_load_guard *guard, struct wasm_module **out,
                                      char *err, size_t errlen);
void sbx__wasm_module_destroy(struct wasm_module *m);

/* --- store ---------------------------------------------------------------------------------- */

/* Bytes of the interpreter's value and frame stacks under these limits (interp_call.c); a store
 * charges them to max_bytes at creation. */
uint64_t sbx__wasm_exec_bytes(const struct wasm_store_limits *limits);
/* Creates a store. SBX_E_MEMORY_LIMIT when max_bytes cannot hold the interpreter's stacks. */
sbx_err sbx__wasm_store_create(const struct wasm_store_limits *limits, struct wasm_store **out);
/* Frees the store and every instance, function, table, memory and global created in it. */
void sbx__wasm_store_destroy(struct wasm_store *store);
/* Makes running code trap with WASM_TRAP_INTERRUPTED at its next loop back-edge or call, and
 * every later call until sbx__wasm_store_clear_interrupt(). Safe from any thread. */
void sbx__wasm_store_interrupt(struct wasm_store *store);
void sbx__wasm_store_clear_interrupt(struct wasm_store *store);
void sbx__wasm_store_set_fuel(struct wasm_store *store, uint64_t fuel); /* 0 = unmetered */
/* True once a memory.grow or table.grow was refused by the store's limits (max_memory_pages,
 * max_table_elems, max_bytes) rather than by the memory's or table's own maximum; the embedder
 * clears it per call. */
bool sbx__wasm_store_was_refused(const struct wasm_store *store);
void sbx__wasm_store_clear_refused(struct wasm_store *store);
/* Bytes of max_bytes in use. */
uint64_t sbx__wasm_store_bytes_used(const struct wasm_store *store);
uint64_t sbx__wasm_store_fuel(const struct wasm_store *store); /* fuel left */

/* --- instances -------------------------------------------------------------------------------- */

/* Finds the extern for one import. Returns false if there is none; the engine then fails with
 * SBX_E_WASM_LINK ("unknown import"). The engine checks the extern's type itself. */
typedef bool (*wasm_resolve_fn)(void *user, const struct wasm_import *imp, struct wasm_extern *out);

/* Instantiates m in store: resolves imports, checks their types, creates tables, memories and
 * globals, applies active segments in order, compiles the code when the store's tier is
 * COMPILED, runs the start function. Returns SBX_E_UNAVAILABLE (the compiled tier cannot take
 * this module: err names the feature, or libLLVM-16 is missing), SBX_E_WASM_LINK
 * (unknown import, incompatible import type), SBX_E_WASM_INSTANTIATE (a segment out of bounds;
 * writes of earlier segments stay, as the spec requires), SBX_E_WASM_TRAP (the start function
 * trapped; *trap says how, and the instance is still returned in *out), with a message in err.
 * m must outlive the store. trap may be NULL. */
sbx_err sbx__wasm_instantiate(struct wasm_store *store, const struct wasm_module *m,
                              wasm_resolve_fn resolve, void *user, struct wasm_instance **out,
                              struct wasm_trap *trap, char *err, size_t errlen);
/* The same under a guard (may be NULL) that also bounds the compiled tier's compile: it ends
 * at the guard's deadline (SBX_E_TIMEOUT) or stop flag (its code), as loading does, and at the
 * store's interrupt (SBX_E_ABORTED), each at its next function or phase (jit/parts.c). */
sbx_err sbx__wasm_instantiate_guarded(struct wasm_store *store, const struct wasm_module *m,
                                      wasm_resolve_fn resolve, void *user,
                                      const struct wasm_load_guard *guard,
                                      struct wasm_instance **out, struct wasm_trap *trap, char *err,
                                      size_t errlen);

/* Looks up an export by name (name_len bytes). Returns false if there is none. */
bool sbx__wasm_instance_export(const struct wasm_instance *inst, const char *name, size_t name_len,
                               struct wasm_extern *out);
const struct wasm_module *sbx__wasm_instance_module(const struct wasm_instance *inst);
/* Returns the instance's memory idx (imported or defined), or NULL. */
struct wasm_memory *sbx__wasm_instance_memory(const struct wasm_instance *inst, uint32_t idx);

/* --- functions -------------------------------------------------------------------------------- */

/* A host function. args has param_count values, results room for result_count. Return 0, or
 * call sbx__wasm_call_trap()/sbx__wasm_call_exit() and return -1. */
typedef int (*wasm_host_fn)(struct wasm_call *call, void *user, const wasm_value *args,
                            wasm_value *results);

/* Creates a host function of the given type (copied). NULL on NOMEM. */
struct wasm_func *sbx__wasm_func_new_host(struct wasm_store *store,
                                          const struct wasm_functype *type, wasm_host_fn fn,
                                          void *user);
const struct wasm_functype *sbx__wasm_func_type(const struct wasm_func *f);

/* Calls f with args (param_count values), writing result_count values to results.
 * Returns SBX_OK, or SBX_E_WASM_TRAP with *trap filled (kind FUEL_EXHAUSTED and INTERRUPTED
 * included: the caller maps them to its own codes). Reentrant from host functions. */
sbx_err sbx__wasm_func_call(struct wasm_store *store, struct wasm_func *f, const wasm_value *args,
                            wasm_value *results, struct wasm_trap *trap);

/* For host functions: the memory 0 of the instance whose code made the call (NULL if none). */
struct wasm_memory *sbx__wasm_call_memory(struct wasm_call *call);
struct wasm_store *sbx__wasm_call_store(struct wasm_call *call);
/* Records a trap (kind, printf-style message) for the host function to return -1 with. */
void sbx__wasm_call_trap(struct wasm_call *call, enum wasm_trap_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Records a WASM_TRAP_EXIT with the guest's exit code. */
void sbx__wasm_call_exit(struct wasm_call *call, int exit_code);

/* --- memories, tables, globals ---------------------------------------------------------------- */

struct wasm_memory *sbx__wasm_memory_new(struct wasm_store *store, const struct wasm_memtype *t);
/* Returns the host address of guest range [gaddr, gaddr + glen), or NULL if any byte lies
 * outside. Invalid after memory.grow or any call back into the guest. */
uint8_t *sbx__wasm_memory_span(struct wasm_memory *mem, uint32_t gaddr, uint32_t glen);
uint64_t sbx__wasm_memory_size(const struct wasm_memory *mem); /* bytes */
/* Grows by delta pages; returns the old size in pages, or -1 (limit, max or NOMEM). */
int64_t sbx__wasm_memory_grow(struct wasm_memory *mem, uint32_t delta);
const struct wasm_memtype *sbx__wasm_memory_type(const struct wasm_memory *mem);

struct wasm_table *sbx__wasm_table_new(struct wasm_store *store, const struct wasm_tabletype *t,
                                       wasm_value init);
uint32_t sbx__wasm_table_size(const struct wasm_table *t);
bool sbx__wasm_table_get(const struct wasm_table *t, uint32_t idx, wasm_value *out);
bool sbx__wasm_table_set(struct wasm_table *t, uint32_t idx, wasm_value v);
/* Grows by delta slots set to init.ref; returns the old size, or -1 (limit, max or NOMEM).
 * elems may move. */
int64_t sbx__wasm_table_grow(struct wasm_table *t, uint32_t delta, wasm_value init);
const struct wasm_tabletype *sbx__wasm_table_type(const struct wasm_table *t);

struct wasm_global *sbx__wasm_global_new(struct wasm_store *store, const struct wasm_globaltype *t,
                                         wasm_value v);
wasm_value sbx__wasm_global_get(const struct wasm_global *g);
void sbx__wasm_global_set(struct wasm_global *g, wasm_value v);
const struct wasm_globaltype *sbx__wasm_global_type(const struct wasm_global *g);

#endif
