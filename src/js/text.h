/* js/text.h: text crossing the engine boundary. SpiderMonkey keeps strings as UTF-16 (or Latin-1);
 * the host speaks UTF-8. Input is converted on the way in (ill-formed bytes become U+FFFD), output
 * on the way out, so emoji keep their UTF-16 length inside and their bytes outside. */
#ifndef SBX_JS_TEXT_H
#define SBX_JS_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Returns a UTF-16 copy of UTF-8 s[0..len) (ill-formed bytes become U+FFFD), or NULL on NOMEM.
 * *out_count gets its length in code units. */
uint16_t *sbx__js_utf8_to_utf16(const char *s, size_t len, size_t *out_count);

/* Converts UTF-16 s[0..count) to UTF-8: surrogate pairs join, lone surrogates become U+FFFD.
 * Writes to dst when non-NULL (which must hold the returned length); call with dst == NULL to
 * size it. */
size_t sbx__js_utf16_to_utf8(const uint16_t *s, size_t count, char *dst);

/* Converts Latin-1 s[0..count) to UTF-8, like sbx__js_utf16_to_utf8. */
size_t sbx__js_latin1_to_utf8(const uint8_t *s, size_t count, char *dst);

/* Returns the length of the longest prefix of UTF-8 s[0..len) that is at most max bytes and
 * does not end inside a multi-byte sequence. */
size_t sbx__js_utf8_cut(const char *s, size_t len, size_t max);

#ifdef __cplusplus
}
#endif

#endif
