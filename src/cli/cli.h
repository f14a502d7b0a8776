/* cli/cli.h: the subcommands of `sbx`, one file each. The CLI uses only <sbx.h>. */
#ifndef SBX_CLI_H
#define SBX_CLI_H

/* Each takes argv with argv[0] = the subcommand name and returns the process exit status.
 * Usage errors print one line to stderr and return 2. */
int cli_policy(int argc, char **argv);       /* cmd_policy.c */
int cli_eval(int argc, char **argv);         /* cmd_eval.c */
int cli_run(int argc, char **argv);          /* cmd_run.c */
int cli_js_guest(int argc, char **argv);     /* guest_js.c: sbx's JS engine inside the jail */
int cli_wasm(int argc, char **argv);         /* cmd_wasm.c */
int cli_conformance(int argc, char **argv);  /* cmd_conformance.c */
int cli_compile(int argc, char **argv);      /* cmd_compile.c */
int cli_serve(int argc, char **argv);        /* cmd_serve.c: loads the service module */
int cli_serve_runner(int argc, char **argv); /* cmd_serve.c: a runner process of sbx serve */

#include <stddef.h>
#include <stdio.h>

#include <sbx.h>

/* Shared helpers (common.c). */
/* Reads a whole file ("-" = stdin) into a NUL-terminated buffer; NULL with a message printed. */
char *cli_read_file(const char *path, size_t *len);
/* Starts `sbx compile --hot PATH` detached, at idle priority (background.c). */
void cli_upgrade_in_background(const char *path);
/* Returns the text of ARG, or of FILE when ARG is "@FILE" (caller frees); NULL on error. */
char *cli_text_arg(const char *arg, size_t *len);
/* Loads --policy FILE (or the default policy when path is NULL); prints and returns NULL on error.
 */
sbx_policy *cli_policy_load(const char *path);
/* Replaces *policy with a copy that has key set to json_value; prints and returns -1 on error. */
int cli_policy_set(sbx_policy **policy, const char *key, const char *json_value);
/* Sets key to the integer option value (opt names it in errors); no-op for a NULL value.
 * Returns 0, -2 when value is not a number (a usage error), -1 when the policy rejects it. */
int cli_policy_set_number(sbx_policy **policy, const char *key, const char *opt, const char *value);
/* Returns a JSON string literal for s (caller frees), or NULL. */
char *cli_json_string(const char *s);
/* Parses a decimal unsigned integer option value; prints a usage error and returns -1 if bad. */
int cli_parse_u64(const char *opt, const char *value, unsigned long long *out);
/* Handles `--metrics FILE` (removed from argv) and OTEL_EXPORTER_OTLP_ENDPOINT; -1 on error. */
int cli_telemetry_start(int *argc, char **argv);
/* Writes the metrics file and flushes OTLP (telemetry.c). */
void cli_telemetry_finish(void);
/* Prints the limits a default policy sets (timeout, memory, output, ...) as help text. */
void cli_print_defaults(FILE *out);
/* Prints one stderr line per destination net.outbound denied, and one when the list is cut. */
void cli_print_denials(const sbx_result *r);
/* Prints "sbx: <cmd>: <msg>" to stderr and returns 2 (a usage error). */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
