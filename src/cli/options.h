/* cli/options.h: the subcommands' options as tables: one row per long option, parsed by one
 * getopt_long loop (options stop at the first operand; --help/-h prints usage; an unknown one is
 * a usage error), and the rows that edit the policy applied by one function. */
#ifndef SBX_CLI_OPTIONS_H
#define SBX_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <sbx.h>

enum cli_opt_kind {
    CLI_OPT_TEXT, /* const char *: the last value given */
    CLI_OPT_FLAG, /* bool: set when given; takes no value */
    CLI_OPT_LIST, /* struct cli_list: every value, in order */
};

/* The values of a CLI_OPT_LIST row; cli_opts_free() frees items. */
struct cli_list {
    const char **items;
    size_t count;
};

struct cli_opt {
    const char *name; /* the long option, without "--" */
    enum cli_opt_kind kind;
    size_t offset;          /* of the row's field in the command's options struct */
    const char *policy_key; /* NULL, or the key a number sets or a list adds a string to */
    /* NULL: the value is stored at offset. Else called with the options struct instead; returns
     * -1 to go on, or the exit status (after printing why). */
    int (*fn)(void *opts, const struct cli_opt *row, const char *value);
};

struct cli_cmd {
    const char *name; /* as in "sbx: NAME: ..." */
    const struct cli_opt *opts;
    size_t count;
    void (*usage)(FILE *out);
};

/* Whether arg asks for help: "--help" or "-h". */
bool cli_is_help(const char *arg);
/* Parses argv's options into opts by cmd's table. Returns -1 to go on, optind at the first
 * operand; 0 after printing usage for --help; 2 after a usage error; 125 out of memory. */
int cli_opts_parse(const struct cli_cmd *cmd, int argc, char **argv, void *opts);
/* Returns the last value of the TEXT option name in argv, ignoring every other option, help and
 * unknown ones too; NULL when not given. */
const char *cli_opts_last(const struct cli_cmd *cmd, int argc, char **argv, const char *name);
/* Applies one value of a row with a policy key: a TEXT row's number sets the key (NULL: no-op),
 * a LIST row's string is added to the key's array. Returns 0, -2 when the value is not a number
 * (a usage error), -1 when the policy rejects it (after printing why). */
int cli_opt_apply(sbx_policy **policy, const struct cli_opt *row, const char *value);
/* Applies every row with a policy key to *policy, in table order, each list item in turn;
 * returns 0 or, at the first failure, cli_opt_apply()'s code. */
int cli_opts_apply(sbx_policy **policy, const struct cli_cmd *cmd, const void *opts);
/* Frees the lists cli_opts_parse() stored in opts. */
void cli_opts_free(const struct cli_cmd *cmd, void *opts);

#endif
