/* tests/unit/jail/test_gate.c: policy.net.outbound in the process tier, attacked from inside the
 * jail. Test servers listen on the host's 127.0.0.1 only and count what reaches them: a denied
 * listener must see 0 connections. Each attack has a control where it must succeed (an allowing
 * policy, or the same code run on the host without the gate), so no test passes vacuously. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "jail/gate.h"
#include "jail_test.h"

/* A host listener on 127.0.0.1 that accepts and counts in its own thread. */
struct server {
    int fd;
    int port;
    _Atomic int accepted;
    _Atomic bool is_done;
    bool is_http; /* read a request, answer HTTP/1.0 "hello", instead of writing "hi" */
    pthread_t thread;
};

static void reply_http(int c)
{
    char req[2048];
    size_t got = 0;
    struct pollfd pfd = {.fd = c, .events = POLLIN};
    while (got < sizeof(req) - 1 && poll(&pfd, 1, 2000) == 1) {
        ssize_t n = read(c, req + got, sizeof(req) - 1 - got);
        if (n <= 0)
            break;
        got += (size_t)n;
        req[got] = '\0';
        if (strstr(req, "\r\n\r\n"))
            break;
    }
    static const char resp[] = "HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello";
    ssize_t n = write(c, resp, sizeof(resp) - 1);
    (void)n;
}

static void *serve(void *p)
{
    struct server *s = p;
    while (!atomic_load(&s->is_done)) {
        struct pollfd pfd = {.fd = s->fd, .events = POLLIN};
        if (poll(&pfd, 1, 20) <= 0)
            continue;
        int c = accept4(s->fd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0)
            continue;
        atomic_fetch_add(&s->accepted, 1);
        if (s->is_http) {
            reply_http(c);
        } else {
            ssize_t n = write(c, "hi", 2);
            (void)n;
        }
        close(c);
    }
    return NULL;
}

static void server_start(struct server *s)
{
    memset(s, 0, sizeof(*s));
    s->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    ck_assert_int_ge(s->fd, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    ck_assert_int_eq(bind(s->fd, (struct sockaddr *)&a, sizeof(a)), 0);
    ck_assert_int_eq(listen(s->fd, 256), 0);
    socklen_t len = sizeof(a);
    ck_assert_int_eq(getsockname(s->fd, (struct sockaddr *)&a, &len), 0);
    s->port = ntohs(a.sin_port);
    ck_assert_int_eq(pthread_create(&s->thread, NULL, serve, s), 0);
}

/* Stops the thread after a last look at the backlog; returns what it accepted. */
static int server_stop(struct server *s)
{
    usleep(100 * 1000);
    atomic_store(&s->is_done, true);
    pthread_join(s->thread, NULL);
    for (int c; (c = accept4(s->fd, NULL, NULL, SOCK_CLOEXEC)) >= 0; close(c))
        atomic_fetch_add(&s->accepted, 1);
    close(s->fd);
    return atomic_load(&s->accepted);
}

static sbx_sandbox *outbound_sandbox(const char *patterns)
{
    char json[512];
    snprintf(json, sizeof(json), "{\"timeoutMs\":20000,\"net\":{\"outbound\":[%s]}}", patterns);
    return jt_sandbox(json);
}

static void run_py(sbx_sandbox *sb, const char *code, sbx_result *r)
{
    ck_assert_int_eq(jt_script(sb, "python3", code, NULL, r), SBX_OK);
    ck_assert_msg(r->ok, "%s\nstdout: %s\nstderr: %s", r->error_message, jt_out(r),
                  r->stderr_data ? r->stderr_data : "");
}

/* Runs python3 code on the host, outside any jail: the controls without the gate. */
static void host_py(const char *code)
{
    char path[] = "/tmp/sbx-jt-gate-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, code, strlen(code)), (ssize_t)strlen(code));
    close(fd);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "timeout 20 python3 %s", path);
    int st = system(cmd);
    unlink(path);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "host control failed: %d", st);
}

static const char connect_two[] =
    "import socket\n"
    "for port in (%d, %d):\n"
    "    s = socket.socket()\n"
    "    try:\n"
    "        s.connect(('127.0.0.1', port)); print(port, s.recv(10).decode())\n"
    "    except OSError as e:\n"
    "        print(port, 'errno', e.errno)\n";

enum pats { ONLY_A, BOTH, LOCALHOST_A, MAPPED_A };

static void patterns(char *out, size_t cap, enum pats kind, int a, int b)
{
    if (kind == ONLY_A)
        snprintf(out, cap, "\"127.0.0.1:%d\"", a);
    else if (kind == BOTH)
        snprintf(out, cap, "\"127.0.0.1:%d\", \"127.0.0.1:%d\"", a, b);
    else if (kind == LOCALHOST_A)
        snprintf(out, cap, "\"localhost:%d\"", a);
    else
        snprintf(out, cap, "\"[::ffff:127.0.0.1]:%d\"", a);
}

static void check_two(enum pats kind, bool is_b_allowed)
{
    struct server a, b;
    server_start(&a);
    server_start(&b);
    char pats[128], code[1024], want_a[32], want_b[32];
    patterns(pats, sizeof(pats), kind, a.port, b.port);
    snprintf(code, sizeof(code), connect_two, a.port, b.port);
    sbx_sandbox *sb = outbound_sandbox(pats);
    sbx_result r;
    run_py(sb, code, &r);
    snprintf(want_a, sizeof(want_a), "%d hi\n", a.port);
    snprintf(want_b, sizeof(want_b), is_b_allowed ? "%d hi\n" : "%d errno 111\n", b.port);
    ck_assert_msg(strstr(jt_out(&r), want_a) && strstr(jt_out(&r), want_b), "%s", jt_out(&r));
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    ck_assert_int_eq(server_stop(&a), 1);
    ck_assert_int_eq(server_stop(&b), is_b_allowed ? 1 : 0);
}

/* The denied listener sees 0 connections; the control allows both and sees 1 on each. */
START_TEST(test_allowed_and_denied)
{
    check_two(ONLY_A, false);
    check_two(BOTH, true);
    check_two(LOCALHOST_A, false);
    check_two(MAPPED_A, false);
}
END_TEST

/* A non-blocking connect answers EINPROGRESS on the installed host socket, which then
 * completes: writable, SO_ERROR 0, the peer the allowed port. */
START_TEST(test_nonblocking_connect)
{
    struct server a;
    server_start(&a);
    char pats[64], code[1024];
    snprintf(pats, sizeof(pats), "\"127.0.0.1:%d\"", a.port);
    snprintf(code, sizeof(code),
             "import socket, select\n"
             "s = socket.socket(); s.setblocking(False)\n"
             "print('rc', s.connect_ex(('127.0.0.1', %d)))\n"
             "select.select([], [s], [], 5)\n"
             "print('so_error', s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR))\n"
             "print('peer', s.getpeername()[1])\n"
             "s.setblocking(True); print('got', s.recv(10).decode())\n"
             "print('again', s.connect_ex(('127.0.0.1', 9)))\n",
             a.port);
    sbx_sandbox *sb = outbound_sandbox(pats);
    sbx_result r;
    run_py(sb, code, &r);
    char want[128];
    snprintf(want, sizeof(want), "rc 115\nso_error 0\npeer %d\ngot hi\nagain 106\n", a.port);
    ck_assert_str_eq(jt_out(&r), want);
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    ck_assert_int_eq(server_stop(&a), 1);
}
END_TEST

/* The host controls race like the attacks but cannot count on luck: a loaded machine may
 * interleave the threads so that 2,000 tries never land. They loop until the race is won or
 * CONTROL_S seconds pass; the caller then asserts the listener saw it, so none passes vacuously.
 * host_py's own 20 s limit leaves room for Python's start on a loaded machine. */
#define CONTROL_S "10"
static const char until_deadline[] = "import time\n"
                                     "end = time.monotonic() + " CONTROL_S "\n"
                                     "while time.monotonic() < end:\n";

/* The TOCTOU flipper: connects from one thread (ctypes, the GIL released in the call) while
 * another rewrites the port in the very buffer connect() reads. The attack makes 2,000; the
 * control stops once it has reached port b. */
static const char flipper[] =
    "import ctypes, socket, struct, threading\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "def sa(port): return struct.pack('=H', 2) + struct.pack('!H', port) + "
    "socket.inet_aton('127.0.0.1') + bytes(8)\n"
    "a, b = %d, %d\n"
    "good, bad = sa(a), sa(b)\n"
    "buf = ctypes.create_string_buffer(good, 16)\n"
    "done = False\n"
    "def flip():\n"
    "    while not done:\n"
    "        ctypes.memmove(buf, bad, 16); ctypes.memmove(buf, good, 16)\n"
    "def try_once():\n"
    "    s = socket.socket()\n"
    "    hit = libc.connect(s.fileno(), buf, 16) == 0 and s.getpeername()[1] == b\n"
    "    s.close(); return hit\n"
    "t = threading.Thread(target=flip); t.start()\n"
    "%s"
    "    if try_once(): break\n"
    "done = True; t.join(); print('flipped')\n";

static const char two_thousand[] = "for i in range(2000):\n";

/* The attacks' 2,000 brokered connects take seconds idle and minutes at a CPU share of 1/4 (all
 * on one core beside three busy loops): their jail limit and test case are sized for that. */
#define RACE_LIMIT  "120000"
#define RACE_CASE_S 300

START_TEST(test_toctou_flipper)
{
    struct server a, b;
    server_start(&a);
    server_start(&b);
    char pats[64], code[2048];
    snprintf(pats, sizeof(pats), "\"127.0.0.1:%d\"", a.port);
    snprintf(code, sizeof(code), flipper, a.port, b.port, two_thousand);
    char json[256];
    snprintf(json, sizeof(json), "{\"timeoutMs\":" RACE_LIMIT ",\"net\":{\"outbound\":[%s]}}",
             pats);
    sbx_sandbox *sb = jt_sandbox(json);
    sbx_result r;
    run_py(sb, code, &r);
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    int reached_a = server_stop(&a), reached_b = server_stop(&b);
    ck_assert_int_gt(reached_a, 0);
    ck_assert_int_eq(reached_b, 0);
    /* The control: the same flipper on the host, with no gate, reaches the other port. */
    server_start(&a);
    server_start(&b);
    snprintf(code, sizeof(code), flipper, a.port, b.port, until_deadline);
    host_py(code);
    server_stop(&a);
    ck_assert_int_gt(server_stop(&b), 0);
}
END_TEST

/* The dup2 swap: one thread connects fd N to the forbidden port (the attack 2,000 times, the
 * control until the swapped-in socket is connected) while another keeps swapping N between a
 * UDP socket (whose connect the kernel would perform in the jail) and a brokered host socket whose
 * connect failed (unconnected, in the host namespace). A broker that checked N and then continued
 * the guest's call would connect the host socket. Run with net.loopback too, where Landlock leaves
 * TCP connects alone: the broker alone holds. */
static const char swapper[] =
    "import ctypes, select, socket, struct, threading\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "bad = ctypes.create_string_buffer(struct.pack('=H', 2) + struct.pack('!H', %d) + "
    "socket.inet_aton('127.0.0.1') + bytes(8), 16)\n"
    "dead = socket.socket(); dead.setblocking(False)\n"
    "dead.connect_ex(('127.0.0.1', %d)); select.select([], [dead], [], 5)\n"
    "dead.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR); dead.setblocking(True)\n"
    "udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
    "n = socket.socket(); N = n.fileno(); done = False\n"
    "def swap():\n"
    "    while not done:\n"
    "        libc.dup2(udp.fileno(), N); libc.dup2(dead.fileno(), N)\n"
    "t = threading.Thread(target=swap); t.start()\n"
    "%s"
    "    libc.connect(N, bad, 16)\n"
    "    try: dead.getpeername(); break\n" /* the swapped-in socket is connected */
    "    except OSError: pass\n"
    "done = True; t.join(); print('swapped')\n";

START_TEST(test_dup2_swap)
{
    struct server dead, b;
    server_start(&dead);
    int dead_port = dead.port;
    server_stop(&dead);
    char json[256], code[2048];
    for (int loopback = 0; loopback < 2; loopback++) {
        server_start(&b);
        snprintf(json, sizeof(json),
                 "{\"timeoutMs\":" RACE_LIMIT
                 ",\"net\":{\"loopback\":%s,\"outbound\":[\"127.0.0.1:%d\"]}}",
                 loopback ? "true" : "false", dead_port);
        snprintf(code, sizeof(code), swapper, b.port, dead_port, two_thousand);
        sbx_sandbox *sb = jt_sandbox(json);
        sbx_result r;
        run_py(sb, code, &r);
        ck_assert_str_eq(jt_out(&r), "swapped\n");
        sbx_result_free(&r);
        sbx_sandbox_destroy(sb);
        ck_assert_int_eq(server_stop(&b), 0);
    }
    /* The control: on the host, without the gate, the swapped-in socket reaches the port. */
    server_start(&b);
    snprintf(code, sizeof(code), swapper, b.port, dead_port, until_deadline);
    host_py(code);
    ck_assert_int_gt(server_stop(&b), 0);
}
END_TEST

/* Holes around connect(), tried on a brokered host socket whose connect failed (so it is
 * unconnected, in the host namespace): TCP Fast Open (sendto MSG_FASTOPEN, TCP_FASTOPEN_CONNECT),
 * bind and listen, then io_uring and AF_UNIX. Each must fail and reach nothing. */
static const char holes[] =
    "import ctypes, errno, select, socket\n"
    "def tryit(name, f):\n"
    "    try:\n"
    "        f(); print(name, 'ok')\n"
    "    except OSError as e:\n"
    "        print(name, errno.errorcode.get(e.errno, e.errno))\n"
    "d = socket.socket(); d.setblocking(False)\n"
    "d.connect_ex(('127.0.0.1', %d)); select.select([], [d], [], 5)\n"
    "print('dead', d.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)); d.setblocking(True)\n"
    "tryit('tfo_sendto', lambda: d.sendto(b'x', socket.MSG_FASTOPEN, ('127.0.0.1', %d)))\n"
    "tryit('tfo_opt', lambda: d.setsockopt(socket.IPPROTO_TCP, 30, 1))\n"
    "tryit('bind', lambda: d.bind(('127.0.0.1', 0)))\n"
    "tryit('listen', lambda: d.listen(1))\n"
    "tryit('reconnect', lambda: d.connect(('127.0.0.1', %d)))\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "p = ctypes.create_string_buffer(120)\n"
    "rc = libc.syscall(425, 4, p)\n"
    "print('io_uring', 'ok' if rc >= 0 else errno.errorcode[ctypes.get_errno()])\n"
    "tryit('unix', lambda: socket.socket(socket.AF_UNIX).connect('\\0sbx-gate-test'))\n";

START_TEST(test_holes_closed)
{
    struct server dead, b;
    server_start(&dead);
    int dead_port = dead.port;
    server_stop(&dead); /* a port nobody listens on: the brokered connect is refused */
    server_start(&b);
    char pats[64], code[2048];
    snprintf(pats, sizeof(pats), "\"127.0.0.1:%d\"", dead_port);
    snprintf(code, sizeof(code), holes, dead_port, b.port, b.port);
    sbx_sandbox *sb = outbound_sandbox(pats);
    sbx_result r;
    run_py(sb, code, &r);
    ck_assert_str_eq(jt_out(&r), "dead 111\ntfo_sendto EPERM\ntfo_opt EPERM\nbind EPERM\n"
                                 "listen EPERM\nreconnect ECONNREFUSED\nio_uring EPERM\n"
                                 "unix EACCES\n");
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    ck_assert_int_eq(server_stop(&b), 0);
    /* The control: on the host, without the gate, the Fast Open sendto connects. */
    server_start(&b);
    snprintf(code, sizeof(code),
             "import socket\n"
             "s = socket.socket()\n"
             "s.sendto(b'x', socket.MSG_FASTOPEN, ('127.0.0.1', %d))\n"
             "s.recv(2)\n",
             b.port);
    host_py(code);
    ck_assert_int_eq(server_stop(&b), 1);
    /* And a jail without net.outbound may bind and listen (on its own loopback). */
    sb = jt_sandbox("{\"timeoutMs\":20000,\"net\":{\"loopback\":true}}");
    run_py(sb,
           "import socket\n"
           "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(1); print('listening')\n",
           &r);
    ck_assert_str_eq(jt_out(&r), "listening\n");
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
}
END_TEST

/* UDP is never brokered: its connect acts in the jail's namespace, so nothing reaches a host
 * UDP socket. The control: the same datagram sent on the host arrives. */
START_TEST(test_udp_stays_inside)
{
    int u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    ck_assert_int_eq(bind(u, (struct sockaddr *)&a, sizeof(a)), 0);
    socklen_t len = sizeof(a);
    ck_assert_int_eq(getsockname(u, (struct sockaddr *)&a, &len), 0);
    int port = ntohs(a.sin_port);
    char pats[64], code[1024];
    snprintf(pats, sizeof(pats), "\"127.0.0.1:%d\"", port);
    snprintf(code, sizeof(code),
             "import socket\n"
             "u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
             "try:\n"
             "    u.connect(('127.0.0.1', %d)); u.send(b'x'); print('sent')\n"
             "except OSError as e:\n"
             "    print('errno', e.errno)\n",
             port);
    sbx_sandbox *sb = outbound_sandbox(pats);
    sbx_result r;
    run_py(sb, code, &r);
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    char got[4];
    ck_assert_int_lt(recv(u, got, sizeof(got), 0), 0);
    host_py(code);
    usleep(50 * 1000);
    ck_assert_int_eq(recv(u, got, sizeof(got), 0), 1);
    close(u);
}
END_TEST

/* Connects by name to two servers, a (listed) and b: each prints "<port> hi" or its errno,
 * or the name's getaddrinfo error. */
static const char by_name[] = "import socket\n"
                              "for host, port in (('%s', %d), ('%s', %d)):\n"
                              "    try:\n"
                              "        s = socket.create_connection((host, port), timeout=5)\n"
                              "        print(host, port, s.recv(10).decode())\n"
                              "    except socket.gaierror as e:\n"
                              "        print(host, port, 'gai', e.errno)\n"
                              "    except OSError as e:\n"
                              "        print(host, port, 'errno', e.errno)\n";

/* One pattern: host ending in ":*" as it is, else host:port. */
static void pattern(char *out, size_t cap, const char *host, int port)
{
    size_t n = strlen(host);
    if (n > 2 && strcmp(host + n - 2, ":*") == 0)
        snprintf(out, cap, "\"%s\"", host);
    else
        snprintf(out, cap, "\"%s:%d\"", host, port);
}

/* Runs by_name with patterns pat_a (on a's port) and pat_b (on b's), checks its lines and
 * what reached each server. */
static void check_names(const char *pat_a, const char *pat_b, const char *host_a,
                        const char *host_b, const char *want_a, const char *want_b, int reached_a,
                        int reached_b)
{
    struct server a, b;
    server_start(&a);
    server_start(&b);
    char pa[96], pb[96], pats[256], code[1024], want[256];
    pattern(pa, sizeof(pa), pat_a, a.port);
    pattern(pb, sizeof(pb), pat_b, b.port);
    snprintf(pats, sizeof(pats), "%s, %s", pa, pb);
    snprintf(code, sizeof(code), by_name, host_a, a.port, host_b, b.port);
    sbx_sandbox *sb = outbound_sandbox(pats);
    sbx_result r;
    run_py(sb, code, &r);
    snprintf(want, sizeof(want), "%s %d %s\n%s %d %s\n", host_a, a.port, want_a, host_b, b.port,
             want_b);
    ck_assert_str_eq(jt_out(&r), want);
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    ck_assert_int_eq(server_stop(&a), reached_a);
    ck_assert_int_eq(server_stop(&b), reached_b);
}

/* A listed name resolves through the jail's DNS stub and connects; an unlisted one gets
 * NXDOMAIN (EAI_NONAME, -2) and reaches nothing. The control lists both. */
START_TEST(test_names)
{
    check_names("localhost", "127.0.0.2", "localhost", "unlisted.example", "hi", "gai -2", 1, 0);
    check_names("api.localhost", "db.localhost", "api.localhost", "db.localhost", "hi", "hi", 1, 1);
    check_names("api.localhost", "localhost", "api.localhost", "db.localhost", "hi", "gai -2", 1,
                0);
}
END_TEST

/* *.domain matches strictly deeper names, through the wasm tier's matcher: a.localhost and
 * x.y.localhost resolve, localhost itself does not. */
START_TEST(test_wildcard_names)
{
    check_names("*.localhost", "*.localhost", "a.localhost", "x.y.localhost", "hi", "hi", 1, 1);
    check_names("*.localhost", "*.localhost", "a.localhost", "localhost", "hi", "gai -2", 1, 0);
}
END_TEST

/* An address reached by name carries that name's ports only: localhost:A refuses b's port
 * (ECONNREFUSED, b sees 0 connections); the control, localhost:*, reaches both. */
START_TEST(test_name_ports)
{
    check_names("localhost", "127.0.0.2", "localhost", "localhost", "hi", "errno 111", 1, 0);
    check_names("localhost:*", "127.0.0.2", "localhost", "localhost", "hi", "hi", 1, 1);
    check_names("*.localhost", "127.0.0.2", "a.localhost", "a.localhost", "hi", "errno 111", 1, 0);
}
END_TEST

/* A client that skips NSS (as dig and c-ares do): raw UDP to the resolv.conf server, connected
 * and not. The listed name is answered (A and AAAA, none for TXT), the unlisted one NXDOMAIN, a
 * pointer loop FORMERR, a response nothing. 127.0.0.1 is refused until the stub has answered
 * it for api.localhost, then connects as that name. */
static const char raw_dns[] =
    "import socket, struct\n"
    "ns = [l.split()[1] for l in open('/etc/resolv.conf') if l.startswith('nameserver')][0]\n"
    "def ask(pkt, connect=True, wait=2):\n"
    "    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(wait)\n"
    "    if connect: s.connect((ns, 53)); s.send(pkt)\n"
    "    else: s.sendto(pkt, (ns, 53))\n"
    "    try: r = s.recv(512)\n"
    "    except socket.timeout: return 'timeout'\n"
    "    an = struct.unpack('!H', r[6:8])[0]; off = len(pkt); ips = []\n"
    "    for i in range(an):\n"
    "        rl = struct.unpack('!H', r[off + 10:off + 12])[0]; off += 12\n"
    "        ips.append(socket.inet_ntop(socket.AF_INET if rl == 4 else socket.AF_INET6,\n"
    "                                    r[off:off + rl])); off += rl\n"
    "    return r[3] & 15, an, ips\n"
    "def query(name, qtype):\n"
    "    labels = b''.join(bytes([len(l)]) + l.encode() for l in name.split('.'))\n"
    "    return struct.pack('!6H', 0x4242, 0x100, 1, 0, 0, 0) + labels + b'\\0' + "
    "struct.pack('!HH', qtype, 1)\n"
    "def tcp(): return socket.socket().connect_ex(('127.0.0.1', %d))\n"
    "print('ns', ns)\n"
    "print('before', tcp())\n"
    "print('A', ask(query('api.localhost', 1)))\n"
    "print('AAAA', ask(query('Api.LOCALHOST', 28), connect=False))\n"
    "print('TXT', ask(query('api.localhost', 16)))\n"
    "print('unlisted', ask(query('evil.example', 1)))\n"
    "print('loop', ask(bytes.fromhex('000701000001000000000000' '0161c00c00010001')))\n"
    "print('response', ask(bytes.fromhex('000781800000000000000000'), wait=0.5))\n"
    "print('after', tcp())\n";

START_TEST(test_raw_dns)
{
    struct server a;
    server_start(&a);
    char pats[64], code[4096];
    snprintf(pats, sizeof(pats), "\"api.localhost:%d\"", a.port);
    snprintf(code, sizeof(code), raw_dns, a.port);
    sbx_sandbox *sb = outbound_sandbox(pats);
    sbx_result r;
    run_py(sb, code, &r);
    ck_assert_str_eq(jt_out(&r), "ns 127.0.0.1\nbefore 111\nA (0, 1, ['127.0.0.1'])\n"
                                 "AAAA (0, 1, ['::1'])\nTXT (0, 0, [])\nunlisted (3, 0, [])\n"
                                 "loop (1, 0, [])\nresponse timeout\nafter 0\n");
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    ck_assert_int_eq(server_stop(&a), 1);
}
END_TEST

/* python3 urllib against an HTTP server on the host's 127.0.0.1, reached by an allowed name;
 * the same request to an unlisted name fails in its lookup and reaches nothing. */
START_TEST(test_urllib_by_name)
{
    struct server a;
    server_start(&a);
    a.is_http = true;
    char pats[64], code[1024];
    snprintf(pats, sizeof(pats), "\"api.localhost:%d\"", a.port);
    snprintf(code, sizeof(code),
             "import urllib.request, urllib.error\n"
             "for host in ('api.localhost', 'other.localhost'):\n"
             "    try:\n"
             "        with urllib.request.urlopen('http://%%s:%d/x' %% host, timeout=5) as f:\n"
             "            print(host, f.status, f.read().decode())\n"
             "    except urllib.error.URLError as e:\n"
             "        print(host, 'failed', getattr(e.reason, 'errno', e.reason))\n",
             a.port);
    sbx_sandbox *sb = outbound_sandbox(pats);
    sbx_result r;
    run_py(sb, code, &r);
    ck_assert_str_eq(jt_out(&r), "api.localhost 200 hello\nother.localhost failed -2\n");
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    ck_assert_int_eq(server_stop(&a), 1);
}
END_TEST

/* SO_SNDTIMEO bounds a blocking connect, as in the kernel: after it, EINPROGRESS, and the
 * socket goes on connecting (EALREADY). The host listener's accept queue is full (backlog 0, one
 * connection waiting), so its SYNs are dropped and the connect cannot finish. The control: the
 * same code on the host gives the same answers. */
static const char sndtimeo[] =
    "import socket, struct, time\n"
    "s = socket.socket()\n"
    "s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack('ll', 0, 300000))\n"
    "t = time.monotonic(); rc = s.connect_ex(('127.0.0.1', %d)); t = time.monotonic() - t\n"
    "print('rc', rc, 'bounded', 0.2 < t < 3)\n"
    "print('again', s.connect_ex(('127.0.0.1', %d)))\n"
    "raise SystemExit(0 if rc == 115 else 3)\n";

START_TEST(test_sndtimeo_bounds_connect)
{
    int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    ck_assert_int_eq(bind(l, (struct sockaddr *)&a, sizeof(a)), 0);
    ck_assert_int_eq(listen(l, 0), 0);
    socklen_t len = sizeof(a);
    ck_assert_int_eq(getsockname(l, (struct sockaddr *)&a, &len), 0);
    int filler = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_int_eq(connect(filler, (struct sockaddr *)&a, sizeof(a)), 0);
    int port = ntohs(a.sin_port);
    char pats[64], code[1024];
    snprintf(pats, sizeof(pats), "\"127.0.0.1:%d\"", port);
    snprintf(code, sizeof(code), sndtimeo, port, port);
    sbx_sandbox *sb = outbound_sandbox(pats);
    sbx_result r;
    run_py(sb, code, &r);
    ck_assert_str_eq(jt_out(&r), "rc 115 bounded True\nagain 114\n");
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    host_py(code); /* the kernel's own answer: EINPROGRESS too */
    close(filler);
    close(l);
}
END_TEST

/* A connect from a thread other than the group leader: inspected through a PIDFD_THREAD pidfd
 * on 6.9, through the group's pidfd before (stood in for by $SBX_JAIL_KERNEL_RELEASE). Both
 * reach the allowed port from the thread and from the main thread. */
static const char threaded[] =
    "import socket, threading\n"
    "def go(who):\n"
    "    s = socket.create_connection(('127.0.0.1', %d), timeout=5); print(who, "
    "s.recv(2).decode())\n"
    "t = threading.Thread(target=go, args=('thread',)); t.start(); t.join()\n"
    "go('main')\n";

static void check_threaded(const char *release)
{
    struct server a;
    server_start(&a);
    char pats[64], code[1024];
    snprintf(pats, sizeof(pats), "\"127.0.0.1:%d\"", a.port);
    snprintf(code, sizeof(code), threaded, a.port);
    sbx_sandbox *sb = outbound_sandbox(pats);
    sbx_result r;
    if (release)
        setenv("SBX_JAIL_KERNEL_RELEASE", release, 1);
    run_py(sb, code, &r);
    unsetenv("SBX_JAIL_KERNEL_RELEASE");
    ck_assert_str_eq(jt_out(&r), "thread hi\nmain hi\n");
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    ck_assert_int_eq(server_stop(&a), 2);
}

START_TEST(test_thread_connect)
{
    check_threaded(NULL);
    check_threaded("6.8.0");
}
END_TEST

/* Denials count in plugin.permission_denied_total{capability="net.outbound"}: two refused
 * connects and one unlisted name; the allowed connect and the listed name do not count. Counted
 * against a run of the same interpreter doing nothing; -S, as site's user lookups connect to nscd
 * (AF_UNIX, refused: counted too). */
static _Atomic int outbound_denials;

static void count_denial(void *user, const char *name, uint64_t value, const sbx_attr *attrs,
                         size_t attr_count)
{
    (void)user;
    if (strcmp(name, "plugin.permission_denied_total") != 0)
        return;
    for (size_t i = 0; i < attr_count; i++)
        if (strcmp(attrs[i].key, "capability") == 0 && strcmp(attrs[i].value, "net.outbound") == 0)
            atomic_fetch_add(&outbound_denials, (int)value);
}

/* Python: q(name) sends one A query to the jail's DNS stub and returns the answer's rcode. */
#define PY_DNS_Q                                                                                   \
    "import socket, struct\n"                                                                      \
    "def q(name):\n"                                                                               \
    "    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.settimeout(2)\n"                  \
    "    l = b''.join(bytes([len(x)]) + x.encode() for x in name.split('.'))\n"                    \
    "    u.sendto(struct.pack('!6H', 7, 0x100, 1, 0, 0, 0) + l + b'\\0\\0\\1\\0\\1', "             \
    "('127.0.0.1', 53))\n"                                                                         \
    "    return u.recv(512)[3] & 15\n"

START_TEST(test_denials_counted)
{
    struct server a;
    server_start(&a);
    char pats[64], code[2048];
    snprintf(pats, sizeof(pats), "\"api.localhost:%d\"", a.port);
    snprintf(code, sizeof(code),
             PY_DNS_Q "print(q('api.localhost'), q('evil.example'))\n"
                      "print(socket.socket().connect_ex(('127.0.0.1', %d)))\n"
                      "print(socket.socket().connect_ex(('10.9.9.9', 80)))\n"
                      "print(socket.socket().connect_ex(('127.0.0.1', %d)))\n",
             a.port + 1 == 65536 ? 1 : a.port + 1, a.port);
    sbx_telemetry_hooks h = {.counter_add = count_denial};
    atomic_store(&outbound_denials, 0);
    sbx_telemetry_set_hooks(&h);
    sbx_sandbox *sb = outbound_sandbox(pats);
    sbx_result r;
    const char *idle_argv[] = {"python3", "-S", "-c", "import socket, struct", NULL};
    ck_assert_int_eq(jt_run_argv(sb, idle_argv, &r), SBX_OK);
    ck_assert_msg(r.ok, "%s", r.error_message);
    sbx_result_free(&r);
    int idle = atomic_load(&outbound_denials);
    const char *argv[] = {"python3", "-S", "-c", code, NULL};
    ck_assert_int_eq(jt_run_argv(sb, argv, &r), SBX_OK);
    sbx_telemetry_set_hooks(NULL);
    ck_assert_str_eq(jt_out(&r), "0 3\n111\n111\n0\n");
    ck_assert_int_eq(atomic_load(&outbound_denials) - idle, 3);
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    ck_assert_int_eq(server_stop(&a), 1);
}
END_TEST

/* The result lists what was denied, as the guest asked for it: a port denied three times (its
 * listener sees 0 connections) and an unlisted name, once each with its count; the allowed
 * connect and the listed name are not listed (they reach the server and get an answer). */
static const char denied_mix[] =
    PY_DNS_Q "print([socket.socket().connect_ex(('127.0.0.1', %d)) for i in range(3)])\n"
             "print(q('evil.example'), q('api.localhost'))\n"
             "print(socket.socket().connect_ex(('127.0.0.1', %d)))\n";

static void check_denial(const sbx_denial *d, sbx_denial_kind kind, int family, const char *host,
                         uint16_t port, uint64_t count)
{
    ck_assert_int_eq(d->kind, kind);
    ck_assert_int_eq(d->family, family);
    ck_assert_str_eq(d->host, host);
    ck_assert_int_eq(d->port, port);
    ck_assert_int_eq(d->count, count);
}

START_TEST(test_denials_listed)
{
    struct server a, b;
    server_start(&a);
    server_start(&b);
    char pats[64], code[2048];
    snprintf(pats, sizeof(pats), "\"api.localhost:%d\"", a.port);
    snprintf(code, sizeof(code), denied_mix, b.port, a.port);
    sbx_sandbox *sb = outbound_sandbox(pats);
    sbx_result r;
    const char *argv[] = {"python3", "-S", "-c", code, NULL};
    ck_assert_int_eq(jt_run_argv(sb, argv, &r), SBX_OK);
    ck_assert_msg(r.ok, "%s", r.error_message);
    ck_assert_str_eq(jt_out(&r), "[111, 111, 111]\n3 0\n0\n");
    ck_assert_int_eq(r.denial_count, 2);
    check_denial(&r.denials[0], SBX_DENIAL_CONNECT, AF_INET, "127.0.0.1", (uint16_t)b.port, 3);
    check_denial(&r.denials[1], SBX_DENIAL_DNS, AF_UNSPEC, "evil.example", 0, 1);
    ck_assert_int_eq(r.denied_total, 4);
    ck_assert(!r.denials_truncated);
    char *j = sbx_result_to_json(&r);
    char want[512];
    snprintf(want, sizeof(want),
             "\"denied\":{\"total\":4,\"truncated\":false,\"destinations\":["
             "{\"kind\":\"connect\",\"family\":\"ipv4\",\"host\":\"127.0.0.1\",\"port\":%d,"
             "\"destination\":\"127.0.0.1:%d\",\"count\":3},"
             "{\"kind\":\"dns\",\"family\":null,\"host\":\"evil.example\",\"port\":null,"
             "\"destination\":\"evil.example\",\"count\":1}]}",
             b.port, b.port);
    ck_assert_msg(j && strstr(j, want), "%s", j ? j : "NULL");
    sbx_free(j);
    sbx_result_free(&r);
    /* The next run on the handle starts with an empty list. */
    const char *quiet[] = {"python3", "-S", "-c", "pass", NULL};
    ck_assert_int_eq(jt_run_argv(sb, quiet, &r), SBX_OK);
    ck_assert_msg(r.ok && r.denial_count == 0 && !r.denials && r.denied_total == 0, "%s",
                  r.error_message);
    j = sbx_result_to_json(&r);
    ck_assert_msg(j &&
                      strstr(j, "\"denied\":{\"total\":0,\"truncated\":false,\"destinations\":[]}"),
                  "%s", j ? j : "NULL");
    sbx_free(j);
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
    ck_assert_int_eq(server_stop(&a), 1);
    ck_assert_int_eq(server_stop(&b), 0);
}
END_TEST

/* More distinct destinations than a result lists: the first SBX_DENIALS_MAX in order, each once,
 * truncated set, and the total counts every denial (the extra ones and a repeat of the first). */
START_TEST(test_denials_bounded)
{
    int distinct = SBX_DENIALS_MAX + 6;
    char code[512];
    snprintf(code, sizeof(code),
             "import socket\n"
             "rc = [socket.socket().connect_ex(('127.0.0.1', 20000 + i)) for i in range(%d)]\n"
             "rc.append(socket.socket().connect_ex(('127.0.0.1', 20000)))\n"
             "print(set(rc))\n",
             distinct);
    sbx_sandbox *sb = outbound_sandbox("\"127.0.0.1:1\"");
    sbx_result r;
    const char *argv[] = {"python3", "-S", "-c", code, NULL};
    ck_assert_int_eq(jt_run_argv(sb, argv, &r), SBX_OK);
    ck_assert_msg(r.ok, "%s", r.error_message);
    ck_assert_str_eq(jt_out(&r), "{111}\n");
    ck_assert_int_eq(r.denial_count, SBX_DENIALS_MAX);
    for (int i = 0; i < SBX_DENIALS_MAX; i++)
        check_denial(&r.denials[i], SBX_DENIAL_CONNECT, AF_INET, "127.0.0.1", (uint16_t)(20000 + i),
                     i == 0 ? 2 : 1);
    ck_assert(r.denials_truncated);
    ck_assert_int_eq(r.denied_total, (uint64_t)distinct + 1);
    char *j = sbx_result_to_json(&r);
    char want[64];
    snprintf(want, sizeof(want), "\"denied\":{\"total\":%d,\"truncated\":true,", distinct + 1);
    ck_assert_msg(j && strstr(j, want), "%s", j ? j : "NULL");
    sbx_free(j);
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
}
END_TEST

/* A run that ends before its child handed over the seccomp listener (a setup failure, a kill
 * during setup) leaves the gate holding its control socket: destroy closes it, and a second
 * destroy changes nothing. Runs end either way at a time the test does not choose, so this is
 * the one place that drives it. */
START_TEST(test_destroy_before_listener)
{
    int sv[2];
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
    sbx_policy *p = sbx_test_policy("{\"net\": {\"outbound\": [\"127.0.0.1:80\"]}}");
    struct sbx__jail_gate g;
    ck_assert(sbx__jail_gate_init(&g, p, sv[0]));
    sbx_policy_destroy(p);
    sbx__jail_gate_destroy(&g);
    errno = 0;
    ck_assert_int_eq(fcntl(sv[0], F_GETFD), -1);
    ck_assert_int_eq(errno, EBADF);
    ck_assert_int_eq(g.ctrl_fd, -1);
    sbx__jail_gate_destroy(&g);
    close(sv[1]);
}
END_TEST

static Suite *gate_suite(void)
{
    Suite *s = suite_create("gate");
    TCase *tc = tcase_create("outbound");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_allowed_and_denied);
    tcase_add_test(tc, test_nonblocking_connect);
    tcase_add_test(tc, test_holes_closed);
    tcase_add_test(tc, test_udp_stays_inside);
    tcase_add_test(tc, test_sndtimeo_bounds_connect);
    tcase_add_test(tc, test_thread_connect);
    tcase_add_test(tc, test_denials_counted);
    tcase_add_test(tc, test_denials_listed);
    tcase_add_test(tc, test_denials_bounded);
    tcase_add_test(tc, test_names);
    tcase_add_test(tc, test_wildcard_names);
    tcase_add_test(tc, test_name_ports);
    tcase_add_test(tc, test_raw_dns);
    tcase_add_test(tc, test_urllib_by_name);
    tcase_add_test(tc, test_destroy_before_listener);
    suite_add_tcase(s, tc);
    TCase *races = tcase_create("races");
    tcase_set_timeout(races, RACE_CASE_S);
    tcase_add_test(races, test_toctou_flipper);
    tcase_add_test(races, test_dup2_swap);
    suite_add_tcase(s, races);
    return s;
}

int main(void)
{
    jt_guest_binary();
    return sbx_test_main(gate_suite());
}
