/* plugin/conformance.c: sbx_wasm_run_conformance(). Runs the probe module (probes.c) under the
 * policy, with the filesystem grant moved onto a scratch tree (so no user file is touched) and
 * a loopback listener as the connect target, and checks each observation against what the
 * policy declares; a denial must also be counted (visible) to pass. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "plugin/plugin.h"
#include "util/alloc.h"

#define MAX_CASES        64
#define UNLISTED_CAP     "sbx_conformance.unlisted"
#define WASI_ENOTCAPABLE 76

static const char *const probe_argv[] = {"probe", "--flag", "two words", NULL};

struct harness {
    char dir[64];   /* the scratch directory */
    char path[128]; /* scratch for joined paths */
    int listener;
    uint16_t port;
    struct sbx_policy *policy; /* the user's, with fs moved onto the scratch tree */
    bool has_grant, is_writable;
    const char *caps[MAX_CASES];
    size_t cap_count;
    sbx_wasm_sandbox *sb;
    sbx_wasm_conformance_report *report;
};

static const char *join(struct harness *h, const char *rel)
{
    snprintf(h->path, sizeof(h->path), "%s/%s", h->dir, rel);
    return h->path;
}

static bool write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return false;
    bool ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
    close(fd);
    return ok;
}

/* dir/root/{data.txt, link -> ../secret.txt, abs -> dir/secret.txt}, dir/secret.txt */
static sbx_err make_scratch(struct harness *h)
{
    snprintf(h->dir, sizeof(h->dir), "/tmp/sbx-conformance-XXXXXX");
    if (!mkdtemp(h->dir)) {
        h->dir[0] = '\0';
        return SBX_E_IO;
    }
    char secret[128];
    snprintf(secret, sizeof(secret), "%s/secret.txt", h->dir);
    bool ok = mkdir(join(h, "root"), 0755) == 0 &&
              write_file(join(h, "root/data.txt"), "conformance data\n") &&
              write_file(secret, "secret\n") &&
              symlink("../secret.txt", join(h, "root/link")) == 0 &&
              symlink(secret, join(h, "root/abs")) == 0;
    return ok ? SBX_OK : SBX_E_IO;
}

static void remove_scratch(struct harness *h)
{
    if (!h->dir[0])
        return;
    static const char *const files[] = {"root/data.txt", "root/new.txt", "root/link", "root/abs",
                                        "secret.txt"};
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
        unlink(join(h, files[i]));
    rmdir(join(h, "root"));
    rmdir(h->dir);
}

static sbx_err open_listener(struct harness *h)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof(sa);
    h->listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (h->listener < 0 || bind(h->listener, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
        listen(h->listener, 4) != 0 || getsockname(h->listener, (struct sockaddr *)&sa, &sl) != 0)
        return SBX_E_IO;
    h->port = ntohs(sa.sin_port);
    return SBX_OK;
}

/* Replaces the copy's fs grants with one: the scratch root at the first grant's guest path. */
static sbx_err move_fs_grant(struct harness *h, const struct sbx_policy *user)
{
    h->policy = sbx__policy_copy(user); /* changed below, before anyone shares it */
    if (!h->policy)
        return SBX_E_NOMEM;
    struct sbx_policy *p = h->policy;
    h->has_grant = p->fs_count > 0;
    if (!h->has_grant)
        return SBX_OK;
    h->is_writable = p->fs[0].is_writable;
    char *host = sbx__strdup(join(h, "root"));
    char *guest = sbx__strdup(p->fs[0].guest_path);
    if (!host || !guest) {
        sbx__free(host);
        sbx__free(guest);
        return SBX_E_NOMEM;
    }
    for (size_t i = 0; i < p->fs_count; i++) {
        sbx__free(p->fs[i].host_path);
        sbx__free(p->fs[i].guest_path);
    }
    p->fs[0] = (struct sbx__fs_grant){host, guest, h->is_writable};
    p->fs_count = 1;
    return SBX_OK;
}

static void answer(void *user, const sbx_wasm_value *args, size_t n, sbx_wasm_completion *c)
{
    (void)user;
    (void)args;
    (void)n;
    sbx_wasm_value v = {.type = SBX_WASM_I32, .of.i32 = 1};
    sbx_wasm_completion_finish(c, &v, 1);
}

static void collect_caps(struct harness *h)
{
    const struct sbx_policy *p = h->policy;
    for (size_t i = 0; i < p->cap_count && h->cap_count < MAX_CASES / 2; i++) {
        const char *dot = strchr(p->caps[i].name, '.');
        if (!dot || dot == p->caps[i].name || !dot[1] ||
            strncmp(p->caps[i].name, "wasi_snapshot_preview1.", 23) == 0)
            continue;
        h->caps[h->cap_count++] = p->caps[i].name;
    }
    h->caps[h->cap_count++] = UNLISTED_CAP;
}

/* ---- running the probes ------------------------------------------------------------------ */

/* Calls a probe export; returns its i32 result (-1 when the call itself failed) and, when out
 * is given, hands over its captured stdout. */
static int32_t probe(struct harness *h, const char *name, sbx_result *out)
{
    sbx_wasm_value v = {0};
    sbx_result r;
    sbx_err rc = sbx_wasm_sandbox_call(h->sb, name, NULL, 0, &v, 1, &r);
    int32_t value = rc == SBX_OK && r.ok ? v.of.i32 : -1;
    if (out)
        *out = r;
    else
        sbx_result_free(&r);
    return value;
}

/* Records one case. A denial the policy asked for must also have been counted when
 * must_count (a denial sbx can see: not an fd that does not exist at all). */
static void add_case(struct harness *h, const char *name, bool expect, bool seen, bool is_ok,
                     bool must_count, uint64_t denied_before, const char *detail)
{
    sbx_wasm_conformance_report *rep = h->report;
    if (rep->case_count == MAX_CASES)
        return;
    sbx_wasm_conformance_case *c = &rep->cases[rep->case_count++];
    snprintf(c->name, sizeof(c->name), "%s", name);
    c->expect_allowed = expect;
    c->was_allowed = seen;
    bool is_counted = sbx_wasm_sandbox_denied_count(h->sb) > denied_before;
    c->passed = expect == seen && is_ok && (seen || !must_count || is_counted);
    snprintf(c->detail, sizeof(c->detail), "%s%s", detail,
             !seen && must_count && !is_counted ? " (denial not counted)" : "");
    if (c->passed)
        rep->passed_count++;
}

/* Calls open, then (if it worked) use; records the case from the final errno. */
static void open_use_case(struct harness *h, const char *name, bool expect, const char *open_fn,
                          const char *use_fn)
{
    uint64_t d = sbx_wasm_sandbox_denied_count(h->sb);
    int32_t e = probe(h, open_fn, NULL);
    const char *step = open_fn;
    if (e == 0 && use_fn) {
        e = probe(h, use_fn, NULL);
        step = use_fn;
    }
    struct stat st;
    bool seen = e == 0 || (!strcmp(name, "fs.create") && lstat(join(h, "root/new.txt"), &st) == 0);
    char detail[128];
    snprintf(detail, sizeof(detail), "%s -> errno %d", step, e);
    add_case(h, name, expect, seen, true, h->has_grant, d, detail);
}

static void fs_cases(struct harness *h)
{
    open_use_case(h, "fs.read", h->has_grant, "open_read", "read");
    open_use_case(h, "fs.write", h->is_writable, "open_write", "write");
    open_use_case(h, "fs.create", h->is_writable, "create", NULL);
    open_use_case(h, "fs.escape.dotdot", false, "dotdot", NULL);
    open_use_case(h, "fs.escape.symlink", false, "symlink", NULL);
    open_use_case(h, "fs.escape.abs_symlink", false, "abs_symlink", NULL);
}

/* Compares the probe's stdout with want (want_len bytes). */
static void output_case(struct harness *h, const char *name, bool expect, const char *want,
                        size_t want_len)
{
    sbx_result r;
    uint64_t d = sbx_wasm_sandbox_denied_count(h->sb);
    int32_t e = probe(h, name, &r);
    bool is_same =
        r.stdout_len == want_len && (!want_len || !memcmp(r.stdout_data, want, want_len));
    char detail[128];
    snprintf(detail, sizeof(detail), "errno %d; the guest saw %s", e,
             is_same ? "exactly the policy's list" : "a different list");
    add_case(h, name, expect, e == 0 && r.stdout_len > 0, is_same, false, d, detail);
    sbx_result_free(&r);
}

static void env_args_cases(struct harness *h)
{
    struct sbx__buf want;
    sbx__buf_init(&want, 1u << 20);
    const struct sbx_policy *p = h->policy;
    for (size_t i = 0; i < p->env_count; i++) {
        sbx__buf_appendf(&want, "%s=%s", p->env[i].name, p->env[i].value);
        sbx__buf_append(&want, "", 1);
    }
    output_case(h, "env", p->env_count > 0, want.data ? want.data : "", want.len);
    sbx__buf_free(&want);
    sbx__buf_init(&want, 1u << 20);
    for (size_t i = 0; probe_argv[i]; i++)
        sbx__buf_append(&want, probe_argv[i], strlen(probe_argv[i]) + 1);
    output_case(h, "args", true, want.data, want.len);
    sbx__buf_free(&want);
}

static void clock_random_cases(struct harness *h)
{
    sbx_result r;
    char detail[128];
    uint64_t d = sbx_wasm_sandbox_denied_count(h->sb);
    int32_t e = probe(h, "clock", &r);
    uint64_t t = 0;
    if (r.stdout_len == 8)
        memcpy(&t, r.stdout_data, 8); /* little-endian on every host sbx runs on */
    uint64_t now = (uint64_t)time(NULL) * 1000000000ull;
    bool is_near = t > now - 60000000000ull && t < now + 60000000000ull;
    snprintf(detail, sizeof(detail), "clock_time_get(realtime) -> errno %d, %s", e,
             is_near ? "within a minute of the host's clock" : "far from the host's clock");
    add_case(h, "clock", true, e == 0 && is_near, true, false, d, detail);
    sbx_result_free(&r);

    e = probe(h, "random", &r);
    bool is_varied = false;
    for (size_t i = 1; i < r.stdout_len && r.stdout_len == 32; i++)
        is_varied |= r.stdout_data[i] != r.stdout_data[0];
    snprintf(detail, sizeof(detail), "random_get(32) -> errno %d, bytes %s", e,
             is_varied ? "vary" : "constant");
    add_case(h, "random", true, e == 0 && is_varied, true, false, d, detail);
    sbx_result_free(&r);
}

/* What the policy says about 127.0.0.1:port, read independently of src/wasi/'s gate. */
static bool loopback_allowed(const struct sbx_policy *p, uint16_t port)
{
    if (p->net_loopback)
        return true;
    for (size_t i = 0; i < p->outbound_count; i++)
        if (!p->outbound[i].is_wildcard && strcmp(p->outbound[i].host, "127.0.0.1") == 0 &&
            (p->outbound[i].is_any_port || p->outbound[i].port == port))
            return true;
    return false;
}

static void net_cap_cases(struct harness *h)
{
    char detail[128];
    uint64_t d = sbx_wasm_sandbox_denied_count(h->sb);
    int32_t e = probe(h, "sock_open", NULL);
    if (e == 0)
        e = probe(h, "connect", NULL);
    snprintf(detail, sizeof(detail), "sock_open/sock_connect(127.0.0.1:%u) -> errno %d",
             (unsigned)h->port, e);
    add_case(h, "net.connect", loopback_allowed(h->policy, h->port), e == 0, true, true, d, detail);
    for (size_t i = 0; i < h->cap_count; i++) {
        char name[48], export_name[32];
        snprintf(name, sizeof(name), "cap.%s", h->caps[i]);
        snprintf(export_name, sizeof(export_name), "cap%zu", i);
        d = sbx_wasm_sandbox_denied_count(h->sb);
        int32_t v = probe(h, export_name, NULL);
        bool allow = sbx__policy_capability(h->policy, h->caps[i]) == SBX_CAP_ALLOW;
        snprintf(detail, sizeof(detail), "the import returned %d", v);
        add_case(h, name, allow, v == 1, v == 1 || v == SBX_WASM_DENIED, true, d, detail);
    }
}

static sbx_err start(struct harness *h, const struct sbx_policy *policy)
{
    sbx_err rc = make_scratch(h);
    if (rc == SBX_OK)
        rc = open_listener(h);
    if (rc == SBX_OK)
        rc = move_fs_grant(h, policy);
    if (rc != SBX_OK)
        return rc;
    collect_caps(h);
    size_t len = 0;
    uint8_t *bytes = sbx__probe_module(h->caps, h->cap_count, h->port, &len);
    sbx_wasm_host_func funcs[MAX_CASES];
    for (size_t i = 0; i < h->cap_count; i++)
        funcs[i] = (sbx_wasm_host_func){h->caps[i], "() -> i32", answer, NULL};
    sbx_wasm_options opt = {.size = sizeof(opt),
                            .argv = probe_argv,
                            .host_funcs = funcs,
                            .host_func_count = h->cap_count};
    char err[256];
    rc = bytes ? SBX_OK : SBX_E_NOMEM;
    if (rc == SBX_OK)
        rc = sbx_wasm_sandbox_create(bytes, len, h->policy, &opt, &h->sb, err, sizeof(err));
    sbx__free(bytes);
    if (rc != SBX_OK && rc != SBX_E_NOMEM) {
        /* The harness's own module must load: report why it did not as a failed case. */
        sbx_wasm_conformance_case *c = &h->report->cases[h->report->case_count++];
        snprintf(c->name, sizeof(c->name), "instantiate");
        snprintf(c->detail, sizeof(c->detail), "%s: %.120s", sbx_err_name(rc), err);
        return SBX_OK;
    }
    return rc;
}

sbx_err sbx_wasm_run_conformance(const sbx_policy *policy, sbx_wasm_conformance_report *report)
{
    if (!report)
        return SBX_E_INVALID_ARGUMENT;
    memset(report, 0, sizeof(*report));
    if (!policy)
        return SBX_E_INVALID_ARGUMENT;
    report->cases = sbx__calloc(MAX_CASES, sizeof(*report->cases));
    if (!report->cases)
        return SBX_E_NOMEM;
    struct harness h = {.listener = -1, .report = report};
    sbx_err rc = start(&h, policy);
    if (rc == SBX_OK && h.sb) {
        fs_cases(&h);
        env_args_cases(&h);
        clock_random_cases(&h);
        net_cap_cases(&h);
    }
    sbx_wasm_sandbox_destroy(h.sb);
    sbx_policy_destroy(h.policy);
    if (h.listener >= 0)
        close(h.listener);
    remove_scratch(&h);
    if (rc != SBX_OK)
        sbx_wasm_conformance_free(report);
    return rc;
}

void sbx_wasm_conformance_free(sbx_wasm_conformance_report *report)
{
    if (!report)
        return;
    sbx__free(report->cases);
    memset(report, 0, sizeof(*report));
}
