/* jail/gate_filter.c: the seccomp program of a policy with net.outbound, stacked on the two of
 * seccomp.c: connect() becomes a user notification the broker (gate.c) answers; TCP Fast Open,
 * which connects a socket from sendto/sendmsg or a setsockopt without connect(), is denied; so
 * are bind and listen, which on a brokered socket whose connect failed would act on the host;
 * io_uring, which would run socket operations past seccomp, stays denied here too. */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <seccomp.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jail/gate.h"

/* Flags are ints: the kernel drops the high 32 bits, so compare on the low 32 only. */
#define LOW32 0xffffffffu

static int deny_fastopen(scmp_filter_ctx ctx)
{
    uint32_t eperm = SCMP_ACT_ERRNO(EPERM);
    int rc = seccomp_rule_add(ctx, eperm, SCMP_SYS(sendto), 1,
                              SCMP_A3(SCMP_CMP_MASKED_EQ, MSG_FASTOPEN, MSG_FASTOPEN));
    if (rc == 0)
        rc = seccomp_rule_add(ctx, eperm, SCMP_SYS(sendmsg), 1,
                              SCMP_A2(SCMP_CMP_MASKED_EQ, MSG_FASTOPEN, MSG_FASTOPEN));
    if (rc == 0)
        rc = seccomp_rule_add(ctx, eperm, SCMP_SYS(sendmmsg), 1,
                              SCMP_A3(SCMP_CMP_MASKED_EQ, MSG_FASTOPEN, MSG_FASTOPEN));
    if (rc == 0)
        rc = seccomp_rule_add(ctx, eperm, SCMP_SYS(setsockopt), 2,
                              SCMP_A1(SCMP_CMP_MASKED_EQ, LOW32, IPPROTO_TCP),
                              SCMP_A2(SCMP_CMP_MASKED_EQ, LOW32, TCP_FASTOPEN_CONNECT));
    return rc;
}

static int build_gate(scmp_filter_ctx ctx)
{
    int rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(connect), 0);
    static const char *const denied[] = {"bind", "listen", "io_uring_setup", "io_uring_enter",
                                         "io_uring_register"};
    for (size_t i = 0; rc == 0 && i < sizeof(denied) / sizeof(denied[0]); i++) {
        int nr = seccomp_syscall_resolve_name(denied[i]);
        if (nr != __NR_SCMP_ERROR)
            rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
    }
    return rc == 0 ? deny_fastopen(ctx) : rc;
}

static struct sbx__jail_bpf gate_bpf;
static sbx_err gate_err = SBX_E_UNAVAILABLE;

static void build_once(void)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx)
        return;
    if (build_gate(ctx) == 0 && sbx__jail_seccomp_export(ctx, &gate_bpf) == 0)
        gate_err = SBX_OK;
    seccomp_release(ctx);
}

sbx_err sbx__jail_gate_filter(struct sbx__jail_bpf *out)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, build_once);
    *out = gate_bpf;
    return gate_err;
}

static int send_fds(int sock, const int fds[2])
{
    char byte = 'l';
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(2 * sizeof(int))];
    } ctl;
    memset(&ctl, 0, sizeof(ctl));
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = ctl.buf,
                         .msg_controllen = sizeof(ctl.buf)};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(2 * sizeof(int));
    memcpy(CMSG_DATA(c), fds, 2 * sizeof(int));
    return sendmsg(sock, &msg, MSG_NOSIGNAL) == 1 ? 0 : -errno;
}

/* WAIT_KILLABLE_RECV: once the broker holds a notification, only a fatal signal ends the wait,
 * so a signal cannot abort and restart a connect the broker is already making on the host. */
int sbx__jail_gate_apply(const struct sbx__jail_bpf *filter, int sock_fd, int stub_fd)
{
    struct sock_fprog prog = {.len = filter->count, .filter = (struct sock_filter *)filter->insns};
    unsigned flags = SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
    long listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
    if (listener < 0)
        return -errno;
    int fds[2] = {(int)listener, stub_fd};
    int rc = send_fds(sock_fd, fds);
    close((int)listener);
    close(stub_fd);
    close(sock_fd);
    return rc;
}

int sbx__jail_gate_stub_open(void)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(53)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        int err = errno;
        close(fd);
        return -err;
    }
    return fd;
}
