/* serve/base64.h: RFC 4648 base64 (standard alphabet, padding required) for modules and
 * files sent as JSON strings. */
#ifndef SBX_SERVE_BASE64_H
#define SBX_SERVE_BASE64_H

#include <stddef.h>
#include <stdint.h>

/* Decodes len characters; *out (malloc'd) gets the bytes. 0, or -1 for text that is not
 * base64 (a bad character, a bad length or padding) or out of memory. */
int serve_base64_decode(const char *text, size_t len, uint8_t **out, size_t *out_len);
/* Encodes len bytes; malloc'd NUL-terminated text, or NULL. */
char *serve_base64_encode(const uint8_t *data, size_t len);
/* The decoded size of valid text of len characters (for bounds before decoding). */
size_t serve_base64_decoded_len(const char *text, size_t len);

#endif
