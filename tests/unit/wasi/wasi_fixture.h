/* tests/unit/wasi/wasi_fixture.h: a scratch tree and a WASI context over it for the wasi unit
 * tests. The tree is <tmp>/root (the preopen) next to <tmp>/outside (what must stay out). */
#ifndef SBX_TEST_WASI_FIXTURE_H
#define SBX_TEST_WASI_FIXTURE_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/policy.h"
#include "wasi/internal.h"

struct fixture {
    char base[64];
    char root[96];
    char outside[96];
    struct sbx_policy policy;
    struct sbx__fs_grant grant;
    struct sbx__wasi *w;
    int root_fd; /* the preopen's host fd */
    int denials;
    char last_denial[32];
};

static inline void fx_path(const struct fixture *fx, char *out, size_t cap, const char *rel)
{
    snprintf(out, cap, "%s/%s", fx->base, rel);
}

static inline void fx_file(const struct fixture *fx, const char *rel, const char *text)
{
    char p[256];
    fx_path(fx, p, sizeof(p), rel);
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static inline void fx_dir(const struct fixture *fx, const char *rel)
{
    char p[256];
    fx_path(fx, p, sizeof(p), rel);
    ck_assert_int_eq(mkdir(p, 0755), 0);
}

static inline void fx_link(const struct fixture *fx, const char *rel, const char *target)
{
    char p[256];
    fx_path(fx, p, sizeof(p), rel);
    ck_assert_int_eq(symlink(target, p), 0);
}

static inline bool fx_exists(const struct fixture *fx, const char *rel)
{
    char p[256];
    struct stat st;
    fx_path(fx, p, sizeof(p), rel);
    return lstat(p, &st) == 0;
}

static inline void fx_on_denied(void *user, const char *cap)
{
    struct fixture *fx = user;
    fx->denials++;
    snprintf(fx->last_denial, sizeof(fx->last_denial), "%s", cap);
}

/* Creates the tree and a context preopening root as "/" (writable unless read_only). */
static inline void fx_setup(struct fixture *fx, bool read_only, enum sbx__wasi_resolver mode)
{
    memset(fx, 0, sizeof(*fx));
    snprintf(fx->base, sizeof(fx->base), "/tmp/sbx-wasi-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(fx->base));
    snprintf(fx->root, sizeof(fx->root), "%s/root", fx->base);
    snprintf(fx->outside, sizeof(fx->outside), "%s/outside", fx->base);
    fx_dir(fx, "root");
    fx_dir(fx, "outside");
    fx_file(fx, "outside/secret.txt", "secret\n");
    fx->grant = (struct sbx__fs_grant){fx->root, "/", !read_only};
    fx->policy.fs = &fx->grant;
    fx->policy.fs_count = 1;
    struct sbx__wasi_config cfg = {
        .policy = &fx->policy, .on_denied = fx_on_denied, .user = fx, .resolver = mode};
    char err[256];
    ck_assert_int_eq(sbx__wasi_create(&cfg, &fx->w, err, sizeof(err)), SBX_OK);
    fx->root_fd = fx->w->fds[3].host_fd;
}

static inline void fx_teardown(struct fixture *fx)
{
    sbx__wasi_destroy(fx->w);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx->base);
    ck_assert_int_eq(system(cmd), 0);
}

#endif
