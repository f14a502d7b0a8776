/* cli/options.c: see options.h. getopt_long's state is global: every loop here restarts it. */
#include "cli/options.h"

#include <assert.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

#define OPTS_MAX 16  /* rows in one command's table */
#define VAL_BASE 256 /* getopt_long's value for row i: VAL_BASE + i, clear of '?', ':', 'h' */

bool cli_is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

/* Fills lo (OPTS_MAX + 2 entries) from the table, then --help and the terminator. */
static void longopts(const struct cli_cmd *cmd, struct option *lo)
{
    size_t n = cmd->count;
    assert(n <= OPTS_MAX);
    for (size_t i = 0; i < n; i++) {
        int has_arg = cmd->opts[i].kind == CLI_OPT_FLAG ? no_argument : required_argument;
        lo[i] = (struct option){cmd->opts[i].name, has_arg, NULL, VAL_BASE + (int)i};
    }
    lo[n] = (struct option){"help", no_argument, NULL, 'h'};
    lo[n + 1] = (struct option){NULL, 0, NULL, 0};
}

static int store(void *opts, const struct cli_opt *row, const char *value)
{
    char *field = (char *)opts + row->offset;
    if (row->kind == CLI_OPT_FLAG) {
        *(bool *)field = true;
        return -1;
    }
    if (row->kind == CLI_OPT_TEXT) {
        *(const char **)field = value;
        return -1;
    }
    struct cli_list *l = (struct cli_list *)field;
    const char **grown = realloc(l->items, (l->count + 1) * sizeof(*grown));
    if (!grown) {
        fprintf(stderr, "sbx: out of memory\n");
        return 125;
    }
    l->items = grown;
    l->items[l->count++] = value;
    return -1;
}

int cli_opts_parse(const struct cli_cmd *cmd, int argc, char **argv, void *opts)
{
    struct option lo[OPTS_MAX + 2];
    longopts(cmd, lo);
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+h", lo, NULL)) != -1) {
        if (c == 'h') {
            cmd->usage(stdout);
            return 0;
        }
        if (c < VAL_BASE || c >= VAL_BASE + (int)cmd->count)
            return cli_usage_error(cmd->name, "unknown or incomplete option '%s' (try --help)",
                                   argv[optind - 1]);
        const struct cli_opt *row = &cmd->opts[c - VAL_BASE];
        int rc = (row->fn ? row->fn : store)(opts, row, optarg);
        if (rc >= 0)
            return rc;
    }
    return -1;
}

const char *cli_opts_last(const struct cli_cmd *cmd, int argc, char **argv, const char *name)
{
    struct option lo[OPTS_MAX + 2];
    longopts(cmd, lo);
    const char *value = NULL;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+h", lo, NULL)) != -1) {
        if (c >= VAL_BASE && c < VAL_BASE + (int)cmd->count &&
            strcmp(cmd->opts[c - VAL_BASE].name, name) == 0)
            value = optarg;
    }
    return value;
}

/* Adds the string value to the policy's array at key; -1 after a message. */
static int add_string(sbx_policy **policy, const char *key, const char *value)
{
    char *s = cli_json_string(value);
    size_t n = s ? strlen(s) + 3 : 0;
    char *arr = s ? malloc(n) : NULL;
    if (arr)
        snprintf(arr, n, "[%s]", s);
    int rc = arr ? cli_policy_set(policy, key, arr) : -1;
    if (!arr)
        fprintf(stderr, "sbx: out of memory\n");
    free(s);
    free(arr);
    return rc;
}

int cli_opt_apply(sbx_policy **policy, const struct cli_opt *row, const char *value)
{
    if (row->kind == CLI_OPT_LIST)
        return add_string(policy, row->policy_key, value);
    char opt[64];
    snprintf(opt, sizeof(opt), "--%s", row->name);
    return cli_policy_set_number(policy, row->policy_key, opt, value);
}

int cli_opts_apply(sbx_policy **policy, const struct cli_cmd *cmd, const void *opts)
{
    for (size_t i = 0; i < cmd->count; i++) {
        const struct cli_opt *row = &cmd->opts[i];
        const char *field = (const char *)opts + row->offset;
        if (!row->policy_key || row->fn)
            continue;
        const struct cli_list one = {(const char **)field, 1};
        const struct cli_list *l =
            row->kind == CLI_OPT_LIST ? (const struct cli_list *)field : &one;
        for (size_t k = 0; k < l->count; k++) {
            int rc = cli_opt_apply(policy, row, l->items[k]);
            if (rc != 0)
                return rc;
        }
    }
    return 0;
}

void cli_opts_free(const struct cli_cmd *cmd, void *opts)
{
    for (size_t i = 0; i < cmd->count; i++) {
        if (cmd->opts[i].kind == CLI_OPT_LIST && !cmd->opts[i].fn) {
            struct cli_list *l = (struct cli_list *)((char *)opts + cmd->opts[i].offset);
            free(l->items);
            l->items = NULL;
            l->count = 0;
        }
    }
}
