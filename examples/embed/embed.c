/* examples/embed/embed.c: one policy, three tiers, through the public header only.
 * Build: cc embed.c $(pkg-config --cflags --libs sbx) */
#include <stdio.h>
#include <string.h>

#include <sbx.h>

#include "hello_wasm.h"

/* Runs one input in one tier and prints the result as JSON; returns 0 if the guest succeeded. */
static int run(sbx_backend backend, const sbx_policy *policy, const sbx_run_input *in)
{
    sbx_sandbox *sb;
    sbx_err e = sbx_sandbox_create(backend, policy, &sb);
    if (e != SBX_OK) {
        fprintf(stderr, "%s: %s\n", sbx_backend_name(backend), sbx_err_name(e));
        return 1;
    }
    sbx_result r;
    sbx_sandbox_run(sb, in, &r);
    char *json = sbx_result_to_json(&r);
    printf("%s: %s\n", sbx_backend_name(backend), json ? json : "(no memory)");
    int rc = r.ok ? 0 : 1;
    sbx_free(json);
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    return rc;
}

int main(void)
{
    const char *text = "{\"timeoutMs\": 2000, \"maxOutputBytes\": 4096}";
    char err[256];
    sbx_policy *policy;
    if (sbx_policy_parse(text, strlen(text), &policy, err, sizeof(err)) != SBX_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    int failures = 0;

    const char *code = "console.log('adding'); return {sum: context.a + context.b};";
    sbx_run_input js = {
        .code = code, .code_len = strlen(code), .context_json = "{\"a\":1,\"b\":2}"};
    failures += run(SBX_BACKEND_WORKER, policy, &js);

    const char *const argv[] = {"/bin/echo", "hello from the jail", NULL};
    sbx_run_input cmd = {.argv = argv};
    failures += run(SBX_BACKEND_PROCESS, policy, &cmd);
    /* the same JavaScript in the jail: sbx's own guest, with the engine module bound in */
    failures += run(SBX_BACKEND_PROCESS, policy, &js);

    sbx_run_input wasm = {.module = hello_wasm, .module_len = sizeof(hello_wasm)};
    failures += run(SBX_BACKEND_WASM, policy, &wasm);

    sbx_policy_destroy(policy);
    return failures == 0 ? 0 : 1;
}
