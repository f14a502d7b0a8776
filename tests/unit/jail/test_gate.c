/* tests/unit/jail/test_gate.c: policy.net.outbound in the process tier, attacked from inside the
 * jail. Test servers listen on the host's 127.0.0.1 only and count what reaches them: a denied
 * listener must see 0 connections. Each attack has a control where it must succeed (an allowing
 * policy, or the same code run on the host without the gate), so no test passes vacuously. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "jail_test.h"

/* A host listener on 127.0.0.1 that accepts and counts in its own thread. */
struct server {
    int fd;
    int port;
    _Atomic int accepted;
    _Atomic bool is_done;
    pthread_t thread;
};

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
        ssize_t n = write(c, "hi", 2);
        (void)n;
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

/* The TOCTOU flipper: 2,000 connects from one thread (ctypes, the GIL released in the call)
 * while another rewrites the port in the very buffer connect() reads. */
static const char flipper[] =
    "import ctypes, socket, struct, threading\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "def sa(port): return struct.pack('=H', 2) + struct.pack('!H', port) + "
    "socket.inet_aton('127.0.0.1') + bytes(8)\n"
    "good, bad = sa(%d), sa(%d)\n"
    "buf = ctypes.create_string_buffer(good, 16)\n"
    "done = False\n"
    "def flip():\n"
    "    while not done:\n"
    "        ctypes.memmove(buf, bad, 16); ctypes.memmove(buf, good, 16)\n"
    "t = threading.Thread(target=flip); t.start()\n"
    "ok = 0\n"
    "for i in range(2000):\n"
    "    s = socket.socket()\n"
    "    if libc.connect(s.fileno(), buf, 16) == 0: ok += 1\n"
    "    s.close()\n"
    "done = True; t.join(); print('ok', ok)\n";

START_TEST(test_toctou_flipper)
{
    struct server a, b;
    server_start(&a);
    server_start(&b);
    char pats[64], code[2048];
    snprintf(pats, sizeof(pats), "\"127.0.0.1:%d\"", a.port);
    snprintf(code, sizeof(code), flipper, a.port, b.port);
    sbx_sandbox *sb = outbound_sandbox(pats);
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
    snprintf(code, sizeof(code), flipper, a.port, b.port);
    host_py(code);
    server_stop(&a);
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

/* A pattern that needs name resolution cannot be enforced yet: the run fails, naming it. */
START_TEST(test_name_pattern_unavailable)
{
    sbx_sandbox *sb = outbound_sandbox("\"127.0.0.1:80\", \"*.example.org:443\"");
    sbx_result r;
    ck_assert_int_eq(jt_sh(sb, "echo ran", &r), SBX_E_UNAVAILABLE);
    ck_assert_int_eq(r.error, SBX_E_UNAVAILABLE);
    ck_assert_msg(strstr(r.error_message, "*.example.org") != NULL, "%s", r.error_message);
    ck_assert_ptr_null(strstr(jt_out(&r), "ran"));
    sbx_result_free(&r);
    sbx_sandbox_destroy(sb);
}
END_TEST

static Suite *gate_suite(void)
{
    Suite *s = suite_create("gate");
    TCase *tc = tcase_create("outbound");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_allowed_and_denied);
    tcase_add_test(tc, test_nonblocking_connect);
    tcase_add_test(tc, test_toctou_flipper);
    tcase_add_test(tc, test_holes_closed);
    tcase_add_test(tc, test_udp_stays_inside);
    tcase_add_test(tc, test_name_pattern_unavailable);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    jt_guest_binary();
    return sbx_test_main(gate_suite());
}
