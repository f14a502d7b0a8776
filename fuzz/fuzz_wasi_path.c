/* fuzz/fuzz_wasi_path.c: the WASI path resolver against a scratch tree. Input: byte 0 picks
 * the resolver and lookup flags; then "TARGET\nPATH" plants root/fz -> TARGET before
 * resolving PATH (or just PATH). Whatever resolves must lie inside root: an escape aborts. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/policy.h"
#include "wasi/internal.h"

static char root[PATH_MAX];
static struct sbx__wasi *w;
static int root_fd = -1;

static void make_tree(const char *base)
{
    static const char *const dirs[] = {"root", "root/a", "root/a/b", "outside"};
    static const char *const links[][2] = {{"root/abs", "/etc"},      {"root/up", ".."},
                                           {"root/a/up2", "../.."},   {"root/loop", "loop"},
                                           {"root/a/b/c", "../../a"}, {"root/dot", "."},
                                           {"root/out", "../outside"}};
    char p[PATH_MAX];
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        snprintf(p, sizeof(p), "%s/%s", base, dirs[i]);
        mkdir(p, 0755);
    }
    for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
        snprintf(p, sizeof(p), "%s/%s", base, links[i][0]);
        if (symlink(links[i][1], p) != 0)
            abort();
    }
    snprintf(p, sizeof(p), "%s/root/a/file", base);
    close(open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
    snprintf(p, sizeof(p), "%s/outside/secret", base);
    close(open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
}

static void init(void)
{
    char base[] = "/tmp/sbx-fuzz-wasi-XXXXXX";
    if (!mkdtemp(base))
        abort();
    make_tree(base);
    snprintf(root, sizeof(root), "%s/root", base);
    static struct sbx__fs_grant grant;
    static struct sbx_policy policy;
    grant = (struct sbx__fs_grant){root, "/", true};
    policy.fs = &grant;
    policy.fs_count = 1;
    struct sbx__wasi_config cfg = {.policy = &policy};
    char err[256];
    if (sbx__wasi_create(&cfg, &w, err, sizeof(err)) != SBX_OK)
        abort();
    root_fd = w->fds[3].host_fd;
}

/* Aborts unless fd refers to root or something below it. */
static void check_inside(int fd)
{
    char link[64], real[PATH_MAX];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, real, sizeof(real) - 1);
    if (n < 0)
        return;
    real[n] = '\0';
    size_t rl = strlen(root);
    if (strncmp(real, root, rl) != 0 || (real[rl] != '\0' && real[rl] != '/')) {
        fprintf(stderr, "escaped the preopen: %s\n", real);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!w)
        init();
    if (size < 1 || size > 2048)
        return 0;
    uint8_t ctl = data[0];
    char buf[2049];
    memcpy(buf, data + 1, size - 1);
    buf[size - 1] = '\0';
    char *path = buf, *nl = strchr(buf, '\n');
    char planted[PATH_MAX];
    snprintf(planted, sizeof(planted), "%s/fz", root);
    if (nl) {
        *nl = '\0';
        path = nl + 1;
        if (symlink(buf, planted) != 0)
            return 0;
    }
    w->resolver = (ctl & 1) ? SBX_WASI_RESOLVE_WALK : SBX_WASI_RESOLVE_OPENAT2;
    int fd = -1;
    if (sbx__wasi_path_resolve(w, root_fd, path, (ctl & 2) != 0, (ctl & 4) ? O_RDONLY : O_PATH, 0,
                               &fd) == WASI_ESUCCESS) {
        check_inside(fd);
        close(fd);
    }
    char copy[2049];
    memcpy(copy, path, strlen(path) + 1);
    int parent = -1;
    const char *name;
    bool slash;
    if (sbx__wasi_path_parent(w, root_fd, copy, &parent, &name, &slash) == WASI_ESUCCESS) {
        check_inside(parent);
        if (strchr(name, '/') || strcmp(name, "..") == 0)
            abort(); /* the final name must be one harmless component */
        close(parent);
    }
    if (nl)
        unlink(planted);
    return 0;
}
