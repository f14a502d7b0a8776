/* wasm/jit/running.c: which store's compiled code each thread runs, in a table the fault handler
 * (fault.c) reads with no thread-local, lock or allocation. A thread-local would not do: in a
 * dlopen'ed libsbx (the Python and Node bindings) glibc allocates a thread's block of the
 * library's thread-locals with malloc on its first access, so a host thread's own fault would
 * call malloc in the handler (and deadlock when it faulted inside malloc). The initial-exec
 * model would put the library's whole TLS block (4 KiB) in the few hundred bytes of static TLS
 * glibc keeps spare for dlopen, which then fails.
 * A thread claims a slot (owner: its pthread_self()) at its outermost entry and frees it when
 * that returns. Slots come in chunks; one is pushed (never freed) when all are taken, so the
 * table grows to the most threads ever inside compiled code at once. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "util/alloc.h"
#include "wasm/jit/jit.h"

#define CHUNK_SLOTS 64

struct slot {
    _Atomic uintptr_t owner; /* the pthread_self() of the thread holding it; 0: free */
    struct wasm_jit_store *_Atomic js;
    char pad[64 - sizeof(uintptr_t) - sizeof(void *)]; /* a cache line each: no false sharing */
};

struct chunk {
    struct slot slots[CHUNK_SLOTS];
    struct chunk *_Atomic next;
};

static struct chunk first;
static _Thread_local struct slot *mine; /* this thread's slot, while it is inside an entry */
static _Thread_local size_t hint;       /* the index of the slot it had last, tried first */

/* A free slot for self, pushing a chunk when all are taken; NULL when that fails. */
static struct slot *claim(uintptr_t self)
{
    size_t start = hint;
    for (struct chunk *c = &first;;) {
        for (size_t k = 0; k < CHUNK_SLOTS; k++) {
            size_t i = (start + k) % CHUNK_SLOTS;
            uintptr_t none = 0;
            if (atomic_load_explicit(&c->slots[i].owner, memory_order_relaxed) == 0 &&
                atomic_compare_exchange_strong(&c->slots[i].owner, &none, self)) {
                hint = i;
                return &c->slots[i];
            }
        }
        struct chunk *next = atomic_load_explicit(&c->next, memory_order_acquire);
        if (!next) {
            struct chunk *fresh = sbx__calloc(1, sizeof(*fresh));
            if (!fresh)
                return NULL;
            next = NULL;
            if (atomic_compare_exchange_strong(&c->next, &next, fresh))
                next = fresh;
            else
                sbx__free(fresh); /* another thread pushed one: use it */
        }
        c = next;
    }
}

bool sbx__jit_running_push(struct wasm_jit_store *js, struct wasm_jit_store **prev)
{
    struct slot *s = mine;
    if (!s && !(s = claim((uintptr_t)pthread_self())))
        return false;
    mine = s;
    *prev = atomic_load_explicit(&s->js, memory_order_relaxed);
    atomic_store_explicit(&s->js, js, memory_order_relaxed);
    return true;
}

void sbx__jit_running_pop(struct wasm_jit_store *prev)
{
    struct slot *s = mine;
    atomic_store_explicit(&s->js, prev, memory_order_relaxed);
    if (prev)
        return;
    mine = NULL;
    atomic_store_explicit(&s->owner, 0, memory_order_release);
}

/* Async-signal-safe. pthread_self() (a read of the thread pointer) is called only once some
 * slot is owned, i.e. after push() called it: its PLT entry is bound by then. Only this thread
 * writes a slot it owns, so the signal sees its own writes in program order. */
struct wasm_jit_store *sbx__jit_running_get(void)
{
    uintptr_t self = 0;
    for (struct chunk *c = &first; c; c = atomic_load_explicit(&c->next, memory_order_acquire)) {
        for (size_t i = 0; i < CHUNK_SLOTS; i++) {
            uintptr_t owner = atomic_load_explicit(&c->slots[i].owner, memory_order_relaxed);
            if (owner && !self)
                self = (uintptr_t)pthread_self();
            if (owner && owner == self)
                return atomic_load_explicit(&c->slots[i].js, memory_order_relaxed);
        }
    }
    return NULL;
}
