/* No network: a TCP listener on the host's 127.0.0.1 (argv[1] = port) and a host abstract unix
 * socket (argv[2] = name) are unreachable; no interface other than lo exists. */
#include <arpa/inet.h>
#include <net/if.h>
#include <stddef.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "probe.h"

static int try_tcp(int port)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0)
        return probe_expect_fail(-1, "socket(AF_INET)");
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int rc =
        probe_expect_fail(connect(s, (struct sockaddr *)&a, sizeof(a)), "connect host 127.0.0.1");
    close(s);
    return rc;
}

static int try_abstract(const char *name)
{
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    size_t n = strlen(name);
    if (s < 0 || n + 1 > sizeof(a.sun_path))
        return PROBE_SKIP;
    memcpy(a.sun_path + 1, name, n);
    int rc = probe_expect_fail(connect(s, (struct sockaddr *)&a,
                                       (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)),
                               "connect host abstract unix socket");
    close(s);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return PROBE_SKIP;
    int rc = probe_merge(try_tcp((int)strtol(argv[1], NULL, 10)), try_abstract(argv[2]));
    struct if_nameindex *ifs = if_nameindex();
    for (struct if_nameindex *i = ifs; i && i->if_index; i++) {
        if (strcmp(i->if_name, "lo") != 0) {
            printf("ESCAPED: interface %s visible\n", i->if_name);
            rc = PROBE_ESCAPED;
        }
    }
    if (ifs)
        if_freenameindex(ifs);
    return rc;
}
