/* wasm/module.h: a decoded, validated module. Immutable once sbx__wasm_module_load() returns,
 * so one module may be instantiated many times, from many threads. Index spaces list imports
 * first, as the spec defines them. */
#ifndef SBX_WASM_MODULE_H
#define SBX_WASM_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wasm_rtt;     /* types.h */
struct wasm_typeset; /* types.h */

/* A value type (wasm_vtype): numbers and vectors are their one-byte binary codes; a reference
 * type is WASM_REF(nullable, heap type), its low byte the binary code of (ref null ht) or
 * (ref ht) and its upper 24 bits the heap type: a type index of the module, or one of the
 * abstract heap types (WASM_HT_*, from 0xFFFF00 up). So the low byte alone tells how a value
 * is stored (wasm_vtype_is_ref), and funcref/externref are single constants. */
typedef uint32_t wasm_vtype;

enum wasm_valtype {
    WASM_I32 = 0x7F,
    WASM_I64 = 0x7E,
    WASM_F32 = 0x7D,
    WASM_F64 = 0x7C,
    WASM_V128 = 0x7B,
    WASM_REF_NULL_CODE = 0x63, /* (ref null ht) */
    WASM_REF_CODE = 0x64,      /* (ref ht) */
};

/* Abstract heap types: 0xFFFF00 | their binary code. */
#define WASM_HT_ABSTRACT 0xFFFF00u
#define WASM_HT(code)    (WASM_HT_ABSTRACT | (uint32_t)(code))
enum wasm_heaptype {
    WASM_HT_FUNC = WASM_HT(0x70),
    WASM_HT_EXTERN = WASM_HT(0x6F),
    WASM_HT_ANY = WASM_HT(0x6E),
    WASM_HT_EQ = WASM_HT(0x6D),
    WASM_HT_I31 = WASM_HT(0x6C),
    WASM_HT_STRUCT = WASM_HT(0x6B),
    WASM_HT_ARRAY = WASM_HT(0x6A),
    WASM_HT_EXN = WASM_HT(0x69),
    WASM_HT_NONE = WASM_HT(0x71),
    WASM_HT_NOEXTERN = WASM_HT(0x72),
    WASM_HT_NOFUNC = WASM_HT(0x73),
    WASM_HT_NOEXN = WASM_HT(0x74),
    /* The bottom heap type the validator gives a reference popped from an unreachable stack;
     * never in a module (no binary code). */
    WASM_HT_BOT = WASM_HT(0xFF),
};

/* Whether heap type ht is abstract (WASM_HT_*), else a type index. */
static inline int wasm_heap_is_abstract(uint32_t ht)
{
    return ht >= WASM_HT_ABSTRACT;
}

#define WASM_REF(is_nullable, ht)                                                                  \
    ((wasm_vtype)(((uint32_t)(ht) << 8) | ((is_nullable) ? WASM_REF_NULL_CODE : WASM_REF_CODE)))
#define WASM_FUNCREF   WASM_REF(1, WASM_HT_FUNC)
#define WASM_EXTERNREF WASM_REF(1, WASM_HT_EXTERN)

/* The low byte: the binary code of a number or vector type, or of (ref null) / (ref). */
static inline uint8_t wasm_vtype_code(wasm_vtype t)
{
    return (uint8_t)(t & 0xFFu);
}

static inline bool wasm_vtype_is_ref(wasm_vtype t)
{
    return (t & 0xFFu) == WASM_REF_NULL_CODE || (t & 0xFFu) == WASM_REF_CODE;
}

static inline bool wasm_vtype_is_nullable(wasm_vtype t)
{
    return (t & 0xFFu) == WASM_REF_NULL_CODE;
}

/* The heap type of a reference type. */
static inline uint32_t wasm_vtype_heap(wasm_vtype t)
{
    return t >> 8;
}

enum wasm_extern_kind {
    WASM_EXTERN_FUNC = 0,
    WASM_EXTERN_TABLE = 1,
    WASM_EXTERN_MEMORY = 2,
    WASM_EXTERN_GLOBAL = 3,
    WASM_EXTERN_TAG = 4, /* exception handling */
};

/* A defined type's composite kind (3.0: function, structure or array type). */
enum wasm_comp_kind { WASM_COMP_FUNC = 0, WASM_COMP_STRUCT, WASM_COMP_ARRAY };

/* Storage types of struct and array fields: a value type, or one of the packed types. */
#define WASM_PACKED_I8  0x78u
#define WASM_PACKED_I16 0x77u

struct wasm_field {
    wasm_vtype type; /* a value type or WASM_PACKED_I8/I16 */
    bool is_mutable;
};

#define WASM_NO_SUPER UINT32_MAX

/* What a type index defines beyond a function type's params and results (m->types): its
 * kind, finality, declared supertype and recursion group, and a struct's or array's fields. */
struct wasm_typedef {
    uint8_t kind; /* enum wasm_comp_kind */
    bool is_final;
    uint32_t super;     /* type index, or WASM_NO_SUPER */
    uint32_t rec_start; /* the first type index of its recursion group */
    uint32_t rec_len;
    uint32_t field_count; /* struct: its fields; array: 1 (the element) */
    struct wasm_field *fields;
};

/* A value as raw bits: floats are kept as their IEEE bit patterns so NaN payloads survive.
 * funcref holds a struct wasm_func * (NULL = null); externref an opaque host pointer, where
 * the embedder chooses the encoding and NULL = null. */
typedef union wasm_value {
    uint32_t i32;
    uint64_t i64;
    uint32_t f32;
    uint64_t f64;
    uint8_t v128[16];
    void *ref;
} wasm_value;

struct wasm_functype {
    uint32_t param_count;
    uint32_t result_count;
    wasm_vtype *types; /* param_count params, then result_count results */
};

struct wasm_limits {
    uint64_t min;
    uint64_t max; /* valid when has_max */
    bool has_max;
};

struct wasm_tabletype {
    wasm_vtype elem_type; /* a reference type */
    struct wasm_limits limits;
    bool is64; /* indexed by i64 (memory64's table64), else i32 */
};

struct wasm_memtype {
    struct wasm_limits limits; /* in 64 KiB pages */
    bool is64;                 /* addressed by i64 (memory64), else i32 */
};

struct wasm_globaltype {
    wasm_vtype type;
    bool is_mutable;
};

/* A constant expression: one instruction pre-decoded, or longer ones kept as code. */
enum wasm_init_op {
    WASM_INIT_CONST = 0,  /* value holds the constant of type `type` */
    WASM_INIT_GLOBAL_GET, /* index = global index */
    WASM_INIT_REF_NULL,   /* type = the null's reference type */
    WASM_INIT_REF_FUNC,   /* index = function index */
    WASM_INIT_EXPR,       /* code: the instructions before the final end (const_expr.c) */
};

struct wasm_init {
    uint8_t op;      /* enum wasm_init_op */
    wasm_vtype type; /* the expression's value type (set by the validator for GLOBAL_GET, EXPR) */
    uint32_t index;
    wasm_value value;
    const uint8_t *code; /* EXPR: points into the module's bytes */
    uint32_t code_len;
};

struct wasm_import {
    char *module; /* UTF-8, NUL-terminated; module_len excludes the NUL (names may hold NULs) */
    uint32_t module_len;
    char *name;
    uint32_t name_len;
    uint8_t kind; /* enum wasm_extern_kind */
    union {
        uint32_t func_type; /* type index */
        struct wasm_tabletype table;
        struct wasm_memtype mem;
        struct wasm_globaltype global;
        uint32_t tag_type; /* type index (a function type without results) */
    } u;
};

struct wasm_export {
    char *name;
    uint32_t name_len;
    uint8_t kind;
    uint32_t index;
};

/* A run of declared locals of one type, as the binary declares them: locals up to (not
 * including) end, counted from the first declared local, have type `type`. */
struct wasm_local_run {
    uint32_t end;
    wasm_vtype type;
};

/* A function body defined in this module. */
struct wasm_func_def {
    uint32_t type_index;
    uint32_t local_count;              /* declared locals, not counting params */
    struct wasm_local_run *local_runs; /* their types, run_count runs (sbx__wasm_local_types) */
    uint32_t run_count;
    /* Set by the validator (validate_locals.c): local_count flags, non-zero for the declared
     * locals a call must zero; NULL when there are none. */
    uint8_t *local_zeroed;
    bool has_tail_call;  /* set by the validator: the body has a return_call* */
    bool has_try_table;  /* set by the validator: the body catches exceptions */
    const uint8_t *code; /* instructions after the locals, up to and including the final end */
    uint32_t code_len;
    uint32_t code_offset; /* offset of code within the module binary, for messages */
};

enum wasm_seg_mode { WASM_SEG_ACTIVE = 0, WASM_SEG_PASSIVE, WASM_SEG_DECLARATIVE };

struct wasm_elem_seg {
    uint8_t mode;
    wasm_vtype elem_type; /* a reference type */
    uint32_t table_index;
    struct wasm_init offset; /* active only */
    uint32_t count;
    struct wasm_init *items; /* REF_FUNC, REF_NULL or GLOBAL_GET each */
};

struct wasm_data_seg {
    uint8_t mode; /* ACTIVE or PASSIVE */
    uint32_t mem_index;
    struct wasm_init offset;
    const uint8_t *bytes; /* points into module->bytes */
    uint32_t len;
};

/* Bounds the work of loading a module: past deadline_ns (CLOCK_MONOTONIC; 0 = none), or once
 * *stop holds a non-zero sbx_err (set from any thread; stop may be NULL), decoding, validation
 * and translation stop within a few thousand instructions or vector elements. */
struct wasm_load_guard {
    uint64_t deadline_ns;
    const _Atomic int *stop;
};

struct wasm_custom_section {
    char *name;
    const uint8_t *data; /* points into module->bytes */
    uint32_t len;
};

struct wasm_module {
    uint8_t *bytes; /* owned copy of the binary; code and data point into it */
    size_t len;

    /* Every type index: its function type (params and results; none for struct and array
     * types), its definition, and its canonical runtime type (types.c: equal pointers for
     * equivalent types, in any module of the process). */
    struct wasm_functype *types;
    struct wasm_typedef *typedefs;
    const struct wasm_rtt **rtts;
    struct wasm_typeset *typeset; /* the references rtts hold (types.c) */
    uint32_t type_count;

    struct wasm_import *imports;
    uint32_t import_count;
    uint32_t func_import_count, table_import_count, mem_import_count, global_import_count,
        tag_import_count;

    uint32_t *func_type_idx; /* every function, imported first: its type index */
    uint32_t func_count;
    struct wasm_func_def *funcs; /* defined functions: funcs[i] is function func_import_count+i */
    uint32_t func_def_count;

    struct wasm_tabletype *tables; /* all tables, imported first */
    uint32_t table_count;
    /* Defined tables' initial element (table_import_count + i): REF_NULL of the element type
     * unless the table section gave an expression (3.0). */
    struct wasm_init *table_inits;
    struct wasm_memtype *mems; /* all memories, imported first */
    uint32_t mem_count;
    struct wasm_globaltype *globals; /* all globals, imported first */
    uint32_t global_count;
    struct wasm_init *global_inits; /* defined globals only: global_import_count + i */
    uint32_t *tag_types;            /* all tags, imported first: the type index of each */
    uint32_t tag_count;

    struct wasm_export *exports;
    uint32_t export_count;

    bool has_start;
    uint32_t start_func;

    struct wasm_elem_seg *elems;
    uint32_t elem_count;
    struct wasm_data_seg *datas;
    uint32_t data_count;
    bool has_data_count_section;

    struct wasm_custom_section *customs;
    uint32_t custom_count;

    char **func_names; /* from the "name" section, func_count entries (NULL if absent) */

    bool has_tail_calls; /* some body has a return_call* (the compiled tier's calling convention) */

    /* Functions referenced outside function bodies (exports, elems, globals): ref.func in code
     * may name only these (spec 3.4.10, C.refs). func_count entries. */
    bool *func_is_declared;

    /* While sbx__wasm_module_load_guarded() runs, its guard (polled by every stage); NULL
     * once loaded. */
    const struct wasm_load_guard *guard;

    /* The interpreter's translated code for every defined function; owned (compile.c). */
    struct wasm_code *compiled;
};

#endif
