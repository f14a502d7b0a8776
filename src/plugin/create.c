/* plugin/create.c: building a plugin handle, in order: copy the policy, load the module, create
 * the store with the policy's limits, decide capabilities (failing early with deny_at_create),
 * create the WASI context, instantiate (WASI first, then capabilities) and run _initialize. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/backend.h"
#include "plugin/plugin.h"
#include "util/alloc.h"
#include "wasi/wasi.h"

static const char *const default_argv[] = {"plugin.wasm", NULL};

#define STACK_BYTES_MAX ((uint64_t)8 << 20)
#define CALL_DEPTH_MAX  10000u

static void on_wasi_denied(void *user, const char *capability)
{
    sbx__plugin_denied(user, capability);
}

static bool resolve(void *user, const struct wasm_import *imp, struct wasm_extern *out)
{
    struct sbx_wasm_sandbox *sb = user;
    if (sbx__wasi_resolve(sb->wasi, sb->store, sb->module, imp, out))
        return true;
    return sbx__plugin_caps_resolve(&sb->caps, sb->store, sb->module, imp, out);
}

/* Copies the caller's options (any older, smaller version) over zeroed defaults. */
static bool copy_options(const sbx_wasm_options *in, sbx_wasm_options *opt)
{
    memset(opt, 0, sizeof(*opt));
    if (!in)
        return true;
    if (in->size < offsetof(sbx_wasm_options, deny_at_create) || in->size > sizeof(*opt))
        return false;
    memcpy(opt, in, in->size);
    return true;
}

/* memoryBytes covers everything the store allocates for the guest. The interpreter's stacks take
 * a sixteenth of it for values (at most the engine's 8 MiB) and as much again for 32-byte frames
 * (at most 10,000); memories, tables and instances share the rest. */
static sbx_err make_store(struct sbx_wasm_sandbox *sb)
{
    uint64_t budget = sb->policy->memory_bytes, share = budget / 16;
    uint64_t stack = share < STACK_BYTES_MAX ? share : STACK_BYTES_MAX;
    uint64_t depth = share / 32 - 1 < CALL_DEPTH_MAX ? share / 32 - 1 : CALL_DEPTH_MAX;
    struct wasm_store_limits limits = {
        .max_stack_bytes = (size_t)stack,
        .max_call_depth = (uint32_t)depth,
        .fuel = sb->policy->fuel,
        .max_bytes = budget,
        .tier = (uint8_t)sb->policy->wasm_tier, /* enum sbx__wasm_tier = enum wasm_tier */
        .use_cache = sb->policy->wasm_cache,
    };
    uint64_t pages = (budget - sbx__wasm_exec_bytes(&limits)) / WASM_PAGE_SIZE;
    limits.max_memory_pages = pages > 65536 ? 65536 : (uint32_t)(pages ? pages : 1);
    return sbx__wasm_store_create(&limits, &sb->store);
}

static void tap_output(void *user, int stream, const char *data, size_t len)
{
    struct sbx_wasm_sandbox *sb = user;
    sb->on_output(sb->on_output_user, (sbx_stream)stream, data, len);
}

static sbx_err make_wasi(struct sbx_wasm_sandbox *sb, const sbx_wasm_options *opt, char *err,
                         size_t errlen)
{
    const char *const *argv = opt->argv ? opt->argv : default_argv;
    size_t argc = 0;
    while (argv[argc])
        argc++;
    sbx__buf_init(&sb->out_buf, (size_t)sb->policy->max_output_bytes);
    sbx__buf_init(&sb->err_buf, (size_t)sb->policy->max_output_bytes);
    sb->inherit_stdio = opt->inherit_stdio;
    if (opt->on_output && !opt->inherit_stdio) {
        sb->on_output = opt->on_output;
        sb->on_output_user = opt->on_output_user;
        sbx__buf_set_tap(&sb->out_buf, tap_output, sb, SBX_STREAM_STDOUT);
        sbx__buf_set_tap(&sb->err_buf, tap_output, sb, SBX_STREAM_STDERR);
    }
    struct sbx__wasi_config cfg = {
        .policy = sb->policy,
        .argv = argv,
        .argc = argc,
        .inherit_stdio = opt->inherit_stdio,
        .stdin_data = opt->stdin_data,
        .stdin_len = opt->stdin_data ? opt->stdin_len : 0,
        .stdout_buf = &sb->out_buf,
        .stderr_buf = &sb->err_buf,
        .on_denied = on_wasi_denied,
        .user = sb,
    };
    return sbx__wasi_create(&cfg, &sb->wasi, err, errlen);
}

/* Fails with SBX_E_WASM_PERMISSION_DENIED when deny_at_create and an import is denied. */
static sbx_err check_denials(struct sbx_wasm_sandbox *sb, const sbx_wasm_options *opt, char *err,
                             size_t errlen)
{
    if (!opt->deny_at_create)
        return SBX_OK;
    const struct wasm_import *imp =
        sbx__plugin_caps_first_denied(&sb->caps, sb->policy, sb->module);
    if (!imp)
        return SBX_OK;
    char name[256], label[300];
    sbx__plugin_import_name(imp, name, sizeof(name));
    snprintf(label, sizeof(label), "cap:%s", name);
    sbx__plugin_denied(sb, label);
    snprintf(err, errlen, "policy denies the capability import %s", name);
    return SBX_E_WASM_PERMISSION_DENIED;
}

/* A timeout or abort that came while instantiating is the outcome, also when the work (the
 * compiled tier's compile, the start function) finished after it: a create whose time ran out
 * never succeeds. Other failures keep their own code. */
static sbx_err stopped_by(struct sbx_wasm_sandbox *sb, sbx_err rc, char *err, size_t errlen)
{
    sbx_err reason = (sbx_err)atomic_load(&sb->stop_reason);
    if (reason == SBX_OK && sbx__now_ns() >= sb->deadline_ns)
        reason = SBX_E_TIMEOUT; /* the watchdog has not fired yet */
    if (reason == SBX_OK || (rc != SBX_OK && rc != SBX_E_ABORTED && rc != SBX_E_TIMEOUT))
        return rc;
    if (rc != reason && reason == SBX_E_TIMEOUT)
        snprintf(err, errlen, "guest exceeded its time limit of %" PRIu32 " ms while instantiating",
                 sb->policy->timeout_ms);
    else if (rc != reason)
        snprintf(err, errlen, "run was aborted by the host while instantiating");
    return reason;
}

/* Instantiates (compiling first under the compiled tier, then running the start function) and
 * calls _initialize, under the watchdog and g (the deadline and abort of the run). */
static sbx_err instantiate(struct sbx_wasm_sandbox *sb, const struct wasm_load_guard *g, char *err,
                           size_t errlen)
{
    sbx_err rc = sbx__plugin_begin_call(sb);
    if (rc != SBX_OK) {
        snprintf(err, errlen, "cannot start the watchdog (cpuPercent needs signal SIGRTMAX-2)");
        return rc;
    }
    struct wasm_trap trap = {0};
    rc = sbx__wasm_instantiate_guarded(sb->store, sb->module, resolve, sb, g, &sb->inst, &trap, err,
                                       errlen);
    struct wasm_extern ext;
    if (rc == SBX_OK && sbx__wasm_instance_export(sb->inst, "_initialize", 11, &ext) &&
        ext.kind == WASM_EXTERN_FUNC && sbx__wasm_func_type(ext.u.func)->param_count == 0) {
        wasm_value results[16];
        if (sbx__wasm_func_type(ext.u.func)->result_count <= 16)
            rc = sbx__wasm_func_call(sb->store, ext.u.func, NULL, results, &trap);
    }
    sbx__plugin_end_call(sb);
    if (rc == SBX_E_WASM_TRAP) {
        sbx_result r = {0};
        sbx__plugin_set_outcome(sb, rc, &trap, &r);
        snprintf(err, errlen, "initialisation: %s", r.error_message ? r.error_message : "trap");
        rc = r.ok ? SBX_OK : r.error;
        sbx_result_free(&r);
    }
    return stopped_by(sb, rc, err, errlen);
}

static sbx_err build(struct sbx_wasm_sandbox *sb, const uint8_t *bytes, size_t len,
                     const sbx_wasm_options *opt, const struct wasm_load_guard *guard, char *err,
                     size_t errlen)
{
    /* Loading is the guest's work too (a module can be made slow to compile): the policy's
     * timeout bounds it, as it bounds each call. */
    struct wasm_load_guard own = {.deadline_ns = sbx__now_ns() +
                                                 (uint64_t)sb->policy->timeout_ms * 1000000ull};
    sbx_err rc =
        sbx__wasm_module_load_guarded(bytes, len, guard ? guard : &own, &sb->module, err, errlen);
    if (rc != SBX_OK)
        return rc;
    if ((rc = make_store(sb)) != SBX_OK)
        return rc;
    rc = sbx__plugin_caps_init(&sb->caps, sb, sb->policy, opt, sb->module, err, errlen);
    if (rc != SBX_OK)
        return rc;
    if ((rc = check_denials(sb, opt, err, errlen)) != SBX_OK)
        return rc;
    if ((rc = make_wasi(sb, opt, err, errlen)) != SBX_OK)
        return rc;
    /* The run that creates this handle bounds the start function and every call by its own
     * deadline and abort, as it bounded loading. */
    sb->external_reason = guard ? guard->stop : NULL;
    sb->run_deadline_ns = guard ? guard->deadline_ns : 0;
    return instantiate(sb, guard ? guard : &own, err, errlen);
}

sbx_err sbx__plugin_create(const uint8_t *bytes, size_t len, const struct sbx_policy *policy,
                           const sbx_wasm_options *options, bool emit_span,
                           const struct wasm_load_guard *guard, sbx_wasm_sandbox **out, char *err,
                           size_t errlen)
{
    char msg[512] = "";
    sbx_wasm_options opt;
    sbx_err rc = SBX_E_INVALID_ARGUMENT;
    if (out)
        *out = NULL;
    if (!out || !bytes || !policy)
        snprintf(msg, sizeof(msg), "module bytes, policy and out are required");
    else if (!copy_options(options, &opt))
        snprintf(msg, sizeof(msg), "options.size is not a known sizeof(sbx_wasm_options)");
    else
        rc = SBX_OK;
    struct sbx_wasm_sandbox *sb = NULL;
    if (rc == SBX_OK) {
        sb = sbx__calloc(1, sizeof(*sb));
        if (!sb || !(sb->policy = sbx__policy_ref(policy)) ||
            pthread_mutex_init(&sb->pending_mu, NULL) != 0 || sbx__abort_init(&sb->abort) != 0) {
            if (sb)
                sbx_policy_destroy(sb->policy);
            sbx__free(sb);
            sb = NULL;
            rc = SBX_E_NOMEM;
        }
    }
    if (sb) {
        sb->emit_span = emit_span;
        rc = build(sb, bytes, len, &opt, guard, msg, sizeof(msg));
        if (rc != SBX_OK) {
            sbx_wasm_sandbox_destroy(sb);
            sb = NULL;
        }
    }
    if (rc != SBX_OK && !msg[0])
        snprintf(msg, sizeof(msg), "%s", sbx_err_message(rc));
    if (err && errlen)
        snprintf(err, errlen, "%s", rc == SBX_OK ? "" : msg);
    if (out)
        *out = sb;
    return rc;
}

sbx_err sbx_wasm_sandbox_create(const uint8_t *bytes, size_t len, const sbx_policy *policy,
                                const sbx_wasm_options *options, sbx_wasm_sandbox **out, char *err,
                                size_t errlen)
{
    return sbx__plugin_create(bytes, len, policy, options, true, NULL, out, err, errlen);
}
