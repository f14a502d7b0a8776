/* tests/wasi/wasi_run.c: build/sbx-wasi-run, a minimal WASI command runner straight on the
 * engine and src/wasi/ (no plugin layer), for the guest programs and wasi-testsuite:
 *   sbx-wasi-run [--dir [rw:]HOST[::GUEST]]... [--env K=V]... [--allow-outbound PAT]...
 *                [--loopback] [--walk] [--denials] MODULE.wasm [ARGS...]
 * Exit status: the guest's proc_exit code, 134 on a trap, 125 when the runner failed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/policy.h"
#include "file.h"
#include "util/alloc.h"
#include "wasi/wasi.h"
#include "wasm/wasm.h"

#define MAX_ITEMS 64

struct run {
    struct sbx_policy policy;
    struct sbx__fs_grant fs[MAX_ITEMS];
    struct sbx__env_var env[MAX_ITEMS];
    sbx_outbound_rule net[MAX_ITEMS];
    struct sbx__wasi *wasi;
    struct wasm_module *module;
    struct wasm_store *store;
    bool print_denials;
};

/* "[rw:]HOST[::GUEST]", as policy.fs spells it. */
static void parse_dir(struct sbx__fs_grant *g, char *spec)
{
    g->is_writable = strncmp(spec, "rw:", 3) == 0;
    if (g->is_writable)
        spec += 3;
    char *sep = strstr(spec, "::");
    g->host_path = spec;
    g->guest_path = spec;
    if (sep) {
        *sep = '\0';
        g->guest_path = sep + 2;
    }
}

/* "host:port", "*.example.org:443", "host:*", "[::1]:80". */
static bool parse_pattern(sbx_outbound_rule *p, char *spec)
{
    char *colon = strrchr(spec, ':');
    if (!colon)
        return false;
    *colon = '\0';
    p->is_any_port = strcmp(colon + 1, "*") == 0;
    p->port = p->is_any_port ? 0 : (uint16_t)strtoul(colon + 1, NULL, 10);
    size_t len = strlen(spec);
    if (spec[0] == '[' && len > 2 && spec[len - 1] == ']') {
        spec[len - 1] = '\0';
        spec++;
    }
    p->is_wildcard = strncmp(spec, "*.", 2) == 0;
    p->host = spec;
    return true;
}

static void on_denied(void *user, const char *capability)
{
    const struct run *r = user;
    if (r->print_denials)
        fprintf(stderr, "sbx-wasi-run: denied %s\n", capability);
}

static bool resolve(void *user, const struct wasm_import *imp, struct wasm_extern *out)
{
    struct run *r = user;
    return sbx__wasi_resolve(r->wasi, r->store, r->module, imp, out);
}

/* Instantiates and calls _start; returns the process exit status. */
static int run_module(struct run *r)
{
    char err[256];
    struct wasm_instance *inst;
    struct wasm_trap trap = {0};
    /* SBX_WASI_RUN_TIER=compiled runs the suite in the compiled tier (mk/wasi.mk). */
    const char *tier = getenv("SBX_WASI_RUN_TIER");
    struct wasm_store_limits limits = {0};
    if (tier && strcmp(tier, "compiled") == 0)
        limits.tier = WASM_TIER_COMPILED;
    if (sbx__wasm_store_create(&limits, &r->store) != SBX_OK)
        return 125;
    sbx_err rc =
        sbx__wasm_instantiate(r->store, r->module, resolve, r, &inst, &trap, err, sizeof(err));
    if (rc == SBX_E_WASM_TRAP && trap.kind == WASM_TRAP_EXIT)
        return trap.exit_code;
    if (rc != SBX_OK) {
        fprintf(stderr, "sbx-wasi-run: %s\n", err);
        return rc == SBX_E_WASM_TRAP ? 134 : 125;
    }
    struct wasm_extern start;
    if (!sbx__wasm_instance_export(inst, "_start", 6, &start) || start.kind != WASM_EXTERN_FUNC) {
        fprintf(stderr, "sbx-wasi-run: no _start export\n");
        return 125;
    }
    rc = sbx__wasm_func_call(r->store, start.u.func, NULL, NULL, &trap);
    if (rc == SBX_OK)
        return 0;
    if (rc == SBX_E_WASM_TRAP && trap.kind == WASM_TRAP_EXIT)
        return trap.exit_code;
    fprintf(stderr, "sbx-wasi-run: trap: %s\n", trap.message);
    return 134;
}

static int usage(void)
{
    fprintf(stderr, "usage: sbx-wasi-run [--dir [rw:]HOST[::GUEST]]... [--env K=V]... "
                    "[--allow-outbound PAT]... [--loopback] [--walk] [--denials] MODULE.wasm "
                    "[ARGS...]\n");
    return 125;
}

int main(int argc, char **argv)
{
    static struct run r;
    struct sbx__wasi_config cfg = {.inherit_stdio = true, .on_denied = on_denied, .user = &r};
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
        const char *opt = argv[i];
        bool has_arg = i + 1 < argc;
        if (strcmp(opt, "--walk") == 0) {
            cfg.resolver = SBX_WASI_RESOLVE_WALK;
        } else if (strcmp(opt, "--loopback") == 0) {
            r.policy.net_loopback = true;
        } else if (strcmp(opt, "--denials") == 0) {
            r.print_denials = true;
        } else if (strcmp(opt, "--dir") == 0 && has_arg && r.policy.fs_count < MAX_ITEMS) {
            parse_dir(&r.fs[r.policy.fs_count++], argv[++i]);
        } else if (strcmp(opt, "--env") == 0 && has_arg && r.policy.env_count < MAX_ITEMS) {
            char *kv = argv[++i], *eq = strchr(kv, '=');
            if (!eq)
                return usage();
            *eq = '\0';
            r.env[r.policy.env_count++] = (struct sbx__env_var){kv, eq + 1};
        } else if (strcmp(opt, "--allow-outbound") == 0 && has_arg &&
                   r.policy.outbound_count < MAX_ITEMS) {
            if (!parse_pattern(&r.net[r.policy.outbound_count++], argv[++i]))
                return usage();
        } else {
            return usage();
        }
    }
    if (i >= argc)
        return usage();
    r.policy.fs = r.fs;
    r.policy.env = r.env;
    r.policy.outbound = r.net;
    size_t len;
    uint8_t *bytes = sbx_test_read_file(argv[i], &len);
    if (!bytes) {
        fprintf(stderr, "sbx-wasi-run: %s: %s\n", argv[i], strerror(errno));
        return 125;
    }
    char err[512];
    if (sbx__wasm_module_load(bytes, len, &r.module, err, sizeof(err)) != SBX_OK) {
        fprintf(stderr, "sbx-wasi-run: %s: %s\n", argv[i], err);
        free(bytes);
        return 125;
    }
    free(bytes);
    cfg.policy = &r.policy;
    cfg.argv = (const char *const *)argv + i;
    cfg.argc = (size_t)(argc - i);
    int status = 125;
    if (sbx__wasi_create(&cfg, &r.wasi, err, sizeof(err)) != SBX_OK)
        fprintf(stderr, "sbx-wasi-run: %s\n", err);
    else
        status = run_module(&r);
    fflush(stdout);
    sbx__wasm_store_destroy(r.store);
    sbx__wasi_destroy(r.wasi);
    sbx__wasm_module_destroy(r.module);
    return status;
}
