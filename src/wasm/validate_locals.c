/* wasm/compile_locals.c: which declared locals a call must zero: those some local.get may read
 * before a write has certainly happened. One pass over the body before translation; a write
 * is certain for the rest of its block, and past a loop's end (only falling through leaves a
 * loop), but not past the end of a block or if (a branch may skip it). */
#include "util/alloc.h"
#include "wasm/compile_impl.h"
#include "wasm/leb.h"

struct lscan {
    uint8_t *is_set;   /* per local: certainly written at this point */
    uint32_t *journal; /* locals in the order they became certain */
    uint32_t jlen, jcap;
    uint32_t *marks; /* per open block: journal length at its start, kind in the low bit */
    uint32_t nmarks, mcap;
};

/* Forgets the writes made since the journal had `mark` entries. */
static void undo_to(struct lscan *s, uint32_t mark)
{
    while (s->jlen > mark)
        s->is_set[s->journal[--s->jlen]] = 0;
}

/* True if the bytes at p start a constant that translates to the bits 0. */
static bool is_zero_const(const uint8_t *p, const uint8_t *end)
{
    if (*p < 0x41 || (*p > 0x44 && *p != 0xD0))
        return false;
    unsigned n = *p == 0x43 ? 4 : *p == 0x44 ? 8 : 1;
    if (*p == 0xD0)
        return true;
    if ((size_t)(end - p) <= n)
        return false;
    for (unsigned i = 1; i <= n; i++)
        if (p[i] != 0)
            return false;
    return true;
}

/* Skips n LEB128 numbers (the body is validated: each is well formed). */
static void skip_lebs(struct compiler *c, unsigned n)
{
    while (n-- > 0)
        while (c->p < c->end && (*c->p++ & 0x80))
            ;
}

/* Handles one instruction at c->p; returns false at the function's end. */
static bool scan_step(struct compiler *c, struct lscan *s, uint8_t *zeroed, bool prev_zero)
{
    uint8_t op = *c->p++;
    uint32_t n, x;
    if ((op >= 0x45 && op <= 0xC4) || op == 0x1A || op == 0x1B || op == 0x0F)
        return true; /* the common immediate-free instructions, quickly */
    if (op >= 0x28 && op <= 0x3E) {
        skip_lebs(c, 2); /* memarg */
        return true;
    }
    if (op == 0x0C || op == 0x0D || op == 0x10 || op == 0x23 || op == 0x24 || op == 0x41 ||
        op == 0x42) {
        skip_lebs(c, 1);
        return true;
    }
    switch (op) {
    case 0x02:
    case 0x03:
    case 0x04:
        sbx__wasm_c_skip_imm(c, op);
        if (!sbx__wasm_c_grow(c, (void **)&s->marks, &s->mcap, s->nmarks + 1, sizeof(uint32_t)))
            return false;
        s->marks[s->nmarks++] = s->jlen << 1 | (op == 0x03);
        return true;
    case 0x05:
        if (s->nmarks)
            undo_to(s, s->marks[s->nmarks - 1] >> 1);
        return true;
    case 0x0B:
        if (!s->nmarks)
            return false;
        x = s->marks[--s->nmarks];
        if (!(x & 1))
            undo_to(s, x >> 1);
        return true;
    case 0x0E:
        n = sbx__wasm_c_u32(c);
        for (uint32_t i = 0; i <= n && !c->has_failed; i++)
            sbx__wasm_c_u32(c);
        return true;
    case 0x11:
        sbx__wasm_c_u32(c);
        sbx__wasm_c_u32(c);
        return true;
    case 0x1C:
        n = sbx__wasm_c_u32(c);
        if (n > (size_t)(c->end - c->p))
            return false;
        c->p += n;
        return true;
    case 0x20:
    case 0x21:
    case 0x22:
        x = sbx__wasm_c_u32(c);
        if (x < c->ft->param_count || x >= c->local_count || s->is_set[x])
            return true;
        /* A zero stored before any write may be dropped by the translator: zero it. */
        if (op == 0x20 || prev_zero)
            zeroed[x] = 1;
        if (op != 0x20 &&
            sbx__wasm_c_grow(c, (void **)&s->journal, &s->jcap, s->jlen + 1, sizeof(uint32_t))) {
            s->is_set[x] = 1;
            s->journal[s->jlen++] = x;
        }
        return true;
    default:
        sbx__wasm_c_skip_imm(c, op);
        return true;
    }
}

void sbx__wasm_c_scan_locals(struct compiler *c, uint8_t *zeroed)
{
    if (c->local_count == c->ft->param_count)
        return; /* no declared locals */
    struct lscan s = {.is_set = sbx__calloc((size_t)c->local_count + 1, 1)};
    const uint8_t *start = c->p;
    bool prev_zero = false;
    if (s.is_set) {
        while (c->p < c->end && !c->has_failed) {
            bool is_zero = is_zero_const(c->p, c->end);
            if (!scan_step(c, &s, zeroed, prev_zero))
                break;
            prev_zero = is_zero;
        }
    }
    if (!s.is_set || c->has_failed) /* when in doubt, zero them all */
        for (uint32_t i = c->ft->param_count; i < c->local_count; i++)
            zeroed[i] = 1;
    c->p = start;
    sbx__free(s.is_set);
    sbx__free(s.journal);
    sbx__free(s.marks);
}
