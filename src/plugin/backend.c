/* plugin/backend.c: the wasm tier behind sbx_sandbox_run(): each run builds a plugin handle from
 * input->module, runs the WASI command's _start with input->argv, context_json as stdin and
 * captured or inherited stdio, and frees it. Core makes the span; the handle does not. */
#include <stdio.h>
#include <string.h>

#include "core/backend.h"
#include "plugin/plugin.h"
#include "util/alloc.h"

struct wasm_run {
    sbx_wasm_sandbox *sb;
    sbx_err create_rc;
    char message[512];
};

static sbx_err wasm_open(struct sbx__run *run)
{
    const sbx_run_input *in = run->input;
    struct wasm_run *st = sbx__calloc(1, sizeof(*st));
    if (!st)
        return SBX_E_NOMEM;
    run->state = st;
    if (!in->module || in->module_len == 0) {
        st->create_rc = SBX_E_INVALID_ARGUMENT;
        snprintf(st->message, sizeof(st->message), "the wasm tier needs input->module");
        return SBX_OK;
    }
    sbx_wasm_options opt = {
        .size = sizeof(opt),
        .argv = in->argv,
        .stdin_data = (const uint8_t *)in->context_json,
        .stdin_len = in->context_json ? strlen(in->context_json) : 0,
        .inherit_stdio = in->inherit_stdio,
    };
    /* A create failure (bad module, link error) is reported by exec with its message. */
    st->create_rc = sbx__plugin_create(in->module, in->module_len, run->policy, &opt, false,
                                       &st->sb, st->message, sizeof(st->message));
    return SBX_OK;
}

static sbx_err wasm_exec(struct sbx__run *run, sbx_result *out)
{
    struct wasm_run *st = run->state;
    if (st->create_rc != SBX_OK) {
        sbx__result_fail(out, st->create_rc, "%s", st->message);
        return st->create_rc;
    }
    st->sb->external_reason = &run->interrupt_reason;
    sbx_result r;
    sbx_err rc = sbx_wasm_sandbox_run(st->sb, &r);
    /* Move the handle's result into core's, keeping what core set up. */
    sbx_result_free(out);
    *out = r;
    return rc;
}

static void wasm_interrupt(struct sbx__run *run)
{
    struct wasm_run *st = run->state;
    if (st && st->sb)
        sbx_wasm_sandbox_abort(st->sb);
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
