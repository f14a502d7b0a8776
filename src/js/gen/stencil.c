/* src/js/gen/stencil.c: the build step that writes the engine's self-hosted stencil file
 * (js/selfhosted.cpp) beside the module: `sbx-js-stencil MODULE OUT`. It loads MODULE through
 * the loader, which parses the self-hosted code (or decodes a current file already there). */
#include <stdio.h>

#include "js/module.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: sbx-js-stencil MODULE OUT\n");
        return 2;
    }
    char err[600] = "";
    sbx__engine_test_module_path(argv[1]);
    if (!sbx__js_write_stencil(argv[2], err, sizeof(err))) {
        fprintf(stderr, "sbx-js-stencil: %s\n", err);
        return 1;
    }
    return 0;
}
