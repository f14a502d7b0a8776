/* fuzz/fuzz_js_eval.c: libFuzzer target: arbitrary bytes as a worker-tier snippet under tight
 * limits. Every run must end with a result in the registry's vocabulary (never a crash, a hang
 * past the timeout bound, or a host failure), and a successful value must be valid JSON. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sbx.h>

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_js_eval: invariant failed: %s\n", #cond);                        \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static sbx_sandbox *sandbox(void)
{
    static sbx_sandbox *sb;
    if (sb)
        return sb;
    static const char policy_text[] =
        "{\"timeoutMs\": 50, \"memoryBytes\": 1048576, \"maxOutputBytes\": 256}";
    sbx_policy *p = NULL;
    CHECK(sbx_policy_parse(policy_text, sizeof(policy_text) - 1, &p, NULL, 0) == SBX_OK);
    CHECK(sbx_sandbox_create(SBX_BACKEND_WORKER, p, &sb) == SBX_OK);
    sbx_policy_destroy(p);
    return sb;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sbx_run_input in = {
        .code = (const char *)data, .code_len = size, .context_json = "{\"a\": [1, \"x\", null]}"};
    sbx_result r;
    CHECK(sbx_sandbox_run(sandbox(), &in, &r) == SBX_OK);
    if (r.ok) {
        CHECK(r.error == SBX_OK && r.value_json != NULL);
    } else {
        CHECK(r.error == SBX_E_EXECUTION_FAILED || r.error == SBX_E_TIMEOUT ||
              r.error == SBX_E_MEMORY_LIMIT || r.error == SBX_E_OUTPUT_LIMIT);
        CHECK(r.error_message != NULL);
    }
    CHECK(r.stdout_len <= 256 && r.stderr_len <= 256);
    /* 50 ms timeout + the tier's 50 ms bound, with slack for sanitizer overhead. */
    CHECK(r.duration_ms < 1000);
    char *json = sbx_result_to_json(&r);
    CHECK(json != NULL);
    sbx_free(json);
    sbx_result_free(&r);
    return 0;
}
