/* util/path.h: opening a host path granted by a policy without following a symlink anywhere
 * in it, so a link a guest planted in an earlier run cannot redirect a later grant. Both the
 * process tier (bind mount, Landlock) and the wasm tier (preopen) open grants through here. */
#ifndef SBX_UTIL_PATH_H
#define SBX_UTIL_PATH_H

#include <stdbool.h>

/* Opens path like openat(AT_FDCWD, path, flags | O_CLOEXEC), but fails with -ELOOP when any
 * component is a symlink (magic links included). Uses openat2(RESOLVE_NO_SYMLINKS), else a walk
 * of one component at a time with O_NOFOLLOW. System calls only, no allocation: safe in a
 * fork-like child. Returns the fd, or -errno. */
int sbx__path_open_nofollow(const char *path, int flags);

/* The same, always by the component walk (what kernels before 5.6 get); for tests. */
int sbx__path_open_nofollow_walk(const char *path, int flags);

/* Why a grant could not be opened, for the caller's message: "a symlink in the host path is
 * never followed (grant the path it points to)" for -ELOOP, else strerror. Static storage. */
const char *sbx__path_open_error(int neg_errno);

#endif
