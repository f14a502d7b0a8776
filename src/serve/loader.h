/* serve/loader.h: `sbx serve` and `sbx __serve-runner` as the sbx binary sees them: entry
 * points that load the service module (libsbx-serve.so) and call into it. */
#ifndef SBX_SERVE_LOADER_H
#define SBX_SERVE_LOADER_H

#include <stdbool.h>

/* The module's one exported function. */
#define SERVE_MODULE_ENTRY "sbx_serve_module_entry"
typedef int (*serve_module_entry_fn)(int argc, char **argv, bool is_runner);

int serve_main(int argc, char **argv);        /* sbx serve */
int serve_runner_main(int argc, char **argv); /* sbx __serve-runner (started by serve) */

#endif
