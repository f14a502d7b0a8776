/* telemetry/curl.c: libcurl loaded with dlopen on first use; never unloaded, since libcurl's
 * global state may be shared with the embedding program. */
#include "telemetry/curl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct sbx__curl table;
static const struct sbx__curl *loaded;

struct sym {
    const char *name;
    void **slot;
};

static void load(void)
{
    void *lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return;
    CURLcode (*global_init)(long) = NULL;
    const struct sym syms[] = {
        {"curl_global_init", (void **)&global_init},
        {"curl_easy_init", (void **)&table.easy_init},
        {"curl_easy_setopt", (void **)&table.easy_setopt},
        {"curl_easy_perform", (void **)&table.easy_perform},
        {"curl_easy_getinfo", (void **)&table.easy_getinfo},
        {"curl_easy_cleanup", (void **)&table.easy_cleanup},
        {"curl_easy_strerror", (void **)&table.easy_strerror},
        {"curl_slist_append", (void **)&table.slist_append},
        {"curl_slist_free_all", (void **)&table.slist_free_all},
        {"curl_multi_init", (void **)&table.multi_init},
        {"curl_multi_add_handle", (void **)&table.multi_add_handle},
        {"curl_multi_remove_handle", (void **)&table.multi_remove_handle},
        {"curl_multi_perform", (void **)&table.multi_perform},
        {"curl_multi_poll", (void **)&table.multi_poll}, /* 7.66 */
        {"curl_multi_info_read", (void **)&table.multi_info_read},
        {"curl_multi_cleanup", (void **)&table.multi_cleanup},
    };
    for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
        *syms[i].slot = dlsym(lib, syms[i].name);
        if (!*syms[i].slot)
            return; /* an incompatible libcurl: OTLP is unavailable */
    }
    if (global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK)
        loaded = &table;
}

const struct sbx__curl *sbx__curl_get(void)
{
    pthread_once(&once, load);
    return loaded;
}
