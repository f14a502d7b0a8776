/* serve/schema.c: the table-driven JSON reader of schema.h. Paths in messages follow the
 * policy's style ("config.keys[0].ceiling.timeoutMs: must be an integer in 1..3600000"). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "serve/schema.h"

#define PATH_MAX_LEN 256

static void *at(void *target, size_t offset)
{
    return (char *)target + offset;
}

static void fail(char *err, size_t errlen, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void fail(char *err, size_t errlen, const char *path, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(err, errlen, "%s: %s", path, msg);
}

static const char *type_text(const struct schema_field *f)
{
    switch (f->type) {
    case SCH_STRING:
        return "a string";
    case SCH_BOOL:
        return "a boolean";
    case SCH_UINT:
        return "an integer";
    case SCH_ENUM:
        return "a string";
    case SCH_STRINGS:
        return "an array of strings";
    case SCH_OBJECT:
        return "an object";
    case SCH_ARRAY:
        return "an array of objects";
    case SCH_ANY:
        return "any JSON value";
    }
    return "?";
}

static int choice_index(const char *const *choices, const char *s)
{
    for (int i = 0; choices && choices[i]; i++) {
        if (strcmp(choices[i], s) == 0)
            return i;
    }
    return -1;
}

static void choices_text(const char *const *choices, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; choices[i] && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s\"%s\"", i ? ", " : "", choices[i]);
}

static bool parse_field(const struct schema_field *f, json_t *v, const char *path, void *target,
                        char *err, size_t errlen);
static bool parse_object(const struct schema *s, json_t *v, const char *path, void *target,
                         char *err, size_t errlen);

static bool parse_string(const struct schema_field *f, json_t *v, const char *path, char **out,
                         char *err, size_t errlen)
{
    if (!json_is_string(v)) {
        fail(err, errlen, path, "must be %s", type_text(f));
        return false;
    }
    size_t len = json_string_length(v);
    if (f->max && len > f->max) {
        char lim[64];
        snprintf(lim, sizeof(lim), "%" PRIu64, f->max);
        fail(err, errlen, path, "is longer than %s bytes", lim);
        return false;
    }
    if (f->is_required && len == 0) {
        fail(err, errlen, path, "must not be empty");
        return false;
    }
    free(*out);
    *out = strdup(json_string_value(v));
    if (!*out)
        fail(err, errlen, path, "out of memory");
    return *out != NULL;
}

static bool parse_uint(const struct schema_field *f, json_t *v, const char *path, uint64_t *out,
                       char *err, size_t errlen)
{
    json_int_t n = json_is_integer(v) ? json_integer_value(v) : -1;
    if (!json_is_integer(v) || n < 0 || (uint64_t)n < f->min || (uint64_t)n > f->max) {
        char msg[160];
        if (json_is_integer(v))
            snprintf(msg, sizeof(msg), "must be an integer in %" PRIu64 "..%" PRIu64 ", got %lld",
                     f->min, f->max, (long long)n);
        else
            snprintf(msg, sizeof(msg), "must be an integer in %" PRIu64 "..%" PRIu64, f->min,
                     f->max);
        fail(err, errlen, path, "%s", msg);
        return false;
    }
    *out = (uint64_t)n;
    return true;
}

static bool parse_enum(const struct schema_field *f, json_t *v, const char *path, int *out,
                       char *err, size_t errlen)
{
    int i = json_is_string(v) ? choice_index(f->choices, json_string_value(v)) : -1;
    if (i < 0) {
        char list[256];
        choices_text(f->choices, list, sizeof(list));
        fail(err, errlen, path, "must be one of %s", list);
        return false;
    }
    *out = i;
    return true;
}

static bool parse_strings(const struct schema_field *f, json_t *v, const char *path,
                          struct schema_strv *out, char *err, size_t errlen)
{
    if (!json_is_array(v)) {
        fail(err, errlen, path, "must be %s", type_text(f));
        return false;
    }
    size_t n = json_array_size(v);
    if (f->max && n > f->max) {
        char lim[64];
        snprintf(lim, sizeof(lim), "%" PRIu64, f->max);
        fail(err, errlen, path, "has more than %s elements", lim);
        return false;
    }
    for (size_t i = 0; out->v && i < out->count; i++)
        free(out->v[i]);
    free(out->v);
    out->count = 0;
    out->v = calloc(n + 1, sizeof(char *));
    if (!out->v) {
        fail(err, errlen, path, "out of memory");
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(v, i);
        char sub[PATH_MAX_LEN];
        snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
        if (!json_is_string(e)) {
            fail(err, errlen, sub, "must be a string");
            return false;
        }
        if (f->choices && choice_index(f->choices, json_string_value(e)) < 0) {
            char list[256];
            choices_text(f->choices, list, sizeof(list));
            fail(err, errlen, sub, "must be one of %s", list);
            return false;
        }
        if (!(out->v[i] = strdup(json_string_value(e)))) {
            fail(err, errlen, sub, "out of memory");
            return false;
        }
        out->count++;
    }
    return true;
}

static bool parse_array(const struct schema_field *f, json_t *v, const char *path,
                        struct schema_array *out, char *err, size_t errlen)
{
    if (!json_is_array(v)) {
        fail(err, errlen, path, "must be %s", type_text(f));
        return false;
    }
    size_t n = json_array_size(v), size = f->sub->elem_size;
    if (f->max && n > f->max) {
        char lim[64];
        snprintf(lim, sizeof(lim), "%" PRIu64, f->max);
        fail(err, errlen, path, "has more than %s elements", lim);
        return false;
    }
    for (size_t i = 0; i < out->count; i++) /* a default's elements, replaced */
        schema_free(f->sub, (char *)out->items + i * size);
    free(out->items);
    out->items = calloc(n ? n : 1, size);
    out->count = 0;
    if (!out->items) {
        fail(err, errlen, path, "out of memory");
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        char sub[PATH_MAX_LEN];
        snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
        void *elem = (char *)out->items + i * size;
        out->count++; /* counted first: a failure halfway is still freed */
        if (!schema_defaults(f->sub, elem, err, errlen) ||
            !parse_object(f->sub, json_array_get(v, i), sub, elem, err, errlen))
            return false;
    }
    return true;
}

static bool parse_field(const struct schema_field *f, json_t *v, const char *path, void *target,
                        char *err, size_t errlen)
{
    void *p = at(target, f->offset);
    switch (f->type) {
    case SCH_STRING:
        return parse_string(f, v, path, p, err, errlen);
    case SCH_BOOL:
        if (!json_is_boolean(v)) {
            fail(err, errlen, path, "must be %s", type_text(f));
            return false;
        }
        *(bool *)p = json_is_true(v);
        return true;
    case SCH_UINT:
        return parse_uint(f, v, path, p, err, errlen);
    case SCH_ENUM:
        return parse_enum(f, v, path, p, err, errlen);
    case SCH_STRINGS:
        return parse_strings(f, v, path, p, err, errlen);
    case SCH_OBJECT:
        return parse_object(f->sub, v, path, p, err, errlen);
    case SCH_ARRAY:
        return parse_array(f, v, path, p, err, errlen);
    case SCH_ANY:
        json_decref(*(json_t **)p);
        *(json_t **)p = json_incref(v);
        return true;
    }
    return false;
}

static bool parse_object(const struct schema *s, json_t *v, const char *path, void *target,
                         char *err, size_t errlen)
{
    if (!json_is_object(v)) {
        fail(err, errlen, path, "must be an object");
        return false;
    }
    const char *key;
    json_t *val;
    json_object_foreach(v, key, val)
    {
        char sub[PATH_MAX_LEN];
        snprintf(sub, sizeof(sub), "%s.%s", path, key);
        const struct schema_field *f = NULL;
        for (size_t i = 0; i < s->count && !f; i++) {
            if (strcmp(s->fields[i].name, key) == 0)
                f = &s->fields[i];
        }
        if (!f) {
            fail(err, errlen, sub, "unknown field");
            return false;
        }
        if (!parse_field(f, val, sub, target, err, errlen))
            return false;
    }
    for (size_t i = 0; i < s->count; i++) {
        if (s->fields[i].is_required && !json_object_get(v, s->fields[i].name)) {
            char sub[PATH_MAX_LEN];
            snprintf(sub, sizeof(sub), "%s.%s", path, s->fields[i].name);
            fail(err, errlen, sub, "is required");
            return false;
        }
    }
    return true;
}

bool schema_defaults(const struct schema *s, void *target, char *err, size_t errlen)
{
    for (size_t i = 0; i < s->count; i++) {
        const struct schema_field *f = &s->fields[i];
        if (f->type == SCH_OBJECT && !schema_defaults(f->sub, at(target, f->offset), err, errlen))
            return false;
        if (!f->def)
            continue;
        json_error_t je;
        json_t *v = json_loads(f->def, JSON_DECODE_ANY, &je);
        bool ok = v && parse_field(f, v, f->name, target, err, errlen);
        json_decref(v);
        if (!ok)
            return false;
    }
    return true;
}

bool schema_parse(const struct schema *s, json_t *v, const char *root, void *target, char *err,
                  size_t errlen)
{
    return schema_defaults(s, target, err, errlen) && parse_object(s, v, root, target, err, errlen);
}

void schema_free(const struct schema *s, void *target)
{
    for (size_t i = 0; i < s->count; i++) {
        const struct schema_field *f = &s->fields[i];
        void *p = at(target, f->offset);
        if (f->type == SCH_STRING) {
            free(*(char **)p);
            *(char **)p = NULL;
        } else if (f->type == SCH_STRINGS) {
            struct schema_strv *sv = p;
            for (size_t j = 0; sv->v && j < sv->count; j++)
                free(sv->v[j]);
            free(sv->v);
            *sv = (struct schema_strv){0};
        } else if (f->type == SCH_OBJECT) {
            schema_free(f->sub, p);
        } else if (f->type == SCH_ARRAY) {
            struct schema_array *a = p;
            for (size_t j = 0; j < a->count; j++)
                schema_free(f->sub, (char *)a->items + j * f->sub->elem_size);
            free(a->items);
            *a = (struct schema_array){0};
        } else if (f->type == SCH_ANY) {
            json_decref(*(json_t **)p);
            *(json_t **)p = NULL;
        }
    }
}

json_t *schema_load(const char *text, size_t len, char *err, size_t errlen)
{
    json_error_t je;
    json_t *v = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!v)
        snprintf(err, errlen, "invalid JSON at line %d, column %d: %s", je.line, je.column,
                 je.text);
    return v;
}

static void reference_row(const struct schema_field *f, const char *path, FILE *out)
{
    char range[128] = "";
    if (f->type == SCH_UINT)
        snprintf(range, sizeof(range), "%" PRIu64 "..%" PRIu64, f->min, f->max);
    else if (f->type == SCH_ENUM || (f->type == SCH_STRINGS && f->choices))
        choices_text(f->choices, range, sizeof(range));
    else if (f->max)
        snprintf(range, sizeof(range), "at most %" PRIu64, f->max);
    fprintf(out, "| `%s` | %s | %s | %s | %s | %s |\n", path, type_text(f), range,
            f->def ? f->def : (f->is_required ? "required" : "none"),
            f->is_reloadable ? "yes" : "no", f->doc ? f->doc : "");
}

void schema_reference(const struct schema *s, const char *prefix, FILE *out)
{
    for (size_t i = 0; i < s->count; i++) {
        const struct schema_field *f = &s->fields[i];
        char path[PATH_MAX_LEN];
        snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "", f->name);
        reference_row(f, path, out);
        if (f->type == SCH_OBJECT || f->type == SCH_ARRAY) {
            char sub[PATH_MAX_LEN + 4];
            snprintf(sub, sizeof(sub), "%s%s", path, f->type == SCH_ARRAY ? "[]" : "");
            schema_reference(f->sub, sub, out);
        }
    }
}
