/* util/utf8.h: UTF-8 checks for text that crosses into JSON. */
#ifndef SBX_UTIL_UTF8_H
#define SBX_UTIL_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Returns true if s[0..len) is well-formed UTF-8 (no surrogates, no overlongs). */
bool sbx__utf8_is_valid(const char *s, size_t len);

/* Returns a NUL-terminated copy of s[0..len) with every ill-formed sequence replaced by U+FFFD
 * and NUL bytes kept; *out_len gets its length. NULL on NOMEM. */
char *sbx__utf8_sanitize(const char *s, size_t len, size_t *out_len);

#endif
