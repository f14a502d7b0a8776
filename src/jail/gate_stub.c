/* jail/gate_stub.c: the DNS stub of net.outbound. The jail's /etc/resolv.conf names
 * 127.0.0.1, where the jail's init bound a UDP socket before its capabilities went and passed
 * it up with the seccomp listener, so NSS clients and raw ones (dig, c-ares) reach the same
 * place. A question for a name some pattern lists (on any port, through the wasm tier's
 * matcher) is resolved on the host with getaddrinfo in a detached thread; the poll loop never
 * waits for it and answers SERVFAIL at the deadline. Other names get NXDOMAIN. Each address
 * answered is remembered with its name: a connect to it is then matched as that name. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "jail/gate.h"
#include "core/backend.h"
#include "util/alloc.h"

#define RESOLVE_NS    (3000ull * 1000000ull) /* before the guest's own 5 s retry */
#define ANSWER_TTL    60
#define THREADS_MAX   32 /* resolver threads alive in this process, finished or not */
#define RECV_PER_WAKE 8

/* Shared by the gate and one resolver thread; the last to let go frees it. */
struct sbx__gate_job {
    _Atomic int refs;
    _Atomic bool is_done; /* released after the results below are written */
    int pipe[2];          /* the thread writes one byte to [1] when done; the gate polls [0] */
    char name[SBX__DNS_NAME_MAX];
    int gai_err;
    size_t count;
    struct sbx__dns_addr addrs[2 * SBX__DNS_MAX_ADDRS];
};

static _Atomic int threads_alive;

static void job_unref(struct sbx__gate_job *j)
{
    if (atomic_fetch_sub(&j->refs, 1) != 1)
        return;
    close(j->pipe[0]);
    close(j->pipe[1]);
    sbx__free(j);
}

static void add_addr(struct sbx__gate_job *j, const struct sockaddr *sa)
{
    struct sbx__dns_addr a = {.family = sa->sa_family};
    if (sa->sa_family == AF_INET)
        memcpy(a.bytes, &((const struct sockaddr_in *)sa)->sin_addr, 4);
    else if (sa->sa_family == AF_INET6)
        memcpy(a.bytes, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
    else
        return;
    for (size_t i = 0; i < j->count; i++)
        if (j->addrs[i].family == a.family && memcmp(j->addrs[i].bytes, a.bytes, 16) == 0)
            return;
    if (j->count < sizeof(j->addrs) / sizeof(j->addrs[0]))
        j->addrs[j->count++] = a;
}

static void *resolve(void *arg)
{
    struct sbx__gate_job *j = arg;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *res = NULL;
    j->gai_err = getaddrinfo(j->name, NULL, &hints, &res);
    for (struct addrinfo *ai = j->gai_err ? NULL : res; ai; ai = ai->ai_next)
        add_addr(j, ai->ai_addr);
    if (res)
        freeaddrinfo(res);
    atomic_store_explicit(&j->is_done, true, memory_order_release);
    ssize_t n = write(j->pipe[1], "r", 1);
    (void)n;
    job_unref(j);
    atomic_fetch_sub(&threads_alive, 1);
    return NULL;
}

/* Starts a resolver thread with every signal blocked (the host's handlers stay on its own
 * threads). NULL when the process already runs THREADS_MAX of them or a resource is short. */
static struct sbx__gate_job *job_start(const char *name)
{
    if (atomic_fetch_add(&threads_alive, 1) >= THREADS_MAX) {
        atomic_fetch_sub(&threads_alive, 1);
        return NULL;
    }
    struct sbx__gate_job *j = sbx__calloc(1, sizeof(*j));
    if (!j || pipe2(j->pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        sbx__free(j);
        atomic_fetch_sub(&threads_alive, 1);
        return NULL;
    }
    snprintf(j->name, sizeof(j->name), "%s", name); /* both SBX__DNS_NAME_MAX */
    atomic_store(&j->refs, 2);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 512 * 1024);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t t;
    int rc = pthread_create(&t, &attr, resolve, j);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (rc == 0)
        return j;
    atomic_store(&j->refs, 1);
    job_unref(j);
    atomic_fetch_sub(&threads_alive, 1);
    return NULL;
}

static void send_answer(const struct sbx__jail_gate *g, const struct sbx__dns_query *q,
                        const struct sockaddr_storage *to, socklen_t to_len, int rcode,
                        const struct sbx__dns_addr *addrs, size_t count)
{
    uint8_t pkt[SBX__DNS_UDP_MAX];
    size_t n = sbx__dns_answer(q, rcode, addrs, count, ANSWER_TTL, pkt, sizeof(pkt));
    if (n > 0)
        sendto(g->stub_fd, pkt, n, MSG_DONTWAIT | MSG_NOSIGNAL, (const struct sockaddr *)to,
               to_len);
}

/* Any pattern's host matches name, whatever its port: the same matcher as connects. */
static bool is_listed(const struct sbx__jail_gate *g, const char *name)
{
    return sbx__outbound_names(g->rules, g->rule_count, name);
}

/* RFC 6761 6.3: names under localhost are the loopback, answered without the host's resolver
 * (which, with only files and dns, does not know them). */
static bool is_under_localhost(const char *name)
{
    size_t n = strlen(name);
    return n > 10 && strcasecmp(name + n - 10, ".localhost") == 0;
}

static void remember(struct sbx__jail_gate *g, const char *name, const struct sbx__dns_addr *a)
{
    char ip[INET6_ADDRSTRLEN];
    if (!inet_ntop(a->family, a->bytes, ip, sizeof(ip)))
        return;
    for (size_t i = 0; i < SBX__GATE_NAMES; i++)
        if (strcmp(g->names[i].ip, ip) == 0 && strcasecmp(g->names[i].name, name) == 0)
            return;
    struct sbx__jail_gate_name *slot = &g->names[g->name_next++ % SBX__GATE_NAMES];
    memcpy(slot->ip, ip, sizeof(ip));
    snprintf(slot->name, sizeof(slot->name), "%s", name);
}

static void answer_addrs(struct sbx__jail_gate *g, const struct sbx__jail_gate_query *pq,
                         const struct sbx__dns_addr *addrs, size_t count)
{
    size_t sent = 0; /* as sbx__dns_answer() picks them */
    for (size_t i = 0; i < count && sent < SBX__DNS_MAX_ADDRS; i++) {
        if ((addrs[i].family == AF_INET) == (pq->q.qtype == SBX__DNS_A)) {
            remember(g, pq->q.name, &addrs[i]);
            sent++;
        }
    }
    send_answer(g, &pq->q, &pq->from, pq->from_len, SBX__DNS_NOERROR, addrs, count);
}

static uint64_t earliest(uint64_t first, uint64_t d)
{
    return d && (!first || d < first) ? d : first;
}

void sbx__jail_gate_arm(const struct sbx__jail_gate *g)
{
    uint64_t first = 0;
    for (int i = 0; i < SBX__GATE_QUERIES; i++)
        first = earliest(first, g->queries[i].job ? g->queries[i].deadline_ns : 0);
    for (int i = 0; i < SBX__GATE_PENDING; i++)
        first = earliest(first, g->conns[i].sock >= 0 ? g->conns[i].deadline_ns : 0);
    struct itimerspec its = {{0, 0}, {0, 0}};
    if (first) {
        its.it_value.tv_sec = (time_t)(first / 1000000000ull);
        its.it_value.tv_nsec = (long)(first % 1000000000ull);
    }
    timerfd_settime(g->timer_fd, first ? TFD_TIMER_ABSTIME : 0, &its, NULL);
}

static void release(struct sbx__jail_gate_query *pq)
{
    job_unref(pq->job);
    pq->job = NULL;
}

/* The host's verdict on a name, as DNS says it. */
static void finish_query(struct sbx__jail_gate *g, struct sbx__jail_gate_query *pq)
{
    const struct sbx__gate_job *j = pq->job;
    if (j->gai_err == 0)
        answer_addrs(g, pq, j->addrs, j->count);
    else
        send_answer(g, &pq->q, &pq->from, pq->from_len,
                    j->gai_err == EAI_NONAME                                   ? SBX__DNS_NXDOMAIN
                    : j->gai_err == EAI_NODATA || j->gai_err == EAI_ADDRFAMILY ? SBX__DNS_NOERROR
                                                                               : SBX__DNS_SERVFAIL,
                    NULL, 0);
    release(pq);
}

static bool is_same(const struct sbx__jail_gate_query *pq, const struct sbx__dns_query *q,
                    const struct sockaddr_storage *from, socklen_t from_len)
{
    return pq->job && pq->q.id == q->id && pq->q.qtype == q->qtype && pq->from_len == from_len &&
           memcmp(&pq->from, from, from_len) == 0 && strcmp(pq->q.name, q->name) == 0;
}

/* A listed name of type A or AAAA: to a resolver thread (a retransmission joins its first). */
static void resolve_later(struct sbx__jail_gate *g, const struct sbx__dns_query *q,
                          const struct sockaddr_storage *from, socklen_t from_len)
{
    struct sbx__jail_gate_query *free_slot = NULL;
    for (int i = 0; i < SBX__GATE_QUERIES; i++) {
        if (is_same(&g->queries[i], q, from, from_len))
            return;
        if (!g->queries[i].job && !free_slot)
            free_slot = &g->queries[i];
    }
    struct sbx__gate_job *j = free_slot ? job_start(q->name) : NULL;
    if (!j) {
        send_answer(g, q, from, from_len, SBX__DNS_SERVFAIL, NULL, 0);
        return;
    }
    *free_slot = (struct sbx__jail_gate_query){.job = j, .q = *q, .from_len = from_len};
    memcpy(&free_slot->from, from, from_len);
    free_slot->deadline_ns = sbx__now_ns() + RESOLVE_NS;
    sbx__jail_gate_arm(g);
}

static const struct sbx__dns_addr loopback[] = {
    {AF_INET, {127, 0, 0, 1}}, {AF_INET6, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}}};

static void ask(struct sbx__jail_gate *g, const struct sbx__dns_query *q,
                const struct sockaddr_storage *from, socklen_t from_len)
{
    bool is_address = q->qtype == SBX__DNS_A || q->qtype == SBX__DNS_AAAA;
    if (!q->is_plain_name || !is_listed(g, q->name)) {
        sbx__jail_gate_deny_name(g, q->name);
        send_answer(g, q, from, from_len, SBX__DNS_NXDOMAIN, NULL, 0);
    } else if (q->qclass != SBX__DNS_CLASS_IN) {
        send_answer(g, q, from, from_len, SBX__DNS_REFUSED, NULL, 0);
    } else if (!is_address) {
        send_answer(g, q, from, from_len, SBX__DNS_NOERROR, NULL, 0); /* no data of that type */
    } else if (is_under_localhost(q->name)) {
        struct sbx__jail_gate_query pq = {.q = *q, .from_len = from_len};
        memcpy(&pq.from, from, from_len);
        answer_addrs(g, &pq, loopback, 2);
    } else {
        resolve_later(g, q, from, from_len);
    }
}

static void read_questions(struct sbx__jail_gate *g)
{
    for (int i = 0; i < RECV_PER_WAKE; i++) {
        uint8_t pkt[SBX__DNS_UDP_MAX];
        struct sockaddr_storage from;
        socklen_t from_len = sizeof(from);
        ssize_t n = recvfrom(g->stub_fd, pkt, sizeof(pkt), MSG_DONTWAIT | MSG_TRUNC,
                             (struct sockaddr *)&from, &from_len);
        if (n < 0)
            return;
        struct sbx__dns_query q;
        /* A datagram longer than the buffer was cut: its question is judged on what arrived. */
        enum sbx__dns_verdict v =
            sbx__dns_parse(pkt, n > (ssize_t)sizeof(pkt) ? sizeof(pkt) : (size_t)n, &q);
        if (v == SBX__DNS_QUESTION)
            ask(g, &q, &from, from_len);
        else if (v == SBX__DNS_REJECT)
            send_answer(g, &q, &from, from_len, q.rcode, NULL, 0);
    }
}

static void expire(struct sbx__jail_gate *g)
{
    uint64_t t;
    ssize_t n = read(g->timer_fd, &t, sizeof(t));
    (void)n;
    uint64_t now = sbx__now_ns();
    for (int i = 0; i < SBX__GATE_QUERIES; i++) {
        struct sbx__jail_gate_query *pq = &g->queries[i];
        if (pq->job && now >= pq->deadline_ns) {
            send_answer(g, &pq->q, &pq->from, pq->from_len, SBX__DNS_SERVFAIL, NULL, 0);
            release(pq); /* the thread frees the job when getaddrinfo returns */
        }
    }
    sbx__jail_gate_arm(g);
}

void sbx__jail_gate_stub_poll_fds(struct sbx__jail_gate *g, struct pollfd *pfd)
{
    pfd[0] = (struct pollfd){.fd = g->stub_fd, .events = POLLIN};
    pfd[1] = (struct pollfd){.fd = g->timer_fd, .events = POLLIN};
    for (int i = 0; i < SBX__GATE_QUERIES; i++) {
        const struct sbx__gate_job *j = g->queries[i].job;
        pfd[2 + i] = (struct pollfd){.fd = j ? j->pipe[0] : -1, .events = POLLIN};
    }
}

void sbx__jail_gate_stub_handle(struct sbx__jail_gate *g, const struct pollfd *pfd)
{
    for (int i = 0; i < SBX__GATE_QUERIES; i++) {
        struct sbx__jail_gate_query *pq = &g->queries[i];
        if (pq->job && pfd[2 + i].fd == pq->job->pipe[0] && pfd[2 + i].revents &&
            atomic_load_explicit(&pq->job->is_done, memory_order_acquire)) {
            finish_query(g, pq);
            sbx__jail_gate_arm(g);
        }
    }
    if (g->timer_fd >= 0 && pfd[1].fd == g->timer_fd && pfd[1].revents)
        expire(g);
    if (g->stub_fd >= 0 && pfd[0].fd == g->stub_fd && (pfd[0].revents & POLLIN))
        read_questions(g);
}

bool sbx__jail_gate_name_allows(const struct sbx__jail_gate *g, const char *ip, uint16_t port)
{
    if (strncmp(ip, "::ffff:", 7) == 0 && strchr(ip + 7, '.'))
        ip += 7; /* a v4-mapped destination is the IPv4 address the stub answered */
    for (size_t i = 0; g->names && i < SBX__GATE_NAMES; i++)
        if (g->names[i].ip[0] && strcmp(g->names[i].ip, ip) == 0 &&
            sbx__outbound_match(g->rules, g->rule_count, g->names[i].name, port))
            return true;
    return false;
}

bool sbx__jail_gate_stub_init(struct sbx__jail_gate *g)
{
    g->stub_fd = -1;
    g->names = sbx__calloc(SBX__GATE_NAMES, sizeof(*g->names));
    g->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    return g->names && g->timer_fd >= 0;
}

void sbx__jail_gate_stub_destroy(struct sbx__jail_gate *g)
{
    for (int i = 0; i < SBX__GATE_QUERIES; i++)
        if (g->queries[i].job)
            release(&g->queries[i]);
    int *fds[] = {&g->stub_fd, &g->timer_fd};
    for (size_t i = 0; i < 2; i++) {
        if (*fds[i] >= 0)
            close(*fds[i]);
        *fds[i] = -1;
    }
    sbx__free(g->names);
    g->names = NULL;
}
