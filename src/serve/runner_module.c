/* serve/runner_module.c: the entry point of libsbx-serve-runner.so, the runners' own module: the
 * runner's objects (runner, exec, batch, frame, base64) with jansson alone. Loading the whole
 * service module (libmicrohttpd, libcurl, libcrypto, hiredis: 34 libraries) into a runner made
 * every jail it clones copy those mappings: /bin/true through the library cost 2.66 ms of CPU a
 * run, 3.45 ms with them preloaded (bench_lib process 200, three rounds, load 13-16). */
#include <stdbool.h>
#include <stdio.h>

#include "serve/serve.h"

__attribute__((visibility("default"))) int sbx_serve_module_entry(int argc, char **argv,
                                                                  bool is_runner);
int sbx_serve_module_entry(int argc, char **argv, bool is_runner)
{
    if (!is_runner) {
        fprintf(stderr, "sbx: serve: libsbx-serve-runner.so runs runners only\n");
        return 2;
    }
    return serve_runner_run(argc, argv);
}
