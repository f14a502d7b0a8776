/* wasm/validate_mem.c: typing of the memory and table instructions (spec 3.3.6-3.3.7, 3.0):
 * their memory or table index, and the address type each one takes. Multiple memories name
 * their memory in the memarg (or an index immediate); a 64-bit memory or table (memory64)
 * takes i64 addresses, sizes and lengths, and the length of a copy between a 32-bit and a
 * 64-bit one is an i32. */
#include "wasm/validate_internal.h"

/* The address type (i32 or i64) of memory idx; false when there is no such memory. */
static bool mem_addr(struct vfunc *v, uint32_t idx, wasm_vtype *at)
{
    if (idx >= v->m->mem_count)
        return sbx__wasm_v_fail_idx(v, "memory", idx);
    *at = v->m->mems[idx].is64 ? WASM_I64 : WASM_I32;
    return true;
}

static bool need_data_count(struct vfunc *v, uint32_t idx)
{
    /* Binary 5.5.16: a data index in code needs the data count section when there are data
     * segments; with none, it is just an unknown segment. */
    if (!v->m->has_data_count_section && v->m->data_count > 0)
        return sbx__wasm_rd_fail(v->r, v->at, "data count section required");
    return idx < v->m->data_count || sbx__wasm_v_fail_idx(v, "data segment", idx);
}

/* A load or store: the memarg's checks, then the signature with the memory's address type in
 * place of the table's i32 address (every memory access takes its address first). */
static bool memarg_op(struct vfunc *v, const struct wasm_instr *in, const struct wasm_opinfo *info)
{
    const struct wasm_siginfo *s = &sbx__wasm_siginfo[info->sig];
    wasm_vtype at = 0;
    if (!mem_addr(v, in->idx, &at))
        return false;
    if (in->align > info->arg)
        return sbx__wasm_v_fail(v, "alignment must not be larger than natural");
    if (at == WASM_I32 && in->offset > UINT32_MAX)
        return sbx__wasm_v_fail(v, "offset out of range");
    if (info->imm == WASM_IMM_MEMARG_LANE && in->lane >= (16u >> info->arg))
        return sbx__wasm_v_fail(v, "invalid lane index");
    for (uint32_t i = s->param_count; i-- > 1;)
        if (!vpop(v, s->params[i]))
            return false;
    return vpop(v, at) && (s->result_count == 0 || vpush(v, s->result));
}

bool sbx__wasm_v_memory(struct vfunc *v, const struct wasm_instr *in)
{
    const struct wasm_opinfo *info = &sbx__wasm_opinfo[in->op];
    wasm_vtype at = 0, at2 = 0;
    switch (in->op) {
    case WASM_OP_MEMORY_SIZE:
        return mem_addr(v, in->idx, &at) && vpush(v, at);
    case WASM_OP_MEMORY_GROW:
        return mem_addr(v, in->idx, &at) && vpop(v, at) && vpush(v, at);
    case WASM_OP_MEMORY_FILL: /* d val n */
        return mem_addr(v, in->idx, &at) && vpop(v, at) && vpop(v, WASM_I32) && vpop(v, at);
    case WASM_OP_MEMORY_COPY: /* d s n: n is an i64 only between two 64-bit memories */
        if (!mem_addr(v, in->idx, &at) || !mem_addr(v, in->idx2, &at2))
            return false;
        return vpop(v, at == WASM_I64 && at2 == WASM_I64 ? WASM_I64 : WASM_I32) && vpop(v, at2) &&
               vpop(v, at);
    case WASM_OP_MEMORY_INIT: /* d s n */
        return mem_addr(v, in->idx2, &at) && need_data_count(v, in->idx) && vpop(v, WASM_I32) &&
               vpop(v, WASM_I32) && vpop(v, at);
    case WASM_OP_DATA_DROP:
        return need_data_count(v, in->idx);
    default:
        return memarg_op(v, in, info);
    }
}

bool sbx__wasm_v_table_type(struct vfunc *v, uint32_t idx, wasm_vtype *out, bool *is64)
{
    if (idx >= v->m->table_count)
        return sbx__wasm_v_fail_idx(v, "table", idx);
    *out = v->m->tables[idx].elem_type;
    *is64 = v->m->tables[idx].is64;
    return true;
}

static bool table_init(struct vfunc *v, const struct wasm_instr *in)
{
    wasm_vtype t = 0;
    bool is64 = false;
    if (!sbx__wasm_v_table_type(v, in->idx2, &t, &is64))
        return false;
    if (in->idx >= v->m->elem_count)
        return sbx__wasm_v_fail_idx(v, "elem segment", in->idx);
    if (!vsub(v, v->m->elems[in->idx].elem_type, t))
        return sbx__wasm_v_fail(v, "type mismatch");
    return vpop(v, WASM_I32) && vpop(v, WASM_I32) && vpop(v, is64 ? WASM_I64 : WASM_I32);
}

static bool table_copy(struct vfunc *v, const struct wasm_instr *in)
{
    wasm_vtype t = 0, t2 = 0;
    bool is64 = false, is64_2 = false;
    if (!sbx__wasm_v_table_type(v, in->idx, &t, &is64) ||
        !sbx__wasm_v_table_type(v, in->idx2, &t2, &is64_2))
        return false;
    if (!vsub(v, t2, t)) /* the source's elements must fit the destination */
        return sbx__wasm_v_fail(v, "type mismatch");
    return vpop(v, is64 && is64_2 ? WASM_I64 : WASM_I32) && vpop(v, is64_2 ? WASM_I64 : WASM_I32) &&
           vpop(v, is64 ? WASM_I64 : WASM_I32);
}

bool sbx__wasm_v_table(struct vfunc *v, const struct wasm_instr *in)
{
    wasm_vtype t = 0;
    bool is64 = false;
    switch (in->op) {
    case WASM_OP_ELEM_DROP:
        return in->idx < v->m->elem_count || sbx__wasm_v_fail_idx(v, "elem segment", in->idx);
    case WASM_OP_TABLE_INIT: /* idx is the element segment, idx2 the table */
        return table_init(v, in);
    case WASM_OP_TABLE_COPY: /* idx the destination, idx2 the source */
        return table_copy(v, in);
    default:
        break;
    }
    if (!sbx__wasm_v_table_type(v, in->idx, &t, &is64))
        return false;
    wasm_vtype at = is64 ? WASM_I64 : WASM_I32;
    switch (in->op) {
    case WASM_OP_TABLE_GET:
        return vpop(v, at) && vpush(v, t);
    case WASM_OP_TABLE_SET:
        return vpop(v, t) && vpop(v, at);
    case WASM_OP_TABLE_GROW:
        return vpop(v, at) && vpop(v, t) && vpush(v, at);
    case WASM_OP_TABLE_FILL:
        return vpop(v, at) && vpop(v, t) && vpop(v, at);
    default: /* TABLE_SIZE */
        return vpush(v, at);
    }
}
