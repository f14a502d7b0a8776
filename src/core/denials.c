/* core/denials.c: the bounded, deduplicated list of a run's denied destinations. Only denials
 * reach it, so an allowed connect pays nothing; a lookup is a scan of at most SBX_DENIALS_MAX. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/un.h>

#include "core/denials.h"
#include "util/alloc.h"

/* Guest bytes as printable ASCII: a terminal or a log line never sees control bytes. */
static void copy_printable(char *dst, const char *src, size_t len)
{
    size_t n = len < SBX_DENIAL_HOST_MAX - 1 ? len : SBX_DENIAL_HOST_MAX - 1;
    for (size_t i = 0; i < n; i++)
        dst[i] = src[i] >= 0x20 && src[i] < 0x7f ? src[i] : '?';
    dst[n] = '\0';
}

static sbx_denial *find(struct sbx__denials *d, sbx_denial_kind kind, int family, const char *host,
                        uint16_t port)
{
    for (size_t i = 0; i < d->count; i++) {
        sbx_denial *x = &d->items[i];
        if (x->kind == kind && x->family == family && x->port == port && strcmp(x->host, host) == 0)
            return x;
    }
    return NULL;
}

void sbx__denials_add(struct sbx__denials *d, sbx_denial_kind kind, int family, const char *host,
                      uint16_t port)
{
    char shown[SBX_DENIAL_HOST_MAX];
    copy_printable(shown, host, strlen(host));
    d->total++;
    sbx_denial *x = find(d, kind, family, shown, port);
    if (x) {
        x->count++;
        return;
    }
    if (!d->items)
        d->items = sbx__calloc(SBX_DENIALS_MAX, sizeof(*d->items));
    if (!d->items || d->count == SBX_DENIALS_MAX) {
        d->is_truncated = true;
        return;
    }
    x = &d->items[d->count++];
    *x = (sbx_denial){.kind = kind, .family = family, .port = port, .count = 1};
    memcpy(x->host, shown, sizeof(shown));
}

/* sun_path up to its NUL; an abstract name (leading NUL) as '@' and its bytes. */
static void unix_path(const struct sockaddr_storage *sa, socklen_t len, char *out)
{
    const struct sockaddr_un *un = (const struct sockaddr_un *)sa;
    size_t off = offsetof(struct sockaddr_un, sun_path);
    size_t n = len > off ? len - off : 0;
    n = n < sizeof(un->sun_path) ? n : sizeof(un->sun_path);
    if (n > 0 && un->sun_path[0] == '\0') {
        out[0] = '@';
        copy_printable(out + 1, un->sun_path + 1, n - 1);
    } else {
        copy_printable(out, un->sun_path, strnlen(un->sun_path, n));
    }
}

void sbx__denials_add_sockaddr(struct sbx__denials *d, const struct sockaddr_storage *sa,
                               socklen_t len)
{
    char host[SBX_DENIAL_HOST_MAX] = "";
    uint16_t port = 0;
    int family = len >= sizeof(sa_family_t) ? sa->ss_family : AF_UNSPEC;
    if (family == AF_INET && len >= sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
        port = ntohs(in->sin_port);
    } else if (family == AF_INET6 && len >= 24) { /* SIN6_LEN_RFC2133 */
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
        inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
        port = ntohs(in6->sin6_port);
    } else if (family == AF_UNIX) {
        unix_path(sa, len, host);
    }
    sbx__denials_add(d, SBX_DENIAL_CONNECT, family, host, port);
}

void sbx__denials_move(struct sbx__denials *d, sbx_result *out)
{
    sbx__free(out->denials);
    out->denials = d->count ? d->items : NULL;
    if (!d->count)
        sbx__free(d->items);
    out->denial_count = d->count;
    out->denied_total = d->total;
    out->denials_truncated = d->is_truncated;
    *d = (struct sbx__denials){0};
}

void sbx__denials_free(struct sbx__denials *d)
{
    sbx__free(d->items);
    *d = (struct sbx__denials){0};
}

void sbx_denial_destination(const sbx_denial *den, char *buf, size_t cap)
{
    if (den->kind == SBX_DENIAL_DNS)
        snprintf(buf, cap, "%s", den->host);
    else if (den->family == AF_INET)
        snprintf(buf, cap, "%s:%u", den->host, (unsigned)den->port);
    else if (den->family == AF_INET6)
        snprintf(buf, cap, "[%s]:%u", den->host, (unsigned)den->port);
    else if (den->family == AF_UNIX)
        snprintf(buf, cap, "unix:%s", den->host);
    else
        snprintf(buf, cap, "family %d", den->family);
}
