/* jail/plan.c: builds the child's read-only plan in the parent, where allocating is allowed.
 * Guest paths are checked here (absolute, no "..") because the child trusts the plan. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/landlock.h>

#include "jail/plan.h"
#include "core/engine_module.h"
#include "util/alloc.h"
#include "util/path.h"

struct plan_ctx {
    struct sbx__jail_spec *spec;
    size_t mount_cap;
    size_t rule_cap;
    bool is_nomem;
};

static char *join(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = sbx__mallocn(la + lb + 1, 1);
    if (s) {
        memcpy(s, a, la);
        memcpy(s + la, b, lb + 1);
    }
    return s;
}

static void add_mount(struct plan_ctx *c, enum sbx__jail_mount_kind kind, const char *src,
                      const char *guest, bool is_dir)
{
    struct sbx__jail_spec *s = c->spec;
    if (c->is_nomem || s->mount_count == c->mount_cap) {
        c->is_nomem = true;
        return;
    }
    struct sbx__jail_mount *m = &s->mounts[s->mount_count];
    m->kind = kind;
    m->src = src ? sbx__strdup(src) : NULL;
    m->dst = join(s->root_dir, guest);
    m->is_dir = is_dir;
    m->grant = -1;
    if ((src && !m->src) || !m->dst) {
        c->is_nomem = true;
        return;
    }
    s->mount_count++;
}

static void add_rule(struct plan_ctx *c, const char *guest, uint64_t access)
{
    struct sbx__jail_spec *s = c->spec;
    if (s->landlock_abi <= 0)
        return;
    if (c->is_nomem || s->rule_count == c->rule_cap) {
        c->is_nomem = true;
        return;
    }
    s->rules[s->rule_count].path = sbx__strdup(guest);
    s->rules[s->rule_count].access = access;
    if (!s->rules[s->rule_count].path)
        c->is_nomem = true;
    else
        s->rule_count++;
}

/* A read-only file bind at guest. The host clones it here as a detached mount (open_tree(2)),
 * with its own rights: the child, which maps to nobody under a root host, may not be able to
 * reach the file's directory (a private prefix of mode 0700, #23 item 5). A host without
 * CAP_SYS_ADMIN cannot clone; its child is the caller's own uid and binds by path. */
static void add_file_bind(struct plan_ctx *c, const char *src, const char *guest)
{
    int tree = open_tree(AT_FDCWD, src, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
    struct mount_attr ma = {.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV};
    if (tree >= 0 && mount_setattr(tree, "", AT_EMPTY_PATH, &ma, sizeof(ma)) != 0) {
        close(tree);
        tree = -1;
    }
    struct sbx__jail_spec *s = c->spec;
    if (tree >= 0 && s->tree_count == SBX__JAIL_TREES) {
        close(tree);
        tree = -1;
    }
    size_t before = s->mount_count;
    add_mount(c, tree >= 0 ? SBX__MNT_TREE : SBX__MNT_BIND, src, guest, false);
    if (tree >= 0 && s->mount_count > before) {
        s->mounts[before].tree = (int)s->tree_count;
        s->tree_fds[s->tree_count++] = tree;
    } else if (tree >= 0) {
        close(tree);
    }
    add_rule(c, guest, LANDLOCK_ACCESS_FS_READ_FILE);
}

/* The engine module and its stencil file, for a guest that runs sbx's JavaScript (js/loader.c
 * finds them at their fixed place in the jail), unless /usr holds them already. A run of any
 * other program does not depend on them at all. */
static void plan_engine(struct plan_ctx *c)
{
    const char *js = sbx__engine_module_path();
    if (strncmp(js, "/usr/", 5) == 0 || access(js, R_OK) != 0)
        return;
    add_file_bind(c, js, SBX_JS_MODULE_JAIL);
    char stencil[PATH_MAX];
    if (sbx__engine_stencil_path(js, stencil, sizeof(stencil)) && access(stencil, R_OK) == 0)
        add_file_bind(c, stencil, SBX_JS_STENCIL_JAIL);
}

/* /usr, and /bin, /lib... as symlinks (merged /usr) or read-only binds. */
static void plan_system(struct plan_ctx *c, const struct sbx_policy *p, bool is_js)
{
    static const char *const tops[] = {"/usr",   "/bin",   "/sbin",  "/lib",
                                       "/lib64", "/lib32", "/libx32"};
    uint64_t rd = sbx__jail_landlock_read_access();
    /* Listing directories anywhere: only mount points and binds exist to be listed. */
    add_rule(c, "/", LANDLOCK_ACCESS_FS_READ_DIR);
    for (size_t i = 0; i < sizeof(tops) / sizeof(tops[0]); i++) {
        struct stat st;
        if (lstat(tops[i], &st) != 0)
            continue;
        if (S_ISLNK(st.st_mode)) {
            char target[PATH_MAX];
            ssize_t n = readlink(tops[i], target, sizeof(target) - 1);
            if (n <= 0)
                continue;
            target[n] = '\0';
            add_mount(c, SBX__MNT_SYMLINK, target, tops[i], false);
        } else if (S_ISDIR(st.st_mode)) {
            add_mount(c, SBX__MNT_BIND, tops[i], tops[i], true);
            add_rule(c, tops[i], rd);
        }
    }
    if (is_js)
        plan_engine(c);
    /* What the dynamic loader and Debian's interpreter symlinks need from /etc, nothing more. */
    add_mount(c, SBX__MNT_DIR, NULL, "/etc", true);
    static const char *const etc[] = {"/etc/ld.so.cache", "/etc/alternatives"};
    for (size_t i = 0; i < sizeof(etc) / sizeof(etc[0]); i++) {
        struct stat st;
        if (stat(etc[i], &st) == 0)
            add_mount(c, SBX__MNT_BIND, etc[i], etc[i], S_ISDIR(st.st_mode));
    }
    /* net.outbound: names go to the broker's DNS stub on the jail's loopback (gate_stub.c). */
    if (p->outbound_count > 0)
        add_mount(c, SBX__MNT_FILE, "nameserver 127.0.0.1\n", "/etc/resolv.conf", false);
    add_rule(c, "/etc", rd);
}

/* Fresh /proc with the kernel-wide knobs read-only; /dev with five harmless nodes. */
static void plan_proc_dev_tmp(struct plan_ctx *c, const struct sbx_policy *p)
{
    add_mount(c, SBX__MNT_PROC, NULL, "/proc", true);
    static const char *const ro[][2] = {
        {"/proc/sys", "d"}, {"/proc/sysrq-trigger", "f"}, {"/proc/irq", "d"}, {"/proc/bus", "d"}};
    for (size_t i = 0; i < sizeof(ro) / sizeof(ro[0]); i++) {
        char *self = join(c->spec->root_dir, ro[i][0]);
        if (!self) {
            c->is_nomem = true;
            return;
        }
        add_mount(c, SBX__MNT_BIND, self, ro[i][0], ro[i][1][0] == 'd');
        if (!c->is_nomem)
            c->spec->mounts[c->spec->mount_count - 1].is_optional = true;
        sbx__free(self);
    }
    /* Host information a guest has no use for (docker's and runc's masked paths, plus the
     * kernel's config and command line, which can name the hypervisor's vsock ports). */
    static const char *const masked[] = {
        "/proc/cmdline",     "/proc/config.gz",  "/proc/kallsyms",      "/proc/kcore",
        "/proc/keys",        "/proc/key-users",  "/proc/latency_stats", "/proc/modules",
        "/proc/sched_debug", "/proc/timer_list", "/proc/timer_stats",   "/proc/acpi",
        "/proc/asound",      "/proc/scsi"};
    for (size_t i = 0; i < sizeof(masked) / sizeof(masked[0]); i++)
        add_mount(c, SBX__MNT_MASK, NULL, masked[i], false);
    add_rule(c, "/proc", sbx__jail_landlock_read_access() | LANDLOCK_ACCESS_FS_WRITE_FILE);
    add_mount(c, SBX__MNT_TMPFS, "mode=0755,size=64k,nr_inodes=64", "/dev", true);
    static const char *const devs[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
                                       "/dev/urandom"};
    for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]); i++)
        add_mount(c, SBX__MNT_BIND_DEV, devs[i], devs[i], false);
    static const char *const links[][2] = {{"/proc/self/fd", "/dev/fd"},
                                           {"/proc/self/fd/0", "/dev/stdin"},
                                           {"/proc/self/fd/1", "/dev/stdout"},
                                           {"/proc/self/fd/2", "/dev/stderr"}};
    for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
        add_mount(c, SBX__MNT_SYMLINK, links[i][0], links[i][1], false);
    add_mount(c, SBX__MNT_READONLY, NULL, "/dev", true);
    add_rule(c, "/dev", sbx__jail_landlock_dev_access(c->spec->landlock_abi));
    /* /tmp is charged to the memory cgroup; its size cap keeps rlimit-only hosts bounded too. */
    char data[96];
    uint64_t size = p->memory_bytes < (256ull << 20) ? p->memory_bytes : (256ull << 20);
    snprintf(data, sizeof(data), "mode=1777,size=%llu,nr_inodes=4096", (unsigned long long)size);
    add_mount(c, SBX__MNT_TMPFS, data, "/tmp", true);
    add_rule(c, "/tmp",
             sbx__jail_landlock_read_access() |
                 sbx__jail_landlock_write_access(c->spec->landlock_abi));
}

static bool guest_path_ok(const char *g)
{
    if (g[0] != '/' || strcmp(g, "/") == 0 || strlen(g) >= PATH_MAX / 2)
        return false;
    for (const char *s = g; (s = strstr(s, "/..")) != NULL; s += 3) {
        if (s[3] == '/' || s[3] == '\0')
            return false;
    }
    static const char *const reserved[] = {"/proc", "/dev", "/sbx"};
    for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++) {
        size_t n = strlen(reserved[i]);
        if (strncmp(g, reserved[i], n) == 0 && (g[n] == '/' || g[n] == '\0'))
            return false;
    }
    return true;
}

/* Checks the grant's host path here, for a message naming it; the child opens it again the
 * same way and binds what it opened, so nothing swapped in between is followed either. */
static sbx_err check_grant(size_t i, const struct sbx__fs_grant *g, bool *is_dir, char *err,
                           size_t errlen)
{
    if (!guest_path_ok(g->guest_path)) {
        snprintf(err, errlen, "policy.fs[%zu]: guest path '%s' is not allowed", i, g->guest_path);
        return SBX_E_INVALID_OPTIONS;
    }
    int fd = sbx__path_open_nofollow(g->host_path, O_PATH);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) != 0)
        fd = -errno;
    if (fd < 0) {
        snprintf(err, errlen, "policy.fs[%zu]: %s: %s", i, g->host_path, sbx__path_open_error(fd));
        return SBX_E_INVALID_OPTIONS;
    }
    close(fd);
    *is_dir = S_ISDIR(st.st_mode);
    return SBX_OK;
}

static sbx_err plan_grants(struct plan_ctx *c, const struct sbx_policy *p, char *err, size_t errlen)
{
    struct sbx__jail_spec *s = c->spec;
    for (size_t i = 0; i < p->fs_count; i++) {
        const struct sbx__fs_grant *g = &p->fs[i];
        bool is_dir;
        sbx_err e = check_grant(i, g, &is_dir, err, errlen);
        if (e)
            return e;
        add_mount(c, g->is_writable ? SBX__MNT_BIND_RW : SBX__MNT_BIND, g->host_path, g->guest_path,
                  is_dir);
        if (!c->is_nomem) {
            s->mounts[s->mount_count - 1].is_grant = true;
            s->mounts[s->mount_count - 1].grant = (int)i;
        }
        uint64_t access = sbx__jail_landlock_read_access();
        if (g->is_writable)
            access |= sbx__jail_landlock_write_access(s->landlock_abi);
        if (!is_dir)
            access &= sbx__jail_landlock_file_access();
        size_t before = s->rule_count;
        add_rule(c, g->guest_path, access);
        if (s->rule_count > before)
            s->rules[before].grant_slot = i + 1;
    }
    return SBX_OK;
}

sbx_err sbx__jail_plan_fs(struct sbx__jail_spec *spec, const struct sbx_policy *p,
                          const char *input_dir, char *err, size_t errlen)
{
    struct plan_ctx c = {.spec = spec, .mount_cap = 56 + p->fs_count, .rule_cap = 16 + p->fs_count};
    spec->mounts = sbx__calloc(c.mount_cap, sizeof(*spec->mounts));
    spec->rules = sbx__calloc(c.rule_cap, sizeof(*spec->rules));
    spec->grant_fds = sbx__calloc(p->fs_count + 1, sizeof(*spec->grant_fds));
    if (!spec->mounts || !spec->rules || !spec->grant_fds)
        return SBX_E_NOMEM;
    spec->grant_count = p->fs_count;
    for (size_t i = 0; i < p->fs_count; i++)
        spec->grant_fds[i] = -1;
    plan_system(&c, p, spec->exec_fd >= 0);
    plan_proc_dev_tmp(&c, p);
    if (input_dir) {
        add_mount(&c, SBX__MNT_BIND, input_dir, "/sbx", true);
        add_rule(&c, "/sbx", sbx__jail_landlock_read_access());
    }
    sbx_err e = plan_grants(&c, p, err, errlen);
    if (e)
        return e;
    return c.is_nomem ? SBX_E_NOMEM : SBX_OK;
}

/* execvp(3) semantics without a PATH walk in the child: every candidate is joined here. */
static sbx_err plan_candidates(struct sbx__jail_spec *spec, const struct sbx_policy *p,
                               const char *cmd)
{
    const char *path = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin";
    for (size_t i = 0; i < p->env_count; i++) {
        if (strcmp(p->env[i].name, "PATH") == 0)
            path = p->env[i].value;
    }
    bool has_slash = strchr(cmd, '/') != NULL;
    size_t n = 1;
    for (const char *s = path; *s; s++)
        n += *s == ':';
    spec->exec_paths = sbx__calloc(has_slash ? 1 : n, sizeof(char *));
    if (!spec->exec_paths)
        return SBX_E_NOMEM;
    if (has_slash) {
        spec->exec_paths[0] = sbx__strdup(cmd);
        spec->exec_path_count = spec->exec_paths[0] ? 1 : 0;
        return spec->exec_paths[0] ? SBX_OK : SBX_E_NOMEM;
    }
    for (const char *s = path; spec->exec_path_count < n;) {
        const char *end = strchr(s, ':');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        if (len > 0 && s[0] == '/') {
            char *dir = sbx__strndup(s, len);
            char *full = dir ? join(dir, "/") : NULL;
            char *cand = full ? join(full, cmd) : NULL;
            sbx__free(dir);
            sbx__free(full);
            if (!cand)
                return SBX_E_NOMEM;
            spec->exec_paths[spec->exec_path_count++] = cand;
        }
        if (!end)
            break;
        s = end + 1;
    }
    return SBX_OK;
}

static char **copy_argv(const char *const *argv)
{
    size_t n = 0;
    while (argv[n])
        n++;
    char **out = sbx__calloc(n + 1, sizeof(char *));
    for (size_t i = 0; out && i < n; i++) {
        out[i] = sbx__strdup(argv[i]);
        if (!out[i]) {
            for (size_t j = 0; j < i; j++)
                sbx__free(out[j]);
            sbx__free(out);
            return NULL;
        }
    }
    return out;
}

sbx_err sbx__jail_plan_exec(struct sbx__jail_spec *spec, const struct sbx_policy *p,
                            const char *const *argv)
{
    if (!argv || !argv[0] || !argv[0][0])
        return SBX_E_INVALID_ARGUMENT;
    spec->argv = copy_argv(argv);
    spec->envp = sbx__calloc(p->env_count + 1, sizeof(char *));
    if (!spec->argv || !spec->envp)
        return SBX_E_NOMEM;
    for (size_t i = 0; i < p->env_count; i++) {
        char *kv = join(p->env[i].name, "=");
        spec->envp[i] = kv ? join(kv, p->env[i].value) : NULL;
        sbx__free(kv);
        if (!spec->envp[i])
            return SBX_E_NOMEM;
    }
    if (spec->exec_fd >= 0)
        return SBX_OK;
    return plan_candidates(spec, p, argv[0]);
}

static uintptr_t title_start, title_end;

/* proc(5): arg_start and arg_end are fields 48 and 49 of /proc/self/stat, counted after the
 * ")" that ends comm (which may itself hold spaces and parentheses). */
static void find_title(void)
{
    char buf[2048];
    FILE *f = fopen("/proc/self/stat", "re");
    size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    for (int field = 2; p && field < 48; field++)
        p = strchr(p + 1, ' ');
    unsigned long long start, end;
    if (p && sscanf(p, " %llu %llu", &start, &end) == 2 && start > 0 && end > start &&
        end - start < (1u << 20)) {
        title_start = (uintptr_t)start;
        title_end = (uintptr_t)end;
    }
}

void sbx__jail_plan_title(struct sbx__jail_spec *spec)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, find_title);
    spec->title_area = (char *)title_start;
    spec->title_len = title_end - title_start;
}

static void free_strv(char **v, size_t n)
{
    for (size_t i = 0; v && (n ? i < n : v[i] != NULL); i++)
        sbx__free(v[i]);
    sbx__free(v);
}

void sbx__jail_plan_free(struct sbx__jail_spec *spec)
{
    for (size_t i = 0; spec->mounts && i < spec->mount_count; i++) {
        sbx__free(spec->mounts[i].src);
        sbx__free(spec->mounts[i].dst);
    }
    sbx__free(spec->mounts);
    for (size_t i = 0; spec->rules && i < spec->rule_count; i++)
        sbx__free(spec->rules[i].path);
    sbx__free(spec->rules);
    sbx__free(spec->grant_fds);
    for (size_t i = 0; i < spec->tree_count; i++)
        close(spec->tree_fds[i]);
    spec->tree_count = 0;
    free_strv(spec->exec_paths, spec->exec_path_count);
    free_strv(spec->argv, 0);
    sbx__free(spec->cwd);
    free_strv(spec->envp, 0);
    spec->mounts = NULL;
    spec->rules = NULL;
    spec->grant_fds = NULL;
    spec->grant_count = 0;
    spec->exec_paths = NULL;
    spec->argv = spec->envp = NULL;
    spec->cwd = NULL;
    spec->mount_count = spec->rule_count = spec->exec_path_count = 0;
}
