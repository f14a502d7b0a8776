/* wasi/random.c: random_get straight from getrandom(2), which blocks only until the kernel's
 * pool is first initialised and never returns short for <= 256 bytes. */
#include <errno.h>
#include <sys/random.h>

#include "wasi/internal.h"

WASI_FN(random_get)
{
    uint8_t *p = g_span(e, a[0].i32, a[1].i32);
    if (!p)
        return WASI_EFAULT;
    size_t len = a[1].i32, done = 0;
    while (done < len) {
        ssize_t n = getrandom(p + done, len - done, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return sbx__wasi_errno(errno);
        }
        done += (size_t)n;
    }
    return WASI_ESUCCESS;
}
