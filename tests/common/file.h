/* tests/common/file.h: whole-file reads for the test programs (the WASI and spec-test runners). */
#ifndef SBX_TESTS_FILE_H
#define SBX_TESTS_FILE_H

#include <stddef.h>
#include <stdint.h>

/* Returns the bytes of the file at path (malloc'ed, the caller frees) and their count in *len,
 * or NULL when it cannot be opened or read, or memory runs out. */
uint8_t *sbx_test_read_file(const char *path, size_t *len);

#endif
