/* tests/wasm/spectest.h: the spec-test runner's parts: values (spectest_value.c), the spectest
 * host module (spectest_host.c), one script's commands (spectest_script.c) and the driver that
 * runs each script in its own process (spectest.c). */
#ifndef SBX_TESTS_SPECTEST_H
#define SBX_TESTS_SPECTEST_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "wasm/wasm.h"

/* Who most likely has to fix a failure, from where it showed. */
enum owner { OWNER_DECODER, OWNER_INTERP, OWNER_RUNTIME, OWNER_UNKNOWN, OWNER_COUNT };

/* An expected value: exact bits, or a NaN class per float (lane). */
enum nan_class { NAN_NONE = 0, NAN_CANONICAL, NAN_ARITHMETIC };

struct expect {
    wasm_vtype type;   /* a value type (module.h) */
    uint8_t lane_type; /* v128: WASM_I32.. or 8/16 for i8/i16 lanes */
    bool is_any;       /* no value given: anything of the type matches */
    uint8_t nan[16];   /* per lane (lane 0 for scalars) */
    wasm_value v;
};

/* Parses a JSON argument value into v. Returns false (with a reason) if malformed. */
bool spectest_parse_value(json_t *j, wasm_vtype *type, wasm_value *v, char *why, size_t whylen);
bool spectest_parse_expect(json_t *j, struct expect *e, char *why, size_t whylen);
/* The expected type "refnull": any null reference (a type no module has). */
#define SPECTEST_REFNULL WASM_REF(1, WASM_HT_BOT)
/* Whether a result of type `type` matches e; else writes "expected X, got Y" to why. */
bool spectest_match(const struct expect *e, wasm_vtype type, wasm_value got, char *why,
                    size_t whylen);
const char *spectest_type_name(wasm_vtype type);

/* externref N of the scripts is the host pointer N + 1, so that ref.extern 0 is not null. */
void *spectest_extern_ref(uint64_t n);

/* The spectest module's objects, created once per store. */
struct spectest_host {
    struct wasm_func *print[7];
    struct wasm_global *g_i32, *g_i64, *g_f32, *g_f64;
    struct wasm_table *table, *table64; /* 3.0's spectest adds table64 (i64-indexed) */
    struct wasm_memory *memory;
};

bool spectest_host_init(struct spectest_host *h, struct wasm_store *store);
/* Finds field (name_len bytes) of the spectest module. */
bool spectest_host_lookup(const struct spectest_host *h, const char *name, size_t name_len,
                          struct wasm_extern *out);

/* What running one script reports, through the sink the driver sets up. */
struct script_sink {
    void (*fail)(void *user, enum owner owner, long line, const char *reason);
    void (*progress)(void *user, unsigned passed, unsigned failed, unsigned skipped, long line);
    void *user;
};

struct script_opts {
    unsigned command_timeout_s; /* per command; the store is interrupted when it passes */
    uint8_t tier;               /* enum wasm_tier of the script's store */
    /* "name.json:line" of commands to skip (2.0 expectations 3.0 reverses: --superseded), each
     * newline-terminated in one string; NULL for none. */
    const char *superseded;
    /* --native-only (compiled tier): a script in whose store some call ran interpreted (a
     * function left to the interpreter) fails one more command. */
    bool is_native_only;
};

/* Runs every command of one wast2json script. Returns false if the file cannot be read. */
bool spectest_run_script(const char *path, const struct script_opts *opts,
                         const struct script_sink *sink);

/* Counts the commands of a script the runner would run (not skipped ones). -1 on error. */
long spectest_count_commands(const char *path);

#endif
