/* fuzz/wasmgen.h: turns a fuzzer's bytes into a valid WebAssembly 3.0 module (GC: wasmgen_gc.c;
 * of SIMD only relaxed SIMD islands: wasmgen_3.c) plus a plan of export calls, for the differential
 * target fuzz_wasm_diff. Every loop back-edge and every function entry costs one unit of the
 * module's global 0 (an i32 the caller sets before each call); at 0 the function returns zeros, so
 * every call terminates without engine fuel. Values the bodies discard are mostly mixed into global
 * 1 instead of dropped, so that almost every computed value reaches state the differential target
 * compares. */
#ifndef SBX_FUZZ_WASMGEN_H
#define SBX_FUZZ_WASMGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WGEN_MAX_PARAMS  4
#define WGEN_MAX_RESULTS 3
#define WGEN_MAX_CALLS   40

/* Value types as the binary format spells them. */
enum { WGEN_I32 = 0x7f, WGEN_I64 = 0x7e, WGEN_F32 = 0x7d, WGEN_F64 = 0x7c, WGEN_FUNCREF = 0x70 };

struct wgen_sig {
    uint8_t param_count, result_count;
    uint8_t params[WGEN_MAX_PARAMS], results[WGEN_MAX_RESULTS];
};

/* One call of the plan: defined function func (export "f<func>") with args as raw bits. */
struct wgen_call {
    uint32_t func;
    uint64_t args[WGEN_MAX_PARAMS];
};

struct wgen_module {
    uint8_t *wasm; /* the module's bytes (malloc'd) */
    size_t len;
    uint32_t func_count;   /* defined functions, exported as "f0".. */
    uint32_t global_count; /* globals, exported as "g0"..; g0 is the termination budget */
    struct wgen_call calls[WGEN_MAX_CALLS];
    uint32_t call_count;
    uint32_t budget; /* the value to give g0 before each call */
};

/* Generates a module from data (any bytes: exhausted input reads as zeros). false on NOMEM. */
bool wgen_generate(const uint8_t *data, size_t size, struct wgen_module *out);
void wgen_free(struct wgen_module *m);

#endif
