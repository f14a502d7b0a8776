/* wasm/jit/emit_osr.c: on-stack replacement entries (emit.h). A function already running in
 * the interpreter (one long loop inside `main`) moves to native code at a loop back-edge:
 * the interpreter hands its locals and the loop's params to sbx_o<def>, a second translation
 * of the function whose entry switches to that loop's header; the body's own start has no
 * predecessors, so the optimiser drops the code before the loops. Only loops with an empty
 * operand stack below their params get a case: no SSA value from before the header is live
 * at it, so every value the loop uses is a local, a param or made inside it. */
#include <stdio.h>

#include "wasm/code.h"
#include "wasm/decode.h"
#include "wasm/jit/emit.h"

void sbx__jit_osr_name(char *buf, size_t len, uint32_t def_idx)
{
    snprintf(buf, len, "sbx_o%u", def_idx);
}

bool sbx__jit_has_loop(const struct wasm_module *m, uint32_t def_idx)
{
    const struct wasm_func_def *def = &m->funcs[def_idx];
    struct wasm_reader r = {.base = m->bytes,
                            .file_end = m->bytes + m->len,
                            .p = def->code,
                            .end = def->code + def->code_len};
    struct wasm_instr in;
    while (r.p < r.end && sbx__wasm_read_instr(&r, &in)) {
        if (in.op == WASM_OP_LOOP)
            return true;
    }
    return false;
}

LLVMValueRef sbx__jit_osr_declare(struct jit_mod *jm, uint32_t def_idx)
{
    char name[48];
    sbx__jit_osr_name(name, sizeof(name), def_idx);
    LLVMTypeRef p[] = {jm->t_ptr, jm->t_i32};
    return L(AddFunction)(jm->mod, name, L(FunctionType)(jm->t_i32, p, 2, 0));
}

void sbx__jit_osr_open(struct jit_func *f)
{
    LLVMBasicBlockRef none = sbx__jit_block(f, "osr_none");
    f->osr_switch = L(BuildSwitch)(f->b, L(GetParam)(f->fn, 1), none, 4);
    L(PositionBuilderAtEnd)(f->b, none);
    L(BuildRet)(f->b, sbx__jit_i32(f->jm, 0));
    L(PositionBuilderAtEnd)(f->b, sbx__jit_block(f, "unentered"));
}

void sbx__jit_osr_loop(struct jit_func *f, const struct jit_ctl *c)
{
    if (c->height != 0)
        return;
    LLVMBasicBlockRef here = L(GetInsertBlock)(f->b), in = sbx__jit_block(f, "osr_in");
    L(AddCase)(f->osr_switch, sbx__jit_i32(f->jm, f->loop_seq - 1), in);
    L(PositionBuilderAtEnd)(f->b, in);
    for (uint32_t i = 0, k = f->osr_param_slot; i < c->np;
         k += sbx__wasm_type_slots(c->ptypes[i++]))
        L(BuildStore)(f->b, sbx__jit_unpack(f, f->osr_slots, k, c->ptypes[i]), c->pvars[i]);
    L(BuildBr)(f->b, c->loop_bb);
    L(PositionBuilderAtEnd)(f->b, here);
}

void sbx__jit_osr_return(struct jit_func *f)
{
    uint32_t n = f->type->result_count;
    const wasm_vtype *rtypes = f->type->types + f->type->param_count;
    for (uint32_t i = 0, k = 0; i < n; k += sbx__wasm_type_slots(rtypes[i++]))
        sbx__jit_store_slot(f, f->stack[f->sp - n + i], rtypes[i], f->osr_slots, k);
    L(BuildRet)(f->b, sbx__jit_i32(f->jm, 1));
}
