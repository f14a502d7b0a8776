/* wasm/decode_internal.h: the decoder's state, shared by decode.c and decode_segs.c only. */
#ifndef SBX_WASM_DECODE_INTERNAL_H
#define SBX_WASM_DECODE_INTERNAL_H

#include "wasm/decode.h"

struct wasm_dec {
    struct wasm_reader r;
    struct wasm_module *m;
    bool is_nomem;
    /* The first validation error met while decoding (a non-constant constant expression);
     * reported only if the rest decodes, since malformed wins over invalid. */
    bool has_invalid;
    char invalid[160];
    bool has_func_section;
    uint32_t code_count;
    uint64_t local_total; /* declared locals of the bodies read so far */
    uint32_t custom_cap;  /* room in m->customs, grown by doubling */
    uint32_t data_count_value;
    /* Defined tables, memories and globals, merged after the imports at the end. */
    struct wasm_tabletype *table_defs;
    uint32_t table_def_count;
    struct wasm_memtype *mem_defs;
    uint32_t mem_def_count;
    struct wasm_globaltype *global_defs;
    uint32_t global_def_count;
    uint32_t *tag_defs; /* defined tags' type indices */
    uint32_t tag_def_count;
    uint32_t type_cap; /* room in m->types and m->typedefs */
};

/* Allocation that records "out of memory" (and is_nomem) on failure. */
void *sbx__wasm_dec_alloc(struct wasm_dec *d, size_t count, size_t size);
/* Fails with "implementation limit: N <what>, more than <limit>" when n exceeds limit and the
 * bytes left could hold more than limit of them (room); a count they cannot hold is left to
 * fail as malformed where reading runs out. */
bool sbx__wasm_dec_at_most(struct wasm_dec *d, const uint8_t *at, uint64_t n, uint64_t room,
                           uint32_t limit, const char *what);
char *sbx__wasm_dec_strndup(struct wasm_dec *d, const uint8_t *s, uint32_t len);

/* Records a validation error found while decoding (the first only), reported once the rest
 * decodes: malformed wins over invalid. */
void sbx__wasm_dec_defer_invalid(struct wasm_dec *d, const uint8_t *at, const char *msg);
bool sbx__wasm_dec_limits(struct wasm_dec *d, struct wasm_limits *lim, bool *is64);
bool sbx__wasm_dec_const_expr(struct wasm_dec *d, struct wasm_init *out);
bool sbx__wasm_dec_custom(struct wasm_dec *d);
bool sbx__wasm_dec_elem_section(struct wasm_dec *d);
bool sbx__wasm_dec_code_section(struct wasm_dec *d);
bool sbx__wasm_dec_data_section(struct wasm_dec *d);
/* Builds the merged index spaces and reads the "name" section. */
bool sbx__wasm_dec_finish(struct wasm_dec *d);
void sbx__wasm_dec_release(struct wasm_dec *d);

#endif
