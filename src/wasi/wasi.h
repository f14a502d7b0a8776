/* wasi/wasi.h: wasi_snapshot_preview1 (plus a WasmEdge-shaped socket extension) for the engine,
 * under the permission policy. The plugin host and the runners use only this header; the rest
 * of src/wasi/ is private (wasi/internal.h). A context belongs to one store and one thread;
 * only sbx__wasi_interrupt() may be called from another thread. */
#ifndef SBX_WASI_WASI_H
#define SBX_WASI_WASI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sbx/error.h>
#include <sbx/plugin.h> /* sbx_preopen */
#include <sbx/sandbox.h>

#include "core/policy.h"
#include "util/buf.h"
#include "wasm/wasm.h"

struct sbx__wasi;

/* Resolution strategy for guest paths (wasi/path.c). AUTO uses openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_MAGICLINKS) when the kernel has it and the O_NOFOLLOW component walk otherwise;
 * WALK forces the walk (tests, fuzzing). Both can never leave a preopen. */
enum sbx__wasi_resolver {
    SBX_WASI_RESOLVE_AUTO = 0,
    SBX_WASI_RESOLVE_WALK,
    SBX_WASI_RESOLVE_OPENAT2
};

/* Everything a context is created from. All pointers are borrowed for the create call only,
 * except stdout_buf / stderr_buf / user, which must outlive the context. */
struct sbx__wasi_config {
    /* fs grants become preopens (fds 3, 4, ... in policy order after merging duplicates),
     * env is the guest's whole environment (unless envp is set), outbound gates sock_connect. */
    const struct sbx_policy *policy;
    const char *const *argv; /* argc entries, argv[0] = program name; NULL = no args */
    size_t argc;
    const char *const *envp; /* "K=V" strings, envc entries; NULL = policy->env */
    size_t envc;

    /* stdio: inherit_stdio passes the host's fds 0, 1, 2 through (never closed by us).
     * Otherwise stdin reads stdin_data (copied; NULL = empty) and stdout / stderr append to
     * the capped buffers (NULL = discarded). */
    bool inherit_stdio;
    const uint8_t *stdin_data;
    size_t stdin_len;
    struct sbx__buf *stdout_buf;
    struct sbx__buf *stderr_buf;

    /* Called once per denial with a capability label: "fs.write" (write/create/truncate/
     * unlink/rename/link/symlink/set-times/allocate under a read-only preopen), "fs.read",
     * "fs.escape" (a path that would leave its preopen), "net.connect", "net.bind",
     * "net.resolve". The plugin layer forwards it to sbx__telemetry_denied(). May be NULL. */
    void (*on_denied)(void *user, const char *capability);
    void *user;

    enum sbx__wasi_resolver resolver;
};

/* Creates a context: opens every preopen (O_PATH | O_DIRECTORY | O_CLOEXEC), copies args and
 * env. Returns SBX_OK; SBX_E_INVALID_OPTIONS when a grant's host directory cannot be opened
 * (the reason in err); SBX_E_NOMEM. Destroy with sbx__wasi_destroy(). */
sbx_err sbx__wasi_create(const struct sbx__wasi_config *cfg, struct sbx__wasi **out, char *err,
                         size_t errlen);

/* Closes every fd the guest holds and frees the context. Accepts NULL. */
void sbx__wasi_destroy(struct sbx__wasi *w);

/* Resolves one import of m for sbx__wasm_instantiate(): modules "wasi_snapshot_preview1"
 * (all 45 preview1 functions, plus the socket extension sock_open, sock_bind, sock_listen,
 * sock_connect, sock_addr_resolve, sock_getlocaladdr, sock_getpeeraddr, ...; sock_accept is
 * picked by the import's type: 3 params = preview1, 2 = WasmEdge) and "wasi_unstable" is not
 * served. Creates the host function in store (owned by the store; it points at w, so
 * destroy the store before w). m may be NULL (then sock_accept is preview1's). Returns false
 * for an import it does not serve, so the caller may try its own table next. */
bool sbx__wasi_resolve(struct sbx__wasi *w, struct wasm_store *store, const struct wasm_module *m,
                       const struct wasm_import *imp, struct wasm_extern *out);

/* Wakes a blocking call (poll_oneoff, fd_read on a pipe, sock_accept/recv) so it returns
 * EINTR at once, and every later blocking call too. Safe from any thread; pair with
 * sbx__wasm_store_interrupt() so the guest then traps. */
void sbx__wasi_interrupt(struct sbx__wasi *w);
/* Lets blocking calls block again (before the next guest call after an interrupt). Call it
 * from the thread that runs the guest, while the guest is not running. Accepts NULL. */
void sbx__wasi_clear_interrupt(struct sbx__wasi *w);

/* Hands the net.connect and net.resolve denials since the last call of it to out. */
void sbx__wasi_take_denials(struct sbx__wasi *w, sbx_result *out);
/* Number of denials counted so far (also reported through on_denied). */
uint64_t sbx__wasi_denied_count(const struct sbx__wasi *w);

/* --- the policy pieces, usable on their own (the seed's buildWasiPreopens / matchPreopen);
 * a preopen is the public sbx_preopen (<sbx/plugin.h>), not a mirror of it. The outbound
 * allowlist is core's (core/outbound.h). ------------------------------------------------- */

/* Builds the preopen list from policy->fs: duplicates (same guest path) merged, writable wins
 * only if some grant said "rw:" explicitly; order of first appearance kept. *out owns an
 * array of *count entries; free with sbx__wasi_preopens_free(). SBX_E_NOMEM or SBX_OK. */
sbx_err sbx__wasi_preopens_build(const struct sbx_policy *policy, sbx_preopen **out, size_t *count);
void sbx__wasi_preopens_free(sbx_preopen *list, size_t count);
/* Opens a preopen's host directory (O_CLOEXEC; O_PATH when it is not readable), never through
 * a symlink in any component. SBX_E_INVALID_OPTIONS with the grant named in err. */
sbx_err sbx__wasi_preopen_open(const sbx_preopen *p, int *fd, char *err, size_t errlen);

/* Returns the index of the preopen whose guest path is the longest component-wise prefix of
 * guest_path (an absolute guest path), or -1; *rest gets the remainder (no leading '/'). */
long sbx__wasi_preopen_match(const sbx_preopen *list, size_t count, const char *guest_path,
                             const char **rest);

#endif
