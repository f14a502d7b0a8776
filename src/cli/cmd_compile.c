/* cli/cmd_compile.c: `sbx compile MODULE.wasm`: fills the compiled tier's cache ahead of time
 * (docs/wasm.md, "Cache"), so a later `sbx wasm` starts native code without LLVM. Prints
 * "compiled: PATH" or "cached: PATH"; exit 0, 125 when sbx failed, 2 on usage errors.
 * `sbx compile --hot MODULE.wasm`: the upgrade of the hot code earlier runs kept (what `sbx
 * wasm` starts after a run); prints "upgraded: PATH (...)" or "not upgraded: why". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"

#define EXIT_SBX 125

static void usage(FILE *out)
{
    fprintf(out,
            "usage: sbx compile [--hot] MODULE.wasm\n\n"
            "Compiles the module with LLVM into the compiled tier's cache ($SBX_CACHE_DIR,\n"
            "else $XDG_CACHE_HOME/sbx, else ~/.cache/sbx; size bound $SBX_CACHE_MAX_BYTES,\n"
            "default 512 MiB), so that `sbx wasm --tier compiled` (or auto's tier-up) uses\n"
            "native code at once. Prints \"compiled: PATH\", or \"cached: PATH\" when a valid\n"
            "entry was already there.\n"
            "With --hot, recompiles instead the hot code that earlier default runs kept for\n"
            "the module, once they have spent the CPU it costs (what `sbx wasm` starts after\n"
            "such a run, at idle priority); prints \"upgraded: PATH\" or \"not upgraded: WHY\".\n"
            "Exit status: 0 done, 125 sbx failed (bad module, cache directory refused, no\n"
            "LLVM), 2 usage error.\n");
}

int cli_compile(int argc, char **argv)
{
    if (argc >= 2 && cli_is_help(argv[1])) {
        usage(stdout);
        return 0;
    }
    bool is_hot = argc == 3 && strcmp(argv[1], "--hot") == 0;
    const char *module = argv[argc - 1];
    if (!is_hot && argc >= 2 && argv[1][0] == '-' && argv[1][1])
        return cli_usage_error("compile", "unknown option '%s' (try --help)", argv[1]);
    if (argc != 2 && !is_hot)
        return cli_usage_error("compile", "expected one MODULE.wasm (try --help)");
    size_t len;
    char *bytes = cli_read_file(module, &len);
    if (!bytes)
        return EXIT_SBX;
    char path[4200], err[512];
    bool was_cached = false, did = false;
    sbx_err e = is_hot ? sbx_wasm_compile_hot((const uint8_t *)bytes, len, path, sizeof(path), &did,
                                              err, sizeof(err))
                       : sbx_wasm_compile((const uint8_t *)bytes, len, path, sizeof(path),
                                          &was_cached, err, sizeof(err));
    free(bytes);
    if (e != SBX_OK) {
        fprintf(stderr, "sbx: compile: %s: %s: %s\n", module, sbx_err_name(e), err);
        return EXIT_SBX;
    }
    if (is_hot && did)
        printf("upgraded: %s (%s)\n", path, err);
    else if (is_hot)
        printf("not upgraded: %s\n", err);
    else
        printf("%s: %s\n", was_cached ? "cached" : "compiled", path);
    return 0;
}
