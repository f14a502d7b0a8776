/* wasm/jit/test_env.c: SBX_TEST_PAUSE_LLVM_LOAD=MS:PATH, for the bindings' exit-hook tests,
 * whose hosts (python3, node) cannot define jit.h's weak test hook: the load of libLLVM, right
 * after its dlopen, appends 'p' to PATH, sleeps MS ms (at most 60 s) and appends 'r', so a test
 * can end its process inside the load and see whether the exit waited for it. Unset (always,
 * outside those tests), it costs one getenv() per process. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "wasm/jit/jit.h"

#define MAX_PAUSE_MS 60000

static void mark(int fd, char c)
{
    if (write(fd, &c, 1) != 1)
        return; /* the test sees the mark missing */
}

void sbx__jit_env_pause_load(void)
{
    const char *v = getenv("SBX_TEST_PAUSE_LLVM_LOAD");
    char *end = NULL;
    unsigned long ms = v ? strtoul(v, &end, 10) : 0;
    if (!v || end == v || *end != ':' || ms > MAX_PAUSE_MS)
        return;
    int fd = open(end + 1, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    mark(fd, 'p');
    struct timespec left = {.tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000};
    while (nanosleep(&left, &left) != 0 && errno == EINTR) {
    }
    mark(fd, 'r');
    close(fd);
}
