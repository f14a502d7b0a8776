/* fuzz_serve_request: sbx serve's validate phase on any bytes: the body of POST /v1/runs and of
 * POST /v1/batches (parsed, checked against a key's tiers and ceiling, turned into a runner's
 * payload), and a config file. Nothing may crash, leak or hang; every refusal has a message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct serve_key key = {
    .name = "fuzz",
    .tiers = SERVE_TIER_WORKER | SERVE_TIER_PROCESS,
    .ceiling = {.timeout_ms = 10000,
                .memory_bytes = 1u << 28,
                .pids = 64,
                .max_output_bytes = 1u << 20,
                .fs = false,
                .net = true},
    .concurrency = 8,
    .rate_per_second = 50,
};

static void check(int status, const struct serve_req *r, const char *err)
{
    if (status == 0 && (!r->payload || r->payload_len != strlen(r->payload)))
        abort(); /* accepted: a payload */
    if (status != 0 && (!err[0] || (status != 400 && status != 403 && status != 413)))
        abort(); /* refused: a client error with its reason */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct serve_config cfg;
    static int ready;
    char err[1024];
    if (!ready) {
        serve_config_load(NULL, &cfg, err, sizeof(err));
        cfg.files_max = 4;
        cfg.file_max_bytes = 4096;
        cfg.batch_max = 8;
        ready = 1;
    }
    json_t *v = schema_load((const char *)data, size, err, sizeof(err));
    if (v) {
        for (int batch = 0; batch < 2; batch++) {
            struct serve_req r;
            err[0] = '\0';
            int status = batch ? serve_request_batch(&cfg, &key, v, size & 1, &r, err, sizeof(err))
                               : serve_request_run(&cfg, &key, v, size & 1, &r, err, sizeof(err));
            check(status, &r, err);
            serve_req_free(&r);
        }
        json_decref(v);
    }
    struct serve_config c;
    if (!serve_config_parse((const char *)data, size, &c, err, sizeof(err)) && !err[0])
        abort();
    serve_config_free(&c);
    return 0;
}
