/* wasi/preopen.c: policy.fs grants -> the guest's preopened directories (the seed's
 * buildWasiPreopens / matchPreopen). One preopen per guest path: duplicates merge, and a
 * merged entry is writable only if some grant said "rw:"; the first grant's host path wins. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/path.h"
#include "wasi/internal.h"

/* Returns guest with "." and empty components dropped and no trailing '/'; "/" stays "/" and
 * a relative path that reduces to nothing becomes ".". NULL on NOMEM. */
static char *normalise_guest(const char *guest)
{
    size_t len = strlen(guest);
    char *out = sbx__mallocn(len + 2, 1);
    if (!out)
        return NULL;
    size_t o = 0;
    bool is_abs = guest[0] == '/';
    if (is_abs)
        out[o++] = '/';
    for (const char *p = guest; *p;) {
        while (*p == '/')
            p++;
        const char *start = p;
        while (*p && *p != '/')
            p++;
        size_t n = (size_t)(p - start);
        if (n == 0 || (n == 1 && start[0] == '.'))
            continue;
        if (o > 0 && out[o - 1] != '/')
            out[o++] = '/';
        memcpy(out + o, start, n);
        o += n;
    }
    if (o == 0)
        out[o++] = '.';
    out[o] = '\0';
    return out;
}

void sbx__wasi_preopens_free(sbx_preopen *list, size_t count)
{
    if (!list)
        return;
    for (size_t i = 0; i < count; i++) {
        sbx__free(list[i].host_path);
        sbx__free(list[i].guest_path);
    }
    sbx__free(list);
}

static long find_guest(const sbx_preopen *list, size_t count, const char *guest)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(list[i].guest_path, guest) == 0)
            return (long)i;
    return -1;
}

sbx_err sbx__wasi_preopens_build(const struct sbx_policy *policy, sbx_preopen **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    size_t n = policy ? policy->fs_count : 0;
    if (n == 0)
        return SBX_OK;
    sbx_preopen *list = sbx__calloc(n, sizeof(*list));
    if (!list)
        return SBX_E_NOMEM;
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        const struct sbx__fs_grant *g = &policy->fs[i];
        char *guest = normalise_guest(g->guest_path ? g->guest_path : g->host_path);
        if (!guest)
            goto nomem;
        long dup = find_guest(list, used, guest);
        if (dup >= 0) {
            list[dup].is_writable = list[dup].is_writable || g->is_writable;
            sbx__free(guest);
            continue;
        }
        list[used].guest_path = guest;
        list[used].host_path = sbx__strdup(g->host_path);
        list[used].is_writable = g->is_writable;
        used++;
        if (!list[used - 1].host_path)
            goto nomem;
    }
    *out = list;
    *count = used;
    return SBX_OK;
nomem:
    sbx__wasi_preopens_free(list, used);
    return SBX_E_NOMEM;
}

/* Returns the length of prefix when it is a component-wise prefix of path, else 0. */
static size_t prefix_len(const char *prefix, const char *path)
{
    size_t n = strlen(prefix);
    if (strcmp(prefix, "/") == 0)
        return path[0] == '/' ? 1 : 0;
    if (strcmp(prefix, ".") == 0)
        return path[0] == '/' ? 0 : 1;
    if (strncmp(prefix, path, n) != 0)
        return 0;
    return (path[n] == '\0' || path[n] == '/') ? n : 0;
}

long sbx__wasi_preopen_match(const sbx_preopen *list, size_t count, const char *guest_path,
                             const char **rest)
{
    long best = -1;
    size_t best_len = 0;
    for (size_t i = 0; i < count; i++) {
        if (!list[i].guest_path)
            continue; /* a hole in a caller-built list (sbx_preopen_match) is nobody's prefix */
        size_t n = prefix_len(list[i].guest_path, guest_path);
        if (n > best_len) {
            best = (long)i;
            best_len = n;
        }
    }
    if (best >= 0 && rest) {
        const char *r = guest_path + best_len;
        if (strcmp(list[best].guest_path, ".") == 0)
            r = guest_path;
        while (*r == '/')
            r++;
        *rest = *r ? r : ".";
    }
    return best;
}

sbx_err sbx__wasi_preopen_open(const sbx_preopen *p, int *fd, char *err, size_t errlen)
{
    /* Never through a symlink: one a guest planted in an earlier run (path_symlink, or a
     * process-tier guest's ln -s /etc) would otherwise turn this grant into the host's /etc. */
    int rc = sbx__path_open_nofollow(p->host_path, O_RDONLY | O_DIRECTORY);
    if (rc == -EACCES)
        rc = sbx__path_open_nofollow(p->host_path, O_PATH | O_DIRECTORY);
    if (rc < 0) {
        snprintf(err, errlen, "cannot open preopen %s: %s (policy.fs grant of guest path %s)",
                 p->host_path, sbx__path_open_error(rc), p->guest_path);
        return SBX_E_INVALID_OPTIONS;
    }
    *fd = rc;
    return SBX_OK;
}
