/* js/module.c: the entry of libsbx-js.so (built into the module only, not into libsbx). The
 * adapter's calls to util/alloc.h and sbx__now_ns land here and go to the host's, through the
 * table the host hands over when it opens the module. */
#include "js/module.h"

#include <string.h>

#include "util/alloc.h"

static const struct sbx__js_host *host;

void *sbx__calloc(size_t count, size_t size)
{
    return host->calloc(count, size);
}

void *sbx__mallocn(size_t count, size_t size)
{
    return host->mallocn(count, size);
}

void *sbx__reallocn(void *ptr, size_t count, size_t size)
{
    return host->reallocn(ptr, count, size);
}

char *sbx__strndup(const char *s, size_t len)
{
    return host->strndup(s, len);
}

char *sbx__strdup(const char *s)
{
    return host->strndup(s, strlen(s));
}

void sbx__free(void *ptr)
{
    host->free(ptr);
}

uint64_t sbx__now_ns(void);
uint64_t sbx__now_ns(void)
{
    return host->now_ns();
}

bool sbx__js_host_counts_coverage(void)
{
    return host && host->dump_counters;
}

void sbx__js_host_dump_counters(void)
{
    if (host && host->dump_counters)
        host->dump_counters();
}

__attribute__((visibility("default"))) sbx__js_module_open_fn sbx__js_module_open;
const struct sbx__js_module *sbx__js_module_open(unsigned abi, const struct sbx__js_host *h)
{
    static const struct sbx__js_module table = {
        .test_deaf_ms = sbx__js_test_deaf_ms,
        .can_throttle = sbx__js_can_throttle,
        .engine_create = sbx__js_engine_create,
        .engine_destroy = sbx__js_engine_destroy,
        .engine_run = sbx__js_engine_run,
        .self_hosted_offer = sbx__js_self_hosted_offer,
        .self_hosted_status = sbx__js_self_hosted_status,
        .self_hosted_write = sbx__js_self_hosted_write,
        .jit_claim = sbx__js_jit_claim,
        .script_new = sbx__js_script_new,
        .script_ref = sbx__js_script_ref,
        .script_release = sbx__js_script_release,
    };
    if (abi != SBX_JS_MODULE_ABI || !h)
        return NULL;
    host = h;
    return &table;
}
