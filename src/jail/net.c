/* jail/net.c: the guest's network and host identity. The jail always has its own network
 * namespace (no interface but a down loopback, so nothing of the host is reachable); with
 * policy net.loopback the loopback comes up, still private to this jail. */
#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "jail/jail.h"

static int loopback_up(void)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    struct ifreq ifr;
    memset(&ifr, 0, sizeof(ifr));
    memcpy(ifr.ifr_name, "lo", 3);
    int rc = 0;
    if (ioctl(fd, SIOCGIFFLAGS, &ifr) != 0) {
        rc = -errno;
    } else {
        ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
        if (ioctl(fd, SIOCSIFFLAGS, &ifr) != 0)
            rc = -errno;
    }
    close(fd);
    return rc;
}

int sbx__jail_net_apply(bool loopback)
{
    if (sethostname("sbx", 3) != 0 || setdomainname("sbx", 3) != 0)
        return -errno;
    return loopback ? loopback_up() : 0;
}
