/* tests/coverage/exit_busy.c: runs worker-tier jobs, then exits at once without destroying the
 * sandbox, so the pool thread is still in the engine (the job's on_done wakes this thread first)
 * or building its spare engine when exit starts. With "stuck", it exits while a run it gave up on
 * is stuck in a native call the engine cannot interrupt, its thread throttled. Coverage builds
 * only (issue 15): see exit_counters.sh, which checks what libgcov wrote. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sbx.h>

static sbx_sandbox *worker(const char *policy)
{
    sbx_policy *p = NULL;
    sbx_sandbox *sb = NULL;
    if (sbx_policy_parse(policy, strlen(policy), &p, NULL, 0) != SBX_OK ||
        sbx_sandbox_create(SBX_BACKEND_WORKER, p, &sb) != SBX_OK) {
        fprintf(stderr, "exit_busy: no worker sandbox\n");
        exit(2);
    }
    sbx_policy_destroy(p);
    return sb;
}

/* The search takes minutes; the timeout abandons it, and 100 ms later its thread is throttled. */
static int exit_stuck(void)
{
    static const char code[] =
        "var h = 'a'.repeat(8e6); return h.indexOf('a'.repeat(262144) + 'b')";
    sbx_sandbox *sb = worker("{\"timeoutMs\":100}");
    sbx_run_input in = {.code = code, .code_len = strlen(code)};
    sbx_result r;
    sbx_sandbox_run(sb, &in, &r);
    int is_timeout = r.error == SBX_E_TIMEOUT;
    sbx_result_free(&r);
    if (!is_timeout) {
        fprintf(stderr, "exit_busy: the stuck run did not time out\n");
        return 3;
    }
    usleep(500 * 1000);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "stuck") == 0)
        return exit_stuck();
    int runs = argc > 1 ? atoi(argv[1]) : 3;
    sbx_sandbox *sb = worker("{\"timeoutMs\":10000}");
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
