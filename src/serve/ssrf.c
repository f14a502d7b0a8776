/* serve/ssrf.c: which addresses a callbackUrl may reach. Refused unless callbackAllowPrivate:
 * loopback, private (RFC 1918, unique local), link-local (cloud metadata at 169.254.169.254),
 * CGNAT, benchmarking, unspecified, and IPv4 inside IPv6 (mapped, NAT64, compatible) by its
 * IPv4 address; multicast and broadcast always. Literals are checked when a request comes,
 * names when they are resolved, once, at delivery (every address they give). */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <curl/curl.h>

#include "serve/serve.h"

static bool v4_allowed(uint32_t a, bool allow_private)
{
    uint8_t b0 = (uint8_t)(a >> 24), b1 = (uint8_t)(a >> 16);
    if (b0 >= 224) /* multicast, reserved, broadcast: never a callback */
        return false;
    if (allow_private)
        return true;
    return !(b0 == 0 || b0 == 10 || b0 == 127 || (b0 == 169 && b1 == 254) ||
             (b0 == 172 && (b1 & 0xf0) == 16) || (b0 == 192 && b1 == 168) ||
             (b0 == 100 && (b1 & 0xc0) == 64) ||                 /* CGNAT 100.64/10 */
             (b0 == 192 && b1 == 0 && (uint8_t)(a >> 8) == 0) || /* 192.0.0/24 */
             (b0 == 198 && (b1 & 0xfe) == 18));                  /* benchmarking 198.18/15 */
}

bool serve_addr_allowed(const struct sockaddr *sa, bool allow_private)
{
    if (sa->sa_family == AF_INET)
        return v4_allowed(ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr), allow_private);
    if (sa->sa_family != AF_INET6)
        return false;
    const uint8_t *b = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    static const uint8_t nat64[12] = {0, 0x64, 0xff, 0x9b};
    static const uint8_t zero[12] = {0};
    if (memcmp(b, mapped, 12) == 0 || memcmp(b, nat64, 12) == 0 || memcmp(b, zero, 12) == 0) {
        /* IPv4 inside IPv6 (mapped, NAT64, the old compatible form, and :: and ::1 with it) */
        uint32_t v4 = (uint32_t)b[12] << 24 | (uint32_t)b[13] << 16 | (uint32_t)b[14] << 8 | b[15];
        if (memcmp(b, zero, 12) == 0 && (v4 == 0 || v4 == 1))
            return allow_private && v4 == 1; /* :: never; ::1 is loopback */
        return v4_allowed(v4, allow_private);
    }
    if (b[0] == 0xff) /* multicast */
        return false;
    if (allow_private)
        return true;
    return !((b[0] & 0xfe) == 0xfc ||                   /* unique local fc00::/7 */
             (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) || /* link-local fe80::/10 */
             (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0));  /* site-local fec0::/10 */
}

/* Splits url into host and port with libcurl's parser; false if it is not http(s). */
static bool url_host(const char *url, char *host, size_t hcap, char *port, size_t pcap,
                     const char **why)
{
    CURLU *u = curl_url();
    char *scheme = NULL, *h = NULL, *p = NULL;
    bool ok = u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
              curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
              curl_url_get(u, CURLUPART_HOST, &h, 0) == CURLUE_OK &&
              curl_url_get(u, CURLUPART_PORT, &p, CURLU_DEFAULT_PORT) == CURLUE_OK;
    *why = ok ? NULL : "not a valid URL";
    if (ok && strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0) {
        ok = false;
        *why = "must be an http or https URL";
    }
    if (ok) {
        size_t n = strlen(h);
        if (n >= 2 && h[0] == '[') /* an IPv6 literal without its brackets */
            snprintf(host, hcap, "%.*s", (int)(n - 2), h + 1);
        else
            snprintf(host, hcap, "%s", h);
        snprintf(port, pcap, "%s", p);
    }
    curl_free(scheme);
    curl_free(h);
    curl_free(p);
    curl_url_cleanup(u);
    return ok;
}

const char *serve_callback_check_url(const char *url, bool allow_private)
{
    char host[300], port[16];
    const char *why;
    if (!url_host(url, host, sizeof(host), port, sizeof(port), &why))
        return why;
    struct addrinfo hints = {.ai_flags = AI_NUMERICHOST, .ai_socktype = SOCK_STREAM}, *res;
    if (getaddrinfo(host, NULL, &hints, &res) != 0)
        return NULL; /* a name: checked when it is resolved, at delivery */
    bool ok = serve_addr_allowed(res->ai_addr, allow_private);
    freeaddrinfo(res);
    return ok ? NULL : "refused: a loopback, private, link-local or metadata address";
}

const char *serve_callback_resolve(const char *url, bool allow_private, char *to, size_t cap,
                                   bool *is_refused)
{
    char host[300], port[16];
    const char *why = NULL;
    *is_refused = true;
    if (!url_host(url, host, sizeof(host), port, sizeof(port), &why))
        return why;
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res;
    if (getaddrinfo(host, port, &hints, &res) != 0) {
        *is_refused = false; /* perhaps for now: tried again */
        return "the host name does not resolve";
    }
    for (struct addrinfo *a = res; a && !why; a = a->ai_next) {
        if (!serve_addr_allowed(a->ai_addr, allow_private))
            why = "refused: the name resolves to a loopback, private, link-local or metadata "
                  "address";
    }
    char ip[INET6_ADDRSTRLEN] = "";
    bool is_v6 = res->ai_family == AF_INET6;
    const void *addr = is_v6 ? (const void *)&((struct sockaddr_in6 *)res->ai_addr)->sin6_addr
                             : (const void *)&((struct sockaddr_in *)res->ai_addr)->sin_addr;
    inet_ntop(res->ai_family, addr, ip, sizeof(ip));
    snprintf(to, cap, is_v6 ? "::[%s]:%s" : "::%s:%s", ip, port);
    freeaddrinfo(res);
    return why;
}
