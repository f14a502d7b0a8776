/* js/text.h: text crossing the engine boundary. Duktape keeps strings as CESU-8 (a non-BMP
 * character is two 3-byte surrogates); the host speaks UTF-8. Input is re-encoded on the way in,
 * output on the way out, so emoji keep their UTF-16 length inside and their bytes outside. */
#ifndef SBX_JS_TEXT_H
#define SBX_JS_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* How engine output treats a surrogate without its partner. */
enum sbx__js_lone {
    SBX_JS_LONE_REPLACE, /* U+FFFD: console text, error messages */
    SBX_JS_LONE_ESCAPE,  /* a \u escape: inside JSON strings, as ES2019 JSON.stringify does */
};

/* Returns a NUL-terminated CESU-8 copy of UTF-8 s[0..len) (4-byte sequences become surrogate
 * pairs, ill-formed bytes U+FFFD), or NULL on NOMEM. *out_len gets its length. */
char *sbx__js_to_cesu(const char *s, size_t len, size_t *out_len);

/* Converts engine text s[0..len) to UTF-8: surrogate pairs join, lone surrogates follow mode,
 * other ill-formed bytes become U+FFFD. Writes to dst when non-NULL (which must hold the
 * returned length); call with dst == NULL first to size it. */
size_t sbx__js_from_cesu(const char *s, size_t len, enum sbx__js_lone mode, char *dst);

/* Returns the length of the longest prefix of UTF-8 s[0..len) that is at most max bytes and
 * does not end inside a multi-byte sequence. */
size_t sbx__js_utf8_cut(const char *s, size_t len, size_t max);

#endif
