/* wasm/jit/cache_key.c: what a cache entry is keyed on, computed without libLLVM (a hit must
 * not load it): the module's bytes, sbx's version and the ELF build ID of the code that holds
 * the compiler (any rebuild of sbx misses), the image format, the host CPU as CPUID reports
 * it (the model and every feature leaf LLVM's host detection reads) and the tier options. */
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/utsname.h>

#include "wasm/jit/cache.h"
#include "wasm/jit/image.h"

/* The layout of sbx__jit_image_encode()'s bytes as this key knows it; the build ID below
 * changes with any change of the code anyway. */
#define IMAGE_FORMAT 1u

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

/* Leaves 0, 1, 7.0, 7.1, 0xd.1, 0x80000001 and XCR0 (which vector state the OS saves): the
 * inputs of LLVM's sys::getHostCPUName/getHostCPUFeatures on x86. */
static void hash_cpu(struct sbx__sha256 *h)
{
    static const unsigned leaves[][2] = {{0, 0}, {1, 0}, {7, 0}, {7, 1}, {0xd, 1}, {0x80000001, 0}};
    unsigned max = __get_cpuid_max(0, NULL), r[4];
    for (size_t i = 0; i < sizeof(leaves) / sizeof(leaves[0]); i++) {
        unsigned leaf = leaves[i][0];
        memset(r, 0, sizeof(r));
        if (leaf < 0x80000000u ? leaf <= max : leaf <= __get_cpuid_max(0x80000000u, NULL))
            __cpuid_count(leaf, leaves[i][1], r[0], r[1], r[2], r[3]);
        if (leaf == 1)
            r[1] &= 0x0000ffffu; /* EBX[31:24] is the APIC ID of whichever core ran this */
        sbx__sha256_update(h, r, sizeof(r));
    }
    unsigned lo = 0, hi = 0;
    __cpuid(1, r[0], r[1], r[2], r[3]);
    if (r[2] & (1u << 27)) /* OSXSAVE */
        __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    unsigned xcr0[2] = {lo, hi};
    sbx__sha256_update(h, xcr0, sizeof(xcr0));
}
#else
/* Elsewhere the kernel's hardware capability words stand for the features. */
static void hash_cpu(struct sbx__sha256 *h)
{
    unsigned long caps[2] = {getauxval(AT_HWCAP), getauxval(AT_HWCAP2)};
    sbx__sha256_update(h, caps, sizeof(caps));
}
#endif

struct build_id {
    uintptr_t addr; /* an address inside the object we want */
    uint8_t id[64];
    size_t len;
};

/* Finds the NT_GNU_BUILD_ID note of the loaded object that contains b->addr. */
static int find_build_id(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct build_id *b = arg;
    bool is_ours = false;
    for (int i = 0; i < info->dlpi_phnum && !is_ours; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + p->p_vaddr;
        is_ours = p->p_type == PT_LOAD && b->addr >= start && b->addr < start + p->p_memsz;
    }
    for (int i = 0; is_ours && i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        if (p->p_type != PT_NOTE)
            continue;
        const uint8_t *n = (const uint8_t *)(info->dlpi_addr + p->p_vaddr), *end = n + p->p_memsz;
        while (n + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(const void *)n;
            const uint8_t *desc = n + sizeof(*nh) + ((nh->n_namesz + 3) & ~3u);
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
                memcmp(n + sizeof(*nh), "GNU", 4) == 0 && nh->n_descsz <= sizeof(b->id)) {
                memcpy(b->id, desc, nh->n_descsz);
                b->len = nh->n_descsz;
                return 1;
            }
            n = desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
    return is_ours;
}

static uint8_t host_digest[SBX__SHA256_LEN];
static pthread_once_t host_once = PTHREAD_ONCE_INIT;

/* What is the same for every key of this process: the build, the image format, the CPU. Once,
 * since CPUID may trap to a hypervisor. */
static void hash_host(void)
{
    static const char domain[] = "sbx jit cache key v1";
    struct build_id b = {.addr = (uintptr_t)(void *)sbx__jit_cache_key};
    dl_iterate_phdr(find_build_id, &b);
    struct utsname u;
    char head[512];
    int n = snprintf(head, sizeof(head), "%s|%s|image %u|%s|", domain, SBX_VERSION, IMAGE_FORMAT,
                     uname(&u) == 0 ? u.machine : "?");
    struct sbx__sha256 h;
    sbx__sha256_init(&h);
    sbx__sha256_update(&h, head, n > 0 ? (size_t)n : 0);
    sbx__sha256_update(&h, b.id, b.len);
    hash_cpu(&h);
    sbx__sha256_final(&h, host_digest);
}

void sbx__jit_cache_key(const uint8_t *bytes, size_t len, const char *opts,
                        uint8_t key[SBX__SHA256_LEN])
{
    pthread_once(&host_once, hash_host);
    uint64_t module_len = len;
    struct sbx__sha256 h;
    sbx__sha256_init(&h);
    sbx__sha256_update(&h, host_digest, sizeof(host_digest));
    sbx__sha256_update(&h, opts, strlen(opts) + 1);
    sbx__sha256_update(&h, &module_len, sizeof(module_len));
    sbx__sha256_update(&h, bytes, len);
    sbx__sha256_final(&h, key);
}
