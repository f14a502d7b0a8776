/* core/error.c: names and messages of the error registry (include/sbx/error.h). */
#include <string.h>

#include <sbx/error.h>

struct err_row {
    sbx_err code;
    const char *name;
    const char *message;
};

static const struct err_row rows[] = {
#define SBX_ERR_ROW(id, val, name, msg) {id, name, msg},
    SBX_ERRORS(SBX_ERR_ROW)
#undef SBX_ERR_ROW
};

static const struct err_row *find(sbx_err err)
{
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        if (rows[i].code == err)
            return &rows[i];
    }
    return NULL;
}

const char *sbx_err_name(sbx_err err)
{
    const struct err_row *r = find(err);
    return r ? r->name : "SANDBOX_UNKNOWN_ERROR";
}

const char *sbx_err_message(sbx_err err)
{
    const struct err_row *r = find(err);
    return r ? r->message : "unknown error code";
}

int sbx_err_from_name(const char *name, sbx_err *out)
{
    if (!name)
        return -1;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        if (strcmp(rows[i].name, name) == 0) {
            if (out)
                *out = rows[i].code;
            return 0;
        }
    }
    return -1;
}

const char *sbx_version(void)
{
    return SBX_VERSION;
}
