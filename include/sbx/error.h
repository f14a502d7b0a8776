/* sbx/error.h: the one registry of error codes shared by every tier.
 * Values are stable and append-only; names are the stable strings users match on. */
#ifndef SBX_ERROR_H
#define SBX_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

#define SBX_API __attribute__((visibility("default")))

/* X(enum constant, value, stable name, message). Append only: never renumber or reuse. */
#define SBX_ERRORS(X)                                                                              \
    X(SBX_OK, 0, "OK", "success")                                                                  \
    X(SBX_E_TIMEOUT, 1, "SANDBOX_TIMEOUT", "run exceeded its time limit")                          \
    X(SBX_E_ABORTED, 2, "SANDBOX_ABORTED", "run was aborted by the host")                          \
    X(SBX_E_INVALID_OPTIONS, 3, "SANDBOX_INVALID_OPTIONS", "options or policy failed validation")  \
    X(SBX_E_EXECUTION_FAILED, 4, "SANDBOX_EXECUTION_FAILED", "guest code failed")                  \
    X(SBX_E_DISPOSED, 5, "SANDBOX_DISPOSED", "sandbox was disposed")                               \
    X(SBX_E_MEMORY_LIMIT, 6, "SANDBOX_MEMORY_LIMIT", "guest exceeded its memory limit")            \
    X(SBX_E_OUTPUT_LIMIT, 7, "SANDBOX_OUTPUT_LIMIT", "guest exceeded its output limit")            \
    X(SBX_E_UNAVAILABLE, 8, "SANDBOX_UNAVAILABLE", "host lacks a feature the policy needs")        \
    X(SBX_E_PIDS_LIMIT, 9, "SANDBOX_PIDS_LIMIT", "guest exceeded its process limit")               \
    X(SBX_E_NOMEM, 10, "SANDBOX_HOST_NOMEM", "host ran out of memory")                             \
    X(SBX_E_IO, 11, "SANDBOX_HOST_IO", "host system call failed")                                  \
    X(SBX_E_INVALID_ARGUMENT, 12, "SANDBOX_INVALID_ARGUMENT", "invalid argument to an API call")   \
    X(SBX_E_RUNNER_DIED, 13, "SANDBOX_RUNNER_DIED",                                                \
      "the process running the guest died (sbx serve's runner)")                                   \
    X(SBX_E_WASM_INVALID_MODULE, 100, "SAND_WASM_INVALID_MODULE",                                  \
      "module is malformed or invalid")                                                            \
    X(SBX_E_WASM_LINK, 101, "SAND_WASM_LINK_ERROR", "module imports could not be resolved")        \
    X(SBX_E_WASM_TRAP, 102, "SAND_WASM_TRAP", "guest trapped")                                     \
    X(SBX_E_WASM_PERMISSION_DENIED, 103, "SAND_WASM_PERMISSION_DENIED",                            \
      "policy denied a capability")                                                                \
    X(SBX_E_WASM_FUEL_EXHAUSTED, 104, "SAND_WASM_FUEL_EXHAUSTED", "guest ran out of fuel")         \
    X(SBX_E_WASM_DISPOSED, 105, "SAND_WASM_DISPOSED", "wasm sandbox was disposed")                 \
    X(SBX_E_WASM_NO_EXPORT, 106, "SAND_WASM_EXPORT_NOT_FOUND", "no such export")                   \
    X(SBX_E_WASM_INSTANTIATE, 107, "SAND_WASM_INSTANTIATION_FAILED",                               \
      "module could not be instantiated")

typedef enum sbx_err {
#define SBX_ERR_ENUM(id, val, name, msg) id = val,
    SBX_ERRORS(SBX_ERR_ENUM)
#undef SBX_ERR_ENUM
} sbx_err;

/* Returns the stable code name ("SANDBOX_TIMEOUT"); "SANDBOX_UNKNOWN_ERROR" for an unknown
 * value. Static storage, never NULL. */
SBX_API const char *sbx_err_name(sbx_err err);

/* Returns a one-line description of err. Static storage, never NULL. */
SBX_API const char *sbx_err_message(sbx_err err);

/* Looks a code up by its stable name; returns 0 and sets *out, or -1 if no code has that name. */
SBX_API int sbx_err_from_name(const char *name, sbx_err *out);

/* Returns the library version string ("0.2.0"; 0.2.0 added sbx_result.denials, changing
 * sbx_result's size). */
SBX_API const char *sbx_version(void);

/* Stops the library's background work before the process exits: the wasm tier-up worker
 * starts no new compile, and a compile in flight (the worker's, or the compiled tier's on
 * another thread) stops at its next function or phase and is waited for, as is a load of
 * libLLVM in progress (bounded: 20 s at most). Call it before exit() whenever a wasm run may
 * still be going on another thread: exit() runs libLLVM's destructors, and an LLVM load or
 * compile running then can crash the exiting process. The CLI and the bindings call it at
 * exit. Afterwards AUTO stores stay interpreted and the compiled tier is unavailable. Any
 * thread; idempotent. */
SBX_API void sbx_shutdown(void);

#ifdef __cplusplus
}
#endif
#endif
