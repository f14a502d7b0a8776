/* serve/schema.h: one table per JSON document (the config, a key, a run request) drives its
 * parsing into a C struct, its validation with JSON paths in every message, its defaults and its
 * reference text (--help, docs/serve.md). Unknown fields are errors; nothing is clamped. */
#ifndef SBX_SERVE_SCHEMA_H
#define SBX_SERVE_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

enum schema_type {
    SCH_STRING,  /* char * (malloc'd); max = longest length in bytes (0 = no bound) */
    SCH_BOOL,    /* bool */
    SCH_UINT,    /* uint64_t in min..max */
    SCH_ENUM,    /* int: the index of the string in choices */
    SCH_STRINGS, /* struct schema_strv; max = most elements; choices restrict them */
    SCH_OBJECT,  /* the sub-schema's fields, at offset inside this struct */
    SCH_ARRAY,   /* struct schema_array of sub-schema elements; max = most elements */
    SCH_ANY,     /* json_t * (a new reference): any JSON value */
};

struct schema;

struct schema_field {
    const char *name;
    enum schema_type type;
    size_t offset;
    uint64_t min, max;
    const char *def; /* the default as JSON text (shown in the reference), NULL = none */
    const struct schema *sub;
    const char *const *choices; /* NULL-terminated */
    bool is_required;
    bool is_reloadable; /* the config only: SIGHUP applies it */
    const char *doc;    /* one line for the reference */
};

struct schema {
    const struct schema_field *fields;
    size_t count;
    size_t elem_size; /* for SCH_ARRAY elements: sizeof the element struct */
};

struct schema_strv {
    char **v;
    size_t count;
};

struct schema_array {
    void *items; /* count * elem_size bytes */
    size_t count;
};

/* Sets every field of target to its default (zero when it has none). */
bool schema_defaults(const struct schema *s, void *target, char *err, size_t errlen);

/* Fills target (its defaults set first) from the JSON object v. On failure writes one line
 * "PATH: reason" to err (path = root, "root.field", "root.list[2].x") and returns false;
 * target then holds what was parsed and must still be freed with schema_free. */
bool schema_parse(const struct schema *s, json_t *v, const char *root, void *target, char *err,
                  size_t errlen);

/* Frees what schema_parse and schema_defaults allocated inside target (not target). */
void schema_free(const struct schema *s, void *target);

/* Parses JSON text with duplicate keys refused; err gets "line L, column C: reason". */
json_t *schema_load(const char *text, size_t len, char *err, size_t errlen);

/* Writes the reference of s as Markdown table rows, one per field, paths under prefix. */
void schema_reference(const struct schema *s, const char *prefix, FILE *out);

#endif
