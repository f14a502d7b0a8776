/* wasm/interp_exn.c: exception handling's runtime, shared by both tiers. An exception is one
 * object (struct wasm_exn, code.h) made by throw; it travels as the trap WASM_TRAP_EXCEPTION
 * with the object in ex->exn: the interpreter unwinds its frame records looking for a
 * try_table handler (interp.c, do_throw), compiled code longjmps to its entry as for any trap
 * (jit/rt.c), and a nested entry hands it on to the frame that called it. A handler's clause
 * then delivers the values; a host function never lets it through (interp_call.c). */
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "wasm/code.h"
#include "wasm/decode.h"

static void unlink_exn(struct wasm_exec *ex, struct wasm_exn *e)
{
    if (e->prev)
        e->prev->next = e->next;
    else
        ex->exns = e->next;
    if (e->next)
        e->next->prev = e->prev;
}

static void free_exn(struct wasm_exec *ex, struct wasm_exn *e)
{
    unlink_exn(ex, e);
    sbx__wasm_store_refund(ex->store, e->bytes);
    sbx__free(e);
}

/* The exception in flight is over: free it unless an exnref may still see it. */
static void drop_current(struct wasm_exec *ex)
{
    struct wasm_exn *e = ex->exn;
    ex->exn = NULL;
    if (e && !e->is_held)
        free_exn(ex, e);
}

enum wasm_trap_kind sbx__wasm_exn_throw(struct wasm_exec *ex, const struct wasm_tag *tag,
                                        const uint64_t *slots)
{
    const struct wasm_functype *t = tag->type;
    uint32_t n = sbx__wasm_types_slots(t->types, t->param_count);
    drop_current(ex); /* only one is ever in flight: an older one ended uncaught */
    uint64_t bytes = sizeof(struct wasm_exn) + (uint64_t)n * sizeof(uint64_t);
    struct wasm_exn *e = NULL;
    if (sbx__wasm_store_charge(ex->store, bytes)) {
        e = sbx__mallocn(1, (size_t)bytes);
        if (!e)
            sbx__wasm_store_refund(ex->store, bytes);
    } else {
        ex->store->was_refused = true;
    }
    if (!e) {
        ex->trap.kind = WASM_TRAP_HOST;
        ex->trap.exit_code = 0;
        snprintf(ex->trap.message, sizeof(ex->trap.message),
                 "throw: the exception needs more than is left of the store's memoryBytes");
        ex->has_trap_func = false;
        return WASM_TRAP_HOST;
    }
    e->tag = tag;
    e->is_held = false;
    e->nslots = n;
    e->bytes = bytes;
    if (n)
        memcpy(e->slots, slots, n * sizeof(uint64_t));
    e->prev = NULL;
    e->next = ex->exns;
    if (ex->exns)
        ex->exns->prev = e;
    ex->exns = e;
    ex->exn = e;
    ex->trap.kind = WASM_TRAP_EXCEPTION;
    ex->trap.exit_code = 0;
    ex->trap.message[0] = '\0';
    return WASM_TRAP_EXCEPTION;
}

enum wasm_trap_kind sbx__wasm_exn_rethrow(struct wasm_exec *ex, struct wasm_exn *exn)
{
    if (!exn) {
        ex->trap.kind = WASM_TRAP_NULL_EXN_REF;
        ex->trap.exit_code = 0;
        ex->trap.message[0] = '\0';
        return WASM_TRAP_NULL_EXN_REF;
    }
    if (ex->exn != exn)
        drop_current(ex);
    ex->exn = exn; /* held: an exnref named it */
    ex->trap.kind = WASM_TRAP_EXCEPTION;
    ex->trap.exit_code = 0;
    ex->trap.message[0] = '\0';
    return WASM_TRAP_EXCEPTION;
}

const struct wasm_hcatch *sbx__wasm_exn_find(const struct wasm_exec *ex,
                                             const struct wasm_instance *inst,
                                             const struct wasm_code *code, uint32_t pos)
{
    const struct wasm_exn *e = ex->exn;
    if (!e)
        return NULL;
    /* Inner try_tables open later: the last handler holding pos is the innermost. */
    for (uint32_t i = code->nhandlers; i-- > 0;) {
        const struct wasm_handler *h = &code->handlers[i];
        if (pos < h->start || pos >= h->end)
            continue;
        for (uint32_t k = 0; k < h->count; k++) {
            const struct wasm_hcatch *c = &code->catches[h->first + k];
            if (c->kind >= WASM_CATCH_ALL || inst->tags[c->tag] == e->tag)
                return c;
        }
    }
    return NULL;
}

void sbx__wasm_exn_deliver(struct wasm_exec *ex, const struct wasm_hcatch *h, uint64_t *fp)
{
    struct wasm_exn *e = ex->exn;
    uint64_t *dst = fp + h->slot;
    if (h->kind == WASM_CATCH || h->kind == WASM_CATCH_REF) {
        memcpy(dst, e->slots, e->nslots * sizeof(uint64_t));
        dst += e->nslots;
    }
    if (h->kind == WASM_CATCH_REF || h->kind == WASM_CATCH_ALL_REF) {
        *dst = (uint64_t)(uintptr_t)e;
        e->is_held = true;
        ex->exn = NULL;
        return;
    }
    drop_current(ex);
}

void sbx__wasm_exn_describe(struct wasm_exec *ex)
{
    const struct wasm_exn *e = ex->exn;
    if (ex->trap.kind != WASM_TRAP_EXCEPTION || !e)
        return;
    const struct wasm_tag *tag = e->tag;
    const struct wasm_module *m = tag->inst ? tag->inst->module : NULL;
    const char *name = NULL;
    uint32_t name_len = 0;
    for (uint32_t i = 0; m && i < m->export_count; i++) {
        if (m->exports[i].kind == WASM_EXTERN_TAG && m->exports[i].index == tag->index) {
            name = m->exports[i].name;
            name_len = m->exports[i].name_len;
            break;
        }
    }
    if (name)
        snprintf(ex->trap.message, sizeof(ex->trap.message), "uncaught exception: tag \"%.*s\"",
                 (int)(name_len > 64 ? 64 : name_len), name);
    else
        snprintf(ex->trap.message, sizeof(ex->trap.message), "uncaught exception: tag %u",
                 tag->index);
    ex->has_trap_func = false;
}

void sbx__wasm_exn_free_all(struct wasm_exec *ex)
{
    while (ex->exns)
        free_exn(ex, ex->exns);
    ex->exn = NULL;
}
