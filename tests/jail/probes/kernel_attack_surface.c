/* Large kernel attack surfaces are denied: bpf, perf_event_open, userfaultfd, io_uring,
 * kexec, module loading, open_by_handle_at (the "shocker" escape), process_vm_readv. */
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "probe.h"

int main(void)
{
    uint8_t attr[128] = {0};
    uint8_t params[120] = {0};
    struct iovec iov = {attr, 1};
    int rc = probe_expect_denied(syscall(SYS_bpf, 0, attr, 72), "bpf(MAP_CREATE)");
    rc = probe_merge(rc, probe_expect_denied(syscall(SYS_perf_event_open, attr, 0, -1, -1, 0),
                                             "perf_event_open"));
    rc = probe_merge(rc, probe_expect_denied(syscall(SYS_userfaultfd, 0), "userfaultfd"));
    rc = probe_merge(rc,
                     probe_expect_denied(syscall(SYS_io_uring_setup, 4, params), "io_uring_setup"));
    rc = probe_merge(rc, probe_expect_denied(syscall(SYS_kexec_load, 0, 0, NULL, 0), "kexec_load"));
    rc =
        probe_merge(rc, probe_expect_denied(syscall(SYS_init_module, attr, 16, ""), "init_module"));
    rc = probe_merge(rc, probe_expect_denied(syscall(SYS_finit_module, 0, "", 0), "finit_module"));
    rc = probe_merge(rc, probe_expect_denied(syscall(SYS_delete_module, "x", 0), "delete_module"));
    rc = probe_merge(
        rc, probe_expect_denied(syscall(SYS_open_by_handle_at, 0, attr, 0), "open_by_handle_at"));
    rc = probe_merge(rc, probe_expect_denied(syscall(SYS_process_vm_readv, 1, &iov, 1, &iov, 1, 0),
                                             "process_vm_readv"));
    return rc;
}
