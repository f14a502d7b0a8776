/* wasm/jit/emit_memory.c: linear memory (docs/wasm.md, "Memory safety"), in one of two
 * variants the image records (image.c). Checked: every access is bounds-checked explicitly
 * against the memory's current size: the effective address is computed in 64 bits (no wrap)
 * and ea + bytes > size traps "out of bounds memory access". Guarded (jm->is_guarded, only
 * linked to a memory reserved with WASM_GUARD_RESERVE): no compare; ea < 2^33 and bytes <= 16
 * keep every access inside the reservation, whose inaccessible part faults (jit/fault.c), and
 * every guest access is volatile so that none is deleted or moved across another. The data
 * pointer never moves (runtime.h): it is the address of the symbol sbx_k_mem_data0. Bulk
 * operations call rt.c, which checks in both variants. */
#include <stddef.h>

#include "wasm/jit/emit.h"
#include "wasm/jit/rt.h"

/* A volatile store of this function's index to the store's fault_func, the trap's "in <func>"
 * when a guarded access faults (the pc does not name it: LLVM inlines). */
static void store_fault_func(struct jit_func *f, LLVMBuilderRef b)
{
    struct jit_mod *jm = f->jm;
    LLVMValueRef off = sbx__jit_i64(jm, offsetof(struct wasm_jit_store, fault_func));
    LLVMValueRef p = L(BuildGEP2)(b, jm->t_i8, sbx__jit_sym(jm, JIT_SYM_JIT, 0), &off, 1, "");
    LLVMValueRef st = L(BuildStore)(b, sbx__jit_i32(jm, f->func_idx), p);
    L(SetVolatile)(st, 1);
    sbx__jit_alias(jm, st, JIT_ALIAS_FAULT);
}

/* At the first access of a guarded function: the write of fault_func at its entry. */
static void entry_fault_slot(struct jit_func *f)
{
    if (f->has_fault_slot)
        return;
    f->has_fault_slot = true;
    LLVMBuilderRef eb = sbx__jit_entry_builder(f);
    store_fault_func(f, eb);
    L(DisposeBuilder)(eb);
}

/* Whether f's body has a load or store of linear memory (once per function). */
static bool uses_memory(struct jit_func *f)
{
    if (f->mem_use == 0) {
        const struct wasm_func_def *def = &f->m->funcs[f->func_idx - f->m->func_import_count];
        struct wasm_reader r = {.base = f->m->bytes,
                                .file_end = f->m->bytes + f->m->len,
                                .p = def->code,
                                .end = def->code + def->code_len};
        struct wasm_instr in;
        f->mem_use = 2;
        while (f->mem_use == 2 && r.p < r.end && sbx__wasm_read_instr(&r, &in)) {
            uint8_t imm = sbx__wasm_opinfo[in.op].imm;
            if (imm == WASM_IMM_MEMARG || imm == WASM_IMM_MEMARG_LANE)
                f->mem_use = 1;
        }
    }
    return f->mem_use == 1;
}

void sbx__jit_fault_slot_after_call(struct jit_func *f)
{
    if (f->jm->is_guarded && uses_memory(f))
        store_fault_func(f, f->b);
}

void sbx__jit_guest_access(struct jit_mod *jm, LLVMValueRef access)
{
    sbx__jit_alias(jm, access, JIT_ALIAS_GUEST);
    if (jm->is_guarded)
        L(SetVolatile)(access, 1);
}

void sbx__jit_visible_store(struct jit_mod *jm, LLVMValueRef store)
{
    if (jm->is_guarded)
        L(SetVolatile)(store, 1);
}

static bool is_signed_load(uint16_t op)
{
    return op == WASM_OP_I32_LOAD8_S || op == WASM_OP_I32_LOAD16_S || op == WASM_OP_I64_LOAD8_S ||
           op == WASM_OP_I64_LOAD16_S || op == WASM_OP_I64_LOAD32_S;
}

/* A 64-bit memory's effective address (memory64): no memory exceeds 4 GiB (memory.c), so an
 * address or offset of 2^32 or more is out of bounds, and below that the sum cannot wrap. The
 * guard region's argument needs 32-bit addresses: these are always checked. */
static LLVMValueRef ea64(struct jit_func *f, LLVMValueRef addr, uint64_t offset)
{
    struct jit_mod *jm = f->jm;
    LLVMValueRef big = L(BuildICmp)(f->b, LLVMIntUGT, addr, sbx__jit_i64(jm, UINT32_MAX), "");
    if (offset > UINT32_MAX)
        big = L(ConstInt)(jm->t_i1, 1, 0);
    sbx__jit_trap_if(f, big, WASM_TRAP_MEMORY_OOB);
    return offset ? L(BuildNSWAdd)(f->b, addr, sbx__jit_i64(jm, offset & UINT32_MAX), "") : addr;
}

LLVMValueRef sbx__jit_checked_addr(struct jit_func *f, LLVMValueRef addr, uint32_t mem,
                                   uint64_t offset, uint32_t bytes)
{
    struct jit_mod *jm = f->jm;
    bool is64 = f->m->mems[mem].is64;
    LLVMValueRef ea;
    if (is64) {
        ea = ea64(f, addr, offset);
    } else {
        ea = L(BuildZExt)(f->b, addr, jm->t_i64, "");
        if (offset) /* a 32-bit memory's offset is below 2^32 (validated) */
            ea = L(BuildNSWAdd)(f->b, ea, sbx__jit_i64(jm, offset), "");
    }
    if (jm->is_guarded && mem == 0 && !is64) {
        entry_fault_slot(f);
        return L(BuildGEP2)(f->b, jm->t_i8, sbx__jit_sym(jm, JIT_SYM_MEM_DATA, 0), &ea, 1, "");
    }
    LLVMValueRef size =
        sbx__jit_load_at(f, jm->t_i64, JIT_SYM_MEM, mem, offsetof(struct wasm_memory, size));
    sbx__jit_alias(jm, size, JIT_ALIAS_MEMSIZE);
    /* ea + bytes > size, tested as ea > size - bytes: every term is below 2^34, so signed
     * arithmetic is exact (the limit is negative when size < bytes). The limit does not depend
     * on the address, so where LLVM hoists the size out of a loop the limit goes with it and
     * the access keeps only a compare (docs/wasm.md, "Memory safety"). */
    LLVMValueRef limit = L(BuildNSWAdd)(f->b, size, sbx__jit_i64(jm, (uint64_t)0 - bytes), "");
    sbx__jit_trap_if(f, L(BuildICmp)(f->b, LLVMIntSGT, ea, limit, ""), WASM_TRAP_MEMORY_OOB);
    return L(BuildGEP2)(f->b, jm->t_i8, sbx__jit_sym(jm, JIT_SYM_MEM_DATA, mem), &ea, 1, "");
}

static LLVMTypeRef access_type(struct jit_mod *jm, uint8_t valtype, uint32_t bytes)
{
    if (valtype == WASM_F32 || valtype == WASM_F64)
        return sbx__jit_type(jm, valtype);
    switch (bytes) {
    case 1:
        return jm->t_i8;
    case 2:
        return jm->t_i16;
    case 4:
        return jm->t_i32;
    default:
        return jm->t_i64;
    }
}

static bool op_load(struct jit_func *f, const struct wasm_instr *in)
{
    struct jit_mod *jm = f->jm;
    const struct wasm_opinfo *info = &sbx__wasm_opinfo[in->op];
    uint8_t vt = sbx__wasm_siginfo[info->sig].result;
    uint32_t bytes = 1u << info->arg;
    LLVMValueRef p = sbx__jit_checked_addr(f, sbx__jit_pop(f), in->idx, in->offset, bytes);
    LLVMTypeRef at = access_type(jm, vt, bytes);
    LLVMValueRef v = L(BuildLoad2)(f->b, at, p, "");
    L(SetAlignment)(v, 1);
    sbx__jit_guest_access(jm, v);
    LLVMTypeRef rt = sbx__jit_type(jm, vt);
    if (at != rt)
        v = is_signed_load(in->op) ? L(BuildSExt)(f->b, v, rt, "") : L(BuildZExt)(f->b, v, rt, "");
    sbx__jit_push(f, v);
    return true;
}

static bool op_store(struct jit_func *f, const struct wasm_instr *in)
{
    struct jit_mod *jm = f->jm;
    const struct wasm_opinfo *info = &sbx__wasm_opinfo[in->op];
    uint8_t vt = sbx__wasm_siginfo[info->sig].params[1];
    uint32_t bytes = 1u << info->arg;
    LLVMValueRef v = sbx__jit_pop(f);
    LLVMValueRef p = sbx__jit_checked_addr(f, sbx__jit_pop(f), in->idx, in->offset, bytes);
    LLVMTypeRef at = access_type(jm, vt, bytes);
    if (at != sbx__jit_type(jm, vt))
        v = L(BuildTrunc)(f->b, v, at, "");
    LLVMValueRef st = L(BuildStore)(f->b, v, p);
    L(SetAlignment)(st, 1);
    sbx__jit_guest_access(jm, st);
    return true;
}

/* A C helper over three i32 operands popped from the stack; traps on a non-zero kind. */
static void bulk3(struct jit_func *f, enum jit_rt fn, LLVMValueRef first, LLVMTypeRef first_type)
{
    struct jit_mod *jm = f->jm;
    LLVMValueRef n = sbx__jit_pop(f), s = sbx__jit_pop(f), d = sbx__jit_pop(f);
    LLVMTypeRef p[] = {first_type, jm->t_i32, jm->t_i32, jm->t_i32};
    LLVMValueRef a[] = {first, d, s, n};
    sbx__jit_trap_if_kind(f, sbx__jit_call_c(f, fn, jm->t_i32, p, a, 4));
}

static bool op_memory_init(struct jit_func *f, const struct wasm_instr *in)
{
    struct jit_mod *jm = f->jm;
    LLVMValueRef n = sbx__jit_pop(f), s = sbx__jit_pop(f), d = sbx__jit_pop(f);
    LLVMTypeRef p[] = {jm->t_ptr, jm->t_i32, jm->t_i32, jm->t_i32, jm->t_i32};
    LLVMValueRef a[] = {sbx__jit_sym(jm, JIT_SYM_INSTANCE, 0), sbx__jit_i32(jm, in->idx), d, s, n};
    sbx__jit_trap_if_kind(f, sbx__jit_call_c(f, JIT_RT_MEMORY_INIT, jm->t_i32, p, a, 5));
    return true;
}

static bool op_memory_misc(struct jit_func *f, const struct wasm_instr *in)
{
    struct jit_mod *jm = f->jm;
    LLVMValueRef memp = sbx__jit_sym(jm, JIT_SYM_MEM, 0);
    switch (in->op) {
    case WASM_OP_MEMORY_SIZE: {
        LLVMValueRef pages =
            sbx__jit_load_at(f, jm->t_i32, JIT_SYM_MEM, 0, offsetof(struct wasm_memory, pages));
        sbx__jit_alias(jm, pages, JIT_ALIAS_MEMSIZE);
        sbx__jit_push(f, pages);
        return true;
    }
    case WASM_OP_MEMORY_GROW: {
        LLVMTypeRef p[] = {jm->t_ptr, jm->t_i32};
        LLVMValueRef a[] = {memp, sbx__jit_pop(f)};
        sbx__jit_push(f, sbx__jit_call_c(f, JIT_RT_MEMORY_GROW, jm->t_i32, p, a, 2));
        return true;
    }
    case WASM_OP_MEMORY_FILL:
        bulk3(f, JIT_RT_MEMORY_FILL, memp, jm->t_ptr);
        return true;
    case WASM_OP_MEMORY_COPY:
        bulk3(f, JIT_RT_MEMORY_COPY, memp, jm->t_ptr);
        return true;
    case WASM_OP_MEMORY_INIT:
        return op_memory_init(f, in);
    default: { /* WASM_OP_DATA_DROP */
        LLVMTypeRef p[] = {jm->t_ptr, jm->t_i32};
        LLVMValueRef a[] = {sbx__jit_sym(jm, JIT_SYM_INSTANCE, 0), sbx__jit_i32(jm, in->idx)};
        sbx__jit_call_c(f, JIT_RT_DATA_DROP, jm->t_void, p, a, 2);
        return true;
    }
    }
}

/* A value of memory mem's address type (i32 or i64) as a u64. */
static LLVMValueRef addr64(struct jit_func *f, LLVMValueRef v, uint32_t mem)
{
    return f->m->mems[mem].is64 ? v : L(BuildZExt)(f->b, v, f->jm->t_i64, "");
}

static LLVMValueRef rt64(struct jit_func *f, enum jit_rt fn, LLVMTypeRef *p, LLVMValueRef *a,
                         unsigned n)
{
    return sbx__jit_call_c(f, fn, f->jm->t_i32, p, a, n);
}

/* size, grow, fill, copy, init on a memory other than a 32-bit memory 0 (multiple memories,
 * memory64): through the u64 helpers. */
static bool op_memory_general(struct jit_func *f, const struct wasm_instr *in)
{
    struct jit_mod *jm = f->jm;
    LLVMValueRef inst = sbx__jit_sym(jm, JIT_SYM_INSTANCE, 0);
    LLVMTypeRef t64 = jm->t_i64, t32 = jm->t_i32, tp = jm->t_ptr;
    uint32_t k = in->idx;
    bool w = f->m->mems[in->op == WASM_OP_MEMORY_INIT ? in->idx2 : k].is64;
    switch (in->op) {
    case WASM_OP_MEMORY_SIZE: {
        LLVMValueRef pages =
            sbx__jit_load_at(f, t32, JIT_SYM_MEM, k, offsetof(struct wasm_memory, pages));
        sbx__jit_alias(jm, pages, JIT_ALIAS_MEMSIZE);
        sbx__jit_push(f, w ? L(BuildZExt)(f->b, pages, t64, "") : pages);
        return true;
    }
    case WASM_OP_MEMORY_GROW: {
        LLVMTypeRef p[] = {tp, t64};
        LLVMValueRef a[] = {sbx__jit_sym(jm, JIT_SYM_MEM, k), addr64(f, sbx__jit_pop(f), k)};
        LLVMValueRef r = sbx__jit_call_c(f, JIT_RT_MEMORY_GROW64, t64, p, a, 2);
        sbx__jit_push(f, w ? r : L(BuildTrunc)(f->b, r, t32, ""));
        return true;
    }
    case WASM_OP_MEMORY_FILL: {
        LLVMValueRef n = addr64(f, sbx__jit_pop(f), k), v = sbx__jit_pop(f);
        LLVMValueRef d = addr64(f, sbx__jit_pop(f), k);
        LLVMTypeRef p[] = {tp, t32, t64, t32, t64};
        LLVMValueRef a[] = {inst, sbx__jit_i32(jm, k), d, v, n};
        sbx__jit_trap_if_kind(f, rt64(f, JIT_RT_MEMORY_FILL64, p, a, 5));
        return true;
    }
    case WASM_OP_MEMORY_COPY: { /* n is an i64 only between two 64-bit memories */
        bool dw = f->m->mems[k].is64, sw = f->m->mems[in->idx2].is64;
        LLVMValueRef n = sbx__jit_pop(f), s = addr64(f, sbx__jit_pop(f), in->idx2);
        LLVMValueRef d = addr64(f, sbx__jit_pop(f), k);
        n = dw && sw ? n : L(BuildZExt)(f->b, n, t64, "");
        LLVMTypeRef p[] = {tp, t32, t32, t64, t64, t64};
        LLVMValueRef a[] = {inst, sbx__jit_i32(jm, k), sbx__jit_i32(jm, in->idx2), d, s, n};
        sbx__jit_trap_if_kind(f, rt64(f, JIT_RT_MEMORY_COPY64, p, a, 6));
        return true;
    }
    default: { /* MEMORY_INIT: idx is the segment, idx2 the memory */
        LLVMValueRef n = sbx__jit_pop(f), s = sbx__jit_pop(f);
        LLVMValueRef d = addr64(f, sbx__jit_pop(f), in->idx2);
        LLVMTypeRef p[] = {tp, t32, t32, t64, t32, t32};
        LLVMValueRef a[] = {inst, sbx__jit_i32(jm, in->idx2), sbx__jit_i32(jm, k), d, s, n};
        sbx__jit_trap_if_kind(f, rt64(f, JIT_RT_MEMORY_INIT64, p, a, 6));
        return true;
    }
    }
}

/* Whether in is a bulk instruction on a memory the 32-bit memory 0 helpers do not take. */
static bool is_general(const struct jit_func *f, const struct wasm_instr *in)
{
    const struct wasm_module *m = f->m;
    switch (in->op) {
    case WASM_OP_MEMORY_SIZE:
    case WASM_OP_MEMORY_GROW:
    case WASM_OP_MEMORY_FILL:
        return in->idx != 0 || m->mems[0].is64;
    case WASM_OP_MEMORY_COPY:
        return in->idx != 0 || in->idx2 != 0 || m->mems[0].is64;
    case WASM_OP_MEMORY_INIT:
        return in->idx2 != 0 || m->mems[0].is64;
    default:
        return false;
    }
}

bool sbx__jit_emit_memory(struct jit_func *f, const struct wasm_instr *in, bool *ok)
{
    if (is_general(f, in)) {
        *ok = op_memory_general(f, in);
        return true;
    }
    if (in->op >= WASM_OP_I32_LOAD && in->op <= WASM_OP_I64_LOAD32_U) {
        *ok = op_load(f, in);
        return true;
    }
    if (in->op >= WASM_OP_I32_STORE && in->op <= WASM_OP_I64_STORE32) {
        *ok = op_store(f, in);
        return true;
    }
    switch (in->op) {
    case WASM_OP_MEMORY_SIZE:
    case WASM_OP_MEMORY_GROW:
    case WASM_OP_MEMORY_FILL:
    case WASM_OP_MEMORY_COPY:
    case WASM_OP_MEMORY_INIT:
    case WASM_OP_DATA_DROP:
        *ok = op_memory_misc(f, in);
        return true;
    default:
        return false;
    }
}
