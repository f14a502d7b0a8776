/* wasm/types.c: the canonical type registry (types.h). One mutex guards the hash table of
 * recursion groups, their reference counts and the id allocator; an rtt, once made, is
 * immutable until its group's last reference goes, so readers need no lock. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "util/alloc.h"
#include "wasm/types.h"

/* Key words encoding a reference to a type of the group being interned: REL + its position.
 * Ids of live rtts stay below REL. */
#define REL      0x800000u
#define MAX_ID   REL
#define NO_SUPER 0xFFFFFFu

#define ID_CHUNK_BITS 12u
#define ID_CHUNK      (1u << ID_CHUNK_BITS)
#define ID_CHUNKS     (MAX_ID / ID_CHUNK)

struct wasm_recgroup {
    struct wasm_recgroup *next; /* hash chain */
    uint32_t hash;
    uint32_t refs;
    uint32_t n;
    uint32_t key_len;
    uint32_t *key;
    struct wasm_rtt *rtts;
};

struct wasm_typeset {
    _Atomic uint32_t refs;
    uint32_t n, cap;
    struct wasm_recgroup **groups;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct wasm_recgroup **buckets;
static uint32_t bucket_count, group_count;
static struct wasm_rtt **id_chunks[ID_CHUNKS];
static uint32_t next_id;
static uint32_t *free_ids;
static uint32_t free_count, free_cap;

const struct wasm_rtt *sbx__wasm_rtt_by_id(uint32_t id)
{
    return id_chunks[id >> ID_CHUNK_BITS][id & (ID_CHUNK - 1)];
}

/* --- subtyping of canonical types ---------------------------------------------------------- */

uint32_t sbx__wasm_cheap_top(uint32_t ht)
{
    if (!wasm_heap_is_abstract(ht))
        return sbx__wasm_rtt_by_id(ht)->kind == WASM_COMP_FUNC ? WASM_HT_FUNC : WASM_HT_ANY;
    switch (ht) {
    case WASM_HT_FUNC:
    case WASM_HT_NOFUNC:
        return WASM_HT_FUNC;
    case WASM_HT_EXTERN:
    case WASM_HT_NOEXTERN:
        return WASM_HT_EXTERN;
    case WASM_HT_EXN:
    case WASM_HT_NOEXN:
        return WASM_HT_EXN;
    case WASM_HT_BOT:
        return WASM_HT_BOT;
    default:
        return WASM_HT_ANY;
    }
}

uint32_t sbx__wasm_cheap_bottom(uint32_t ht)
{
    switch (sbx__wasm_cheap_top(ht)) {
    case WASM_HT_FUNC:
        return WASM_HT_NOFUNC;
    case WASM_HT_EXTERN:
        return WASM_HT_NOEXTERN;
    case WASM_HT_EXN:
        return WASM_HT_NOEXN;
    case WASM_HT_BOT:
        return WASM_HT_BOT;
    default:
        return WASM_HT_NONE;
    }
}

/* Abstract a <: abstract b. */
static bool abstract_sub(uint32_t a, uint32_t b)
{
    if (a == b || a == WASM_HT_BOT)
        return true;
    switch (a) {
    case WASM_HT_EQ:
        return b == WASM_HT_ANY;
    case WASM_HT_I31:
    case WASM_HT_STRUCT:
    case WASM_HT_ARRAY:
        return b == WASM_HT_EQ || b == WASM_HT_ANY;
    case WASM_HT_NONE:
    case WASM_HT_NOFUNC:
    case WASM_HT_NOEXTERN:
    case WASM_HT_NOEXN:
        return sbx__wasm_cheap_top(b) == sbx__wasm_cheap_top(a);
    default:
        return false;
    }
}

bool sbx__wasm_cheap_sub(uint32_t a, uint32_t b)
{
    if (a == b || a == WASM_HT_BOT)
        return true;
    bool abs_a = wasm_heap_is_abstract(a), abs_b = wasm_heap_is_abstract(b);
    if (abs_a && abs_b)
        return abstract_sub(a, b);
    if (abs_a) /* only the hierarchy's bottom is below a concrete type */
        return a == sbx__wasm_cheap_bottom(b);
    const struct wasm_rtt *ra = sbx__wasm_rtt_by_id(a);
    if (!abs_b)
        return sbx__wasm_rtt_sub(ra, sbx__wasm_rtt_by_id(b));
    switch (ra->kind) {
    case WASM_COMP_FUNC:
        return b == WASM_HT_FUNC;
    case WASM_COMP_STRUCT:
        return b == WASM_HT_STRUCT || b == WASM_HT_EQ || b == WASM_HT_ANY;
    default:
        return b == WASM_HT_ARRAY || b == WASM_HT_EQ || b == WASM_HT_ANY;
    }
}

bool sbx__wasm_ctype_sub(wasm_vtype a, wasm_vtype b)
{
    if (a == b)
        return true;
    if (!wasm_vtype_is_ref(a) || !wasm_vtype_is_ref(b))
        return false;
    if (wasm_vtype_is_nullable(a) && !wasm_vtype_is_nullable(b))
        return false;
    return sbx__wasm_cheap_sub(wasm_vtype_heap(a), wasm_vtype_heap(b));
}

/* A field's storage type: packed types match only themselves. */
static bool field_sub(wasm_vtype a, uint8_t amut, wasm_vtype b, uint8_t bmut)
{
    if (amut != bmut)
        return false;
    if (a == WASM_PACKED_I8 || a == WASM_PACKED_I16 || b == WASM_PACKED_I8 || b == WASM_PACKED_I16)
        return a == b;
    return sbx__wasm_ctype_sub(a, b) && (!amut || sbx__wasm_ctype_sub(b, a));
}

/* Whether sub's definition matches sup's (3.0 "Composite types"): the declared supertype must. */
static bool comp_sub(const struct wasm_rtt *sub, const struct wasm_rtt *sup)
{
    if (sub->kind != sup->kind)
        return false;
    if (sub->kind == WASM_COMP_FUNC) {
        if (sub->param_count != sup->param_count || sub->result_count != sup->result_count)
            return false;
        for (uint32_t i = 0; i < sub->param_count; i++) {
            if (!sbx__wasm_ctype_sub(sup->types[i], sub->types[i]))
                return false;
        }
        for (uint32_t i = sub->param_count; i < sub->param_count + sub->result_count; i++) {
            if (!sbx__wasm_ctype_sub(sub->types[i], sup->types[i]))
                return false;
        }
        return true;
    }
    if (sub->field_count < sup->field_count)
        return false;
    for (uint32_t i = 0; i < sup->field_count; i++) {
        if (!field_sub(sub->types[i], sub->muts[i], sup->types[i], sup->muts[i]))
            return false;
    }
    return true;
}

/* --- the registry ------------------------------------------------------------------------ */

static uint32_t hash_key(const uint32_t *k, uint32_t n)
{
    uint32_t h = 2166136261u; /* FNV-1a over the words */
    for (uint32_t i = 0; i < n; i++) {
        h = (h ^ k[i]) * 16777619u;
        h = (h ^ (k[i] >> 16)) * 16777619u;
    }
    return h;
}

static void free_group(struct wasm_recgroup *g)
{
    if (g->rtts != NULL) {
        for (uint32_t i = 0; i < g->n; i++) {
            sbx__free((void *)g->rtts[i].supers);
            sbx__free((void *)g->rtts[i].types);
            sbx__free((void *)g->rtts[i].muts);
            sbx__free((void *)g->rtts[i].offsets);
            sbx__free((void *)g->rtts[i].ref_offsets);
        }
    }
    sbx__free(g->rtts);
    sbx__free(g->key);
    sbx__free(g);
}

/* Takes n ids (under the lock); false when none are left. */
static bool take_ids(uint32_t *ids, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id;
        if (free_count > 0) {
            id = free_ids[--free_count];
        } else if (next_id < MAX_ID) {
            uint32_t c = next_id >> ID_CHUNK_BITS;
            if (id_chunks[c] == NULL && !(id_chunks[c] = sbx__calloc(ID_CHUNK, sizeof(void *))))
                goto undo;
            id = next_id++;
        } else {
            goto undo;
        }
        ids[i] = id;
        continue;
    undo:
        while (i-- > 0)
            free_ids[free_count++] = ids[i]; /* room: reserve_free */
        return false;
    }
    return true;
}

/* Every id is free or some rtt's, so a free list as long as the ids ever handed out (next_id)
 * has room for all: grown before n more may be. */
static bool reserve_free(uint32_t n)
{
    if (next_id + n <= free_cap)
        return true;
    uint32_t cap = free_cap ? free_cap : 1024;
    while (cap < next_id + n)
        cap *= 2;
    uint32_t *p = sbx__reallocn(free_ids, cap, sizeof *p);
    if (p == NULL)
        return false;
    free_ids = p, free_cap = cap;
    return true;
}

static bool grow_buckets(void)
{
    if (group_count < bucket_count)
        return true;
    uint32_t n = bucket_count ? bucket_count * 2 : 256;
    struct wasm_recgroup **b = sbx__calloc(n, sizeof *b);
    if (b == NULL)
        return bucket_count != 0; /* a fuller table still works */
    for (uint32_t i = 0; i < bucket_count; i++) {
        for (struct wasm_recgroup *g = buckets[i], *next; g != NULL; g = next) {
            next = g->next;
            g->next = b[g->hash & (n - 1)];
            b[g->hash & (n - 1)] = g;
        }
    }
    sbx__free(buckets);
    buckets = b, bucket_count = n;
    return true;
}

static void group_release_locked(struct wasm_recgroup *g)
{
    if (--g->refs != 0)
        return;
    struct wasm_recgroup **pp = &buckets[g->hash & (bucket_count - 1)];
    while (*pp != g)
        pp = &(*pp)->next;
    *pp = g->next;
    group_count--;
    for (uint32_t i = 0; i < g->n; i++) {
        uint32_t id = g->rtts[i].id;
        id_chunks[id >> ID_CHUNK_BITS][id & (ID_CHUNK - 1)] = NULL;
        free_ids[free_count++] = id; /* room: reserve_free */
    }
    free_group(g);
}

/* A group's key, per type: head (kind, final in bit 8), super (REL + position, an id, or
 * NO_SUPER), two counts (params and results, or fields and 0), then the types, each field's
 * followed by its mutability. */

static wasm_vtype resolve(wasm_vtype t, const uint32_t *ids)
{
    if (!wasm_vtype_is_ref(t))
        return t;
    uint32_t ht = wasm_vtype_heap(t);
    if (ht >= REL && !wasm_heap_is_abstract(ht))
        return (t & 0xFFu) | (ids[ht - REL] << 8);
    return t;
}

uint32_t sbx__wasm_storage_size(wasm_vtype t)
{
    switch (t) {
    case WASM_PACKED_I8:
        return 1;
    case WASM_PACKED_I16:
        return 2;
    case WASM_I32:
    case WASM_F32:
        return 4;
    case WASM_V128:
        return 16;
    default: /* i64, f64, references */
        return 8;
    }
}

bool sbx__wasm_ctype_is_gc(wasm_vtype t)
{
    return wasm_vtype_is_ref(t) && sbx__wasm_cheap_top(wasm_vtype_heap(t)) != WASM_HT_FUNC;
}

/* A struct's or array's layout (types.h): fields in order, each aligned to its size, after the
 * header. Needs every rtt the fields name registered (their kinds). false on NOMEM. */
static bool build_layout(struct wasm_rtt *t)
{
    if (t->kind == WASM_COMP_FUNC)
        return true;
    if (t->kind == WASM_COMP_ARRAY) {
        t->elem_size = (uint8_t)sbx__wasm_storage_size(t->types[0]);
        t->elem_is_ref = sbx__wasm_ctype_is_gc(t->types[0]);
        t->size = WASM_GC_HEADER;
        return true;
    }
    uint32_t n = t->field_count, off = WASM_GC_HEADER, nrefs = 0;
    uint32_t *offsets = sbx__mallocn(n ? n : 1, sizeof *offsets);
    uint32_t *refs = sbx__mallocn(n ? n : 1, sizeof *refs);
    t->offsets = offsets, t->ref_offsets = refs;
    if (offsets == NULL || refs == NULL)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t sz = sbx__wasm_storage_size(t->types[i]);
        off = (off + sz - 1) & ~(sz - 1);
        offsets[i] = off;
        if (sbx__wasm_ctype_is_gc(t->types[i]))
            refs[nrefs++] = off;
        off += sz;
    }
    t->size = (off + 15u) & ~15u;
    t->ref_count = nrefs;
    return true;
}

/* Builds the group's rtts (ids[i] for the i-th) from its key. false on NOMEM. */
static bool build_rtts(struct wasm_recgroup *g, const uint32_t *ids)
{
    const uint32_t *k = g->key;
    for (uint32_t i = 0; i < g->n; i++) {
        struct wasm_rtt *t = &g->rtts[i];
        uint32_t head = *k++, super = *k++, c1 = *k++, c2 = *k++;
        t->id = ids[i];
        t->kind = (uint8_t)(head & 0xFF);
        t->is_final = (head >> 8) & 1;
        t->group = g;
        const struct wasm_rtt *sup = NULL;
        if (super != NO_SUPER)
            sup = super >= REL ? &g->rtts[super - REL] : sbx__wasm_rtt_by_id(super);
        t->depth = sup ? (uint16_t)(sup->depth + 1) : 0;
        const struct wasm_rtt **supers = sbx__mallocn((size_t)t->depth + 1, sizeof *supers);
        if (supers == NULL)
            return false;
        if (sup)
            memcpy(supers, sup->supers, (size_t)t->depth * sizeof *supers);
        supers[t->depth] = t;
        t->supers = supers;
        uint32_t nt = c1 + c2;
        wasm_vtype *types = sbx__mallocn(nt ? nt : 1, sizeof *types);
        if (types == NULL)
            return false;
        t->types = types;
        if (t->kind == WASM_COMP_FUNC) {
            t->param_count = c1, t->result_count = c2;
            for (uint32_t j = 0; j < nt; j++)
                types[j] = resolve(*k++, ids);
        } else {
            uint8_t *muts = sbx__mallocn(c1 ? c1 : 1, 1);
            if (muts == NULL)
                return false;
            t->muts = muts;
            t->field_count = c1;
            for (uint32_t j = 0; j < c1; j++) {
                types[j] = resolve(*k++, ids);
                muts[j] = (uint8_t)*k++;
            }
        }
    }
    return true;
}

/* Interns the group whose key is key[0..len) (n types, owned by the caller); returns it with
 * one more reference, or NULL (*is_full when the ids ran out, else NOMEM). */
static struct wasm_recgroup *intern(const uint32_t *key, uint32_t len, uint32_t n, bool *is_full)
{
    uint32_t h = hash_key(key, len);
    *is_full = false;
    pthread_mutex_lock(&lock);
    if (bucket_count != 0) {
        for (struct wasm_recgroup *g = buckets[h & (bucket_count - 1)]; g; g = g->next) {
            if (g->hash == h && g->key_len == len && g->n == n &&
                memcmp(g->key, key, (size_t)len * sizeof *key) == 0) {
                g->refs++;
                pthread_mutex_unlock(&lock);
                return g;
            }
        }
    }
    struct wasm_recgroup *g = NULL;
    uint32_t *ids = sbx__mallocn(n ? n : 1, sizeof *ids);
    if (ids == NULL || !grow_buckets() || !reserve_free(n))
        goto fail;
    if (!take_ids(ids, n)) {
        *is_full = true;
        goto fail;
    }
    g = sbx__calloc(1, sizeof *g);
    if (g == NULL)
        goto fail_ids;
    g->hash = h, g->n = n, g->key_len = len, g->refs = 1;
    g->key = sbx__mallocn(len ? len : 1, sizeof *g->key);
    g->rtts = sbx__calloc(n ? n : 1, sizeof *g->rtts);
    if (g->key == NULL || g->rtts == NULL)
        goto fail_ids;
    memcpy(g->key, key, (size_t)len * sizeof *key);
    /* Registered first: the layouts read the kinds of the group's own types by id. */
    for (uint32_t i = 0; i < n; i++)
        id_chunks[ids[i] >> ID_CHUNK_BITS][ids[i] & (ID_CHUNK - 1)] = &g->rtts[i];
    bool ok = build_rtts(g, ids);
    for (uint32_t i = 0; ok && i < n; i++)
        ok = build_layout(&g->rtts[i]);
    if (!ok) {
        for (uint32_t i = 0; i < n; i++)
            id_chunks[ids[i] >> ID_CHUNK_BITS][ids[i] & (ID_CHUNK - 1)] = NULL;
        goto fail_ids;
    }
    g->next = buckets[h & (bucket_count - 1)];
    buckets[h & (bucket_count - 1)] = g;
    group_count++;
    pthread_mutex_unlock(&lock);
    sbx__free(ids);
    return g;
fail_ids:
    for (uint32_t i = 0; i < n; i++)
        free_ids[free_count++] = ids[i];
fail:
    if (g != NULL)
        free_group(g);
    pthread_mutex_unlock(&lock);
    sbx__free(ids);
    return NULL;
}

static void group_release(struct wasm_recgroup *g)
{
    pthread_mutex_lock(&lock);
    group_release_locked(g);
    pthread_mutex_unlock(&lock);
}

/* --- typesets ------------------------------------------------------------------------------ */

struct wasm_typeset *sbx__wasm_typeset_ref(struct wasm_typeset *ts)
{
    if (ts != NULL)
        atomic_fetch_add_explicit(&ts->refs, 1, memory_order_relaxed);
    return ts;
}

void sbx__wasm_typeset_release(void *p)
{
    struct wasm_typeset *ts = p;
    if (ts == NULL || atomic_fetch_sub_explicit(&ts->refs, 1, memory_order_acq_rel) != 1)
        return;
    pthread_mutex_lock(&lock);
    for (uint32_t i = 0; i < ts->n; i++)
        group_release_locked(ts->groups[i]);
    pthread_mutex_unlock(&lock);
    sbx__free(ts->groups);
    sbx__free(ts);
}

void sbx__wasm_types_release(struct wasm_module *m)
{
    sbx__wasm_typeset_release(m->typeset);
    m->typeset = NULL;
    sbx__free(m->rtts);
    m->rtts = NULL;
}

/* --- canonicalizing a module's type section ------------------------------------------------ */

struct canon {
    struct wasm_reader *r;
    struct wasm_module *m;
    bool *nomem;
    uint32_t *key;
    uint32_t len, cap;
    uint32_t start, end; /* the group being interned: type indices [start, end) */
};

static bool oom(struct canon *c)
{
    *c->nomem = true;
    return sbx__wasm_rd_invalid(c->r, NULL, "out of memory");
}

static bool put(struct canon *c, uint32_t w)
{
    if (c->len == c->cap) {
        uint32_t n = c->cap ? c->cap * 2 : 64;
        uint32_t *p = sbx__reallocn(c->key, n, sizeof *p);
        if (p == NULL)
            return oom(c);
        c->key = p, c->cap = n;
    }
    c->key[c->len++] = w;
    return true;
}

/* A value or storage type of type idx's definition: a type index must lie before the group's
 * end; inside the group it is encoded by position, before it by canonical id. */
static bool put_type(struct canon *c, wasm_vtype t, uint32_t idx)
{
    if (wasm_vtype_is_ref(t) && !wasm_heap_is_abstract(wasm_vtype_heap(t))) {
        uint32_t x = wasm_vtype_heap(t);
        if (x >= c->end)
            return sbx__wasm_rd_invalid(c->r, NULL, "unknown type %u in type %u", x, idx);
        uint32_t h = x >= c->start ? REL + (x - c->start) : c->m->rtts[x]->id;
        t = (t & 0xFFu) | (h << 8);
    }
    return put(c, t);
}

static bool put_def(struct canon *c, uint32_t idx)
{
    const struct wasm_module *m = c->m;
    const struct wasm_typedef *td = &m->typedefs[idx];
    uint32_t super = NO_SUPER;
    if (td->super != WASM_NO_SUPER) {
        if (td->super >= idx)
            return sbx__wasm_rd_invalid(c->r, NULL, "forward use of type %u in sub type %u",
                                        td->super, idx);
        super = td->super >= c->start ? REL + (td->super - c->start) : m->rtts[td->super]->id;
    }
    uint32_t head = td->kind | (td->is_final ? 0x100u : 0);
    if (td->kind == WASM_COMP_FUNC) {
        const struct wasm_functype *ft = &m->types[idx];
        if (!put(c, head) || !put(c, super) || !put(c, ft->param_count) ||
            !put(c, ft->result_count))
            return false;
        for (uint32_t i = 0; i < ft->param_count + ft->result_count; i++) {
            if (!put_type(c, ft->types[i], idx))
                return false;
        }
        return true;
    }
    if (!put(c, head) || !put(c, super) || !put(c, td->field_count) || !put(c, 0))
        return false;
    for (uint32_t i = 0; i < td->field_count; i++) {
        if (!put_type(c, td->fields[i].type, idx) || !put(c, td->fields[i].is_mutable))
            return false;
    }
    return true;
}

static bool typeset_add(struct canon *c, struct wasm_recgroup *g)
{
    struct wasm_typeset *ts = c->m->typeset;
    if (ts->n == ts->cap) {
        uint32_t n = ts->cap ? ts->cap * 2 : 16;
        struct wasm_recgroup **p = sbx__reallocn(ts->groups, n, sizeof *p);
        if (p == NULL) {
            group_release(g);
            return oom(c);
        }
        ts->groups = p, ts->cap = n;
    }
    ts->groups[ts->n++] = g;
    return true;
}

/* Interns the group [start, start + n) and checks its declared supertypes. */
static bool canon_group(struct canon *c, uint32_t start, uint32_t n)
{
    struct wasm_module *m = c->m;
    c->start = start, c->end = start + n, c->len = 0;
    for (uint32_t i = start; i < start + n; i++) {
        if (!put_def(c, i))
            return false;
    }
    /* Supertype chains: count each type's depth before anything is made. */
    for (uint32_t i = start; i < start + n; i++) {
        uint32_t depth = 0;
        for (uint32_t x = m->typedefs[i].super; x != WASM_NO_SUPER; x = m->typedefs[x].super) {
            if (x < start) {
                depth += m->rtts[x]->depth + 1u;
                break;
            }
            depth++;
        }
        if (depth > WASM_MAX_SUBTYPE_DEPTH)
            return sbx__wasm_rd_limit(c->r, NULL, "type %u has more than %u supertypes", i,
                                      WASM_MAX_SUBTYPE_DEPTH);
    }
    bool is_full;
    struct wasm_recgroup *g = intern(c->key, c->len, n, &is_full);
    if (g == NULL) {
        if (is_full)
            return sbx__wasm_rd_limit(c->r, NULL, "more than %u types in the process", MAX_ID);
        return oom(c);
    }
    if (!typeset_add(c, g))
        return false;
    for (uint32_t i = 0; i < n; i++)
        m->rtts[start + i] = &g->rtts[i];
    for (uint32_t i = start; i < start + n; i++) {
        uint32_t s = m->typedefs[i].super;
        if (s == WASM_NO_SUPER)
            continue;
        const struct wasm_rtt *sup = m->rtts[s];
        if (sup->is_final)
            return sbx__wasm_rd_invalid(c->r, NULL, "sub type %u has final super type %u", i, s);
        if (!comp_sub(m->rtts[i], sup))
            return sbx__wasm_rd_invalid(c->r, NULL, "sub type %u does not match super type %u", i,
                                        s);
    }
    return true;
}

bool sbx__wasm_types_canon(struct wasm_reader *r, struct wasm_module *m, bool *nomem)
{
    struct canon c = {.r = r, .m = m, .nomem = nomem};
    if (m->type_count == 0)
        return true;
    m->rtts = sbx__calloc(m->type_count, sizeof *m->rtts);
    m->typeset = sbx__calloc(1, sizeof *m->typeset);
    if (m->typeset != NULL) /* before the failure return: the release below frees at 1 */
        atomic_init(&m->typeset->refs, 1);
    if (m->rtts == NULL || m->typeset == NULL)
        return oom(&c);
    bool ok = true;
    for (uint32_t i = 0; i < m->type_count && ok;) {
        uint32_t n = m->typedefs[i].rec_len;
        ok = canon_group(&c, i, n);
        i += n;
    }
    sbx__free(c.key);
    return ok;
}

/* --- host function types ----------------------------------------------------------------- */

const struct wasm_rtt *sbx__wasm_rtt_of_functype(const struct wasm_functype *ft)
{
    uint32_t n = ft->param_count + ft->result_count;
    uint32_t *key = sbx__mallocn((size_t)n + 4, sizeof *key);
    if (key == NULL)
        return NULL;
    key[0] = WASM_COMP_FUNC | 0x100u; /* final */
    key[1] = NO_SUPER;
    key[2] = ft->param_count;
    key[3] = ft->result_count;
    for (uint32_t i = 0; i < n; i++)
        key[4 + i] = ft->types[i];
    bool is_full;
    struct wasm_recgroup *g = intern(key, n + 4, 1, &is_full);
    sbx__free(key);
    return g ? &g->rtts[0] : NULL;
}

void sbx__wasm_rtt_release(const struct wasm_rtt *rtt)
{
    if (rtt != NULL)
        group_release(rtt->group);
}
