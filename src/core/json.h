/* core/json.h: jansson serialisation through the library's allocator. */
#ifndef SBX_CORE_JSON_H
#define SBX_CORE_JSON_H

#include <stdbool.h>

#include <jansson.h>

/* Returns j serialised with jansson's flags, to free with sbx__free(), or NULL when any
 * allocation failed. jansson ignores some failed writes (an object key), so json_dumps() can
 * return a document with a key missing; this never does. */
char *sbx__json_dump(const json_t *j, size_t flags);

/* Whether a failed jansson load ran out of memory rather than met bad input. */
bool sbx__json_out_of_memory(const json_error_t *je);

#endif
