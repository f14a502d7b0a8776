/* serve/cluster.c: sbx serve across machines (#25). Which queue a node uses (the embedded one,
 * or a Redis shared by API and worker nodes on any machines), its role (api: accept and queue;
 * worker: claim and run; all: both) and its name among the queue's consumers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "serve/serve.h"

static bool set_string(char **slot, const char *value)
{
    char *copy = strdup(value);
    if (!copy)
        return false;
    free(*slot);
    *slot = copy;
    return true;
}

bool serve_cluster_configure(struct serve_config *cfg, const char *queue, const char *role,
                             const char *node, char *err, size_t errlen)
{
    if ((queue && !set_string(&cfg->queue, queue)) || (node && !set_string(&cfg->node, node))) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    if (role) {
        int i = 0;
        while (serve_role_names[i] && strcmp(serve_role_names[i], role) != 0)
            i++;
        if (!serve_role_names[i]) {
            snprintf(err, errlen, "--role: must be api, worker or all, not \"%s\"", role);
            return false;
        }
        cfg->role = i;
    }
    if (cfg->role != SERVE_ROLE_ALL && !cfg->queue[0]) {
        snprintf(err, errlen,
                 "role %s needs a shared queue: --queue redis://HOST:PORT (the embedded queue "
                 "lives in one process)",
                 serve_role_names[cfg->role]);
        return false;
    }
    if (!cfg->node[0]) { /* unique per process: a restarted node must not inherit claims */
        char host[64] = "", name[96];
        if (gethostname(host, sizeof(host) - 1) != 0 || !host[0])
            snprintf(host, sizeof(host), "node");
        snprintf(name, sizeof(name), "%s-%d", host, (int)getpid());
        if (!set_string(&cfg->node, name)) {
            snprintf(err, errlen, "out of memory");
            return false;
        }
    }
    return true;
}

bool serve_cluster_open_queue(const struct serve_config *cfg, struct serve_queue_config *qc,
                              struct serve_queue **out, char *err, size_t errlen)
{
    qc->visibility_ms = cfg->visibility_ms;
    qc->max_attempts = (uint32_t)cfg->max_attempts;
    enum serve_q_rc rc = cfg->queue[0]
                             ? serve_queue_redis_create(cfg->queue, cfg->node, qc, out, err, errlen)
                             : serve_queue_mem_create(qc, out);
    if (rc != SERVE_Q_OK && !err[0])
        snprintf(err, errlen, "cannot create the queue: %s", serve_q_rc_name(rc));
    if (rc != SERVE_Q_OK && cfg->queue[0] && strncmp(err, "--queue", 7) != 0) {
        char why[512];
        snprintf(why, sizeof(why), "%s", err);
        snprintf(err, errlen, "--queue: %s", why);
    }
    return rc == SERVE_Q_OK;
}

bool serve_cluster_is_remote(const struct serve_queue *q)
{
    return strcmp(q->ops->name, "memory") != 0;
}
