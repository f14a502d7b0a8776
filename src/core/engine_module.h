/* core/engine_module.h: where the JavaScript engine module (libsbx-js.so, js/module.h) and its
 * self-hosted stencil file are, decided once per process. The worker tier loads the module
 * from here; the process tier binds it into a jail whose guest runs JavaScript. */
#ifndef SBX_CORE_ENGINE_MODULE_H
#define SBX_CORE_ENGINE_MODULE_H

#include <stdbool.h>
#include <stddef.h>

/* Where the process tier's jail binds the module and its stencil file (js/loader.c looks
 * there too, inside the jail). */
#define SBX_JS_MODULE_JAIL  "/.sbx-js/libsbx-js.so"
#define SBX_JS_STENCIL_JAIL "/.sbx-js/libsbx-js.stencil"
#define SBX_JS_STENCIL_NAME "libsbx-js.stencil" /* beside the module */

/* Returns the module's path: the first trusted candidate of next to a shared libsbx
 * (<dir>/sbx/libsbx-js.so), the jail's bind, the build tree, the install path; else the
 * install path. Never the current directory or the environment. Static storage. */
const char *sbx__engine_module_path(void);

/* Writes the stencil file's path (beside the module at module) to out; false if it does not
 * fit. */
bool sbx__engine_stencil_path(const char *module, char *out, size_t cap);

/* Whether p is a regular file that only root or this user can replace (neither it nor its
 * directory writable by group or others, both owned by root or the effective user, or by an
 * owner this user namespace does not map). */
bool sbx__engine_module_is_trusted(const char *p);

/* For tests and the stencil generator: use p (before the first sbx__engine_module_path()). */
void sbx__engine_test_module_path(const char *p);

#endif
