/* cli/cmd_conformance.c: `sbx conformance`: runs the wasm tier's probe battery under a policy and
 * prints one line per probe plus "N passed, M failed". Exit 0 when every probe saw what the
 * policy declares, 1 when one did not, 125 when the harness could not run, 2 on usage errors. */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: sbx conformance [--policy FILE] [--json]\n\n"
            "Runs probe modules that each try one capability (fs read, write, create, escape\n"
            "by .. and by symlink, connect, env, args, clock, random, capability imports)\n"
            "under the policy and reports whether the policy was enforced. Filesystem probes\n"
            "use a scratch directory in place of the first fs grant; no user file is touched.\n"
            "Exit status: 0 all enforced, 1 a probe failed, 125 the harness failed, 2 usage.\n");
    cli_print_defaults(out);
}

static void print_text(const sbx_wasm_conformance_report *r)
{
    for (size_t i = 0; i < r->case_count; i++) {
        const sbx_wasm_conformance_case *c = &r->cases[i];
        printf("%-4s %-30s policy %-5s guest %-5s %s\n", c->passed ? "ok" : "FAIL", c->name,
               c->expect_allowed ? "allow" : "deny", c->was_allowed ? "allow" : "deny", c->detail);
    }
    printf("conformance: %zu passed, %zu failed\n", r->passed_count,
           r->case_count - r->passed_count);
}

static void print_json(const sbx_wasm_conformance_report *r)
{
    printf("{\"passed\":%zu,\"failed\":%zu,\"cases\":[", r->passed_count,
           r->case_count - r->passed_count);
    for (size_t i = 0; i < r->case_count; i++) {
        const sbx_wasm_conformance_case *c = &r->cases[i];
        char *name = cli_json_string(c->name), *detail = cli_json_string(c->detail);
        printf("%s{\"name\":%s,\"policy\":\"%s\",\"guest\":\"%s\",\"passed\":%s,\"detail\":%s}",
               i ? "," : "", name ? name : "\"\"", c->expect_allowed ? "allow" : "deny",
               c->was_allowed ? "allow" : "deny", c->passed ? "true" : "false",
               detail ? detail : "\"\"");
        free(name);
        free(detail);
    }
    printf("]}\n");
}

struct conformance_opts {
    const char *policy_path;
    bool is_json;
};

static const struct cli_opt conformance_opts_table[] = {
    {"policy", CLI_OPT_TEXT, offsetof(struct conformance_opts, policy_path), NULL, NULL},
    {"json", CLI_OPT_FLAG, offsetof(struct conformance_opts, is_json), NULL, NULL},
};

static const struct cli_cmd conformance_cmd = {
    "conformance", conformance_opts_table,
    sizeof(conformance_opts_table) / sizeof(conformance_opts_table[0]), usage};

int cli_conformance(int argc, char **argv)
{
    struct conformance_opts o = {0};
    int rc = cli_opts_parse(&conformance_cmd, argc, argv, &o);
    if (rc >= 0)
        return rc;
    if (optind != argc)
        return cli_usage_error("conformance", "unexpected argument '%s'", argv[optind]);
    sbx_policy *policy = cli_policy_load(o.policy_path);
    if (!policy)
        return 125;
    sbx_wasm_conformance_report r;
    sbx_err e = sbx_wasm_run_conformance(policy, &r);
    sbx_policy_destroy(policy);
    if (e != SBX_OK) {
        fprintf(stderr, "sbx: conformance: %s: %s\n", sbx_err_name(e), sbx_err_message(e));
        return 125;
    }
    if (o.is_json)
        print_json(&r);
    else
        print_text(&r);
    int status = r.passed_count == r.case_count ? 0 : 1;
    sbx_wasm_conformance_free(&r);
    return status;
}
