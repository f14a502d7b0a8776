/* serve/auth.c: API keys and their limits. A key is stored as the SHA-256 of its token and
 * matched in constant time; each has a token bucket (ratePerSecond, bursts as large) and a
 * count of runs in flight (concurrency). Tables are replaced whole on SIGHUP. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "serve/serve.h"

struct serve_keys {
    pthread_mutex_t lock;
    struct serve_key *list;
    size_t count;
    bool is_anonymous; /* no key configured: list[0] is the anonymous key */
};

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

void serve_sha256_hex(const char *text, size_t len, char out[65])
{
    unsigned char d[32];
    unsigned n = 0;
    EVP_Digest(text, len, d, &n, EVP_sha256(), NULL);
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : (c | 32) - 'a' + 10;
}

static unsigned tier_bits(const struct schema_strv *tiers)
{
    unsigned bits = 0;
    for (size_t i = 0; i < tiers->count; i++) {
        sbx_backend b;
        if (sbx_backend_from_name(tiers->v[i], &b) == 0)
            bits |= 1u << b;
    }
    return bits;
}

static void fill(struct serve_key *k, const struct serve_key_cfg *c, const char *name)
{
    snprintf(k->name, sizeof(k->name), "%s", name);
    for (int i = 0; c->sha256 && i < 32; i++)
        k->digest[i] =
            (unsigned char)(hexval(c->sha256[2 * i]) << 4 | hexval(c->sha256[2 * i + 1]));
    k->tiers = tier_bits(&c->tiers);
    k->ceiling = c->ceiling;
    k->concurrency = c->concurrency;
    k->rate_per_second = c->rate_per_second;
    k->tokens = (double)c->rate_per_second;
    k->refill_ns = now_ns();
}

struct serve_keys *serve_keys_create(const struct serve_config *cfg, char *err, size_t errlen)
{
    struct serve_keys *k = calloc(1, sizeof(*k));
    size_t n = cfg->keys.count ? cfg->keys.count : 1;
    if (!k || !(k->list = calloc(n, sizeof(*k->list)))) {
        free(k);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&k->lock, NULL);
    const struct serve_key_cfg *keys = cfg->keys.items;
    for (size_t i = 0; i < cfg->keys.count; i++)
        fill(&k->list[i], &keys[i], keys[i].name);
    if (cfg->keys.count == 0) {
        k->is_anonymous = true;
        fill(&k->list[0], &cfg->anonymous, cfg->anonymous.name ? cfg->anonymous.name : "anonymous");
    }
    k->count = n;
    return k;
}

void serve_keys_destroy(struct serve_keys *k)
{
    if (!k)
        return;
    pthread_mutex_destroy(&k->lock);
    free(k->list);
    free(k);
}

bool serve_keys_anonymous(const struct serve_keys *k)
{
    return k->is_anonymous;
}

void serve_keys_inherit(struct serve_keys *fresh, const struct serve_keys *old)
{
    for (size_t i = 0; i < fresh->count; i++) {
        for (size_t j = 0; j < old->count; j++) {
            if (strcmp(fresh->list[i].name, old->list[j].name) == 0)
                fresh->list[i].in_flight = old->list[j].in_flight;
        }
    }
}

bool serve_keys_find(struct serve_keys *k, const char *token, struct serve_key *out)
{
    if (k->is_anonymous) {
        pthread_mutex_lock(&k->lock);
        *out = k->list[0];
        pthread_mutex_unlock(&k->lock);
        return true;
    }
    if (!token)
        return false;
    char hex[65];
    unsigned char d[32];
    serve_sha256_hex(token, strlen(token), hex);
    for (int i = 0; i < 32; i++)
        d[i] = (unsigned char)(hexval(hex[2 * i]) << 4 | hexval(hex[2 * i + 1]));
    const struct serve_key *hit = NULL;
    for (size_t i = 0; i < k->count; i++) { /* every key compared: no timing by position */
        if (CRYPTO_memcmp(d, k->list[i].digest, 32) == 0)
            hit = &k->list[i];
    }
    if (hit) {
        pthread_mutex_lock(&k->lock);
        *out = *hit;
        pthread_mutex_unlock(&k->lock);
    }
    return hit != NULL;
}

static struct serve_key *by_name(struct serve_keys *k, const char *name)
{
    for (size_t i = 0; i < k->count; i++) {
        if (strcmp(k->list[i].name, name) == 0)
            return &k->list[i];
    }
    return NULL;
}

int serve_keys_admit(struct serve_keys *k, const char *name, unsigned *retry_s)
{
    pthread_mutex_lock(&k->lock);
    struct serve_key *key = by_name(k, name);
    int rc = 0;
    if (key) {
        uint64_t now = now_ns();
        double rate = (double)key->rate_per_second;
        key->tokens += rate * (double)(now - key->refill_ns) / 1e9;
        if (key->tokens > rate)
            key->tokens = rate;
        key->refill_ns = now;
        if (key->tokens < 1.0) {
            rc = 1;
            *retry_s = (unsigned)ceil((1.0 - key->tokens) / rate);
        } else if (key->in_flight >= key->concurrency) {
            rc = 2;
            *retry_s = 1;
        } else {
            key->tokens -= 1.0;
            key->in_flight++;
        }
    }
    pthread_mutex_unlock(&k->lock);
    if (rc && *retry_s == 0)
        *retry_s = 1;
    return rc;
}

void serve_keys_release(struct serve_keys *k, const char *name)
{
    pthread_mutex_lock(&k->lock);
    struct serve_key *key = by_name(k, name);
    if (key && key->in_flight > 0)
        key->in_flight--;
    pthread_mutex_unlock(&k->lock);
}
