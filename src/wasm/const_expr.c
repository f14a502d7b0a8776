/* wasm/const_expr.c: constant expressions longer than one instruction (3.0's extended
 * constant expressions: i32/i64 add, sub and mul over constants and globals), kept as their
 * code (WASM_INIT_EXPR): type-checked by a small stack checker at validation and evaluated by
 * a small stack machine at instantiation. One-instruction expressions, nearly all of them,
 * keep their pre-decoded forms (decode_segs.c). Reads instructions only through the decoder. */
#include <string.h>

#include "util/alloc.h"
#include "wasm/const_expr.h"

#define CONST_DEPTH 64 /* operand stack of one expression; deeper ones are refused */

bool sbx__wasm_const_instr(uint16_t op)
{
    switch (op) {
    case WASM_OP_I32_CONST:
    case WASM_OP_I64_CONST:
    case WASM_OP_F32_CONST:
    case WASM_OP_F64_CONST:
    case WASM_OP_V128_CONST:
    case WASM_OP_GLOBAL_GET:
    case WASM_OP_REF_NULL:
    case WASM_OP_REF_FUNC:
    case WASM_OP_I32_ADD:
    case WASM_OP_I32_SUB:
    case WASM_OP_I32_MUL:
    case WASM_OP_I64_ADD:
    case WASM_OP_I64_SUB:
    case WASM_OP_I64_MUL:
        return true;
    default:
        return false;
    }
}

static struct wasm_reader reader_of(const struct wasm_module *m, const struct wasm_init *e)
{
    return (struct wasm_reader){.base = m->bytes,
                                .file_end = m->bytes + m->len,
                                .p = e->code,
                                .end = e->code + e->code_len};
}

/* The type an instruction pushes, popping its operands from t[*n]; 0 when it does not fit. */
static wasm_vtype check_one(const struct wasm_module *m, const struct wasm_instr *in, wasm_vtype *t,
                            uint32_t *n, uint32_t max_global, const char **why)
{
    const struct wasm_siginfo *sig = &sbx__wasm_siginfo[sbx__wasm_opinfo[in->op].sig];
    switch (in->op) {
    case WASM_OP_GLOBAL_GET:
        if (in->idx >= max_global) {
            *why = "unknown global";
            return 0;
        }
        if (m->globals[in->idx].is_mutable) {
            *why = "constant expression required";
            return 0;
        }
        return m->globals[in->idx].type;
    case WASM_OP_REF_NULL:
        if (!wasm_heap_is_abstract(wasm_vtype_heap(in->valtype)) &&
            wasm_vtype_heap(in->valtype) >= m->type_count) {
            *why = "unknown type";
            return 0;
        }
        return in->valtype;
    case WASM_OP_REF_FUNC:
        if (in->idx >= m->func_count) {
            *why = "unknown function";
            return 0;
        }
        return WASM_REF(0, m->func_type_idx[in->idx]);
    default: /* constants and binary operators: the table's signature */
        if (*n < sig->param_count)
            return 0;
        for (uint32_t i = 0; i < sig->param_count; i++)
            if (t[*n - sig->param_count + i] != sig->params[i])
                return 0;
        *n -= sig->param_count;
        return sig->result;
    }
}

bool sbx__wasm_const_validate(const struct wasm_module *m, const struct wasm_init *e,
                              uint32_t max_global, wasm_vtype *type, const char **why)
{
    struct wasm_reader r = reader_of(m, e);
    wasm_vtype t[CONST_DEPTH];
    uint32_t n = 0;
    struct wasm_instr in;
    *why = "type mismatch";
    while (r.p < r.end) {
        if (!sbx__wasm_read_instr(&r, &in)) /* decoded once already */
            return false;
        if (!sbx__wasm_const_instr(in.op)) {
            *why = "constant expression required";
            return false;
        }
        wasm_vtype out = check_one(m, &in, t, &n, max_global, why);
        if (out == 0)
            return false;
        if (n == CONST_DEPTH) {
            *why = "implementation limit: constant expression too deep";
            return false;
        }
        t[n++] = out;
    }
    if (n != 1)
        return false;
    *type = t[0];
    return true;
}

void sbx__wasm_const_refs(const struct wasm_module *m, const struct wasm_init *e, bool *declared)
{
    struct wasm_reader r = reader_of(m, e);
    struct wasm_instr in;
    while (r.p < r.end && sbx__wasm_read_instr(&r, &in))
        if (in.op == WASM_OP_REF_FUNC && in.idx < m->func_count)
            declared[in.idx] = true;
}

/* Applies one validated instruction to the value stack v[*n]. */
static void eval_one(const struct wasm_instance *inst, const struct wasm_instr *in, wasm_value *v,
                     uint32_t *n)
{
    wasm_value r;
    memset(&r, 0, sizeof(r));
    wasm_value *a = *n >= 2 ? &v[*n - 2] : v, *b = *n >= 1 ? &v[*n - 1] : v;
    switch (in->op) {
    case WASM_OP_I32_CONST:
    case WASM_OP_F32_CONST:
        r.i32 = (uint32_t)in->value;
        break;
    case WASM_OP_I64_CONST:
    case WASM_OP_F64_CONST:
        r.i64 = in->value;
        break;
    case WASM_OP_V128_CONST:
        memcpy(r.v128, in->bytes, 16);
        break;
    case WASM_OP_GLOBAL_GET:
        r = inst->globals[in->idx]->value;
        break;
    case WASM_OP_REF_FUNC:
        r.ref = inst->funcs[in->idx];
        break;
    case WASM_OP_REF_NULL:
        break;
    default: { /* the binary operators: integers wrap, as their instructions do */
        uint64_t x = a->i64, y = b->i64;
        bool is32 = in->op <= WASM_OP_I32_MUL;
        uint64_t z = in->op == WASM_OP_I32_ADD || in->op == WASM_OP_I64_ADD   ? x + y
                     : in->op == WASM_OP_I32_SUB || in->op == WASM_OP_I64_SUB ? x - y
                                                                              : x * y;
        *n -= 2;
        if (is32)
            r.i32 = (uint32_t)z;
        else
            r.i64 = z;
        break;
    }
    }
    v[(*n)++] = r;
}

wasm_value sbx__wasm_const_eval(const struct wasm_instance *inst, const struct wasm_init *e)
{
    struct wasm_reader r = reader_of(inst->module, e);
    wasm_value v[CONST_DEPTH];
    uint32_t n = 0;
    struct wasm_instr in;
    memset(v, 0, sizeof(v));
    while (r.p < r.end && n < CONST_DEPTH && sbx__wasm_read_instr(&r, &in))
        eval_one(inst, &in, v, &n);
    return v[0];
}
