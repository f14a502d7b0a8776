/* plugin/backend.c: the wasm tier behind sbx_sandbox_run(): each run builds a plugin handle from
 * input->module (under the run's deadline), runs the WASI command's _start with input->argv,
 * context_json as stdin and captured or inherited stdio, and frees it. Core makes the span. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "core/backend.h"
#include "plugin/plugin.h"
#include "util/alloc.h"

struct wasm_run {
    sbx_wasm_sandbox *_Atomic sb; /* set by exec, read by interrupt on another thread */
};

static sbx_err wasm_open(struct sbx__run *run)
{
    run->state = sbx__calloc(1, sizeof(struct wasm_run));
    return run->state ? SBX_OK : SBX_E_NOMEM;
}

/* A create that ended at a limit (time while loading, memory while instantiating) or at an
 * abort is the guest's outcome, as the same stop during the run would be. */
static bool is_guest_outcome(sbx_err rc, sbx_limit *limit)
{
    *limit = rc == SBX_E_TIMEOUT        ? SBX_LIMIT_TIMEOUT
             : rc == SBX_E_MEMORY_LIMIT ? SBX_LIMIT_MEMORY
                                        : SBX_LIMIT_NONE;
    return *limit != SBX_LIMIT_NONE || rc == SBX_E_ABORTED;
}

/* Builds the handle here rather than in open, so that loading runs under the run's deadline
 * and an abort (core delivers those only while exec runs) stops it. */
static sbx_err create(struct sbx__run *run, sbx_result *out)
{
    const sbx_run_input *in = run->input;
    struct wasm_run *st = run->state;
    if (in->cwd) {
        sbx__result_fail(out, SBX_E_INVALID_ARGUMENT, "input->cwd is for the process tier");
        return SBX_E_INVALID_ARGUMENT;
    }
    if (!in->module || in->module_len == 0) {
        sbx__result_fail(out, SBX_E_INVALID_ARGUMENT, "the wasm tier needs input->module");
        return SBX_E_INVALID_ARGUMENT;
    }
    sbx_wasm_options opt = {
        .size = sizeof(opt),
        .argv = in->argv,
        .stdin_data = (const uint8_t *)in->context_json,
        .stdin_len = in->context_json ? strlen(in->context_json) : 0,
        .inherit_stdio = in->inherit_stdio,
        .on_output = in->on_output,
        .on_output_user = in->on_output_user,
    };
    struct wasm_load_guard guard = {.deadline_ns = run->deadline_ns,
                                    .stop = &run->interrupt_reason};
    char msg[512] = "";
    sbx_wasm_sandbox *sb = NULL;
    sbx_err rc = sbx__plugin_create(in->module, in->module_len, run->policy, &opt, false, &guard,
                                    &sb, msg, sizeof(msg));
    atomic_store(&st->sb, sb);
    if (rc == SBX_OK)
        return SBX_OK;
    sbx__result_fail(out, rc, "%s", msg);
    return is_guest_outcome(rc, &out->limit) ? SBX_OK : rc;
}

static sbx_err wasm_exec(struct sbx__run *run, sbx_result *out)
{
    struct wasm_run *st = run->state;
    sbx_err rc = create(run, out);
    sbx_wasm_sandbox *sb = atomic_load(&st->sb);
    if (!sb)
        return rc;
    sbx_result r;
    rc = sbx_wasm_sandbox_run(sb, &r);
    /* Move the handle's result into core's, keeping what core set up. */
    sbx_result_free(out);
    *out = r;
    return rc;
}

static void wasm_interrupt(struct sbx__run *run)
{
    struct wasm_run *st = run->state;
    sbx_wasm_sandbox *sb = st ? atomic_load(&st->sb) : NULL;
    if (sb)
        sbx_wasm_sandbox_abort(sb);
}

static void wasm_close(struct sbx__run *run)
{
    struct wasm_run *st = run->state;
    if (!st)
        return;
    sbx_wasm_sandbox_destroy(st->sb);
    sbx__free(st);
    run->state = NULL;
}

const struct sbx__backend sbx__backend_wasm = {
    .name = "wasm",
    .open = wasm_open,
    .exec = wasm_exec,
    .interrupt = wasm_interrupt,
    .close = wasm_close,
};
