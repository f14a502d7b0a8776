/* serve/queue.c: what every queue backend shares: defaults, run ids, claim ownership, names. */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "serve/queue.h"

void serve_queue_config_init(struct serve_queue_config *cfg)
{
    *cfg = (struct serve_queue_config){
        .queue_max = 10000,
        .queue_max_bytes = 256ull << 20,
        .result_ttl_ms = 3600ull * 1000,
        .results_max = 10000,
        .results_max_bytes = 256ull << 20,
        .events_max_bytes = 4ull << 20,
        .visibility_ms = 30000,
        .max_attempts = 1,
    };
}

void serve_queue_claim_free(struct serve_claim *c)
{
    if (!c)
        return;
    free(c->payload);
    memset(c, 0, sizeof(*c));
}

/* Crockford's base32: no I, L, O, U, so an id read aloud or retyped stays one id. */
static const char alphabet[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

void serve_id_new(char id[SERVE_ID_MAX])
{
    unsigned char raw[SERVE_ID_LEN];
    size_t got = 0;
    while (got < sizeof(raw)) {
        ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);
        if (n > 0)
            got += (size_t)n;
    }
    for (int i = 0; i < SERVE_ID_LEN; i++)
        id[i] = alphabet[raw[i] & 31]; /* 26 x 5 bits: 130 random bits */
    id[SERVE_ID_LEN] = '\0';
}

bool serve_id_valid(const char *s)
{
    size_t n = 0;
    for (; s[n]; n++) {
        if (n >= SERVE_ID_LEN || !memchr(alphabet, s[n], sizeof(alphabet) - 1))
            return false;
    }
    return n == SERVE_ID_LEN;
}

const char *serve_q_rc_name(enum serve_q_rc rc)
{
    static const char *const names[] = {
        [SERVE_Q_OK] = "ok",
        [SERVE_Q_FULL] = "full",
        [SERVE_Q_UNAVAILABLE] = "unavailable",
        [SERVE_Q_NOT_FOUND] = "not found",
        [SERVE_Q_STALE] = "stale claim",
        [SERVE_Q_CANCELLED] = "cancelled",
        [SERVE_Q_EMPTY] = "empty",
        [SERVE_Q_NOMEM] = "out of memory",
        [SERVE_Q_CLOSED] = "closed",
    };
    return (unsigned)rc < sizeof(names) / sizeof(names[0]) && names[rc] ? names[rc] : "?";
}

const char *serve_q_status_name(enum serve_q_status st)
{
    return st == SERVE_Q_QUEUED    ? "queued"
           : st == SERVE_Q_RUNNING ? "running"
           : st == SERVE_Q_DONE    ? "done"
                                   : "unknown";
}
