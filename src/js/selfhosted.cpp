/* js/selfhosted.cpp: the engine's self-hosted code (its builtins written in JS) for each new
 * context. The first context of a process decodes it from the stencil file the build wrote
 * beside the module (about 4 ms), or else parses it (about 16 ms); every later context reuses
 * that stencil from memory. The file is code the engine trusts, so it is accepted only as the
 * loader found it (trusted location, js/loader.c) and only when its header names this exact
 * libmozjs (its ELF build id) and sbx version and its checksum matches; anything else is
 * parsed instead (docs/worker.md, Self-hosted stencil). */
#include "js/sm.h" /* first: see there */

#include <js/BuildId.h>
#include <js/Initialization.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "js/module.h"

#define MAGIC "SBXSHC\0\1"

struct file_header {
    char magic[8];
    uint32_t id_len; /* the build id follows the header */
    uint32_t reserved;
    uint64_t payload_len; /* the engine's XDR stencil follows the build id */
    uint64_t checksum;    /* FNV-1a of the payload: a torn or garbled file, not an attacker */
};

static char build_id_text[160]; /* sbx-<version>-mozjs-<ELF build id of libmozjs>, hex */
static bool has_elf_id;         /* else the file cache is off (the id would not be exact) */

static struct {
    pthread_mutex_t lock;
    pthread_cond_t ready; /* the first context finished */
    bool is_building;
    const uint8_t *data; /* the stencil every context after the first decodes */
    size_t len;
    const uint8_t *file; /* the file's payload, when its header checked out */
    size_t file_len;
    const char *status;
} sh = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, nullptr, 0, nullptr, 0,
        "parsed: no stencil file"};

/* FNV-1a over 8-byte words (then the tail bytes): each step is a bijection of the state, so any
 * one changed word or byte changes the sum; a byte at a time cost 0.4 ms per process. */
static uint64_t fnv1a(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325u, w;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001b3u;
    }
    for (; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3u;
    return h;
}

/* Appends the GNU build-id note of libmozjs's mapped image, in hex, to build_id_text. */
static int find_mozjs_id(struct dl_phdr_info *info, size_t, void *)
{
    if (!info->dlpi_name || !strstr(info->dlpi_name, "/libmozjs-102"))
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const uint8_t *p = reinterpret_cast<const uint8_t *>(info->dlpi_addr + ph->p_vaddr);
        const uint8_t *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *n = reinterpret_cast<const ElfW(Nhdr) *>(p);
            const uint8_t *desc = p + sizeof(*n) + ((n->n_namesz + 3u) & ~3u);
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
                !memcmp(p + sizeof(*n), "GNU", 4) && desc + n->n_descsz <= end &&
                n->n_descsz <= 64) {
                size_t at = strlen(build_id_text);
                for (uint32_t k = 0; k < n->n_descsz; k++, at += 2)
                    snprintf(build_id_text + at, sizeof(build_id_text) - at, "%02x", desc[k]);
                return 1;
            }
            p = desc + ((n->n_descsz + 3u) & ~3u);
        }
    }
    return 0;
}

static bool build_id(JS::BuildIdCharVector *id)
{
    return id->append(build_id_text, strlen(build_id_text));
}

static void make_build_id(void)
{
    snprintf(build_id_text, sizeof(build_id_text), "sbx-" SBX_VERSION "-mozjs-102-");
    has_elf_id = dl_iterate_phdr(find_mozjs_id, nullptr) == 1;
}

static pthread_once_t build_id_once = PTHREAD_ONCE_INIT;

/* Before JS_Init: encoding the stencil needs a build id (the notes measured a crash without). */
void sm_set_build_id(void)
{
    pthread_once(&build_id_once, make_build_id);
    JS::SetProcessBuildIdOp(build_id);
}

/* Why data (a stencil file) cannot be used, or NULL when its payload may go to the engine. */
static const char *check_file(const uint8_t *data, size_t len, size_t *payload_at)
{
    struct file_header h;
    size_t id_len = strlen(build_id_text);
    if (!has_elf_id)
        return "libmozjs has no ELF build id";
    if (len < sizeof(h))
        return "truncated";
    memcpy(&h, data, sizeof(h));
    if (memcmp(h.magic, MAGIC, sizeof(h.magic)) != 0)
        return "not a stencil file";
    if (h.id_len != id_len || len - sizeof(h) < id_len ||
        memcmp(data + sizeof(h), build_id_text, id_len))
        return "built for another libmozjs or sbx";
    *payload_at = sizeof(h) + id_len;
    if (h.payload_len != len - *payload_at)
        return "truncated";
    if (h.checksum != fnv1a(data + *payload_at, len - *payload_at))
        return "checksum mismatch";
    return nullptr;
}

bool sbx__js_self_hosted_offer(const uint8_t *data, size_t len)
{
    size_t at = 0;
    pthread_once(&build_id_once, make_build_id); /* the module opens before the engine starts */
    const char *why = data ? check_file(data, len, &at) : "no stencil file";
    static char status[96];
    pthread_mutex_lock(&sh.lock);
    if (why) {
        snprintf(status, sizeof(status), "parsed: %s", why);
        sh.status = status;
    } else {
        sh.file = data + at;
        sh.file_len = len - at;
        sh.status = "stencil file (not decoded yet)";
    }
    pthread_mutex_unlock(&sh.lock);
    return !why;
}

const char *sbx__js_self_hosted_status(void)
{
    pthread_mutex_lock(&sh.lock);
    const char *s = sh.status;
    pthread_mutex_unlock(&sh.lock);
    return s;
}

static bool keep(JSContext *, JS::SelfHostedCache cache)
{
    uint8_t *copy = static_cast<uint8_t *>(malloc(cache.size()));
    if (copy)
        memcpy(copy, cache.data(), cache.size());
    pthread_mutex_lock(&sh.lock);
    sh.data = copy;
    sh.len = copy ? cache.size() : 0;
    pthread_mutex_unlock(&sh.lock);
    return true;
}

/* The first context decodes the file (or parses, keeping what it parsed); contexts created
 * meanwhile (64 runs at once in a new process) wait for it rather than all parsing at once. */
bool sm_init_self_hosted(JSContext *cx)
{
    pthread_mutex_lock(&sh.lock);
    while (sh.is_building)
        pthread_cond_wait(&sh.ready, &sh.lock);
    bool is_first = !sh.data;
    sh.is_building = is_first;
    JS::SelfHostedCache cache =
        is_first ? JS::SelfHostedCache(sh.file, sh.file_len) : JS::SelfHostedCache(sh.data, sh.len);
    pthread_mutex_unlock(&sh.lock);
    /* SM keeps decoding from the span for the process's life: both buffers are never freed. */
    bool ok = JS::InitSelfHostedCode(cx, cache, is_first ? keep : nullptr);
    if (is_first) {
        pthread_mutex_lock(&sh.lock);
        if (ok && !sh.data && sh.file) { /* decoded: the writer runs only after a parse */
            sh.data = sh.file;
            sh.len = sh.file_len;
            sh.status = "stencil file";
        } else if (ok && sh.file) {
            sh.status = "parsed: the engine rejected the stencil file";
        }
        sh.is_building = false;
        pthread_cond_broadcast(&sh.ready);
        pthread_mutex_unlock(&sh.lock);
    }
    return ok;
}

static bool fail(char *err, size_t errlen, const char *what, const char *path)
{
    snprintf(err, errlen, "%s %s: %s", what, path, errno ? strerror(errno) : "failed");
    return false;
}

/* The build step (src/js/gen/stencil.c): this engine's stencil, as a file for path. */
bool sbx__js_self_hosted_write(const char *path, char *err, size_t errlen)
{
    errno = 0;
    if (!sm_thread_cx())
        return fail(err, errlen, "the engine did not start for", path);
    if (!has_elf_id)
        return fail(err, errlen, "libmozjs has no ELF build id; no stencil for", path);
    pthread_mutex_lock(&sh.lock);
    const uint8_t *data = sh.data;
    size_t len = sh.len;
    pthread_mutex_unlock(&sh.lock);
    struct file_header h = {};
    memcpy(h.magic, MAGIC, sizeof(h.magic));
    h.id_len = static_cast<uint32_t>(strlen(build_id_text));
    h.payload_len = len;
    h.checksum = fnv1a(data, len);
    char tmp[4096];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *f = fopen(tmp, "we");
    if (!f)
        return fail(err, errlen, "cannot write", tmp);
    // Not the umask's mode: the loader refuses a stencil others could write (js/loader.c).
    if (fchmod(fileno(f), 0644) != 0) {
        fclose(f);
        unlink(tmp);
        return fail(err, errlen, "cannot set the mode of", tmp);
    }
    bool ok = data && fwrite(&h, sizeof(h), 1, f) == 1 &&
              fwrite(build_id_text, h.id_len, 1, f) == 1 && fwrite(data, len, 1, f) == 1;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return fail(err, errlen, "cannot write", path);
    }
    return true;
}
