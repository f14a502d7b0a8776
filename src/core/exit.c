/* core/exit.c: the exit steps and coverage counters (core/exit.h). The only library file that
 * knows SBX_COVERAGE. */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/exit.h"

static void (*_Atomic steps[SBX__EXIT_STEPS])(void);
static atomic_bool has_run;

static void run_steps(void)
{
    if (atomic_exchange(&has_run, true))
        return; /* an earlier registration of the same handler, now after the destructors */
    for (int i = 0; i < SBX__EXIT_STEPS; i++) {
        void (*fn)(void) = atomic_load(&steps[i]);
        if (fn)
            fn();
    }
}

void sbx__exit_at(enum sbx__exit_step step, void (*fn)(void))
{
    atomic_store(&steps[step], fn);
    atexit(run_steps);
}

#ifdef SBX_COVERAGE
void __gcov_dump(void);
void __gcov_reset(void);
extern char **environ;

bool sbx__exit_counts_coverage(void)
{
    return true;
}

void sbx__exit_dump_counters(void)
{
    __gcov_dump();
}

/* libgcov reads GCOV_PREFIX when it dumps, so the child's counters go through a handle on the
 * host's root; setting environ allocates nothing, as that child must not. */
static char cov_prefix[32], cov_errors[] = "GCOV_ERROR_FILE=/dev/null";
static char *cov_env[] = {cov_prefix, cov_errors, NULL};
static int cov_fd = -1;

void sbx__exit_child_begin(int fd)
{
    __gcov_reset(); /* the counters copied from the host are the host's to dump */
    int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root < 0)
        return;
    int at = fcntl(root, F_DUPFD_CLOEXEC, fd);
    cov_fd = at == fd ? fd : -1;
    if (at >= 0 && at != fd)
        close(at);
    close(root);
    /* "GCOV_PREFIX=/proc/self/fd/" and fd's digits, without snprintf's locale machinery */
    static const char head[] = "GCOV_PREFIX=/proc/self/fd/";
    size_t n = sizeof(head) - 1;
    for (size_t i = 0; i < n; i++)
        cov_prefix[i] = head[i];
    char digits[12];
    int k = 0;
    for (unsigned v = (unsigned)fd; k == 0 || v; v /= 10)
        digits[k++] = (char)('0' + v % 10);
    while (k)
        cov_prefix[n++] = digits[--k];
    cov_prefix[n] = '\0';
    if (cov_fd >= 0)
        environ = cov_env;
}

void sbx__exit_child_dump(void)
{
    if (cov_fd < 0)
        return;
    __gcov_dump();
    __gcov_reset();
}

void sbx__exit_child_end(void)
{
    sbx__exit_child_dump();
    if (cov_fd >= 0)
        close(cov_fd);
    cov_fd = -1;
}
#else
bool sbx__exit_counts_coverage(void)
{
    return false;
}

void sbx__exit_dump_counters(void)
{
}

void sbx__exit_child_begin(int fd)
{
    (void)fd;
}

void sbx__exit_child_dump(void)
{
}

void sbx__exit_child_end(void)
{
}
#endif
