/* tests/unit/wasm/test_cache.c: the compiled tier's cache store (src/wasm/jit/cache.c) as an
 * attacker sees it. Each refusal (group-writable or foreign directory, symlinked, foreign,
 * writable or special entries, corrupt, truncated, re-keyed or other-version entries) has its
 * control: the same setup, correctly permitted, is a hit. Plus the LRU size bound, concurrent
 * writers of one entry, and keys that change with every input. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sbx_test.h"
#include "util/alloc.h"
#include "wasm/jit/cache.h"

#define NOBODY 65534

static char base[PATH_MAX], dir[PATH_MAX + 32];
static const uint8_t payload[] = "pretend machine code: a payload the cache must round-trip";

static void setup(void)
{
    snprintf(base, sizeof(base), "/tmp/sbx-cache-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(base));
    snprintf(dir, sizeof(dir), "%s/c", base);
}

static void teardown(void)
{
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
    ck_assert_int_eq(system(cmd), 0);
}

static void key_of(unsigned n, uint8_t key[SBX__SHA256_LEN])
{
    char b[32];
    snprintf(b, sizeof(b), "module %u", n);
    sbx__jit_cache_key((const uint8_t *)b, strlen(b), SBX__JIT_CACHE_OPTS, key);
}

static void open_ok(struct sbx__jit_cache *c, uint64_t max_bytes)
{
    char err[512] = "";
    ck_assert_msg(sbx__jit_cache_open(c, dir, max_bytes, err, sizeof(err)) == SBX_OK, "%s", err);
}

/* Stores payload under key n; returns the entry's path in path. */
static void store(struct sbx__jit_cache *c, unsigned n, char *path, size_t len)
{
    uint8_t key[SBX__SHA256_LEN];
    key_of(n, key);
    ck_assert_int_eq(sbx__jit_cache_store(c, key, payload, sizeof(payload), path, len), SBX_OK);
}

/* SBX_OK when key n loads and its payload is ours; err gets the refusal. */
static sbx_err load(struct sbx__jit_cache *c, unsigned n, char *err, size_t errlen)
{
    uint8_t key[SBX__SHA256_LEN], *buf = NULL;
    size_t len = 0;
    key_of(n, key);
    sbx_err rc = sbx__jit_cache_load(c, key, &buf, &len, err, errlen);
    if (rc == SBX_OK) {
        ck_assert_uint_eq(len, sizeof(payload));
        ck_assert_mem_eq(buf, payload, len);
    }
    sbx__free(buf);
    return rc;
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

START_TEST(test_round_trip_and_modes)
{
    struct sbx__jit_cache c;
    char path[PATH_MAX], err[512];
    open_ok(&c, 0);
    store(&c, 1, path, sizeof(path));
    ck_assert_int_eq(load(&c, 1, err, sizeof(err)), SBX_OK);
    ck_assert_int_eq(load(&c, 2, err, sizeof(err)), SBX_E_UNAVAILABLE); /* a plain miss */
    ck_assert_str_eq(err, "");
    struct stat st;
    ck_assert_int_eq(stat(dir, &st), 0);
    ck_assert_uint_eq(st.st_mode & 07777, 0700);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_uint_eq(st.st_mode & 07777, 0600);
    ck_assert_uint_eq(c.max_bytes, SBX__JIT_CACHE_MAX_BYTES);
    sbx__jit_cache_close(&c);
}
END_TEST

/* A directory others can write is refused (their file would run as our code); control: 0700. */
START_TEST(test_group_writable_dir_refused)
{
    struct sbx__jit_cache c;
    char err[512] = "";
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    for (unsigned i = 0; i < 2; i++) {
        ck_assert_int_eq(chmod(dir, i ? 0702 : 0770), 0);
        ck_assert_int_eq(sbx__jit_cache_open(&c, dir, 0, err, sizeof(err)), SBX_E_UNAVAILABLE);
        ck_assert_ptr_nonnull(strstr(err, "writable by group or others"));
        ck_assert_int_eq(c.dirfd, -1);
    }
    ck_assert_int_eq(chmod(dir, 0700), 0);
    open_ok(&c, 0);
    sbx__jit_cache_close(&c);
}
END_TEST

START_TEST(test_foreign_dir_refused)
{
    if (geteuid() != 0) {
        fprintf(stderr, "SKIP test_foreign_dir_refused: chown needs root\n");
        return;
    }
    struct sbx__jit_cache c;
    char err[512] = "";
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    ck_assert_int_eq(chown(dir, NOBODY, NOBODY), 0);
    ck_assert_int_eq(sbx__jit_cache_open(&c, dir, 0, err, sizeof(err)), SBX_E_UNAVAILABLE);
    ck_assert_ptr_nonnull(strstr(err, "not by this user"));
    ck_assert_int_eq(chown(dir, 0, 0), 0); /* control */
    open_ok(&c, 0);
    sbx__jit_cache_close(&c);
}
END_TEST

START_TEST(test_symlinked_dir_refused)
{
    struct sbx__jit_cache c;
    char err[512] = "", real[PATH_MAX + 16];
    snprintf(real, sizeof(real), "%s/real", base);
    ck_assert_int_eq(mkdir(real, 0700), 0);
    ck_assert_int_eq(symlink(real, dir), 0);
    ck_assert_int_eq(sbx__jit_cache_open(&c, dir, 0, err, sizeof(err)), SBX_E_UNAVAILABLE);
    ck_assert_ptr_nonnull(strstr(err, "symlink"));
    snprintf(dir, sizeof(dir), "%s", real); /* control: the directory itself */
    open_ok(&c, 0);
    sbx__jit_cache_close(&c);
}
END_TEST

/* A symlinked entry is refused even when its target is a valid entry, and only the link is
 * removed; control: the same bytes as a regular file are a hit. */
START_TEST(test_symlinked_entry_refused)
{
    struct sbx__jit_cache c;
    char path[PATH_MAX], err[512] = "", aside[PATH_MAX + 16];
    open_ok(&c, 0);
    store(&c, 1, path, sizeof(path));
    snprintf(aside, sizeof(aside), "%s/aside", base);
    ck_assert_int_eq(rename(path, aside), 0);
    ck_assert_int_eq(symlink(aside, path), 0);
    ck_assert_int_eq(load(&c, 1, err, sizeof(err)), SBX_E_UNAVAILABLE);
    ck_assert_ptr_nonnull(strstr(err, "symlink"));
    ck_assert(!exists(path));
    ck_assert(exists(aside));
    ck_assert_int_eq(rename(aside, path), 0);
    ck_assert_int_eq(load(&c, 1, err, sizeof(err)), SBX_OK);
    sbx__jit_cache_close(&c);
}
END_TEST

/* chmod/chown'd entries, a FIFO and a directory in an entry's place: refused (the FIFO without
 * blocking); control: the entry restored to 0600 and ours is a hit. */
START_TEST(test_entry_file_checks)
{
    struct sbx__jit_cache c;
    char path[PATH_MAX], err[512] = "";
    open_ok(&c, 0);
    static const mode_t modes[] = {0620, 0602, 0666};
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        store(&c, 1, path, sizeof(path));
        ck_assert_int_eq(chmod(path, modes[i]), 0);
        ck_assert_int_eq(load(&c, 1, err, sizeof(err)), SBX_E_UNAVAILABLE);
        ck_assert_ptr_nonnull(strstr(err, "writable by group or others"));
        ck_assert(!exists(path));
    }
    if (geteuid() == 0) {
        store(&c, 1, path, sizeof(path));
        ck_assert_int_eq(chown(path, NOBODY, NOBODY), 0);
        ck_assert_int_eq(load(&c, 1, err, sizeof(err)), SBX_E_UNAVAILABLE);
        ck_assert_ptr_nonnull(strstr(err, "not owned by this user"));
    } else {
        fprintf(stderr, "SKIP foreign entry: chown needs root\n");
    }
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    ck_assert_int_eq(load(&c, 1, err, sizeof(err)), SBX_E_UNAVAILABLE);
    ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
    store(&c, 1, path, sizeof(path));
    ck_assert_int_eq(chmod(path, 0600), 0);
    ck_assert_int_eq(load(&c, 1, err, sizeof(err)), SBX_OK);
    sbx__jit_cache_close(&c);
}
END_TEST

static void rewrite(const char *path, long off, uint8_t xor_mask, off_t truncate_to)
{
    int fd = open(path, O_RDWR);
    ck_assert_int_ge(fd, 0);
    if (xor_mask) {
        uint8_t b;
        ck_assert_int_eq(pread(fd, &b, 1, off), 1);
        b ^= xor_mask;
        ck_assert_int_eq(pwrite(fd, &b, 1, off), 1);
    }
    if (truncate_to >= 0)
        ck_assert_int_eq(ftruncate(fd, truncate_to), 0);
    close(fd);
}

/* Every damage is detected and the entry removed; control: the undamaged entry is a hit. The
 * header: magic 0-7, version 8-11, reserved 12-15, key 16-47, length 48-55, SHA-256 56-87. */
START_TEST(test_corrupt_entries_refused)
{
    static const struct {
        long off;
        uint8_t xor_mask;
        off_t truncate_to;
        const char *why;
    } damages[] = {
        {88 + 5, 0x01, -1, "payload SHA-256 mismatch"}, /* a flipped payload byte */
        {0, 0, 88 + 10, "payload length differs"},      /* truncated payload */
        {0, 0, 40, "truncated header"},
        {8, 0x02, -1, "other format version"},
        {20, 0x80, -1, "another key"},
        {1, 0x20, -1, "bad magic"},
        {60, 0x04, -1, "payload SHA-256 mismatch"}, /* the recorded checksum itself */
    };
    struct sbx__jit_cache c;
    char path[PATH_MAX], err[512] = "";
    open_ok(&c, 0);
    store(&c, 1, path, sizeof(path));
    ck_assert_int_eq(load(&c, 1, err, sizeof(err)), SBX_OK);
    for (size_t i = 0; i < sizeof(damages) / sizeof(damages[0]); i++) {
        store(&c, 1, path, sizeof(path));
        rewrite(path, damages[i].off, damages[i].xor_mask, damages[i].truncate_to);
        ck_assert_int_eq(load(&c, 1, err, sizeof(err)), SBX_E_UNAVAILABLE);
        ck_assert_msg(strstr(err, damages[i].why), "damage %zu: %s", i, err);
        ck_assert(!exists(path));
    }
    sbx__jit_cache_close(&c);
}
END_TEST

/* Another module's valid entry renamed to this key: the header's key gives it away. */
START_TEST(test_entry_under_wrong_name_refused)
{
    struct sbx__jit_cache c;
    char p1[PATH_MAX], p2[PATH_MAX], err[512] = "";
    open_ok(&c, 0);
    store(&c, 1, p1, sizeof(p1));
    store(&c, 2, p2, sizeof(p2));
    ck_assert_int_eq(rename(p1, p2), 0);
    ck_assert_int_eq(load(&c, 2, err, sizeof(err)), SBX_E_UNAVAILABLE);
    ck_assert_ptr_nonnull(strstr(err, "another key"));
    sbx__jit_cache_close(&c);
}
END_TEST

static void set_mtime_ns(const char *path, time_t t, long ns)
{
    struct timespec ts[2] = {{.tv_sec = t, .tv_nsec = ns}, {.tv_sec = t, .tv_nsec = ns}};
    ck_assert_int_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static void set_mtime(const char *path, time_t t)
{
    set_mtime_ns(path, t, 0);
}

/* Room for three entries: a fourth evicts the oldest; a hit makes an entry the newest; an
 * entry larger than the bound is neither stored nor loaded. */
START_TEST(test_size_bound_evicts_lru)
{
    struct sbx__jit_cache c;
    char p[5][PATH_MAX], err[512];
    uint64_t entry = 88 + sizeof(payload);
    open_ok(&c, 3 * entry);
    for (unsigned i = 0; i < 3; i++) {
        store(&c, i, p[i], sizeof(p[i]));
        set_mtime(p[i], 1000000 + i); /* 0 oldest */
    }
    store(&c, 3, p[3], sizeof(p[3]));
    ck_assert(!exists(p[0]));
    ck_assert(exists(p[1]) && exists(p[2]) && exists(p[3]));
    set_mtime(p[3], 1000003);
    ck_assert_int_eq(load(&c, 1, err, sizeof(err)), SBX_OK); /* 1 becomes the newest */
    store(&c, 4, p[4], sizeof(p[4]));
    ck_assert(!exists(p[2]));
    ck_assert(exists(p[1]) && exists(p[3]) && exists(p[4]));
    sbx__jit_cache_close(&c);
    open_ok(&c, entry - 1);
    uint8_t key[SBX__SHA256_LEN];
    key_of(1, key);
    ck_assert_int_eq(sbx__jit_cache_store(&c, key, payload, sizeof(payload), NULL, 0), SBX_E_IO);
    ck_assert_int_eq(load(&c, 1, err, sizeof(err)), SBX_E_UNAVAILABLE);
    ck_assert_ptr_nonnull(strstr(err, "larger than the cache allows"));
    sbx__jit_cache_close(&c);
}
END_TEST

/* Entries of one second are ranked by nanoseconds, and entries of one mtime (a coarse clock
 * stamps several writes alike) by name, so eviction never depends on readdir's order. */
START_TEST(test_eviction_ties)
{
    struct sbx__jit_cache c;
    char p[6][PATH_MAX];
    uint64_t entry = 88 + sizeof(payload);
    open_ok(&c, 3 * entry);
    for (unsigned i = 0; i < 3; i++)
        store(&c, i, p[i], sizeof(p[i]));
    set_mtime_ns(p[0], 1000000, 500);
    set_mtime_ns(p[1], 1000000, 100);
    set_mtime_ns(p[2], 1000000, 100);
    bool is_1_first = strcmp(strrchr(p[1], '/'), strrchr(p[2], '/')) < 0;
    const char *first = is_1_first ? p[1] : p[2], *second = is_1_first ? p[2] : p[1];
    store(&c, 3, p[3], sizeof(p[3]));
    ck_assert(!exists(first) && exists(second) && exists(p[0]));
    store(&c, 4, p[4], sizeof(p[4]));
    ck_assert(!exists(second) && exists(p[0]));
    store(&c, 5, p[5], sizeof(p[5]));
    ck_assert(!exists(p[0]));
    ck_assert(exists(p[3]) && exists(p[4]) && exists(p[5]));
    sbx__jit_cache_close(&c);
}
END_TEST

/* Four processes rewrite one entry while a fifth reads it: every read is a miss or a verified
 * hit, and one valid entry and no temporary file remain. */
START_TEST(test_concurrent_writers)
{
    struct sbx__jit_cache c;
    char path[PATH_MAX], err[512];
    open_ok(&c, 0);
    pid_t pids[4];
    for (unsigned w = 0; w < 4; w++) {
        pids[w] = fork();
        ck_assert_int_ge(pids[w], 0);
        if (pids[w] == 0) {
            for (int i = 0; i < 200; i++)
                store(&c, 7, path, sizeof(path));
            _exit(0);
        }
    }
    unsigned hits = 0;
    for (int i = 0; i < 2000; i++) {
        sbx_err rc = load(&c, 7, err, sizeof(err));
        ck_assert_msg(rc == SBX_OK || err[0] == '\0', "reader saw a bad entry: %s", err);
        hits += rc == SBX_OK;
    }
    for (unsigned w = 0; w < 4; w++) {
        int st;
        ck_assert_int_eq(waitpid(pids[w], &st, 0), pids[w]);
        ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    ck_assert_int_eq(load(&c, 7, err, sizeof(err)), SBX_OK);
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof(cmd), "test \"$(ls -A '%s' | wc -l)\" = 1", dir);
    ck_assert_int_eq(system(cmd), 0);
    fprintf(stderr, "concurrent writers: %u of 2000 reads hit\n", hits);
    sbx__jit_cache_close(&c);
}
END_TEST

/* The key changes with the module's bytes and the tier options, and is stable. */
START_TEST(test_key_inputs)
{
    uint8_t a[SBX__SHA256_LEN], b[SBX__SHA256_LEN];
    sbx__jit_cache_key((const uint8_t *)"abc", 3, "default<O2>", a);
    sbx__jit_cache_key((const uint8_t *)"abc", 3, "default<O2>", b);
    ck_assert_mem_eq(a, b, sizeof(a));
    sbx__jit_cache_key((const uint8_t *)"abd", 3, "default<O2>", b);
    ck_assert(memcmp(a, b, sizeof(a)) != 0);
    sbx__jit_cache_key((const uint8_t *)"abc", 3, "default<O1>", b);
    ck_assert(memcmp(a, b, sizeof(a)) != 0);
    sbx__jit_cache_key((const uint8_t *)"ab", 2, "cdefault<O2>", b);
    ck_assert(memcmp(a, b, sizeof(a)) != 0);
}
END_TEST

/* The default location: $SBX_CACHE_DIR, else $XDG_CACHE_HOME/sbx, else $HOME/.cache/sbx
 * (creating .cache 0700); a relative XDG_CACHE_HOME is ignored, as the XDG spec says. */
START_TEST(test_default_locations)
{
    struct sbx__jit_cache c;
    char want[PATH_MAX + 32], err[512];
    unsetenv("SBX_CACHE_DIR");
    setenv("XDG_CACHE_HOME", base, 1);
    ck_assert_int_eq(sbx__jit_cache_open(&c, NULL, 0, err, sizeof(err)), SBX_OK);
    snprintf(want, sizeof(want), "%s/sbx", base);
    ck_assert_str_eq(c.path, want);
    sbx__jit_cache_close(&c);
    setenv("XDG_CACHE_HOME", "relative", 1);
    setenv("HOME", base, 1);
    ck_assert_int_eq(sbx__jit_cache_open(&c, NULL, 0, err, sizeof(err)), SBX_OK);
    snprintf(want, sizeof(want), "%s/.cache/sbx", base);
    ck_assert_str_eq(c.path, want);
    sbx__jit_cache_close(&c);
    setenv("SBX_CACHE_DIR", dir, 1);
    setenv("SBX_CACHE_MAX_BYTES", "12345", 1);
    ck_assert_int_eq(sbx__jit_cache_open(&c, NULL, 0, err, sizeof(err)), SBX_OK);
    ck_assert_str_eq(c.path, dir);
    ck_assert_uint_eq(c.max_bytes, 12345);
    sbx__jit_cache_close(&c);
    setenv("SBX_CACHE_MAX_BYTES", "lots", 1); /* not a number: the default, not 0 */
    ck_assert_int_eq(sbx__jit_cache_open(&c, NULL, 0, err, sizeof(err)), SBX_OK);
    ck_assert_uint_eq(c.max_bytes, SBX__JIT_CACHE_MAX_BYTES);
    sbx__jit_cache_close(&c);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("wasm.cache");
    TCase *tc = tcase_create("store");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_round_trip_and_modes);
    tcase_add_test(tc, test_group_writable_dir_refused);
    tcase_add_test(tc, test_foreign_dir_refused);
    tcase_add_test(tc, test_symlinked_dir_refused);
    tcase_add_test(tc, test_symlinked_entry_refused);
    tcase_add_test(tc, test_entry_file_checks);
    tcase_add_test(tc, test_corrupt_entries_refused);
    tcase_add_test(tc, test_entry_under_wrong_name_refused);
    tcase_add_test(tc, test_size_bound_evicts_lru);
    tcase_add_test(tc, test_eviction_ties);
    tcase_add_test(tc, test_concurrent_writers);
    tcase_add_test(tc, test_key_inputs);
    tcase_add_test(tc, test_default_locations);
    suite_add_tcase(s, tc);
    return sbx_test_main(s);
}
