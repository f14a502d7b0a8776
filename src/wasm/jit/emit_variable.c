/* wasm/jit/emit_variable.c: locals (allocas, promoted to registers by the optimiser) and
 * globals (the instance's struct wasm_global values, through symbols sbx_k_global<i>). */
#include <stddef.h>

#include "wasm/jit/emit.h"

static LLVMValueRef global_addr(struct jit_func *f, uint32_t idx)
{
    return sbx__jit_sym(f->jm, JIT_SYM_GLOBAL, idx);
}

/* A global's wasm_value is 8-byte aligned: a v128 access must not assume its type's 16. */
static LLVMValueRef global_access(struct jit_func *f, LLVMValueRef access, uint32_t idx)
{
    if (f->m->globals[idx].type == WASM_V128)
        L(SetAlignment)(access, 8);
    sbx__jit_alias_global(f->jm, access, idx);
    return access;
}

bool sbx__jit_emit_variable(struct jit_func *f, const struct wasm_instr *in, bool *ok)
{
    struct jit_mod *jm = f->jm;
    (void)ok;
    switch (in->op) {
    case WASM_OP_LOCAL_GET:
        sbx__jit_push(f, L(BuildLoad2)(f->b, sbx__jit_type(jm, f->local_types[in->idx]),
                                       f->locals[in->idx], ""));
        return true;
    case WASM_OP_LOCAL_SET:
        L(BuildStore)(f->b, sbx__jit_pop(f), f->locals[in->idx]);
        return true;
    case WASM_OP_LOCAL_TEE:
        L(BuildStore)(f->b, f->stack[f->sp - 1], f->locals[in->idx]);
        return true;
    case WASM_OP_GLOBAL_GET: {
        wasm_vtype t = f->m->globals[in->idx].type;
        LLVMValueRef v = L(BuildLoad2)(f->b, sbx__jit_type(jm, t), global_addr(f, in->idx), "");
        sbx__jit_push(f, global_access(f, v, in->idx));
        return true;
    }
    case WASM_OP_GLOBAL_SET: {
        LLVMValueRef st = L(BuildStore)(f->b, sbx__jit_pop(f), global_addr(f, in->idx));
        sbx__jit_visible_store(jm, global_access(f, st, in->idx)); /* a trap may follow */
        return true;
    }
    default:
        return false;
    }
}
