/* wasm/jit/level.h: how hard LLVM works on a module, chosen by its amount of code. At
 * default<O2> with the Default codegen level LLVM costs 70-90 us of CPU per byte of code
 * (70-90 s for the 1 MB module, docs/wasm.md "Compile time"), linear in the code; with a
 * few function passes and FastISel about a sixth of that, for code 2-4x slower. Modules from
 * SBX__JIT_LARGE_BYTES of code take that large level, the rest (every kernel of bench/wasm)
 * the full one. Inside a large module its few huge functions take the full level (below).
 * Both levels are in every cache key (SBX__JIT_CACHE_OPTS). Needs no libLLVM. */
#ifndef SBX_WASM_JIT_LEVEL_H
#define SBX_WASM_JIT_LEVEL_H

#include <stdbool.h>
#include <stdint.h>

#define SBX__JIT_FULL_PIPELINE "default<O2>"
#define SBX__JIT_FULL_CODEGEN  2      /* LLVMCodeGenLevelDefault */
#define SBX__JIT_LARGE_BYTES   524288 /* of function bodies: from here, the large level */
/* From here auto compiles only hot functions (lazy.c): a whole module of this size at O2 took
 * more CPU than the interpreter saved on Lua and bzip2 (docs/wasm.md, "Hot-only tier-up"). */
#define SBX__JIT_HOT_ONLY_BYTES 65536
/* The passes that matter most at O2 (scalars out of memory, redundancy, loop invariants),
 * without the inliner, unrolling and vectorisers. */
#define SBX__JIT_LARGE_PIPELINE                                                                    \
    "function(sroa,early-cse<memssa>,simplifycfg,instcombine,loop-mssa(licm),gvn,simplifycfg)"
#define SBX__JIT_LARGE_CODEGEN 0 /* LLVMCodeGenLevelNone: FastISel, the fast allocator */
/* In a large module a function with at least SBX__JIT_HUGE_BYTES of code takes the full level,
 * in index order while the sum of those stays within SBX__JIT_HUGE_BUDGET (at most ~10 s more
 * of LLVM): an interpreter's dispatch loop is such a function (SQLite's sqlite3VdbeExec, 45 KB,
 * 30% of its run), and FastISel's code for it ran SQLite 1.5x slower (docs/wasm.md, "The large
 * level, per function"). Such a module compiles as two parts, one per level (engine.c). */
#define SBX__JIT_HUGE_BYTES  32768
#define SBX__JIT_HUGE_BUDGET 131072

/* Every hot-only batch (lazy.c) compiles at the large level: SQLite's hot code at default<O2>
 * cost more CPU than its whole interpreted run, and its small batches at O2 (6-8x the large
 * level's CPU per byte) more than the faster code saved (docs/wasm.md, "Hot-only tier-up"). A
 * function with more than SBX__JIT_BATCH_BIG_BYTES is a batch alone, so that it delays no
 * other. Batches are not cached: neither is in the key. */
#define SBX__JIT_BATCH_BIG_BYTES 32768

/* The exception to that rule, in a module below SBX__JIT_LARGE_BYTES (whose whole compile takes
 * the full level): a batch's functions that got hot within their first call (one frame looping
 * for long: a sort, a compressor's match loop) with at most SBX__JIT_LOOP_BYTES of code, and when
 * a batch has one, its call-hot functions of at most SBX__JIT_LOOP_CALLEE_BYTES (what such loops
 * call: zlib's longest_match), compile at the hot-set level (below). FastISel's code ran these
 * loops 1.4-2.4x slower, and at these sizes the hot-set level costs tens of milliseconds more:
 * first runs of bzip2 and minigzip 11% less CPU, Lua within 1%; the same rule on SQLite (a large
 * module) cost 5% (docs/wasm.md, "Loops at the hot-set level"). */
#define SBX__JIT_LOOP_BYTES        8192
#define SBX__JIT_LOOP_CALLEE_BYTES 2048

/* What one function may cost LLVM, bounded up front (no phase of LLVM can be stopped midway, and
 * its time and memory grow faster than linearly with a function's size and its live values):
 * a function with a larger body, or more interpreter slots (params, locals and the deepest
 * operand stack: an upper bound of the values live at once), stays interpreted in every tier.
 * Real programs stay far below (docs/wasm.md, "Compile-cost bounds": bzip2's largest frame is
 * 233 slots, SQLite's 77); 8,000 i64 values live across a call cost 11.7 s of LLVM. */
#define SBX__JIT_MAX_BODY_BYTES  (256u << 10)
#define SBX__JIT_MAX_FRAME_SLOTS 4096u

#define SBX__JIT_STR_(x) #x
#define SBX__JIT_STR(x)  SBX__JIT_STR_(x)
/* The tier options an image depends on (both levels, and where each applies), in every key. */
#define SBX__JIT_HUGE_OPTS                                                                         \
    ", full for " SBX__JIT_STR(SBX__JIT_HUGE_BYTES) " up to " SBX__JIT_STR(SBX__JIT_HUGE_BUDGET)
#define SBX__JIT_CACHE_OPTS                                                                        \
    SBX__JIT_FULL_PIPELINE " codegen " SBX__JIT_STR(SBX__JIT_FULL_CODEGEN) "; from " SBX__JIT_STR( \
        SBX__JIT_LARGE_BYTES) " bytes " SBX__JIT_LARGE_PIPELINE                                    \
                              " codegen " SBX__JIT_STR(SBX__JIT_LARGE_CODEGEN) SBX__JIT_HUGE_OPTS  \
        "; bounds " SBX__JIT_STR(SBX__JIT_MAX_BODY_BYTES) " bytes, " SBX__JIT_STR(                 \
            SBX__JIT_MAX_FRAME_SLOTS) " slots"

struct wasm_module;

struct sbx__jit_level {
    const char *pipeline; /* for LLVMRunPasses */
    int codegen;          /* LLVMCodeGenOptLevel */
};

/* The bytes of m's function bodies. */
uint64_t sbx__jit_code_bytes(const struct wasm_module *m);
/* The level m is compiled at (of all its functions but the huge ones: sbx__jit_huge_end). */
const struct sbx__jit_level *sbx__jit_level_of(const struct wasm_module *m);
/* 0 when every function of m takes m's level; else the end of the defined functions among
 * which those with SBX__JIT_HUGE_BYTES take the full level. */
uint32_t sbx__jit_huge_end(const struct wasm_module *m);
/* The level of defined function def of m, given huge_end = sbx__jit_huge_end(m). */
const struct sbx__jit_level *sbx__jit_level_of_func(const struct wasm_module *m, uint32_t def,
                                                    uint32_t huge_end);
/* The level a hot set is recompiled at (cache_hot.c's upgrade): the large level's passes with
 * LLVM's default code generation (the greedy register allocator, SelectionDAG): measured on the
 * real programs within 0-15% of default<O2>'s code for half its compile CPU, and 1.4-2.4x faster
 * code than the large level for 3-4x its compile (docs/wasm.md, "The upgrade"). */
#define SBX__JIT_HOT_CODEGEN 2 /* LLVMCodeGenLevelDefault */
const struct sbx__jit_level *sbx__jit_level_of_hot_set(void);
/* Whether defined function def of m is within the compile-cost bound (above). */
bool sbx__jit_func_fits(const struct wasm_module *m, uint32_t def);
/* The level of a hot-only batch's functions but those below. */
const struct sbx__jit_level *sbx__jit_level_of_batch(void);
/* Whether m's hot-only batches may compile functions at the hot-set level (SBX__JIT_LOOP_*): m is
 * below the large level. */
bool sbx__jit_batch_may_raise(const struct wasm_module *m);

#endif
