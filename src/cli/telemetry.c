/* cli/telemetry.c: `--metrics FILE` (Prometheus text written at exit) and OTLP export when an
 * OTEL_EXPORTER_OTLP_*ENDPOINT is set. With both, one hook table feeds the two exporters. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

static sbx_prometheus *prom;
static sbx_otlp *otlp;
static const char *metrics_path;

struct tee_span {
    void *a, *b;
};

static const sbx_telemetry_hooks *hook_a(void)
{
    return sbx_prometheus_hooks(prom);
}

static const sbx_telemetry_hooks *hook_b(void)
{
    return sbx_otlp_hooks(otlp);
}

static void *tee_span_start(void *user, const char *name, const sbx_attr *attrs, size_t n)
{
    (void)user;
    struct tee_span *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    if (hook_a()->span_start)
        s->a = hook_a()->span_start(hook_a()->user, name, attrs, n);
    if (hook_b()->span_start)
        s->b = hook_b()->span_start(hook_b()->user, name, attrs, n);
    return s;
}

static void tee_span_end(void *user, void *span, const sbx_attr *attrs, size_t n, bool is_error,
                         const char *msg)
{
    (void)user;
    struct tee_span *s = span;
    if (!s)
        return;
    if (hook_a()->span_end)
        hook_a()->span_end(hook_a()->user, s->a, attrs, n, is_error, msg);
    if (hook_b()->span_end)
        hook_b()->span_end(hook_b()->user, s->b, attrs, n, is_error, msg);
    free(s);
}

static void tee_counter(void *user, const char *name, uint64_t v, const sbx_attr *attrs, size_t n)
{
    (void)user;
    if (hook_a()->counter_add)
        hook_a()->counter_add(hook_a()->user, name, v, attrs, n);
    if (hook_b()->counter_add)
        hook_b()->counter_add(hook_b()->user, name, v, attrs, n);
}

static void tee_histogram(void *user, const char *name, double v, const sbx_attr *attrs, size_t n)
{
    (void)user;
    if (hook_a()->histogram_record)
        hook_a()->histogram_record(hook_a()->user, name, v, attrs, n);
    if (hook_b()->histogram_record)
        hook_b()->histogram_record(hook_b()->user, name, v, attrs, n);
}

/* The value-less options of the commands: every other option takes the next word. */
static bool is_flag(const char *arg)
{
    static const char *const flags[] = {"--json", "--help", "-h", "--version"};
    for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
        if (strcmp(arg, flags[i]) == 0)
            return true;
    }
    return false;
}

/* Removes "--metrics FILE" from argv where it stands before the command or among its options.
 * The scan stops at the command's first operand or "--": what follows (a wasm guest's ARGS, a
 * CMD for `sbx run`) is the guest's. Returns -1 on a usage error (no FILE, given twice). */
static int take_metrics_flag(int *argc, char **argv)
{
    bool has_command = false;
    for (int i = 1; i < *argc && strcmp(argv[i], "--") != 0; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--metrics") != 0) {
            if (a[0] != '-' || a[1] == '\0') { /* an operand; the first is the command */
                if (has_command)
                    break;
                has_command = true;
            } else if (has_command && !strchr(a, '=') && !is_flag(a)) {
                i++; /* the option's value */
            }
            continue;
        }
        if (i + 1 >= *argc) {
            fprintf(stderr, "sbx: --metrics needs a FILE\n");
            return -1;
        }
        if (metrics_path) {
            fprintf(stderr, "sbx: --metrics given twice\n");
            return -1;
        }
        metrics_path = argv[i + 1];
        memmove(&argv[i], &argv[i + 2], (size_t)(*argc - i - 1) * sizeof(*argv));
        *argc -= 2;
        i--; /* look on for a second --metrics */
    }
    return 0;
}

/* The file is written at exit (a temporary file renamed into its directory): a path that cannot
 * be written is a usage error now, not a lost file after the run. */
static int check_metrics_path(const char *path)
{
    struct stat st;
    int err = 0;
    char *dir = strdup(path);
    if (!dir) {
        err = ENOMEM;
    } else if (!*path) {
        err = ENOENT;
    } else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        err = EISDIR;
    } else {
        char *slash = strrchr(dir, '/');
        if (slash)
            slash[slash == dir] = '\0'; /* "/x" -> "/" */
        if (access(slash ? dir : ".", W_OK | X_OK) != 0)
            err = errno;
    }
    free(dir);
    if (err)
        fprintf(stderr, "sbx: --metrics: cannot write '%s': %s\n", path, strerror(err));
    return err ? -1 : 0;
}

static bool otel_disabled(void)
{
    const char *v = getenv("OTEL_SDK_DISABLED");
    return v && strcasecmp(v, "true") == 0;
}

/* Any of the endpoint variables turns export on; the rest fall back to their defaults. */
static bool otlp_configured(void)
{
    static const char *const vars[] = {"OTEL_EXPORTER_OTLP_ENDPOINT",
                                       "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                                       "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return true;
    }
    return false;
}

int cli_telemetry_start(int *argc, char **argv)
{
    if (take_metrics_flag(argc, argv) || (metrics_path && check_metrics_path(metrics_path)))
        return -1;
    if (metrics_path && sbx_prometheus_create(&prom) != SBX_OK) {
        fprintf(stderr, "sbx: --metrics: out of memory\n");
        return -1;
    }
    if (otlp_configured() && !otel_disabled()) {
        sbx_err e = sbx_otlp_create_from_env(&otlp);
        if (e) {
            const char *why = sbx_otlp_last_error(NULL);
            fprintf(stderr, "sbx: OTLP exporter: %s (%s)\n", why[0] ? why : sbx_err_message(e),
                    sbx_err_name(e));
            sbx_prometheus_destroy(prom);
            prom = NULL;
            return -1;
        }
        const char *note = sbx_otlp_last_error(NULL); /* a warning after a success */
        if (note[0])
            fprintf(stderr, "sbx: %s\n", note);
    }
    static sbx_telemetry_hooks tee = {NULL, tee_span_start, tee_span_end, tee_counter,
                                      tee_histogram};
    if (prom && otlp)
        sbx_telemetry_set_hooks(&tee);
    else if (prom)
        sbx_telemetry_set_hooks(sbx_prometheus_hooks(prom));
    else if (otlp)
        sbx_telemetry_set_hooks(sbx_otlp_hooks(otlp));
    return 0;
}

void cli_telemetry_finish(void)
{
    sbx_telemetry_set_hooks(NULL);
    if (prom && sbx_prometheus_write_file(prom, metrics_path) != SBX_OK)
        fprintf(stderr, "sbx: --metrics: cannot write '%s': %s\n", metrics_path, strerror(errno));
    /* Every signal that failed is named; after a success, a partial one (items rejected). */
    if (otlp && sbx_otlp_flush(otlp) != SBX_OK)
        fprintf(stderr, "sbx: OTLP export failed: %s\n", sbx_otlp_last_error(otlp));
    else if (otlp && sbx_otlp_last_error(otlp)[0])
        fprintf(stderr, "sbx: OTLP export: %s\n", sbx_otlp_last_error(otlp));
    sbx_prometheus_destroy(prom);
    sbx_otlp_destroy(otlp);
    prom = NULL;
    otlp = NULL;
}
