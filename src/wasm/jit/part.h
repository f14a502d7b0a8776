/* wasm/jit/part.h: one part of a module's compile, with its own LLVM context, target machine
 * and object: parts.c splits a module into parts and runs them, engine.c builds one. */
#ifndef SBX_WASM_JIT_PART_H
#define SBX_WASM_JIT_PART_H

#include "wasm/jit/emit.h"

struct sbx__jit_part {
    struct jit_mod jm; /* what the part translates (set up by parts.c), and its object */
    sbx_err rc;
    char err[256];
};

/* Builds p's object into p->jm.obj (the caller disposes of it); p->rc and p->err say how it
 * went. Needs libLLVM loaded. */
void sbx__jit_part_build(struct sbx__jit_part *p);

#endif
