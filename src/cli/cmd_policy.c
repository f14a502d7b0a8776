/* cli/cmd_policy.c: `sbx policy check FILE`: exit 0 and the resolved policy, or 2 and why. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: sbx policy check FILE|-\n\n"
                 "Validates a policy and prints it with every default filled in (docs/policy.md).\n"
                 "Exit status: 0 valid, 2 invalid (the reason on stderr).\n");
    cli_print_defaults(out);
}

int cli_policy(int argc, char **argv)
{
    if (argc >= 2 && cli_is_help(argv[1])) {
        usage(stdout);
        return 0;
    }
    if (argc != 3 || strcmp(argv[1], "check") != 0) {
        usage(stderr);
        return 2;
    }
    size_t len;
    char *text = cli_read_file(argv[2], &len);
    if (!text)
        return 2;
    char err[512];
    sbx_policy *p = NULL;
    sbx_err e = sbx_policy_parse(text, len, &p, err, sizeof(err));
    free(text);
    if (e) {
        fprintf(stderr, "sbx: %s: %s\n", argv[2], err);
        return 2;
    }
    char *json = sbx_policy_to_json(p);
    sbx_policy_destroy(p);
    if (!json) {
        fprintf(stderr, "sbx: out of memory\n");
        return 2;
    }
    printf("%s\n", json);
    sbx_free(json);
    return 0;
}
