/* jail/caps.c: the guest holds no capability, in any set, for good. The bounding and ambient
 * sets are emptied and the securebits locked so that no later execve(2), not even of a uid-0
 * or file-capability binary, hands one back (capabilities(7)); then no_new_privs. */
#include <errno.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jail/jail.h"

static int drop_bounding(void)
{
    for (int cap = 0; cap < 64; cap++) {
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
            if (errno == EINVAL)
                return 0; /* past CAP_LAST_CAP */
            return -errno;
        }
    }
    return 0;
}

int sbx__jail_caps_drop(void)
{
    int rc = drop_bounding();
    if (rc)
        return rc;
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0)
        return -errno;
    unsigned long bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                         SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
                         SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
    if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) != 0)
        return -errno;
    struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct data[2] = {{0, 0, 0}, {0, 0, 0}};
    if (syscall(SYS_capset, &hdr, data) != 0)
        return -errno;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -errno;
    /* Not dumpable: a guest process cannot ptrace or read /proc/1/mem of the jail's init. */
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
        return -errno;
    return 0;
}
