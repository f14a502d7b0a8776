/* wasm/base/base.c: the baseline tier's translator and code memory (base.h says what it is).
 * Registers while baseline code runs: rbx the frame (slot i at [rbx + 8i]), r12 memory 0's
 * base, r13 its size, r14 the store (interrupt flag, back-edge budget), r15 the globals;
 * rax, rcx and rdx are scratch. The interpreter's slot conventions hold: an i32 is stored
 * zero-extended to 64 bits. */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/alloc.h"
#include "wasm/base/base.h"
#include "wasm/base/x64.h"
#include "wasm/jit/jit.h"

/* Entries (calls, and loop headers reached from the interpreter's back-edge path) before a
 * function is translated. */
#define BASE_HOT_ENTRIES 2u
#define BASE_NEVER       UINT32_MAX
#define CHUNK_BYTES      (256u << 10)

struct sbx__base_fn {
    const uint8_t *code;     /* the prologue: sbx__base_run's target */
    const uint8_t *entry;    /* word 0 */
    wasm_word *resume;       /* delegated instructions, each then [base_resume][address] */
    uint32_t *loop_pos;      /* back-edge targets, ascending */
    const uint8_t **loop_at; /* and their code */
    uint32_t nloops;
};

struct base_chunk {
    struct base_chunk *next;
    uint8_t *mem;
    size_t size, used;
};

struct base_arena {
    struct base_chunk *chunks;
    uint32_t count; /* functions translated */
};

/* ---- which interpreter op a handler word is ---- */

struct op_key {
    int32_t off;
    uint16_t iop;
};

static struct op_key op_keys[IOP_COUNT_];
static uint32_t op_nkeys;
static pthread_once_t op_once = PTHREAD_ONCE_INIT;

static int key_cmp(const void *a, const void *b)
{
    const struct op_key *x = a, *y = b;
    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    return x->iop < y->iop ? -1 : x->iop > y->iop;
}

static void op_init(void)
{
    const int32_t *offs = sbx__wasm_interp_ops();
    for (uint32_t i = 0; i < IOP_COUNT_; i++)
        op_keys[i] = (struct op_key){.off = offs[i], .iop = (uint16_t)i};
    qsort(op_keys, IOP_COUNT_, sizeof(op_keys[0]), key_cmp);
    /* Labels shared by several ops (unused SIMD codes): the lowest op keeps the label. */
    uint32_t n = 0;
    for (uint32_t i = 0; i < IOP_COUNT_; i++) {
        if (n == 0 || op_keys[n - 1].off != op_keys[i].off)
            op_keys[n++] = op_keys[i];
    }
    op_nkeys = n;
}

/* The op of the handler word h, or IOP_COUNT_ if none. */
static uint32_t op_of(wasm_word h)
{
    int32_t off = (int32_t)((intptr_t)h - (intptr_t)sbx__wasm_interp_base());
    uint32_t lo = 0, hi = op_nkeys;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (op_keys[mid].off == off)
            return op_keys[mid].iop;
        if (op_keys[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return IOP_COUNT_;
}

/* ---- translation ---- */

struct fix {
    size_t at;    /* a rel32 field, or a br_table entry when table != SIZE_MAX */
    size_t table; /* the table's start (entries are relative to it) */
    uint32_t pos; /* the target word */
};

struct tr {
    const struct wasm_code *code;
    struct wasm_instance *inst;
    const wasm_word *w;
    struct x64_buf b;
    uint32_t *at; /* native offset of each op start, UINT32_MAX elsewhere */
    struct fix *fix;
    uint32_t nfix, fixcap;
    wasm_word *rw; /* the resume words */
    uint32_t nrw, rwcap;
    uint32_t *rw_addr; /* resume words holding a code offset, to become addresses */
    uint32_t naddr, addrcap;
    struct fix *rw_ref; /* imm64 fields (at) to hold the address of resume word pos */
    uint32_t nref, refcap;
    uint32_t *loops; /* back-edge targets as found */
    uint32_t nloops, loopcap;
    size_t epi;
    bool has_failed;
};

static bool grow(struct tr *t, void **arr, uint32_t *cap, uint32_t n, size_t size)
{
    if (n < *cap)
        return true;
    uint32_t c = *cap ? *cap * 2 : 64;
    void *p = sbx__reallocn(*arr, c, size);
    if (!p) {
        t->has_failed = true;
        return false;
    }
    *arr = p;
    *cap = c;
    return true;
}

static int32_t disp(uint32_t slot)
{
    return (int32_t)(slot * 8u);
}

/* r = slot (64 bits, or 32 zero-extended) / slot = r (64 bits) / r op= slot */
static void ld(struct tr *t, bool w, unsigned r, uint32_t slot)
{
    x64_mem(&t->b, w, 0x8B, r, RBX, X64_NO_INDEX, 0, disp(slot), false);
}

static void st(struct tr *t, unsigned r, uint32_t slot)
{
    x64_mem(&t->b, true, 0x89, r, RBX, X64_NO_INDEX, 0, disp(slot), false);
}

static void op_slot(struct tr *t, bool w, unsigned op, unsigned r, uint32_t slot)
{
    x64_mem(&t->b, w, op, r, RBX, X64_NO_INDEX, 0, disp(slot), false);
}

static void emit_exit(struct tr *t, uint32_t value)
{
    x64_mov_ri32(&t->b, RAX, value);
    x64_link(&t->b, x64_jmp(&t->b), t->epi);
}

static uint32_t exit_code(uint32_t at, enum sbx__base_exit kind)
{
    return at << 2 | (uint32_t)kind;
}

static void branch(struct tr *t, int cc, uint32_t pos)
{
    size_t at = cc < 0 ? x64_jmp(&t->b) : x64_jcc(&t->b, (unsigned)cc);
    if (grow(t, (void **)&t->fix, &t->fixcap, t->nfix, sizeof(*t->fix)))
        t->fix[t->nfix++] = (struct fix){.at = at, .table = SIZE_MAX, .pos = pos};
}

/* A loop back-edge to pos: poll the interrupt flag and the budget, then jump. */
static void back_edge(struct tr *t, uint32_t pos)
{
    x64_mem(&t->b, false, 0x80, 7, R14, X64_NO_INDEX, 0,
            (int32_t)offsetof(struct wasm_store, is_interrupted), false);
    x64_u8(&t->b, 0);
    size_t j1 = x64_jcc(&t->b, CC_NE);
    x64_mem(&t->b, false, 0x83, 5, R14, X64_NO_INDEX, 0,
            (int32_t)offsetof(struct wasm_store, base_budget), false);
    x64_u8(&t->b, 1);
    size_t j2 = x64_jcc(&t->b, CC_LE);
    branch(t, -1, pos);
    x64_link(&t->b, j1, t->b.len);
    x64_link(&t->b, j2, t->b.len);
    emit_exit(t, exit_code(pos, SBX__BASE_BACK));
    if (grow(t, (void **)&t->loops, &t->loopcap, t->nloops, sizeof(*t->loops)))
        t->loops[t->nloops++] = pos;
}

/* Branches to pos when cc holds (-1: always), polling first when it is a back-edge. */
static void cond_branch(struct tr *t, int cc, uint32_t pos, bool is_back)
{
    if (!is_back) {
        branch(t, cc, pos);
        return;
    }
    size_t skip = cc < 0 ? SIZE_MAX : x64_jcc(&t->b, (unsigned)cc ^ 1u);
    back_edge(t, pos);
    if (skip != SIZE_MAX)
        x64_link(&t->b, skip, t->b.len);
}

static uint32_t target(const struct tr *t, uint32_t pos, uint32_t k)
{
    return (uint32_t)((int64_t)pos + k + (int32_t)(uint32_t)t->w[pos + k]);
}

static const uint8_t cmp_cc[10] = {CC_E, CC_NE, CC_L, CC_B, CC_G, CC_A, CC_LE, CC_BE, CC_GE, CC_AE};

/* eax/rax = a OP b for IBIN index k (not div/rem); b a slot or, with is_imm, the immediate. */
static void ibin(struct tr *t, bool w, uint32_t k, uint32_t a, uint32_t b, bool is_imm)
{
    static const uint8_t alu_op[] = {[0] = 0x03, [1] = 0x2B, [7] = 0x23, [8] = 0x0B, [9] = 0x33};
    static const uint8_t alu_ext[] = {[0] = 0, [1] = 5, [7] = 4, [8] = 1, [9] = 6};
    static const uint8_t shift_ext[] = {[10] = 4, [11] = 7, [12] = 5, [13] = 0, [14] = 1};
    ld(t, w, RAX, a);
    if (k <= 1 || (k >= 7 && k <= 9)) {
        if (is_imm)
            x64_alu_ri(&t->b, w, alu_ext[k], RAX, (int32_t)b);
        else
            op_slot(t, w, alu_op[k], RAX, b);
    } else if (k == 2) {
        if (is_imm) {
            x64_rr(&t->b, w, 0x69, RAX, RAX);
            x64_u32(&t->b, b);
        } else {
            op_slot(t, w, 0x0FAF, RAX, b);
        }
    } else if (k <= 14) {
        if (is_imm)
            x64_mov_ri32(&t->b, RCX, b);
        else
            ld(t, false, RCX, b);
        x64_rr(&t->b, w, 0xD3, shift_ext[k], RAX);
    } else {
        if (is_imm)
            x64_alu_ri(&t->b, w, 7, RAX, (int32_t)b);
        else
            op_slot(t, w, 0x3B, RAX, b);
        x64_rr(&t->b, false, 0x0F90u | cmp_cc[k - 15], 0, RAX);
        x64_rr(&t->b, false, 0x0FB6, RAX, RAX);
    }
}

/* rax = (u32)(a [+ b | + k]) + offset, then the bounds check of size bytes: out of bounds
 * returns to the interpreter before the instruction at pos, which traps. mode 0: a alone,
 * 1: a + slot b, 2: a + immediate b. */
static void address(struct tr *t, uint32_t pos, int mode, uint32_t a, uint32_t b, uint32_t offset,
                    int32_t size)
{
    ld(t, false, RAX, a);
    if (mode == 1)
        op_slot(t, false, 0x03, RAX, b);
    else if (mode == 2)
        x64_alu_ri(&t->b, false, 0, RAX, (int32_t)b);
    if (offset != 0 && offset <= INT32_MAX) {
        x64_alu_ri(&t->b, true, 0, RAX, (int32_t)offset);
    } else if (offset != 0) {
        x64_mov_ri32(&t->b, RCX, offset);
        x64_rr(&t->b, true, 0x03, RAX, RCX);
    }
    x64_mem(&t->b, true, 0x8D, RCX, RAX, X64_NO_INDEX, 0, size, false);
    x64_rr(&t->b, true, 0x3B, RCX, R13);
    size_t ok = x64_jcc(&t->b, CC_BE);
    emit_exit(t, exit_code(pos, SBX__BASE_CONT));
    x64_link(&t->b, ok, t->b.len);
}

/* WASM_LOADS order: the opcode, REX.W and access size of each. */
static const struct {
    uint16_t op;
    bool w;
    uint8_t size;
} load_kind[12] = {
    {0x8B, false, 4},   {0x8B, true, 8},    {0x0FBE, false, 1}, {0x0FB6, false, 1},
    {0x0FBF, false, 2}, {0x0FB7, false, 2}, {0x0FBE, true, 1},  {0x0FB6, false, 1},
    {0x0FBF, true, 2},  {0x0FB7, false, 2}, {0x63, true, 4},    {0x8B, false, 4},
};
static const uint8_t store_size[5] = {4, 8, 1, 2, 4};

/* [r12 + rax] = rdx's low size bytes */
static void store_rdx(struct tr *t, uint8_t size)
{
    if (size == 1)
        x64_mem(&t->b, false, 0x88, RDX, R12, RAX, 0, 0, false);
    else
        x64_mem(&t->b, size == 8, 0x89, RDX, R12, RAX, 0, 0, size == 2);
}

/* Appends the words of the instruction at pos (len words) and a base_resume back to here. */
static uint32_t delegate(struct tr *t, uint32_t pos, uint32_t len)
{
    uint32_t start = t->nrw;
    for (uint32_t i = 0; i < len + 2; i++) {
        if (!grow(t, (void **)&t->rw, &t->rwcap, t->nrw, sizeof(*t->rw)))
            return 0;
        t->nrw++;
    }
    memcpy(t->rw + start, t->w + pos, len * sizeof(wasm_word));
    t->rw[start + len] =
        (wasm_word)(uintptr_t)(sbx__wasm_interp_base() + sbx__wasm_interp_ops()[IOP_base_resume]);
    emit_exit(t, exit_code(start, SBX__BASE_DELEG));
    t->rw[start + len + 1] = t->b.len; /* an offset until the code is placed */
    if (grow(t, (void **)&t->rw_addr, &t->addrcap, t->naddr, sizeof(*t->rw_addr)))
        t->rw_addr[t->naddr++] = start + len + 1;
    return start;
}

#define REG(field)   ((int32_t)offsetof(struct wasm_store, base_regs.field))
#define FRAME(field) ((int32_t)offsetof(struct wasm_frame, field))

static wasm_word resume_handler(void)
{
    return (wasm_word)(uintptr_t)(sbx__wasm_interp_base() +
                                  sbx__wasm_interp_ops()[IOP_base_resume]);
}

/* mov r, [base + disp] / mov [base + disp], r (64 bits) */
static void ldm(struct tr *t, unsigned r, unsigned base, int32_t d)
{
    x64_mem(&t->b, true, 0x8B, r, base, X64_NO_INDEX, 0, d, false);
}

static void stm(struct tr *t, unsigned r, unsigned base, int32_t d)
{
    x64_mem(&t->b, true, 0x89, r, base, X64_NO_INDEX, 0, d, false);
}

/* A call made here, as the interpreter's do_call_wasm would, when the callee (its wasm_func in
 * rax, of this instance) has baseline code and no native code, nothing is counted for tier-up
 * (it is queued already, or the store is not yet counting) and no limit says otherwise: its
 * frame record is pushed (returning to the resume word of the delegated copy), its locals
 * zeroed, its code entered. Every check that fails (the earlier ones in slow) hands the call to
 * the interpreter. callee: its code when known here, else NULL (read at run time, into rsi). */
/* The checks of a call that may hand it to the interpreter: at most 5 before enter(), 5 in it. */
#define SLOW_MAX 10

static void enter(struct tr *t, uint32_t pos, uint32_t len, uint32_t arg,
                  const struct wasm_code *callee, size_t *slow, unsigned ns)
{
    struct x64_buf *b = &t->b;
    x64_mem(b, true, 0x83, 7, RAX, X64_NO_INDEX, 0, (int32_t)offsetof(struct wasm_func, jit_entry),
            false);
    x64_u8(b, 0);
    slow[ns++] = x64_jcc(b, CC_NE);
    /* only a LAZY store counts calls: there, a callee not yet queued is counted by the
     * interpreter (WASM_TIERUP_BASE and the rest count nothing) */
    x64_mem(b, false, 0x80, 7, R14, X64_NO_INDEX, 0,
            (int32_t)offsetof(struct wasm_store, tierup.state), false);
    x64_u8(b, WASM_TIERUP_LAZY);
    size_t uncounted = x64_jcc(b, CC_NE);
    x64_mem(b, false, 0x83, 7, RAX, X64_NO_INDEX, 0, (int32_t)offsetof(struct wasm_func, hits),
            false);
    _Static_assert(SBX__WASM_LAZY_QUEUED == UINT32_MAX, "compared as -1");
    x64_u8(b, 0xFF); /* cmp dword, -1: queued */
    slow[ns++] = x64_jcc(b, CC_NE);
    x64_link(b, uncounted, b->len);
    ldm(t, RDX, RAX, (int32_t)offsetof(struct wasm_func, base));
    x64_rr(b, true, 0x85, RDX, RDX);
    slow[ns++] = x64_jcc(b, CC_E);
    ldm(t, RDX, RDX, (int32_t)offsetof(struct sbx__base_fn, entry));
    if (!callee) { /* rsi = &compiled[f->def_index] */
        x64_mem(b, false, 0x8B, RSI, RAX, X64_NO_INDEX, 0,
                (int32_t)offsetof(struct wasm_func, def_index), false);
        x64_rr(b, true, 0x69, RSI, RSI);
        x64_u32(b, (uint32_t)sizeof(struct wasm_code));
        x64_mov_ri64(b, RAX, (uint64_t)(uintptr_t)t->inst->module->compiled);
        x64_rr(b, true, 0x03, RSI, RAX);
    }
    ldm(t, RCX, R14, REG(frp));
    x64_mem(b, true, 0x3B, RCX, R14, X64_NO_INDEX, 0, REG(frames_end), false);
    slow[ns++] = x64_jcc(b, CC_AE);
    if (callee) {
        x64_mem(b, true, 0x8D, RAX, RBX, X64_NO_INDEX, 0, disp(arg + callee->frame_slots), false);
    } else {
        x64_mem(b, false, 0x8B, RAX, RSI, X64_NO_INDEX, 0,
                (int32_t)offsetof(struct wasm_code, frame_slots), false);
        x64_mem(b, true, 0x8D, RAX, RBX, RAX, 3, disp(arg), false);
    }
    x64_mem(b, true, 0x3B, RAX, R14, X64_NO_INDEX, 0, REG(stack_end), false);
    slow[ns++] = x64_jcc(b, CC_A);
    /* the frame record: the return word is the resume word after the delegated copy */
    x64_u8(b, 0x48);
    x64_u8(b, 0xB8); /* mov rax, imm64 */
    size_t ref = b->len;
    x64_u64(b, 0);
    stm(t, RAX, RCX, FRAME(ip));
    stm(t, RBX, RCX, FRAME(fp));
    x64_mov_ri64(b, RAX, (uint64_t)(uintptr_t)t->code);
    stm(t, RAX, RCX, FRAME(code));
    x64_mov_ri64(b, RAX, (uint64_t)(uintptr_t)t->inst);
    stm(t, RAX, RCX, FRAME(inst));
    x64_alu_ri(b, true, 0, RCX, (int32_t)sizeof(struct wasm_frame));
    stm(t, RCX, R14, REG(frp));
    if (callee && callee->local_slots) {
        x64_rr(b, false, 0x33, RAX, RAX);
        for (uint32_t i = 0; i < callee->local_slots; i++)
            st(t, RAX, arg + callee->param_slots + i);
    } else if (!callee) { /* rep stosq over the locals after the params */
        x64_mem(b, false, 0x8B, RCX, RSI, X64_NO_INDEX, 0,
                (int32_t)offsetof(struct wasm_code, local_slots), false);
        x64_mem(b, false, 0x8B, RAX, RSI, X64_NO_INDEX, 0,
                (int32_t)offsetof(struct wasm_code, param_slots), false);
        x64_mem(b, true, 0x8D, RDI, RBX, RAX, 3, disp(arg), false);
        x64_rr(b, false, 0x33, RAX, RAX);
        x64_u8(b, 0xF3);
        x64_u8(b, 0x48);
        x64_u8(b, 0xAB);
    }
    x64_mem(b, true, 0x8D, RBX, RBX, X64_NO_INDEX, 0, disp(arg), false);
    x64_rr(b, false, 0xFF, 4, RDX); /* jmp rdx */
    for (unsigned i = 0; i < ns; i++)
        x64_link(b, slow[i], b->len);
    uint32_t start = delegate(t, pos, len);
    if (grow(t, (void **)&t->rw_ref, &t->refcap, t->nref, sizeof(*t->rw_ref)))
        t->rw_ref[t->nref++] = (struct fix){.at = ref, .pos = start + len};
}

static size_t poll_interrupt(struct tr *t)
{
    x64_mem(&t->b, false, 0x80, 7, R14, X64_NO_INDEX, 0,
            (int32_t)offsetof(struct wasm_store, is_interrupted), false);
    x64_u8(&t->b, 0);
    return x64_jcc(&t->b, CC_NE);
}

/* call: [h][defined func index][arg slot] */
static void call(struct tr *t, uint32_t pos, uint32_t len)
{
    const struct wasm_code *callee = &t->inst->module->compiled[t->w[pos + 1]];
    size_t slow[SLOW_MAX];
    slow[0] = poll_interrupt(t);
    x64_mov_ri64(&t->b, RAX, (uint64_t)(uintptr_t)t->inst->funcs[callee->func_index]);
    enter(t, pos, len, (uint32_t)t->w[pos + 2], callee, slow, 1);
}

/* call_indirect: [h][type index][table][elem index slot][arg slot]; an element of another
 * instance, a host function, or a type matched only as a subtype goes to the interpreter. */
static void call_indirect(struct tr *t, uint32_t pos, uint32_t len)
{
    struct x64_buf *b = &t->b;
    size_t slow[SLOW_MAX];
    unsigned ns = 0;
    slow[ns++] = poll_interrupt(t);
    x64_mov_ri64(b, RAX, (uint64_t)(uintptr_t)t->inst->tables[t->w[pos + 2]]);
    ld(t, false, RCX, (uint32_t)t->w[pos + 3]);
    x64_mem(b, false, 0x3B, RCX, RAX, X64_NO_INDEX, 0, (int32_t)offsetof(struct wasm_table, size),
            false);
    slow[ns++] = x64_jcc(b, CC_AE);
    ldm(t, RAX, RAX, (int32_t)offsetof(struct wasm_table, elems));
    x64_mem(b, true, 0x8B, RAX, RAX, RCX, 3, 0, false);
    x64_rr(b, true, 0x85, RAX, RAX);
    slow[ns++] = x64_jcc(b, CC_E);
    x64_mov_ri64(b, RCX, (uint64_t)(uintptr_t)t->inst->module->rtts[t->w[pos + 1]]);
    x64_mem(b, true, 0x3B, RCX, RAX, X64_NO_INDEX, 0, (int32_t)offsetof(struct wasm_func, rtt),
            false);
    slow[ns++] = x64_jcc(b, CC_NE);
    x64_mov_ri64(b, RCX, (uint64_t)(uintptr_t)t->inst);
    x64_mem(b, true, 0x3B, RCX, RAX, X64_NO_INDEX, 0, (int32_t)offsetof(struct wasm_func, inst),
            false);
    slow[ns++] = x64_jcc(b, CC_NE);
    enter(t, pos, len, (uint32_t)t->w[pos + 4], NULL, slow, ns);
}

/* A return ([h], [h][src], [h][first][n]) made here when the caller is baseline code of this
 * instance (its return word a resume word): results to fp[0...], the record popped, and a jump
 * to the caller's resume address. Else the interpreter returns. */
static void ret(struct tr *t, uint32_t pos, uint32_t op)
{
    struct x64_buf *b = &t->b;
    size_t cont[3];
    ldm(t, RCX, R14, REG(frp));
    ldm(t, RDX, RCX, FRAME(ip) - (int32_t)sizeof(struct wasm_frame));
    x64_rr(b, true, 0x85, RDX, RDX);
    cont[0] = x64_jcc(b, CC_E);
    x64_mov_ri64(b, RAX, resume_handler());
    x64_mem(b, true, 0x3B, RAX, RDX, X64_NO_INDEX, 0, 0, false);
    cont[1] = x64_jcc(b, CC_NE);
    x64_mov_ri64(b, RAX, (uint64_t)(uintptr_t)t->inst);
    x64_mem(b, true, 0x3B, RAX, RCX, X64_NO_INDEX, 0,
            FRAME(inst) - (int32_t)sizeof(struct wasm_frame), false);
    cont[2] = x64_jcc(b, CC_NE);
    if (op == IOP_ret1) {
        ld(t, true, RAX, (uint32_t)t->w[pos + 1]);
        st(t, RAX, 0);
    } else if (op == IOP_retn) {
        for (uint32_t i = 0, src = (uint32_t)t->w[pos + 1]; i < (uint32_t)t->w[pos + 2]; i++) {
            ld(t, true, RAX, src + i);
            st(t, RAX, i);
        }
    }
    x64_alu_ri(b, true, 5, RCX, (int32_t)sizeof(struct wasm_frame));
    stm(t, RCX, R14, REG(frp));
    ldm(t, RBX, RCX, FRAME(fp));
    x64_mem(b, false, 0xFF, 4, RDX, X64_NO_INDEX, 0, 8, false); /* jmp [rdx + 8] */
    for (unsigned i = 0; i < 3; i++)
        x64_link(b, cont[i], b->len);
    emit_exit(t, exit_code(pos, SBX__BASE_CONT));
}

enum op_class { OP_NATIVE, OP_DELEGATE, OP_CONTINUE, OP_REFUSE };

static bool in(uint32_t op, uint32_t first, uint32_t n)
{
    return op >= first && op < first + n;
}

/* Ops with branch targets or state of the interpreter's own that this tier does not handle,
 * and GC (its heap walks frames). */
static bool is_refused(uint32_t op)
{
#define GC_OP(name) op == IOP_##name ||
    if (WASM_GC_IOPS(GC_OP) false)
        return true;
#undef GC_OP
    return op == IOP_br_null || op == IOP_br_nonnull || op == IOP_mem_sel || op == IOP_mem_sel0 ||
           op == IOP_base_resume || op >= IOP_COUNT_;
}

static bool is_final(uint32_t op)
{
    return op == IOP_unreachable || op == IOP_return_call || op == IOP_return_call_func ||
           op == IOP_return_call_indirect || op == IOP_return_call_ref || op == IOP_throw ||
           op == IOP_throw_ref;
}

/* Translates the instruction at pos of len words; false when it is one this tier refuses. */
static bool translate(struct tr *t, uint32_t pos, uint32_t len, uint32_t op)
{
    const wasm_word *w = t->w + pos;
#define W(k) ((uint32_t)w[k])
    if (is_refused(op))
        return false;
    if (op == IOP_ret0 || op == IOP_ret1 || op == IOP_retn) {
        ret(t, pos, op);
        return true;
    }
    if (op == IOP_call) {
        call(t, pos, len);
        return true;
    }
    if (op == IOP_call_indirect) {
        call_indirect(t, pos, len);
        return true;
    }
    if (is_final(op)) {
        emit_exit(t, exit_code(pos, SBX__BASE_CONT));
        return true;
    }
    if (in(op, IOP_i32_add, 25) || in(op, IOP_i32_add_i, 25) || in(op, IOP_i64_add, 25) ||
        in(op, IOP_i64_add_i, 25)) {
        bool w64 = op >= IOP_i64_add, is_imm = in(op, IOP_i32_add_i, 25) || op >= IOP_i64_add_i;
        uint32_t k = op - (w64 ? (is_imm ? IOP_i64_add_i : IOP_i64_add)
                               : (is_imm ? IOP_i32_add_i : IOP_i32_add));
        if (k >= 3 && k <= 6) {
            delegate(t, pos, len);
            return true;
        }
        ibin(t, w64, k, W(2), W(3), is_imm);
        st(t, RAX, W(1));
        return true;
    }
    if (in(op, IOP_br_eq, 10) || in(op, IOP_br_eq_i, 10) || in(op, IOP_br_eq_back, 10) ||
        in(op, IOP_br_eq_i_back, 10)) {
        bool is_imm = in(op, IOP_br_eq_i, 10) || in(op, IOP_br_eq_i_back, 10);
        bool is_back = in(op, IOP_br_eq_back, 10) || in(op, IOP_br_eq_i_back, 10);
        uint32_t k = (op - IOP_br_eq) % 10;
        ld(t, false, RAX, W(1));
        if (is_imm)
            x64_alu_ri(&t->b, false, 7, RAX, (int32_t)W(2));
        else
            op_slot(t, false, 0x3B, RAX, W(2));
        cond_branch(t, cmp_cc[k], target(t, pos, 3), is_back);
        return true;
    }
    if (in(op, IOP_addbr_eq, 10) || in(op, IOP_addbr_eq_i, 10)) {
        uint32_t k = (op - IOP_addbr_eq) % 10;
        ld(t, false, RAX, W(2));
        if (in(op, IOP_addbr_eq_i, 10))
            x64_alu_ri(&t->b, false, 0, RAX, (int32_t)W(3));
        else
            op_slot(t, false, 0x03, RAX, W(3));
        st(t, RAX, W(1));
        x64_alu_ri(&t->b, false, 7, RAX, (int32_t)W(4));
        cond_branch(t, cmp_cc[k], target(t, pos, 5), true);
        return true;
    }
    if (in(op, IOP_i32_load, 12) || in(op, IOP_i32_load_add, 12) || in(op, IOP_i32_load_addi, 12)) {
        int mode = in(op, IOP_i32_load, 12) ? 0 : in(op, IOP_i32_load_add, 12) ? 1 : 2;
        uint32_t k = (op - IOP_i32_load) % 12;
        address(t, pos, mode, W(2), mode ? W(3) : 0, W(len - 1), load_kind[k].size);
        x64_mem(&t->b, load_kind[k].w, load_kind[k].op, RAX, R12, RAX, 0, 0, false);
        st(t, RAX, W(1));
        return true;
    }
    if (op >= IOP_i32_store && op < IOP_i32_store + 30) {
        uint32_t form = (op - IOP_i32_store) / 5, k = (op - IOP_i32_store) % 5;
        /* forms: plain, _i, _add, _addi, _i_add, _i_addi */
        int mode = form <= 1 ? 0 : (form == 2 || form == 4) ? 1 : 2;
        bool is_imm = form == 1 || form >= 4;
        uint32_t vw = mode ? 3 : 2;
        address(t, pos, mode, W(1), mode ? W(2) : 0, W(len - 1), store_size[k]);
        if (is_imm) {
            x64_rr(&t->b, true, 0xC7, 0, RDX);
            x64_u32(&t->b, W(vw));
        } else {
            ld(t, true, RDX, W(vw));
        }
        store_rdx(t, store_size[k]);
        return true;
    }
    if (in(op, IOP_i32_add_ld, 7) || in(op, IOP_i32_add_st, 7) || in(op, IOP_i32_add_rmw, 7)) {
        static const uint8_t opc[7] = {0x03, 0x2B, 0x23, 0x0B, 0x33, 0x03, 0x2B};
        uint32_t k = in(op, IOP_i32_add_ld, 7)   ? op - IOP_i32_add_ld
                     : in(op, IOP_i32_add_st, 7) ? op - IOP_i32_add_st
                                                 : op - IOP_i32_add_rmw;
        bool w64 = k >= 5;
        uint8_t size = w64 ? 8 : 4;
        if (in(op, IOP_i32_add_ld, 7)) { /* [h][dst][a][addr][offset] */
            address(t, pos, 0, W(3), 0, W(4), size);
            x64_mem(&t->b, w64, 0x8B, RCX, R12, RAX, 0, 0, false);
            ld(t, w64, RDX, W(2));
            x64_rr(&t->b, w64, opc[k], RDX, RCX);
            st(t, RDX, W(1));
        } else if (in(op, IOP_i32_add_st, 7)) { /* [h][addr][a][b][offset] */
            address(t, pos, 0, W(1), 0, W(4), size);
            ld(t, w64, RDX, W(2));
            op_slot(t, w64, opc[k], RDX, W(3));
            store_rdx(t, size);
        } else { /* [h][addr][a][offset] */
            address(t, pos, 0, W(1), 0, W(3), size);
            x64_mem(&t->b, w64, 0x8B, RCX, R12, RAX, 0, 0, false);
            ld(t, w64, RDX, W(2));
            x64_rr(&t->b, w64, opc[k], RDX, RCX);
            store_rdx(t, size);
        }
        return true;
    }
    switch (op) {
    case IOP_br:
        branch(t, -1, target(t, pos, 1));
        return true;
    case IOP_br_if:
    case IOP_br_unless:
        ld(t, false, RAX, W(1));
        x64_rr(&t->b, false, 0x85, RAX, RAX);
        branch(t, op == IOP_br_if ? CC_NE : CC_E, target(t, pos, 2));
        return true;
    case IOP_br_back:
        back_edge(t, target(t, pos, 1));
        return true;
    case IOP_br_if_back:
    case IOP_br_unless_back:
        ld(t, false, RAX, W(1));
        x64_rr(&t->b, false, 0x85, RAX, RAX);
        cond_branch(t, op == IOP_br_if_back ? CC_NE : CC_E, target(t, pos, 2), true);
        return true;
    case IOP_br_table: { /* [h][index][n][targets...][default] */
        uint32_t n = W(2);
        ld(t, false, RAX, W(1));
        x64_mov_ri32(&t->b, RCX, n);
        x64_rr(&t->b, false, 0x3B, RAX, RCX);
        x64_rr(&t->b, false, 0x0F47, RAX, RCX); /* cmova eax, ecx */
        /* lea rcx, [rip + table]; movsxd rax, [rcx + rax*4]; add rax, rcx; jmp rax */
        x64_u8(&t->b, 0x48);
        x64_u8(&t->b, 0x8D);
        x64_u8(&t->b, 0x0D);
        size_t lea = t->b.len;
        x64_u32(&t->b, 0);
        x64_mem(&t->b, true, 0x63, RAX, RCX, RAX, 2, 0, false);
        x64_rr(&t->b, true, 0x03, RAX, RCX);
        x64_rr(&t->b, false, 0xFF, 4, RAX);
        size_t table = t->b.len;
        x64_link(&t->b, lea, table);
        for (uint32_t i = 0; i <= n; i++) {
            size_t at = t->b.len;
            x64_u32(&t->b, 0);
            if (grow(t, (void **)&t->fix, &t->fixcap, t->nfix, sizeof(*t->fix)))
                t->fix[t->nfix++] =
                    (struct fix){.at = at, .table = table, .pos = target(t, pos, 3 + i)};
        }
        return true;
    }
    case IOP_mov:
        ld(t, true, RAX, W(2));
        st(t, RAX, W(1));
        return true;
    case IOP_mov_mov:
        ld(t, true, RAX, W(2));
        st(t, RAX, W(1));
        ld(t, true, RAX, W(4));
        st(t, RAX, W(3));
        return true;
    case IOP_const32:
        x64_mov_ri32(&t->b, RAX, W(2));
        st(t, RAX, W(1));
        return true;
    case IOP_const64:
        x64_mov_ri64(&t->b, RAX, (uint64_t)W(2) | (uint64_t)W(3) << 32);
        st(t, RAX, W(1));
        return true;
    case IOP_select: /* [h][dst][a][b][cond] */
        ld(t, true, RAX, W(2));
        ld(t, false, RDX, W(4));
        x64_rr(&t->b, false, 0x85, RDX, RDX);
        op_slot(t, true, 0x0F44, RAX, W(3)); /* cmovz */
        st(t, RAX, W(1));
        return true;
    case IOP_global_get:
        x64_mem(&t->b, true, 0x8B, RAX, R15, X64_NO_INDEX, 0, disp(W(2)), false);
        x64_mem(&t->b, true, 0x8B, RAX, RAX, X64_NO_INDEX, 0,
                (int32_t)offsetof(struct wasm_global, value), false);
        st(t, RAX, W(1));
        return true;
    case IOP_global_set:
        x64_mem(&t->b, true, 0x8B, RAX, R15, X64_NO_INDEX, 0, disp(W(1)), false);
        ld(t, true, RDX, W(2));
        x64_mem(&t->b, true, 0x89, RDX, RAX, X64_NO_INDEX, 0,
                (int32_t)offsetof(struct wasm_global, value), false);
        return true;
    case IOP_i32_eqz:
    case IOP_i64_eqz:
        ld(t, op == IOP_i64_eqz, RAX, W(2));
        x64_rr(&t->b, op == IOP_i64_eqz, 0x85, RAX, RAX);
        x64_rr(&t->b, false, 0x0F94, 0, RAX);
        x64_rr(&t->b, false, 0x0FB6, RAX, RAX);
        st(t, RAX, W(1));
        return true;
    case IOP_i32_extend8_s:
    case IOP_i32_extend16_s:
    case IOP_i64_extend8_s:
    case IOP_i64_extend16_s: {
        bool is8 = op == IOP_i32_extend8_s || op == IOP_i64_extend8_s;
        op_slot(t, op == IOP_i64_extend8_s || op == IOP_i64_extend16_s, is8 ? 0x0FBE : 0x0FBF, RAX,
                W(2));
        st(t, RAX, W(1));
        return true;
    }
    case IOP_i64_extend32_s:
    case IOP_i64_extend_i32_s:
        op_slot(t, true, 0x63, RAX, W(2));
        st(t, RAX, W(1));
        return true;
    case IOP_i64_extend_i32_u:
        ld(t, false, RAX, W(2));
        st(t, RAX, W(1));
        return true;
    case IOP_i32_add_pair:
    case IOP_i32_add_pair_ri:
    case IOP_i32_add_pair_ir:
    case IOP_i32_add_pair_ii: {
        bool b_imm = op == IOP_i32_add_pair_ir || op == IOP_i32_add_pair_ii;
        bool b2_imm = op == IOP_i32_add_pair_ri || op == IOP_i32_add_pair_ii;
        ibin(t, false, 0, W(2), W(3), b_imm);
        st(t, RAX, W(1));
        ibin(t, false, 0, W(5), W(6), b2_imm);
        st(t, RAX, W(4));
        return true;
    }
    case IOP_i32_xor_rotl_i: /* rotl(x, k) ^ z */
        ld(t, false, RAX, W(2));
        x64_rr(&t->b, false, 0xC1, 0, RAX);
        x64_u8(&t->b, (uint8_t)(W(3) & 31));
        op_slot(t, false, 0x33, RAX, W(4));
        st(t, RAX, W(1));
        return true;
    case IOP_i32_add_add:
    case IOP_i32_add_xor:
    case IOP_i32_add_and:
        ld(t, false, RAX, W(2));
        op_slot(t, false,
                op == IOP_i32_add_add   ? 0x03
                : op == IOP_i32_add_xor ? 0x33
                                        : 0x23,
                RAX, W(3));
        op_slot(t, false, 0x03, RAX, W(4));
        st(t, RAX, W(1));
        return true;
    default:
        delegate(t, pos, len);
        return true;
    }
#undef W
}

static bool is_op_start(const struct wasm_code *c, uint32_t i)
{
    return i < c->word_count && ((unsigned)c->op_bits[i / 8] >> (i % 8) & 1u);
}

static void prologue(struct tr *t)
{
    struct x64_buf *b = &t->b;
    x64_u8(b, 0x53); /* push rbx, r12-r15 */
    for (unsigned r = R12; r <= R15; r++) {
        x64_u8(b, 0x41);
        x64_u8(b, (uint8_t)(0x50 + (r & 7)));
    }
    x64_rr(b, true, 0x89, RDI, RBX);
    x64_rr(b, true, 0x89, RSI, R12);
    x64_rr(b, true, 0x89, RDX, R13);
    x64_rr(b, true, 0x89, R8, R14);
    x64_rr(b, true, 0x89, R9, R15);
    x64_rr(b, false, 0xFF, 4, RCX); /* jmp rcx */
    t->epi = b->len;
    stm(t, RBX, R14, REG(fp));
    x64_mov_ri64(b, RCX, (uint64_t)(uintptr_t)t->code);
    stm(t, RCX, R14, REG(code));
    for (unsigned r = R15; r >= R12; r--) {
        x64_u8(b, 0x41);
        x64_u8(b, (uint8_t)(0x58 + (r & 7)));
    }
    x64_u8(b, 0x5B);
    x64_u8(b, 0xC3);
}

static bool resolve(struct tr *t)
{
    for (uint32_t i = 0; i < t->nfix; i++) {
        const struct fix *f = &t->fix[i];
        if (f->pos >= t->code->word_count || t->at[f->pos] == UINT32_MAX)
            return false;
        if (f->table == SIZE_MAX)
            x64_link(&t->b, f->at, t->at[f->pos]);
        else
            x64_patch32(&t->b, f->at,
                        (uint32_t)(int32_t)((int64_t)t->at[f->pos] - (int64_t)f->table));
    }
    return true;
}

/* ---- code memory: per store, written and then made read-only executable ---- */

static void arena_free(void *p)
{
    struct base_arena *a = p;
    for (struct base_chunk *c = a->chunks, *n; c; c = n) {
        n = c->next;
        munmap(c->mem, c->size);
        sbx__free(c);
    }
    sbx__free(a);
}

static struct base_arena *arena_of(struct wasm_store *s)
{
    if (s->base_arena)
        return s->base_arena;
    struct base_arena *a = sbx__calloc(1, sizeof(*a));
    if (!a || !sbx__wasm_store_own(s, a, arena_free)) {
        sbx__free(a);
        return NULL;
    }
    s->base_arena = a;
    return a;
}

/* Copies n bytes of code into s's code memory; NULL when it cannot (memory, the store's limit). */
static uint8_t *place(struct wasm_store *s, const uint8_t *code, size_t n)
{
    struct base_arena *a = arena_of(s);
    if (!a)
        return NULL;
    struct base_chunk *c = a->chunks;
    size_t need = (n + 15) & ~(size_t)15;
    if (!c || c->size - c->used < need) {
        size_t size = need > CHUNK_BYTES ? (need + 4095) & ~(size_t)4095 : CHUNK_BYTES;
        if (!sbx__wasm_store_charge(s, size))
            return NULL;
        c = sbx__calloc(1, sizeof(*c));
        void *mem = c ? mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                      : MAP_FAILED;
        if (mem == MAP_FAILED) {
            sbx__free(c);
            sbx__wasm_store_refund(s, size);
            return NULL;
        }
        c->mem = mem;
        c->size = size;
        c->next = a->chunks;
        a->chunks = c;
    }
    /* The pages this code shares with earlier functions are writable only while it is copied:
     * only this store's thread runs them, and it is here. */
    uint8_t *p = c->mem + c->used;
    uintptr_t page = 4096, lo = (uintptr_t)p & ~(page - 1);
    uintptr_t hi = ((uintptr_t)p + n + page - 1) & ~(page - 1);
    if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE) != 0)
        return NULL;
    memcpy(p, code, n);
    if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_EXEC) != 0)
        return NULL;
    c->used += need;
    a->count++;
    return p;
}

static void fn_free(void *p)
{
    struct sbx__base_fn *bf = p;
    sbx__free(bf->resume);
    sbx__free(bf->loop_pos);
    sbx__free(bf->loop_at);
    sbx__free(bf);
}

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Builds bf's loop map from t's back-edge targets (sorted, unique). */
static bool loops_of(struct tr *t, struct sbx__base_fn *bf, const uint8_t *code)
{
    if (t->nloops == 0)
        return true;
    qsort(t->loops, t->nloops, sizeof(*t->loops), u32_cmp);
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->nloops; i++) {
        if (n == 0 || t->loops[n - 1] != t->loops[i])
            t->loops[n++] = t->loops[i];
    }
    bf->loop_pos = sbx__mallocn(n, sizeof(*bf->loop_pos));
    bf->loop_at = sbx__mallocn(n, sizeof(*bf->loop_at));
    if (!bf->loop_pos || !bf->loop_at)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        bf->loop_pos[i] = t->loops[i];
        bf->loop_at[i] = code + t->at[t->loops[i]];
    }
    bf->nloops = n;
    return true;
}

static struct sbx__base_fn *translate_fn(struct wasm_store *s, struct wasm_instance *inst,
                                         const struct wasm_code *code)
{
    if (code->nhandlers || !code->op_bits || code->word_count >= (1u << 28) ||
        code->frame_slots >= (1u << 24))
        return NULL;
    pthread_once(&op_once, op_init);
    struct tr t = {.code = code, .inst = inst, .w = code->words};
    struct sbx__base_fn *bf = NULL;
    t.at = sbx__mallocn(code->word_count ? code->word_count : 1, sizeof(*t.at));
    if (!t.at)
        goto out;
    memset(t.at, 0xFF, code->word_count * sizeof(*t.at));
    prologue(&t);
    for (uint32_t pos = 0; pos < code->word_count && !t.has_failed;) {
        uint32_t end = pos + 1;
        while (end < code->word_count && !is_op_start(code, end))
            end++;
        if (!is_op_start(code, pos))
            goto out;
        t.at[pos] = (uint32_t)t.b.len;
        if (!translate(&t, pos, end - pos, op_of(code->words[pos])))
            goto out;
        pos = end;
    }
    /* Falling off the end cannot happen in validated code; return to the interpreter if so. */
    emit_exit(&t, exit_code(code->word_count ? code->word_count - 1 : 0, SBX__BASE_CONT));
    if (t.has_failed || t.b.has_failed || !resolve(&t))
        goto out;
    for (uint32_t i = 0; i < t.nref; i++) {
        uint64_t a = (uint64_t)(uintptr_t)(t.rw + t.rw_ref[i].pos);
        memcpy(t.b.p + t.rw_ref[i].at, &a, 8);
    }
    bf = sbx__calloc(1, sizeof(*bf));
    if (!bf)
        goto out;
    uint8_t *p = place(s, t.b.p, t.b.len);
    if (!p || !loops_of(&t, bf, p)) {
        fn_free(bf);
        bf = NULL;
        goto out;
    }
    for (uint32_t i = 0; i < t.naddr; i++)
        t.rw[t.rw_addr[i]] = (wasm_word)(uintptr_t)(p + t.rw[t.rw_addr[i]]);
    bf->code = p;
    bf->entry = p + t.at[0];
    bf->resume = t.rw;
    t.rw = NULL;
    if (!sbx__wasm_store_own(s, bf, fn_free)) {
        fn_free(bf);
        bf = NULL;
    }
out:
    sbx__free(t.at);
    sbx__free(t.fix);
    sbx__free(t.rw);
    sbx__free(t.rw_addr);
    sbx__free(t.rw_ref);
    sbx__free(t.loops);
    sbx__free(t.b.p);
    return bf;
}

/* ---- the interpreter's side ---- */

static int test_mode(void)
{
    static int mode = -1; /* a benign race: every thread computes the same value */
    if (mode < 0) {
        const char *v = getenv("SBX_TEST_BASE");
        mode = !v ? 0 : strcmp(v, "1") == 0 ? 1 : strcmp(v, "0") == 0 ? 2 : 0;
    }
    return mode;
}

bool sbx__base_wanted(struct wasm_store *s)
{
    if (s->base_mode == 0) {
#if defined(__x86_64__)
        bool on = test_mode() == 1 || (test_mode() == 0 && sbx__wasm_lazy_wants(s));
#else
        bool on = false;
#endif
        s->base_mode = on ? 2 : 1;
        s->base_budget = SBX__BASE_BUDGET;
    }
    return s->base_mode == 2;
}

void sbx__base_store_init(struct wasm_store *s)
{
    if (test_mode() == 1 && s->limits.tier == WASM_TIER_INTERP)
        atomic_store(&s->tierup.state, WASM_TIERUP_BASE);
}

struct sbx__base_fn *sbx__base_get(struct wasm_store *s, struct wasm_func *f,
                                   const struct wasm_code *code)
{
    if (f->base || f->base_hits == BASE_NEVER)
        return f->base;
    if (++f->base_hits < (test_mode() == 1 ? 1u : BASE_HOT_ENTRIES))
        return NULL;
    f->base = translate_fn(s, f->inst, code);
    if (!f->base)
        f->base_hits = BASE_NEVER;
    return f->base;
}

uint32_t sbx__base_run(const struct sbx__base_fn *bf, const void *target, uint64_t *fp,
                       uint8_t *mbase, uint64_t msize, struct wasm_store *s,
                       struct wasm_global **globals)
{
    typedef uint32_t (*run_fn)(uint64_t *, uint8_t *, uint64_t, const void *, struct wasm_store *,
                               struct wasm_global **);
    run_fn run = (run_fn)(uintptr_t)bf->code;
    return run(fp, mbase, msize, target, s, globals);
}

const wasm_word *sbx__base_go(struct wasm_store *s, struct wasm_instance *inst,
                              const struct sbx__base_fn *bf, const void *target, uint64_t *fp,
                              uint8_t *mbase, uint64_t msize, struct wasm_global **globals)
{
    uint32_t r = sbx__base_run(bf, target, fp, mbase, msize, s, globals);
    const struct wasm_code *code = s->base_regs.code;
    struct wasm_func *f = inst->funcs[code->func_index];
    uint32_t at = r >> 2;
    s->base_regs.is_back = false;
    switch ((enum sbx__base_exit)(r & 3u)) {
    case SBX__BASE_DELEG:
        return f->base->resume + at;
    case SBX__BASE_BACK:
        s->base_budget = SBX__BASE_BUDGET;
        sbx__wasm_lazy_credit(s, f, SBX__BASE_BUDGET);
        s->base_regs.is_back = true;
        return code->words + at;
    default:
        return code->words + at;
    }
}

const void *sbx__base_entry(const struct sbx__base_fn *bf)
{
    return bf->entry;
}

const void *sbx__base_loop(const struct sbx__base_fn *bf, uint32_t pos)
{
    uint32_t lo = 0, hi = bf->nloops;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (bf->loop_pos[mid] == pos)
            return bf->loop_at[mid];
        if (bf->loop_pos[mid] < pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const wasm_word *sbx__base_resume(const struct sbx__base_fn *bf)
{
    return bf->resume;
}

uint32_t sbx__base_count(const struct wasm_store *s)
{
    return s->base_arena ? s->base_arena->count : 0;
}
