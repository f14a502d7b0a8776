/* telemetry/curl.h: libcurl, loaded on first use. Only the OTLP exporter needs HTTP, so the
 * library does not make every program that links libsbx (sbx itself included) pay for loading
 * libcurl's ~30 shared libraries at start-up. */
#ifndef SBX_TELEMETRY_CURL_H
#define SBX_TELEMETRY_CURL_H

#include <curl/curl.h>

struct sbx__curl {
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
    CURLcode (*easy_perform)(CURL *curl);
    CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
    void (*easy_cleanup)(CURL *curl);
    const char *(*easy_strerror)(CURLcode code);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *s);
    void (*slist_free_all)(struct curl_slist *list);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_add_handle)(CURLM *m, CURL *curl);
    CURLMcode (*multi_remove_handle)(CURLM *m, CURL *curl);
    CURLMcode (*multi_perform)(CURLM *m, int *running);
    CURLMcode (*multi_poll)(CURLM *m, struct curl_waitfd *extra, unsigned n, int timeout_ms,
                            int *numfds);
    CURLMsg *(*multi_info_read)(CURLM *m, int *queued);
    CURLMcode (*multi_cleanup)(CURLM *m);
};

/* Loads Debian's libcurl (libcurl.so.4) and initialises it, once per process. Returns the
 * function table, or NULL if libcurl is not installed or failed to initialise. Thread-safe. */
const struct sbx__curl *sbx__curl_get(void);

#endif
