/* core/json.c: jansson serialisation into a capped buffer whose failures are sticky. */
#include "core/json.h"

#include <stdint.h>

#include "util/alloc.h"
#include "util/buf.h"

static int append(const char *data, size_t len, void *arg)
{
    return sbx__buf_append(arg, data, len) ? 0 : -1;
}

char *sbx__json_dump(const json_t *j, size_t flags)
{
    struct sbx__buf b;
    sbx__buf_init(&b, SIZE_MAX);
    int rc = json_dump_callback(j, append, &b, flags);
    if (rc != 0 || b.is_oom) {
        sbx__buf_free(&b);
        return NULL;
    }
    return sbx__buf_take(&b, NULL);
}

/* jansson fails its lexer's first allocation before setting any error: no text means NOMEM. */
bool sbx__json_out_of_memory(const json_error_t *je)
{
    return json_error_code(je) == json_error_out_of_memory || je->text[0] == '\0';
}
