/* tests/coverage/exit_busy.c: runs worker-tier jobs, then exits at once without destroying the
 * sandbox, so the pool thread is still in the engine (the job's on_done wakes this thread first)
 * or building its spare engine when exit starts. Coverage builds only (issue 15): see
 * exit_counters.sh, which checks what libgcov wrote. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sbx.h>

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 3;
    static const char policy[] = "{\"timeoutMs\":10000}";
    sbx_policy *p = NULL;
    sbx_sandbox *sb = NULL;
    if (sbx_policy_parse(policy, strlen(policy), &p, NULL, 0) != SBX_OK ||
        sbx_sandbox_create(SBX_BACKEND_WORKER, p, &sb) != SBX_OK) {
        fprintf(stderr, "exit_busy: no worker sandbox\n");
        return 2;
    }
    sbx_policy_destroy(p);
    for (int i = 0; i < runs; i++) {
        static const char code[] = "let a = []; for (let i = 0; i < 5000; i++) a.push({i}); "
                                   "return a.length";
        sbx_run_input in = {.code = code, .code_len = strlen(code)};
        sbx_result r;
        sbx_sandbox_run(sb, &in, &r);
        int ok = r.ok && r.value_json && strcmp(r.value_json, "5000") == 0;
        sbx_result_free(&r);
        if (!ok) {
            fprintf(stderr, "exit_busy: run %d failed\n", i);
            return 3;
        }
    }
    return 0;
}
