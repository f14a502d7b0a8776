/* tests/wasm/spectest.c: sbx-spectest, the WebAssembly spec-test runner. Each script runs in a
 * child process so an engine crash costs one file, not the run; the child reports failures
 * through a pipe and its progress through shared memory, so a crash still counts exactly. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spectest.h"

#include "../common/lsan_no_tls.h"

static const char *const owner_names[OWNER_COUNT] = {
    "decoder (decode/validate/module.c)",
    "interp (compile/interp.c)",
    "runtime (store/instance/memory/table/global.c)",
    "unknown (runner or crash)",
};

struct failure {
    char *file;
    enum owner owner;
    long line;
    char *reason;
};

struct progress {
    unsigned passed, failed, skipped;
    long line;
};

struct run {
    bool verbose, no_fork;
    struct script_opts opts;
    const char *summary_path;
    struct failure *fails;
    size_t fail_count;
    unsigned passed, failed, skipped;
    unsigned files, files_failed;
};

/* The child's side: the file being run, where to report. */
struct child {
    const char *file;
    bool verbose;
    int fd;          /* pipe to the parent, or -1 when not forked */
    struct run *run; /* when not forked */
    struct progress *prog;
};

static void add_failure(struct run *run, const char *file, enum owner owner, long line,
                        const char *reason)
{
    struct failure *f = realloc(run->fails, (run->fail_count + 1) * sizeof(*f));
    if (!f)
        return;
    run->fails = f;
    f[run->fail_count].file = strdup(file);
    f[run->fail_count].owner = owner;
    f[run->fail_count].line = line;
    f[run->fail_count].reason = strdup(reason);
    run->fail_count++;
}

static void on_fail(void *user, enum owner owner, long line, const char *reason)
{
    struct child *c = user;
    if (c->verbose) {
        printf("  %s:%ld: %s\n", c->file, line, reason);
        fflush(stdout);
    }
    if (c->fd < 0) {
        add_failure(c->run, c->file, owner, line, reason);
        return;
    }
    char buf[1024];
    int n = snprintf(buf, sizeof(buf), "%d\t%ld\t%.900s\n", (int)owner, line, reason);
    for (int i = 0; i < n - 1; i++) /* one record per line */
        if (buf[i] == '\n')
            buf[i] = ' ';
    if (write(c->fd, buf, (size_t)n) < 0)
        return;
}

static void on_progress(void *user, unsigned passed, unsigned failed, unsigned skipped, long line)
{
    struct child *c = user;
    c->prog->passed = passed;
    c->prog->failed = failed;
    c->prog->skipped = skipped;
    c->prog->line = line;
}

/* Prints this process's peak virtual size: every memory reserves its maximum up front, so a
 * script with many unbounded memories shows here first. */
static void print_vm_peak(const char *file)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    while (f && fgets(line, sizeof(line), f)) {
        if (strncmp(line, "VmPeak:", 7) == 0)
            printf("  %s: %s", file, line);
    }
    if (f)
        fclose(f);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Reads the child's failure records until it closes the pipe. */
static void collect(struct run *run, const char *file, int fd)
{
    FILE *f = fdopen(fd, "r");
    char *line = NULL;
    size_t cap = 0;
    while (f && getline(&line, &cap, f) > 0) {
        char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        if (!t2)
            continue;
        line[strcspn(line, "\n")] = '\0';
        long owner = strtol(line, NULL, 10);
        if (owner < 0 || owner >= OWNER_COUNT)
            owner = OWNER_UNKNOWN;
        add_failure(run, file, (enum owner)owner, strtol(t1 + 1, NULL, 10), t2 + 1);
    }
    free(line);
    if (f)
        fclose(f);
    else
        close(fd);
}

/* Counts what a crashed or stuck child did not get to as failures. */
static void account_abnormal(struct run *run, const char *path, int status, struct progress *p)
{
    long total = spectest_count_commands(path);
    long rest = total - (long)p->passed - (long)p->failed;
    char why[256];
    if (WIFSIGNALED(status))
        snprintf(why, sizeof(why), "runner child killed by signal %d after line %ld",
                 WTERMSIG(status), p->line);
    else
        snprintf(why, sizeof(why), "runner child exited with %d after line %ld",
                 WEXITSTATUS(status), p->line);
    p->failed += rest > 0 ? (unsigned)rest : 1;
    add_failure(run, base_name(path), OWNER_UNKNOWN, p->line, why);
    if (run->verbose)
        printf("  %s: %s (%ld commands not run)\n", base_name(path), why, rest);
}

static void run_file(struct run *run, const char *path)
{
    struct progress *p =
        mmap(NULL, sizeof(*p), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    int fds[2];
    if (p == MAP_FAILED || pipe(fds) != 0) {
        perror("sbx-spectest");
        exit(2);
    }
    memset(p, 0, sizeof(*p));
    struct child c = {base_name(path), run->verbose, -1, run, p};
    fflush(stdout);
    pid_t pid = run->no_fork ? 0 : fork();
    if (pid < 0) {
        perror("sbx-spectest: fork");
        exit(2);
    }
    if (pid == 0) {
        struct script_sink sink = {on_fail, on_progress, &c};
        close(fds[0]);
        c.fd = run->no_fork ? -1 : fds[1];
        bool ok = spectest_run_script(path, &run->opts, &sink);
        if (run->verbose)
            print_vm_peak(c.file);
        if (!run->no_fork) {
            fflush(stdout);
            exit(ok ? 0 : 2); /* not _exit: LeakSanitizer checks at exit */
        }
        close(fds[1]);
        if (!ok)
            p->failed++;
    } else {
        int status = 0;
        close(fds[1]);
        collect(run, base_name(path), fds[0]);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            account_abnormal(run, path, status, p);
    }
    printf("%s: %u passed, %u failed\n", base_name(path), p->passed, p->failed);
    run->files++;
    run->files_failed += p->failed != 0;
    run->passed += p->passed;
    run->failed += p->failed;
    run->skipped += p->skipped;
    munmap(p, sizeof(*p));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Lists DIR's top-level *.json scripts, sorted. */
static char **list_scripts(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    char **out = NULL;
    *count = 0;
    if (!d)
        return NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".json") != 0)
            continue;
        char **grown = realloc(out, (*count + 1) * sizeof(*out));
        if (!grown)
            break;
        out = grown;
        size_t len = strlen(dir) + n + 2;
        out[*count] = malloc(len);
        if (out[*count])
            snprintf(out[(*count)++], len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (out)
        qsort(out, *count, sizeof(*out), cmp_str);
    return out;
}

/* Prints one owner's failures grouped by file: a count and the first few reasons of each. */
static void summarize_owner(FILE *f, const struct run *run, enum owner owner)
{
    size_t total = 0;
    for (size_t i = 0; i < run->fail_count; i++)
        total += run->fails[i].owner == owner;
    fprintf(f, "\n== %s: %zu failures\n", owner_names[owner], total);
    for (size_t i = 0; i < run->fail_count;) {
        const char *file = run->fails[i].file;
        size_t end = i, n = 0;
        while (end < run->fail_count && strcmp(run->fails[end].file, file) == 0)
            n += run->fails[end++].owner == owner;
        if (n)
            fprintf(f, "%s: %zu\n", file, n);
        for (size_t k = i, shown = 0; k < end && shown < 3; k++) {
            if (run->fails[k].owner != owner)
                continue;
            fprintf(f, "    line %ld: %.240s\n", run->fails[k].line, run->fails[k].reason);
            shown++;
        }
        i = end;
    }
}

static void write_summary(const struct run *run)
{
    FILE *f = fopen(run->summary_path, "w");
    if (!f) {
        perror(run->summary_path);
        return;
    }
    char when[64];
    time_t now = time(NULL);
    strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
    fprintf(f,
            "# sbx-spectest failures at %s: %u passed, %u failed, %u skipped (text modules)\n"
            "# %u scripts run, %u with failures.\n"
            "# Written by `make spectest` (build/sbx-spectest -v FILE.json for details).\n"
            "# Owners are guesses from where a failure showed: a load failure is the decoder's,\n"
            "# a wrong result or trap the interpreter's, linking/segments the runtime's.\n",
            when, run->passed, run->failed, run->skipped, run->files, run->files_failed);
    for (int o = 0; o < OWNER_COUNT; o++)
        summarize_owner(f, run, (enum owner)o);
    fclose(f);
}

/* The --superseded file as "name.json:line\n" entries: its first word per line, comments (#)
 * and blank lines dropped. NULL when it cannot be read. */
static char *read_superseded(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *out = malloc(cap), line[512];
    while (out && fgets(line, sizeof(line), f)) {
        char word[400];
        if (line[0] == '#' || sscanf(line, "%399s", word) != 1)
            continue;
        size_t n = strlen(word);
        if (len + n + 2 > cap) {
            char *grown = realloc(out, cap *= 2);
            if (!grown) {
                free(out);
                out = NULL;
                break;
            }
            out = grown;
        }
        memcpy(out + len, word, n);
        len += n;
        out[len++] = '\n';
    }
    fclose(f);
    if (out)
        out[len] = '\0';
    return out;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: sbx-spectest [-v] [-t SECONDS] [-d DIR] [--summary FILE] [--no-fork] "
            "[--tier interp|compiled|both] [--superseded FILE] [--native-only] [FILE.json...]\n"
            "  Runs wast2json spec scripts (default: DIR/*.json, DIR from $SBX_WASM_TESTSUITE or\n"
            "  ../shared/wasm-testsuite). -v lists each failure; -t is the per-command timeout.\n"
            "  --tier picks the engine (default interp); both runs every script in each.\n"
            "  --native-only fails a script in which a call of the compiled tier ran interpreted.\n"
            "  --superseded skips the commands FILE lists as name.json:line (2.0 expectations\n"
            "  3.0 reverses), counting them skipped.\n");
}

static const struct {
    const char *name;
    uint8_t tier;
} tiers[] = {{"interp", WASM_TIER_INTERP}, {"compiled", WASM_TIER_COMPILED}};

/* Parses --tier's value into a bit set over tiers[]; 0 if unknown. */
static unsigned parse_tiers(const char *s)
{
    if (strcmp(s, "both") == 0)
        return 3u;
    for (unsigned t = 0; t < 2; t++) {
        if (strcmp(s, tiers[t].name) == 0)
            return 1u << t;
    }
    return 0;
}

/* Runs every file in one tier and prints that tier's totals. Returns the failures. */
static unsigned run_tier(struct run *run, unsigned t, char **files, size_t count, bool is_both)
{
    run->opts.tier = tiers[t].tier;
    run->passed = run->failed = run->skipped = run->files = run->files_failed = 0;
    for (size_t k = 0; k < count; k++)
        run_file(run, files[k]);
    printf("(%u commands skipped: text-format modules%s)\n", run->skipped,
           run->opts.superseded ? ", or superseded" : "");
    if (is_both)
        printf("%s tier: ", tiers[t].name);
    printf("%u passed, %u failed\n", run->passed, run->failed);
    return run->failed;
}

int main(int argc, char **argv)
{
    struct run run = {.opts = {.command_timeout_s = 30}};
    const char *dir = getenv("SBX_WASM_TESTSUITE");
    unsigned tier_set = 1u; /* interp */
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "-v") == 0)
            run.verbose = true;
        else if (strcmp(argv[i], "--no-fork") == 0)
            run.no_fork = true;
        else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
            run.opts.command_timeout_s = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "-d") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "--summary") == 0 && i + 1 < argc)
            run.summary_path = argv[++i];
        else if (strcmp(argv[i], "--tier") == 0 && i + 1 < argc && parse_tiers(argv[i + 1]))
            tier_set = parse_tiers(argv[++i]);
        else if (strcmp(argv[i], "--native-only") == 0)
            run.opts.is_native_only = true;
        else if (strcmp(argv[i], "--superseded") == 0 && i + 1 < argc &&
                 (run.opts.superseded = read_superseded(argv[++i])) != NULL)
            ;
        else {
            usage();
            return 2;
        }
    }
    if (run.opts.command_timeout_s == 0)
        run.opts.command_timeout_s = 30;
    size_t count = (size_t)(argc - i);
    char **files = argv + i, **listed = NULL;
    if (count == 0) {
        listed = files = list_scripts(dir ? dir : "../shared/wasm-testsuite", &count);
        if (!count) {
            fprintf(stderr, "sbx-spectest: no *.json scripts in %s\n",
                    dir ? dir : "../shared/wasm-testsuite");
            return 2;
        }
    }
    unsigned failed = 0;
    for (unsigned t = 0; t < 2; t++) {
        if (tier_set & (1u << t))
            failed += run_tier(&run, t, files, count, tier_set == 3u);
    }
    if (run.summary_path)
        write_summary(&run);
    for (size_t k = 0; listed && k < count; k++)
        free(listed[k]);
    free(listed);
    for (size_t k = 0; k < run.fail_count; k++) {
        free(run.fails[k].file);
        free(run.fails[k].reason);
    }
    free(run.fails);
    free((char *)run.opts.superseded);
    return failed ? 1 : 0;
}
