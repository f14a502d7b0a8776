/* Only AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK/NETLINK_ROUTE sockets exist: the network
 * namespace does not cover every family (AF_VSOCK binds in the machine-wide vsock port space
 * and reaches the hypervisor; AF_PACKET, AF_ALG, AF_KEY, AF_XDP, AF_BLUETOOTH... are kernel
 * attack surface). Every other family, 0..AF_MAX and beyond, must fail with EAFNOSUPPORT from
 * socket() and socketpair() for every type; any other answer means the call reached the family.
 * The unjailed control sees some family answer (here AF_VSOCK, AF_PACKET, AF_XDP). Exit 2: an
 * allowed family is broken. Nothing connects anywhere; vsock binds an ephemeral port only. */
#include <linux/netlink.h>
#include <linux/vm_sockets.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "probe.h"

/* socket(2) through syscall(2), so high bits in the family reach the kernel (which drops them). */
static long raw_socket(long family, long type, long proto)
{
    return syscall(SYS_socket, family, type, proto);
}

static int try_vsock(long family, const char *what)
{
    int fd = (int)raw_socket(family, SOCK_STREAM, 0);
    if (fd < 0 && errno == EAFNOSUPPORT) {
        printf("blocked: %s: %s\n", what, strerror(errno));
        return PROBE_BLOCKED;
    }
    if (fd < 0) {
        printf("ESCAPED: %s reached the family (%s)\n", what, strerror(errno));
        return PROBE_ESCAPED;
    }
    struct sockaddr_vm a = {
        .svm_family = AF_VSOCK, .svm_cid = VMADDR_CID_ANY, .svm_port = VMADDR_PORT_ANY};
    int bound = bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(fd, 1) == 0;
    printf("ESCAPED: %s created%s\n", what, bound ? ", bound and listening" : "");
    close(fd);
    return PROBE_ESCAPED;
}

/* Blocked only when every type of socket() and socketpair() says EAFNOSUPPORT. */
static int try_family(int family)
{
    static const int types[] = {SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET, SOCK_RAW};
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        int sv[2], fd = (int)raw_socket(family, types[i], 0);
        if (fd >= 0 || errno != EAFNOSUPPORT) {
            printf("ESCAPED: socket(%d, type %d) %s\n", family, types[i],
                   fd >= 0 ? "succeeded" : strerror(errno));
            if (fd >= 0)
                close(fd);
            return PROBE_ESCAPED;
        }
        int rc = socketpair(family, types[i], 0, sv);
        if (rc == 0 || errno != EAFNOSUPPORT) {
            printf("ESCAPED: socketpair(%d, type %d) %s\n", family, types[i],
                   rc == 0 ? "succeeded" : strerror(errno));
            if (rc == 0)
                close(sv[0]), close(sv[1]);
            return PROBE_ESCAPED;
        }
    }
    return PROBE_BLOCKED;
}

/* AF_NETLINK: NETLINK_ROUTE only (glibc's if_nameindex, getifaddrs); the rest EPROTONOSUPPORT. */
static int try_netlink(void)
{
    int rc = PROBE_BLOCKED;
    for (int proto = 1; proto < 32; proto++) {
        int fd = (int)raw_socket(AF_NETLINK, SOCK_RAW, proto);
        if (fd >= 0 || errno != EPROTONOSUPPORT) {
            printf("ESCAPED: socket(AF_NETLINK, protocol %d) %s\n", proto,
                   fd >= 0 ? "succeeded" : strerror(errno));
            rc = PROBE_ESCAPED;
        }
        if (fd >= 0)
            close(fd);
    }
    return rc;
}

static int allowed_work(void)
{
    static const int ok[][3] = {{AF_UNIX, SOCK_STREAM, 0},
                                {AF_INET, SOCK_DGRAM, 0},
                                {AF_INET6, SOCK_DGRAM, 0},
                                {AF_NETLINK, SOCK_RAW, NETLINK_ROUTE}};
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        int fd = socket(ok[i][0], ok[i][1], ok[i][2]);
        if (fd < 0 && !(ok[i][0] == AF_INET6 && errno == EAFNOSUPPORT)) { /* a v6-less kernel */
            printf("BROKEN: allowed family %d: %s\n", ok[i][0], strerror(errno));
            return 0;
        }
        if (fd >= 0)
            close(fd);
    }
    return 1;
}

int main(void)
{
    if (!allowed_work())
        return 2;
    int rc = probe_merge(try_vsock(AF_VSOCK, "socket(AF_VSOCK)"),
                         try_vsock((1L << 32) | AF_VSOCK, "socket(AF_VSOCK | 1 << 32)"));
    int reached = 0;
    for (int family = 0; family < AF_MAX + 8; family++) {
        if (family == AF_UNIX || family == AF_INET || family == AF_INET6 || family == AF_NETLINK)
            continue;
        int v = try_family(family);
        reached += v == PROBE_ESCAPED;
        rc = probe_merge(rc, v);
    }
    static const long wild[] = {255, 0x7fffffff, (1L << 32) | AF_PACKET, (1L << 40) | AF_ALG};
    for (size_t i = 0; i < sizeof(wild) / sizeof(wild[0]); i++) {
        int fd = (int)raw_socket(wild[i], SOCK_RAW, 0);
        if (fd >= 0 || errno != EAFNOSUPPORT) {
            printf("ESCAPED: socket(%#lx) %s\n", wild[i], fd >= 0 ? "succeeded" : strerror(errno));
            rc = PROBE_ESCAPED;
        }
        if (fd >= 0)
            close(fd);
    }
    rc = probe_merge(rc, try_netlink());
    printf("%d of %d other families reached the kernel\n", reached, AF_MAX + 8 - 4);
    return rc;
}
