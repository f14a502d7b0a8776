/* js/account.c: libmozjs's malloc, calloc, realloc, free and malloc_usable_size go through
 * wrappers that put a 16-byte header before each block: a tag (a per-process secret mixed with
 * the block's address) and the owning account plus size. A block without a valid tag (allocated
 * before the patch, by memalign, or by another library) is passed through untouched; the tag
 * check reads the 16 bytes before the pointer, which are glibc's own chunk header for such a
 * block (always mapped), and never touches memory the wrappers did not hand out otherwise. */
#include "js/account.h"

#include <elf.h>
#include <link.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#define HDR       16u
#define ACCOUNTS  4096u
#define SIZE_BITS 48
#define SIZE_MASK ((UINT64_C(1) << SIZE_BITS) - 1)
/* Past its cap a run is stopped at its next interrupt check, and until then the engine keeps
 * getting what it asks for: many of its allocations must not fail (it crashes the process on
 * them: Irregexp's zone, the GC's store buffer and unique-id tables, ...; js/oom.cpp). Only
 * once the run is OVERSHOOT past its cap are blocks of LARGE_BYTES or more refused, so a single
 * huge request (an ArrayBuffer, a string) still fails as the out-of-memory error it can be. */
#define LARGE_BYTES (64u * 1024u)
/* The overshoot is the larger of the cap itself and this. */
#define OVERSHOOT_MIN_BYTES (64u << 20)

struct account {
    _Atomic int64_t live; /* bytes in blocks of this account, headers included */
    _Atomic bool is_used;
};

struct run_state {
    int64_t limit; /* passing this stops the run at its next interrupt check */
    int64_t hard;  /* past this, blocks of LARGE_BYTES or more are refused */
    int64_t start;
    int64_t peak;
    uint64_t refused; /* blocks refused during the run */
    bool is_active;
    bool is_over;
    void (*over)(void *);
    void *arg;
};

static struct account accounts[ACCOUNTS]; /* [0]: blocks of threads without an account */
static uint64_t secret;
static _Thread_local unsigned my_account;
static _Thread_local struct run_state run;
static _Thread_local int in_alloc; /* inside the allocator (read by the throttle handler) */
static pthread_once_t install_once = PTHREAD_ONCE_INIT;
static bool is_installed;

__attribute__((no_sanitize("address"))) static bool is_ours(void *p, uint64_t *word)
{
    const uint64_t *h = (const uint64_t *)((char *)p - HDR);
    if (h[0] != (secret ^ (uintptr_t)p))
        return false;
    *word = h[1];
    return true;
}

static void *tag(void *base, size_t size)
{
    if (!base)
        return NULL;
    char *p = (char *)base + HDR;
    uint64_t *h = (uint64_t *)base;
    h[0] = secret ^ (uintptr_t)p;
    h[1] = ((uint64_t)my_account << SIZE_BITS) | (size & SIZE_MASK);
    atomic_fetch_add_explicit(&accounts[my_account].live, (int64_t)size, memory_order_relaxed);
    return p;
}

static void untag(void *p, uint64_t word)
{
    ((uint64_t *)((char *)p - HDR))[0] = 0; /* a stale tag must not validate a later block */
    atomic_fetch_sub_explicit(&accounts[word >> SIZE_BITS].live, (int64_t)(word & SIZE_MASK),
                              memory_order_relaxed);
}

/* Whether a block of size bytes may be allocated now by this thread's run. */
static bool admit(size_t size)
{
    if (!run.is_active || !my_account)
        return true;
    int64_t after =
        atomic_load_explicit(&accounts[my_account].live, memory_order_relaxed) + (int64_t)size;
    if (after - run.start > run.peak)
        run.peak = after - run.start;
    if (after <= run.limit)
        return true;
    if (size >= LARGE_BYTES && after > run.hard) {
        run.refused++; /* never allocated: the run is no more over its cap than before */
        return false;
    }
    if (!run.is_over) {
        run.is_over = true;
        if (run.over)
            run.over(run.arg);
    }
    return true;
}

static void *hook_malloc(size_t n)
{
    if (n > SIZE_MASK - HDR || !admit(n + HDR))
        return NULL;
    in_alloc++;
    void *p = tag(malloc(n + HDR), n + HDR);
    in_alloc--;
    return p;
}

static void *hook_calloc(size_t count, size_t size)
{
    size_t n;
    if (__builtin_mul_overflow(count, size, &n) || n > SIZE_MASK - HDR || !admit(n + HDR))
        return NULL;
    in_alloc++;
    void *p = tag(calloc(1, n + HDR), n + HDR);
    in_alloc--;
    return p;
}

static void hook_free(void *p)
{
    uint64_t word;
    in_alloc++;
    if (!p || !is_ours(p, &word)) {
        free(p);
    } else {
        untag(p, word);
        free((char *)p - HDR);
    }
    in_alloc--;
}

static size_t hook_usable(void *p)
{
    uint64_t word;
    if (!p || !is_ours(p, &word))
        return malloc_usable_size(p);
    return (word & SIZE_MASK) - HDR;
}

static void *hook_realloc(void *p, size_t n)
{
    uint64_t word;
    if (!p)
        return hook_malloc(n);
    if (!is_ours(p, &word)) { /* adopt a foreign block: copy it into a counted one */
        void *q = hook_malloc(n);
        if (q) {
            size_t old = malloc_usable_size(p);
            memcpy(q, p, old < n ? old : n);
            free(p);
        }
        return q;
    }
    size_t old = word & SIZE_MASK;
    if (n > SIZE_MASK - HDR || (n + HDR > old && !admit(n + HDR - old)))
        return NULL;
    in_alloc++;
    void *q = realloc((char *)p - HDR, n + HDR);
    in_alloc--;
    if (!q)
        return NULL;
    atomic_fetch_sub_explicit(&accounts[word >> SIZE_BITS].live, (int64_t)old,
                              memory_order_relaxed);
    return tag(q, n + HDR);
}

void *sbx__js_malloc(size_t n)
{
    return hook_malloc(n);
}

void *sbx__js_calloc(size_t count, size_t size)
{
    return hook_calloc(count, size);
}

void *sbx__js_realloc(void *p, size_t n)
{
    return hook_realloc(p, n);
}

void sbx__js_free(void *p)
{
    hook_free(p);
}

static const struct {
    const char *name;
    void *hook;
} hooks[] = {
    {"malloc", (void *)hook_malloc},
    {"calloc", (void *)hook_calloc},
    {"realloc", (void *)hook_realloc},
    {"free", (void *)hook_free},
    {"malloc_usable_size", (void *)hook_usable},
    /* tz.c: the engine's own environment and clock */
    {"environ", (void *)&sbx__js_engine_environ},
    {"localtime_r", (void *)sbx__js_tz_localtime_r},
    {"mktime", (void *)sbx__js_tz_mktime},
    {"tzset", (void *)sbx__js_tz_tzset},
    {"__timezone", (void *)&sbx__js_tz_timezone},
    {"tzname", (void *)sbx__js_tz_tzname},
};

struct image {
    ElfW(Addr) base;
    const ElfW(Dyn) * dyn;
    ElfW(Addr) relro_lo, relro_hi;
};

static ElfW(Addr) dyn_ptr(const struct image *im, ElfW(Sxword) tag_kind)
{
    for (const ElfW(Dyn) *d = im->dyn; d->d_tag != DT_NULL; d++)
        if (d->d_tag == tag_kind)
            return d->d_un.d_ptr < im->base ? d->d_un.d_ptr + im->base : d->d_un.d_ptr;
    return 0;
}

static ElfW(Xword) dyn_val(const struct image *im, ElfW(Sxword) tag_kind)
{
    for (const ElfW(Dyn) *d = im->dyn; d->d_tag != DT_NULL; d++)
        if (d->d_tag == tag_kind)
            return d->d_un.d_val;
    return 0;
}

static bool write_slot(const struct image *im, void **slot, void *value)
{
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t lo = (uintptr_t)slot & ~(uintptr_t)(page - 1);
    if (mprotect((void *)lo, (size_t)page, PROT_READ | PROT_WRITE) != 0)
        return false;
    *slot = value;
    if ((ElfW(Addr))slot >= im->relro_lo && (ElfW(Addr))slot < im->relro_hi)
        mprotect((void *)lo, (size_t)page, PROT_READ);
    return true;
}

/* Points every GOT slot of the image that names a hooked function at its hook. */
static int patch_relocs(const struct image *im, const ElfW(Rela) * rel, size_t bytes)
{
    const ElfW(Sym) *symtab = (const ElfW(Sym) *)dyn_ptr(im, DT_SYMTAB);
    const char *strtab = (const char *)dyn_ptr(im, DT_STRTAB);
    int patched = 0;
    for (size_t i = 0; rel && symtab && strtab && i < bytes / sizeof(*rel); i++) {
        unsigned long type = ELF64_R_TYPE(rel[i].r_info);
        if (type != R_X86_64_GLOB_DAT && type != R_X86_64_JUMP_SLOT)
            continue;
        const char *name = strtab + symtab[ELF64_R_SYM(rel[i].r_info)].st_name;
        for (size_t k = 0; k < sizeof(hooks) / sizeof(hooks[0]); k++)
            if (strcmp(name, hooks[k].name) == 0 &&
                write_slot(im, (void **)(im->base + rel[i].r_offset), hooks[k].hook))
                patched++;
    }
    return patched;
}

static int patch_image(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    if (!info->dlpi_name || !strstr(info->dlpi_name, "libmozjs-102"))
        return 0;
    struct image im = {.base = info->dlpi_addr};
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_DYNAMIC)
            im.dyn = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
        if (ph->p_type == PT_GNU_RELRO) {
            im.relro_lo = info->dlpi_addr + ph->p_vaddr;
            im.relro_hi = im.relro_lo + ph->p_memsz;
        }
    }
    if (!im.dyn)
        return 0;
    int n = patch_relocs(&im, (const ElfW(Rela) *)dyn_ptr(&im, DT_RELA), dyn_val(&im, DT_RELASZ));
    n += patch_relocs(&im, (const ElfW(Rela) *)dyn_ptr(&im, DT_JMPREL), dyn_val(&im, DT_PLTRELSZ));
    *(int *)data = n;
    return 1;
}

static void install(void)
{
    if (getrandom(&secret, sizeof(secret), 0) != sizeof(secret))
        return;
    secret |= 1; /* never 0, so a zeroed header is never a valid tag */
    int patched = 0;
    dl_iterate_phdr(patch_image, &patched);
    is_installed = patched >= 4; /* malloc, calloc, realloc, free at least */
}

bool sbx__js_account_install(void)
{
    pthread_once(&install_once, install);
    return is_installed;
}

bool sbx__js_account_attach(void)
{
    for (unsigned i = 1; i < ACCOUNTS; i++) {
        bool expected = false;
        if (atomic_compare_exchange_strong(&accounts[i].is_used, &expected, true)) {
            atomic_store(&accounts[i].live, 0);
            my_account = i;
            return true;
        }
    }
    return false;
}

void sbx__js_account_detach(void)
{
    if (my_account)
        atomic_store(&accounts[my_account].is_used, false);
    my_account = 0;
}

void sbx__js_account_begin(uint64_t cap_bytes, void (*over)(void *arg), void *arg)
{
    int64_t now = atomic_load(&accounts[my_account].live);
    int64_t cap = cap_bytes > INT64_MAX / 8 ? INT64_MAX / 8 : (int64_t)cap_bytes;
    int64_t overshoot = cap > (int64_t)OVERSHOOT_MIN_BYTES ? cap : (int64_t)OVERSHOOT_MIN_BYTES;
    run = (struct run_state){.limit = now + cap,
                             .hard = now + cap + overshoot,
                             .start = now,
                             .is_active = true,
                             .over = over,
                             .arg = arg};
}

bool sbx__js_account_end(void)
{
    bool was_over = run.is_over;
    run.is_active = false;
    run.is_over = false;
    return was_over;
}

bool sbx__js_account_in_alloc(void)
{
    return in_alloc != 0;
}

bool sbx__js_account_is_over(void)
{
    return run.is_over;
}

uint64_t sbx__js_account_live_bytes(void)
{
    int64_t v = atomic_load(&accounts[my_account].live);
    return v > 0 ? (uint64_t)v : 0;
}

uint64_t sbx__js_account_refused_count(void)
{
    return run.refused;
}

uint64_t sbx__js_account_peak_bytes(void)
{
    return run.peak > 0 ? (uint64_t)run.peak : 0;
}
