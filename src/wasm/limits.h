/* wasm/limits.h: the engine's implementation limits on a module, the ones browser engines
 * agree on (V8's wasm-limits.h, SpiderMonkey's WasmConstants.h), so a module that loads in a
 * browser loads here and a hostile one cannot make decoding or compiling cost more than these
 * bound. Exceeding one is SBX_E_WASM_INVALID_MODULE, "implementation limit: ...". */
#ifndef SBX_WASM_LIMITS_H
#define SBX_WASM_LIMITS_H

#define WASM_MAX_TYPES         1000000u
#define WASM_MAX_FUNCTIONS     1000000u /* imported and defined */
#define WASM_MAX_IMPORTS       100000u
#define WASM_MAX_EXPORTS       100000u
#define WASM_MAX_GLOBALS       1000000u  /* imported and defined */
#define WASM_MAX_TABLES        100000u   /* imported and defined */
#define WASM_MAX_TABLE_SIZE    10000000u /* elements: the store's default (instantiation) */
#define WASM_MAX_ELEM_SEGMENTS 100000u
#define WASM_MAX_DATA_SEGMENTS 100000u
#define WASM_MAX_FUNC_ARITY    1000u  /* params, and results, of one function type */
#define WASM_MAX_LOCALS        50000u /* declared locals of one function */
/* Declared locals of all functions together: sbx's own. The decoder keeps one type byte per
 * local, so 1,000,000 functions of 50,000 locals each (6 MB of module) would take 50 GB of host
 * memory; 2^24 (16 MiB) is some 20 locals for each of 800,000 functions, more than the largest
 * toolchain output declares. */
#define WASM_MAX_MODULE_LOCALS  16777216u
#define WASM_MAX_BODY_BYTES     7654321u     /* one function body */
#define WASM_MAX_MEMORY_PAGES   65536u       /* the spec's bound for a 32-bit memory */
#define WASM_MAX_MEMORY64_PAGES (1ull << 48) /* and for a 64-bit one (memory64) */
/* Open blocks, loops and ifs in one function. Browsers bound nesting only through the body
 * size (3.8M levels in 7.6 MB); each level costs the validator and compiler ~100 bytes of host
 * memory outside the guest's memoryBytes, so sbx bounds it at 2^16 (6.5 MB): room for the
 * deepest code compilers emit, a switch lowered to one block per case, whose br_table has at
 * most 65,520 targets in V8. */
#define WASM_MAX_NESTING 65536u

#endif
