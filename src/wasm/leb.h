/* wasm/leb.h: LEB128 readers with the spec's exact limits (binary 5.2.2): at most ceil(N/7)
 * bytes, and the unused bits of the last byte must be zero (unsigned) or copies of the sign
 * bit (signed). Readers never look past end. */
#ifndef SBX_WASM_LEB_H
#define SBX_WASM_LEB_H

#include <stdint.h>

enum wasm_leb_status {
    WASM_LEB_OK = 0,
    WASM_LEB_END,       /* "unexpected end": input ended inside the number */
    WASM_LEB_TOO_LONG,  /* "integer representation too long": too many bytes */
    WASM_LEB_TOO_LARGE, /* "integer too large": unused bits of the last byte not clean */
};

/* Each reads one number at *pp, advancing *pp past it on success; on failure *pp is left at
 * the byte that failed (for the message's offset). */
enum wasm_leb_status sbx__wasm_leb_u32(const uint8_t **pp, const uint8_t *end, uint32_t *out);
enum wasm_leb_status sbx__wasm_leb_u64(const uint8_t **pp, const uint8_t *end, uint64_t *out);
enum wasm_leb_status sbx__wasm_leb_s32(const uint8_t **pp, const uint8_t *end, int32_t *out);
enum wasm_leb_status sbx__wasm_leb_s33(const uint8_t **pp, const uint8_t *end, int64_t *out);
enum wasm_leb_status sbx__wasm_leb_s64(const uint8_t **pp, const uint8_t *end, int64_t *out);

/* Returns the spec's text for a failure ("integer too large"). Static, never NULL. */
const char *sbx__wasm_leb_text(enum wasm_leb_status st);

#endif
