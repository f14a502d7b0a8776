/* cli/cmd_compile.c: `sbx compile MODULE.wasm`: fills the compiled tier's cache ahead of time
 * (docs/wasm.md, "Cache"), so a later `sbx wasm` starts native code without LLVM. Prints
 * "compiled: PATH" or "cached: PATH"; exit 0, 125 when sbx failed, 2 on usage errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"

#define EXIT_SBX 125

static void usage(FILE *out)
{
    fprintf(out,
            "usage: sbx compile MODULE.wasm\n\n"
            "Compiles the module with LLVM into the compiled tier's cache ($SBX_CACHE_DIR,\n"
            "else $XDG_CACHE_HOME/sbx, else ~/.cache/sbx; size bound $SBX_CACHE_MAX_BYTES,\n"
            "default 512 MiB), so that `sbx wasm --tier compiled` (or auto's tier-up) uses\n"
            "native code at once. Prints \"compiled: PATH\", or \"cached: PATH\" when a valid\n"
            "entry was already there.\n"
            "Exit status: 0 done, 125 sbx failed (bad module, cache directory refused, no\n"
            "LLVM), 2 usage error.\n");
}

int cli_compile(int argc, char **argv)
{
    if (argc >= 2 && cli_is_help(argv[1])) {
        usage(stdout);
        return 0;
    }
    if (argc == 2 && argv[1][0] == '-' && argv[1][1])
        return cli_usage_error("compile", "unknown option '%s' (try --help)", argv[1]);
    if (argc != 2)
        return cli_usage_error("compile", "expected one MODULE.wasm (try --help)");
    size_t len;
    char *bytes = cli_read_file(argv[1], &len);
    if (!bytes)
        return EXIT_SBX;
    char path[4200], err[512];
    bool was_cached = false;
    sbx_err e = sbx_wasm_compile((const uint8_t *)bytes, len, path, sizeof(path), &was_cached, err,
                                 sizeof(err));
    free(bytes);
    if (e != SBX_OK) {
        fprintf(stderr, "sbx: compile: %s: %s: %s\n", argv[1], sbx_err_name(e), err);
        return EXIT_SBX;
    }
    printf("%s: %s\n", was_cached ? "cached" : "compiled", path);
    return 0;
}
