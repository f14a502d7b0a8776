/* wasm/validate_locals.c: what the validator learns about a body's declared locals while it
 * checks it: which ones some local.get may read before a write has certainly happened, so
 * that a call zeroes only those (compile.c). A write is certain for the rest of its block,
 * and past a loop's end (only falling through leaves a loop), but not past the end of a block
 * or if (a branch may skip it). A zero stored before any write counts as a read: the
 * translator drops such a store when the local is zeroed at entry. */
#include <string.h>

#include "util/alloc.h"
#include "wasm/validate_internal.h"

static bool grow(struct wasm_lscan *s, uint32_t **arr, uint32_t *cap, uint32_t need)
{
    if (need <= *cap)
        return true;
    uint32_t ncap = *cap ? *cap * 2 : 16;
    uint32_t *p = ncap >= need ? sbx__reallocn(*arr, ncap, sizeof(uint32_t)) : NULL;
    if (!p) {
        s->is_nomem = true;
        return false;
    }
    *arr = p;
    *cap = ncap;
    return true;
}

bool sbx__wasm_lscan_func(struct wasm_lscan *s, uint32_t nparams, uint32_t nlocals, uint8_t *zeroed)
{
    s->nparams = nparams;
    s->nlocals = nlocals;
    s->zeroed = zeroed;
    s->jlen = s->nmarks = 0;
    s->prev_zero = false;
    if (zeroed == NULL)
        return true; /* no declared locals: nothing to learn */
    if (nlocals > s->set_cap) {
        uint8_t *p = sbx__reallocn(s->is_set, nlocals, 1);
        if (!p) {
            s->is_nomem = true;
            return false;
        }
        s->is_set = p;
        s->set_cap = nlocals;
    }
    memset(s->is_set, 0, nlocals);
    return true;
}

/* Forgets the writes made since the journal had `mark` entries. */
static void undo_to(struct wasm_lscan *s, uint32_t mark)
{
    while (s->jlen > mark)
        s->is_set[s->journal[--s->jlen]] = 0;
}

void sbx__wasm_lscan_open(struct wasm_lscan *s, bool is_loop)
{
    if (s->zeroed && grow(s, &s->marks, &s->mcap, s->nmarks + 1))
        s->marks[s->nmarks++] = s->jlen << 1 | (is_loop ? 1u : 0u);
}

void sbx__wasm_lscan_else(struct wasm_lscan *s)
{
    if (s->zeroed && s->nmarks)
        undo_to(s, s->marks[s->nmarks - 1] >> 1);
}

void sbx__wasm_lscan_end(struct wasm_lscan *s)
{
    if (!s->zeroed || !s->nmarks)
        return;
    uint32_t x = s->marks[--s->nmarks];
    if (!(x & 1))
        undo_to(s, x >> 1);
}

void sbx__wasm_lscan_local(struct wasm_lscan *s, bool is_get, uint32_t x, bool prev_zero)
{
    if (!s->zeroed || x < s->nparams || x >= s->nparams + s->nlocals)
        return;
    x -= s->nparams;
    if (s->is_set[x])
        return;
    if (is_get || prev_zero)
        s->zeroed[x] = 1;
    if (!is_get && grow(s, &s->journal, &s->jcap, s->jlen + 1)) {
        s->is_set[x] = 1;
        s->journal[s->jlen++] = x;
    }
}

void sbx__wasm_lscan_free(struct wasm_lscan *s)
{
    sbx__free(s->is_set);
    sbx__free(s->journal);
    sbx__free(s->marks);
}
