/* util/json_text.h: checks and repairs JSON text without parsing it into values, so they work at
 * any nesting depth (jansson stops at 2048 levels). */
#ifndef SBX_UTIL_JSON_TEXT_H
#define SBX_UTIL_JSON_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Returns true if s[0..len) is one JSON value (RFC 8259) with optional whitespace around it and
 * well-formed UTF-8. \u escapes of lone surrogates count as valid (the grammar allows them). */
bool sbx__json_text_is_valid(const char *s, size_t len);

/* Rewrites, in place, every \u escape of a surrogate without its partner inside the strings of
 * JSON text s[0..len) as \ufffd (same length). Returns how many it rewrote. */
size_t sbx__json_text_replace_lone_surrogates(char *s, size_t len);

#endif
