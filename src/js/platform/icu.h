/* js/platform/icu.h: Debian's ICU (libicuuc 72) for IDNA, behind a C function. Its headers must
 * not meet SpiderMonkey's: /usr/include/mozjs-102 carries ICU 71's unicode/ headers for the copy
 * linked (hidden) inside libmozjs, so icu.c is compiled without mozjs's include path. */
#ifndef SBX_JS_PLATFORM_ICU_H
#define SBX_JS_PLATFORM_ICU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* UTS #46 ToASCII of in[0..n) as the URL Standard's "domain to ASCII" with beStrict false.
 * Returns the length written to out (at most cap code units), 0 for a failure (an invalid
 * domain, or an empty result), -1 when ICU is unusable, or -2 when out is too small (*needed
 * gets the length it needs). Thread-safe. */
long sm_icu_domain_to_ascii(const uint16_t *in, size_t n, uint16_t *out, size_t cap,
                            size_t *needed);

#ifdef __cplusplus
}
#endif

#endif
