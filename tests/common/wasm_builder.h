/* wasm_builder.h: encodes small, valid WebAssembly 2.0 binaries (wasi_snapshot_preview1 commands
 * and reactors) from C calls, so tests need no wabt and no text format. Value types are written
 * as strings of letters: 'i' i32, 'I' i64, 'f' f32, 'F' f64 ("ii" -> (i32, i32)). Self-contained:
 * no libsbx symbols, plain malloc; every function tolerates a builder that ran out of memory. */
#ifndef SBX_TESTS_WASM_BUILDER_H
#define SBX_TESTS_WASM_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growable byte vector: function bodies and sections. */
struct wb_bytes {
    uint8_t *data;
    size_t len, cap;
    bool is_oom;
};

void wb_bytes_put(struct wb_bytes *b, const void *data, size_t len);
void wb_bytes_byte(struct wb_bytes *b, uint8_t byte);
void wb_bytes_uleb(struct wb_bytes *b, uint64_t v);
void wb_bytes_sleb(struct wb_bytes *b, int64_t v);
void wb_bytes_free(struct wb_bytes *b);

/* Instruction helpers for bodies (opcodes from the spec, section 5.4). */
void wbc_op(struct wb_bytes *c, uint8_t opcode);
void wbc_i32_const(struct wb_bytes *c, int32_t v);
void wbc_i64_const(struct wb_bytes *c, int64_t v);
void wbc_call(struct wb_bytes *c, uint32_t func);
void wbc_local_get(struct wb_bytes *c, uint32_t idx);
void wbc_local_set(struct wb_bytes *c, uint32_t idx);
void wbc_local_tee(struct wb_bytes *c, uint32_t idx);
/* A block instruction (WB_OP_BLOCK, WB_OP_LOOP or WB_OP_IF) with no params or results. */
void wbc_block(struct wb_bytes *c, uint8_t opcode);
/* i32.load / i32.store / i64.load with align 2 (or 3) and offset 0. */
void wbc_i32_load(struct wb_bytes *c);
void wbc_i32_store(struct wb_bytes *c);
void wbc_i64_load(struct wb_bytes *c);
void wbc_end(struct wb_bytes *c);
/* Appends `loop br 0 end`: a loop that never exits (a back-edge per iteration). */
void wbc_spin(struct wb_bytes *c);

#define WB_OP_UNREACHABLE 0x00
#define WB_OP_BLOCK       0x02
#define WB_OP_LOOP        0x03
#define WB_OP_IF          0x04
#define WB_OP_BR          0x0c
#define WB_OP_BR_IF       0x0d
#define WB_OP_DROP        0x1a
#define WB_OP_I32_EQZ     0x45
#define WB_OP_I32_EQ      0x46
#define WB_OP_I32_LT_U    0x49
#define WB_OP_I32_ADD     0x6a
#define WB_OP_I32_SUB     0x6b
#define WB_OP_I32_MUL     0x6c
#define WB_OP_I32_DIV_S   0x6d
#define WB_OP_I32_XOR     0x73
#define WB_OP_I64_ADD     0x7c
#define WB_OP_F64_ADD     0xa0
#define WB_OP_MEMORY_GROW 0x40
#define WB_BLOCKTYPE_VOID 0x40

struct wb;

/* Returns a new, empty module builder, or NULL. */
struct wb *wb_new(void);
void wb_free(struct wb *w);

/* Each returns the index of what it added. Types are deduplicated. */
uint32_t wb_type(struct wb *w, const char *params, const char *results);
/* Function imports must all come before the first wb_func (the index space lists them first). */
uint32_t wb_import_func(struct wb *w, const char *module, const char *name, const char *params,
                        const char *results);
/* A defined function: locals as a type string ("" for none), body = instructions up to and
 * including the final `end`. */
uint32_t wb_func(struct wb *w, const char *params, const char *results, const char *locals,
                 const struct wb_bytes *body);
/* Memory 0 with min pages and an optional maximum (max < 0 = none). */
void wb_memory(struct wb *w, uint32_t min_pages, int64_t max_pages);
void wb_export_func(struct wb *w, const char *name, uint32_t func);
void wb_export_memory(struct wb *w, const char *name);
void wb_start(struct wb *w, uint32_t func);
/* An active data segment for memory 0 at a constant offset. */
void wb_data(struct wb *w, uint32_t offset, const void *bytes, size_t len);

/* Adds work(n) = n + (n-1) + ... + 1 by a loop (i32 -> i32, a back-edge per step); returns its
 * index. */
uint32_t wb_func_sum(struct wb *w);
/* Adds count functions (i32) -> i32 returning x + c1 + ... + c_adds (constants of two LEB bytes):
 * code that no test calls, to make a module large; returns the index of the first. */
uint32_t wb_func_padding(struct wb *w, uint32_t count, uint32_t adds);
/* Names function func in the "name" custom section (after every other section), as traps
 * report it. Calls must come in increasing order of func, each at most once. */
void wb_func_name(struct wb *w, uint32_t func, const char *name);

/* Encodes the module; *len gets its size. Returns malloc'd bytes (free()), NULL on NOMEM. */
uint8_t *wb_finish(struct wb *w, size_t *len);
/* Adds body (ending in `end`, no locals) as a function exported as name, encodes the module
 * as wb_finish does, and frees body and w. */
uint8_t *wb_finish_export(struct wb *w, const char *name, const char *params, const char *results,
                          struct wb_bytes *body, size_t *len);

/* ---- ready-made WASI fixtures ------------------------------------------------------------ */

/* A command whose _start writes text to fd (1 or 2) with fd_write, then calls proc_exit(code)
 * (or returns when code < 0). */
uint8_t *wb_fixture_print_exit(const char *text, uint32_t fd, int code, size_t *len);
/* A command whose _start loops forever (a back-edge per iteration). */
uint8_t *wb_fixture_spin(size_t *len);
/* A command whose _start executes `unreachable`. */
uint8_t *wb_fixture_trap(size_t *len);
/* quick() -> i32 = work(k) by wb_func_sum's loop: modules of different k differ in one
 * constant (the cache tests' "changed by one byte"). */
uint8_t *wb_fixture_quick_sum(int32_t k, size_t *len);
/* A reactor exporting add(i32, i32) -> i32, div(i32, i32) -> i32 (traps on zero), an
 * _initialize that stores 42 at address 0, and get() -> i32 that loads it. */
uint8_t *wb_fixture_reactor(size_t *len);
/* A reactor exporting call() -> i32 that calls the import module.name of type () -> i32 and
 * returns its result. */
uint8_t *wb_fixture_cap_caller(const char *module, const char *name, size_t *len);

#endif
