/* sbx/sandbox.h: one handle, three isolation tiers, one result shape.
 * A handle is used by one thread at a time; sbx_sandbox_abort() alone is safe from any thread. */
#ifndef SBX_SANDBOX_H
#define SBX_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "policy.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sbx_backend {
    SBX_BACKEND_WORKER = 0,  /* in-process JavaScript engine on its own thread */
    SBX_BACKEND_PROCESS = 1, /* child process in a Linux jail */
    SBX_BACKEND_WASM = 2,    /* WebAssembly module under sbx's own engine + WASI */
} sbx_backend;

/* Which limit ended or shaped a run. */
typedef enum sbx_limit {
    SBX_LIMIT_NONE = 0,
    SBX_LIMIT_TIMEOUT,
    SBX_LIMIT_MEMORY,
    SBX_LIMIT_PIDS,
    SBX_LIMIT_OUTPUT,
    SBX_LIMIT_FUEL,
    SBX_LIMIT_CPU,
} sbx_limit;

/* Bits of sbx_result.enforced: how the process tier really enforced the policy's limits. */
#define SBX_ENFORCED_CGROUP_V2 (1u << 0)
#define SBX_ENFORCED_CGROUP_V1 (1u << 1)
#define SBX_ENFORCED_RLIMIT    (1u << 2)
#define SBX_ENFORCED_SECCOMP   (1u << 3)
#define SBX_ENFORCED_LANDLOCK  (1u << 4)
#define SBX_ENFORCED_NETNS     (1u << 5)

/* What a denied destination was: the process tier's connect() and DNS stub, the wasm tier's
 * sock_connect and sock_addr_resolve. */
typedef enum sbx_denial_kind {
    SBX_DENIAL_CONNECT = 0, /* a connect: host is the address as the guest gave it, with port */
    SBX_DENIAL_DNS = 1,     /* a name lookup: host is the name asked for, port 0 */
} sbx_denial_kind;

#define SBX_DENIALS_MAX     64  /* distinct destinations a result lists; the rest only count */
#define SBX_DENIAL_HOST_MAX 256 /* a DNS name (253) or an AF_UNIX path (107) with its NUL */

/* One denied destination of a run, with how often it was denied. */
typedef struct sbx_denial {
    sbx_denial_kind kind;
    /* connect: the guest's sockaddr family (AF_INET, AF_INET6, AF_UNIX, ...); dns: AF_UNSPEC. */
    int family;
    /* AF_INET/AF_INET6: the address as inet_ntop writes it; AF_UNIX: the path, '@' first for
     * an abstract name; dns: the name; other families: "". Bytes outside printable ASCII are
     * shown as '?'. */
    char host[SBX_DENIAL_HOST_MAX];
    uint16_t port;  /* AF_INET/AF_INET6 connects; else 0 */
    uint64_t count; /* times the run was denied this destination */
} sbx_denial;

/* The stream an output chunk belongs to. */
typedef enum sbx_stream {
    SBX_STREAM_STDOUT = 1,
    SBX_STREAM_STDERR = 2,
} sbx_stream;

/* Receives output while a run goes on (sbx_run_input.on_output, sbx_wasm_options.on_output):
 * len bytes the guest wrote to stream, valid only during the call. Only bytes within the
 * policy's maxOutputBytes arrive, the same bytes the result then holds, in the order written;
 * one call per guest write: a console.log line (worker), what one read of the jail's pipe got
 * (process), one fd_write (wasm). Called on a thread of the library's choosing (worker: the
 * engine's thread; process and wasm: the thread running the guest), one call at a time per run,
 * never after the run returned. The guest waits while it runs: copy the bytes and return. It
 * must not call into the same sandbox. */
typedef void (*sbx_output_fn)(void *user, sbx_stream stream, const char *data, size_t len);

/* What to run. Fields a backend does not use must be zero/NULL. All pointers are borrowed for
 * the duration of sbx_sandbox_run(). on_output, on_output_user and cwd came after 0.2.0 and
 * grew the struct: initialise it whole ({0} or designated initialisers). */
typedef struct sbx_run_input {
    /* worker and process script mode: JavaScript function body (worker) or script text, exactly
     * code_len bytes (no NUL needed; 0 is the empty program). */
    const char *code;
    size_t code_len;
    /* JSON text injected as `context` (worker) or written to stdin (process, wasm); NULL = null. */
    const char *context_json;
    /* process script mode: "node", "python3", "sh", ...; NULL or "sbx-js" = sbx's own engine. */
    const char *interpreter;
    /* process command mode: NULL-terminated argv (code must be NULL); wasm: guest argv. */
    const char *const *argv;
    /* wasm: module bytes. */
    const uint8_t *module;
    size_t module_len;
    /* process/wasm: guest stdio is the caller's fds 0-2 instead of captured buffers. */
    bool inherit_stdio;
    /* Optional, every tier: output chunks as the guest writes them (see sbx_output_fn), besides
     * the captured output in the result. Not called when inherit_stdio is set. */
    sbx_output_fn on_output;
    void *on_output_user;
    /* process tier: the guest's working directory, a path inside the jail (a policy.fs grant's
     * guest path, "/tmp"); NULL = "/". One that cannot be entered fails the run with
     * SANDBOX_EXECUTION_FAILED and exit code 126. Other tiers: must be NULL. */
    const char *cwd;
} sbx_run_input;

/* The outcome of one run. Every tier fills what applies. Free with sbx_result_free(). */
typedef struct sbx_result {
    bool ok;
    sbx_err error;       /* SBX_OK when ok */
    char *error_message; /* one line, or NULL when ok */
    char *value_json;    /* worker/process JS: the returned value as JSON; NULL if none */
    char *stdout_data;   /* captured stdout (not NUL-terminated data, but a NUL follows it) */
    size_t stdout_len;
    bool stdout_truncated;
    char *stderr_data;
    size_t stderr_len;
    bool stderr_truncated;
    int exit_code;   /* process/wasm: exit status, -1 if none (killed or not applicable) */
    int signal;      /* process: terminating signal, 0 if none */
    sbx_limit limit; /* the limit hit, SBX_LIMIT_NONE if none */
    double duration_ms;
    sbx_backend backend;
    unsigned enforced; /* SBX_ENFORCED_* bits (process tier) */
    /* net.outbound (process and wasm tiers): the distinct destinations denied, in the order
     * first denied, at most SBX_DENIALS_MAX; NULL when none. denied_total counts every denial
     * of the run, listed or not; denials_truncated says some destination is not listed. */
    sbx_denial *denials;
    size_t denial_count;
    uint64_t denied_total;
    bool denials_truncated;
    /* JavaScript tiers: the guest's stack when the run failed with a thrown value: e.stack of an
     * Error (as Node prints it: "Name: message" then "    at fn (file:line:column)" lines), or
     * the frames where another value was thrown; at most 16 KiB, cut at a line end. NULL when
     * none. */
    char *error_stack;
} sbx_result;

typedef struct sbx_sandbox sbx_sandbox;

/* Creates a sandbox of the given tier under policy (copied; the caller keeps its own).
 * Returns SBX_E_UNAVAILABLE if the host cannot provide the tier, SBX_E_INVALID_ARGUMENT for a
 * NULL argument, SBX_E_NOMEM. */
SBX_API sbx_err sbx_sandbox_create(sbx_backend backend, const sbx_policy *policy,
                                   sbx_sandbox **out);

/* Runs input to completion under the policy and fills *out (which the caller later frees with
 * sbx_result_free()). A run that executed returns SBX_OK with the guest's outcome in *out, even
 * when the guest failed or hit a limit; a run on a disposed handle gives SBX_OK with
 * out->error == SBX_E_DISPOSED. Other return codes mean the host could not start the run, and
 * *out then holds the error too. */
SBX_API sbx_err sbx_sandbox_run(sbx_sandbox *sb, const sbx_run_input *input, sbx_result *out);

/* Interrupts the run in progress on sb: it ends with SBX_E_ABORTED within the tier's latency
 * bound. With no run in progress (before the run has started, or while it is starting) the
 * abort is remembered, and the next run on sb ends at once with SBX_E_ABORTED without starting
 * the guest. Safe from any thread and from signal-free contexts. */
SBX_API void sbx_sandbox_abort(sbx_sandbox *sb);

/* Adds a script every later run of sb sees already evaluated in its fresh realm, before the
 * body, in the order added (worker tier only): a library loaded once, not in every body. name is
 * its file name in errors and stacks; source is UTF-8, len bytes; both are copied. The script is
 * compiled once per process and instantiated into each run's realm, so no state crosses runs.
 * One that throws or does not compile fails each run with SANDBOX_EXECUTION_FAILED, the message
 * naming it ("preload lib.js: SyntaxError: ... (lib.js, line 3, column 5)"). Returns
 * SBX_E_INVALID_ARGUMENT (NULL argument, or another tier), SBX_E_DISPOSED, SBX_E_UNAVAILABLE (the
 * engine module cannot load), SBX_E_NOMEM. Not while a run of sb is in progress. */
SBX_API sbx_err sbx_sandbox_preload(sbx_sandbox *sb, const char *name, const char *source,
                                    size_t len);

/* Adds from's preloads to sb, after sb's own: the same compiled scripts, shared (no compile
 * again). For a handle made for one run with another policy (a per-run timeout). Both worker
 * tier; SBX_E_INVALID_ARGUMENT, SBX_E_DISPOSED, SBX_E_NOMEM. Not while a run of either is in
 * progress. */
SBX_API sbx_err sbx_sandbox_preload_from(sbx_sandbox *sb, const sbx_sandbox *from);

/* Forgets an abort that sbx_sandbox_abort() remembered while no run was in progress, so that
 * a caller whose run has already returned can keep a late abort from ending the next one.
 * Safe from any thread; no effect when none is remembered. */
SBX_API void sbx_sandbox_clear_abort(sbx_sandbox *sb);

/* Releases the handle's resources (temporary files, threads). Idempotent; later runs end with
 * SBX_E_DISPOSED. Must not race a run on the same handle (abort it first). */
SBX_API void sbx_sandbox_dispose(sbx_sandbox *sb);

/* Disposes (if needed) and frees the handle. Accepts NULL. */
SBX_API void sbx_sandbox_destroy(sbx_sandbox *sb);

/* Returns the tier's name: "worker", "process", "wasm". Static storage. */
SBX_API const char *sbx_backend_name(sbx_backend backend);

/* Parses a tier name; returns 0 and sets *out, or -1. */
SBX_API int sbx_backend_from_name(const char *name, sbx_backend *out);

/* Frees what the result owns and zeroes it. Accepts NULL and an all-zero result. */
SBX_API void sbx_result_free(sbx_result *result);

/* Writes a denial's destination as one text, as the result's JSON has it: "127.0.0.1:9",
 * "[::1]:9", "unix:/path", the name for a DNS denial, "family N" for another family. */
SBX_API void sbx_denial_destination(const sbx_denial *denial, char *buf, size_t cap);

/* Returns the result as one JSON object, the shape `sbx eval` prints:
 * {"ok":..,"value":..,"stdout":..,"stderr":..,"stdoutTruncated":..,"stderrTruncated":..,
 *  "error":null|{"code":..,"message":..},"durationMs":..,"backend":..} plus exitCode, signal,
 * limit and "denied":{"total":..,"truncated":..,"destinations":[{"kind":"connect"|"dns",
 * "family":"ipv4"|"ipv6"|"unix"|..|null,"host":..,"port":..|null,"destination":..,"count":..}]}
 * for the process and wasm tiers. The caller frees it with sbx_free(); NULL on NOMEM. */
SBX_API char *sbx_result_to_json(const sbx_result *result);

#ifdef __cplusplus
}
#endif
#endif
