/* util/alloc.h: the one allocation path. Sizes are overflow-checked; a test switch
 * (sbx__alloc_fail_at) fails the Nth allocation so error paths can be walked. */
#ifndef SBX_UTIL_ALLOC_H
#define SBX_UTIL_ALLOC_H

#include <stddef.h>

/* Returns count * size bytes, zeroed, or NULL on overflow or exhaustion. */
void *sbx__calloc(size_t count, size_t size);
/* Returns count * size bytes, uninitialised, or NULL on overflow or exhaustion. */
void *sbx__mallocn(size_t count, size_t size);
/* Resizes ptr to count * size bytes; on failure returns NULL and ptr stays valid. */
void *sbx__reallocn(void *ptr, size_t count, size_t size);
/* Returns a copy of s (len bytes + NUL), or NULL. */
char *sbx__strndup(const char *s, size_t len);
char *sbx__strdup(const char *s);
void sbx__free(void *ptr);

/* Makes the nth allocation from now fail (1 = the next one); 0 disables. For tests only. */
void sbx__alloc_fail_at(unsigned long nth);

#endif
