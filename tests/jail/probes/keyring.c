/* The kernel keyring is shared across namespaces: keyctl, add_key, request_key are denied. */
#include <sys/syscall.h>
#include <unistd.h>

#include "probe.h"

int main(void)
{
    int rc = probe_expect_denied(syscall(SYS_keyctl, 0 /* GET_KEYRING_ID */, -3, 0),
                                 "keyctl(GET_KEYRING_ID)");
    rc = probe_merge(
        rc, probe_expect_denied(syscall(SYS_add_key, "user", "sbx", "x", 1, -3), "add_key"));
    rc = probe_merge(
        rc, probe_expect_denied(syscall(SYS_request_key, "user", "sbx", NULL, 0), "request_key"));
    return rc;
}
