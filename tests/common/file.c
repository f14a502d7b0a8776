/* tests/common/file.c: whole-file reads (file.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "file.h"

uint8_t *sbx_test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 65536;
            uint8_t *nb = realloc(buf, cap);
            if (!nb)
                break;
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    bool ok = !ferror(f) && buf;
    fclose(f);
    if (!ok) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}
