/* wasm/base/base.h: the baseline tier, between the interpreter and LLVM (V8's Liftoff role).
 * A function's code.h form is translated in one pass to x86-64 that keeps every value in the
 * interpreter's own frame slots, so the interpreter and baseline code hand a frame to each other
 * at any instruction boundary with nothing to convert. Calls and returns within the instance are
 * made by the code itself, pushing and popping the interpreter's frame records; any other
 * instruction it does not translate returns to the interpreter, which runs that one instruction
 * from a copy followed by a base_resume word that re-enters the code after it; a tail call, a
 * throw or a return to an interpreted caller returns for good. Loop back-edges poll the store's
 * interrupt flag and, every SBX__BASE_BUDGET of them, return to the interpreter's back-edge path
 * (tier-up counting, OSR into LLVM code), which re-enters at the loop header. A bounds check
 * that fails returns to the interpreter before the instruction, which traps there with the full
 * record. Used by hot-only (LAZY) stores, unmetered, on x86-64 (docs/wasm.md, "The baseline
 * tier"). */
#ifndef SBX_WASM_BASE_BASE_H
#define SBX_WASM_BASE_BASE_H

#include <stdbool.h>
#include <stdint.h>

#include "wasm/code.h"

/* What a return from baseline code asks of the interpreter: the low two bits are the kind, the
 * rest a word index. */
enum sbx__base_exit {
    SBX__BASE_CONT = 0,  /* interpret from code->words[at] */
    SBX__BASE_DELEG = 1, /* interpret the copy at resume[at], which re-enters after it */
    SBX__BASE_BACK = 2,  /* a back-edge to the loop header at code->words[at]: poll, count */
};

/* Back-edges between two returns to the interpreter's back-edge path. */
#define SBX__BASE_BUDGET 4096

struct sbx__base_fn;

/* Whether the store's unmetered calls use the baseline tier: once per store (hot-only stores
 * on x86-64; SBX_TEST_BASE=1 makes every store use it from each function's first entry). */
bool sbx__base_wanted(struct wasm_store *s);

/* Called once at store creation: with SBX_TEST_BASE=1 an interp-tier store uses the tier too
 * (WASM_TIERUP_BASE: its calls and back-edges look for baseline code, and no LLVM runs). */
void sbx__base_store_init(struct wasm_store *s);

/* f's baseline code, translated when f is due (its entries counted here); NULL while it is not
 * due, or when it cannot have any (then f is never counted again). */
struct sbx__base_fn *sbx__base_get(struct wasm_store *s, struct wasm_func *f,
                                   const struct wasm_code *code);

/* Runs bf's code from target (an entry, a loop header or a resume address) on the frame fp:
 * returns a (at << 2 | enum sbx__base_exit). */
uint32_t sbx__base_run(const struct sbx__base_fn *bf, const void *target, uint64_t *fp,
                       uint8_t *mbase, uint64_t msize, struct wasm_store *s,
                       struct wasm_global **globals);

/* sbx__base_run for the interpreter, its registers in s->base_regs (frp, frames_end,
 * stack_end set before): returns the word to go on at, in the frame base_regs holds then (fp,
 * code, frp); base_regs.is_back when that is a loop header whose back-edge path runs first
 * (its back-edges counted for tier-up, the budget renewed). inst: the frame's instance. */
const wasm_word *sbx__base_go(struct wasm_store *s, struct wasm_instance *inst,
                              const struct sbx__base_fn *bf, const void *target, uint64_t *fp,
                              uint8_t *mbase, uint64_t msize, struct wasm_global **globals);

const void *sbx__base_entry(const struct sbx__base_fn *bf);
/* The native address of the loop header at word pos, or NULL. */
const void *sbx__base_loop(const struct sbx__base_fn *bf, uint32_t pos);
const wasm_word *sbx__base_resume(const struct sbx__base_fn *bf);

/* Baseline translations made in s (tests). */
uint32_t sbx__base_count(const struct wasm_store *s);

#endif
