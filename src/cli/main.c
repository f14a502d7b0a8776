/* cli/main.c: `sbx`, a thin client of the public API: one table row per subcommand. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary; /* NULL: hidden */
};

static const struct command commands[] = {
    {"eval", cli_eval, "evaluate a JavaScript snippet in the worker or process tier"},
    {"run", cli_run, "run a command in the Linux jail (like timeout(1) + bwrap)"},
    {"wasm", cli_wasm, "run a WebAssembly module under WASI (like `wasmtime run`)"},
    {"compile", cli_compile, "fill the compiled-code cache for a WebAssembly module"},
    {"policy", cli_policy, "check a policy file and print it resolved"},
    {"conformance", cli_conformance, "check that a policy is enforced by the wasm tier"},
    {"serve", cli_serve, "an HTTP execution service (native API, Piston's API)"},
    {"__js-guest", cli_js_guest, NULL},
    {"__serve-runner", cli_serve_runner, NULL},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: sbx [--help] [--version] COMMAND [ARGS...]\n\n"
                 "Runs untrusted code under a declared permission policy.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
        if (commands[i].summary)
            fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
    }
    fprintf(out, "\n`sbx COMMAND --help` describes each command. Exit status: the command's own,\n"
                 "2 for usage errors; see README.md.\n\n"
                 "Telemetry: `--metrics FILE` (any command) writes Prometheus text at exit;\n"
                 "an OTEL_EXPORTER_OTLP_*ENDPOINT set exports spans and metrics over OTLP/HTTP\n"
                 "(OTEL_SDK_DISABLED=true turns that off).\n");
    cli_print_defaults(out);
}

static const struct command *find(const char *name)
{
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
        if (strcmp(name, commands[i].name) == 0)
            return &commands[i];
    }
    return NULL;
}

int main(int argc, char **argv)
{
    const struct command *cmd = argc >= 2 ? find(argv[1]) : NULL;
    if (cmd && !cmd->summary) /* hidden commands run inside the jail: no exporters */
        return cmd->run(argc - 1, argv + 1);
    /* `--metrics FILE` may stand before the command or among its options. */
    if (cli_telemetry_start(&argc, argv))
        return 2;
    int status;
    if (argc < 2) {
        usage(stderr);
        status = 2;
    } else if (cli_is_help(argv[1])) {
        usage(stdout);
        status = 0;
    } else if (strcmp(argv[1], "--version") == 0) {
        printf("sbx %s\n", sbx_version());
        status = 0;
    } else if ((cmd = find(argv[1])) != NULL && cmd->summary) {
        status = cmd->run(argc - 1, argv + 1);
    } else {
        fprintf(stderr, "sbx: unknown command '%s' (try 'sbx --help')\n", argv[1]);
        status = 2;
    }
    cli_telemetry_finish();
    sbx_shutdown(); /* no wasm tier-up may run under exit's destructors */
    return status;
}
