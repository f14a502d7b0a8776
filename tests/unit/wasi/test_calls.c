/* The preview1 calls themselves, called directly with a real linear memory (one 64 KiB
 * page): results, rights, guest-pointer checks (EFAULT before any effect), denials. */
#include <errno.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <time.h>

#include "sbx_test.h"
#include "util/alloc.h"
#include "wasi_fixture.h"

static struct fixture fx;
static struct wasm_store *store;
static struct wasi_env env;
static struct sbx__buf out_buf, err_buf;

#define I32(x)        ((wasm_value){.i32 = (uint32_t)(x)})
#define I64(x)        ((wasm_value){.i64 = (uint64_t)(x)})
#define CALL(fn, ...) sbx__wasi_##fn(&env, (const wasm_value[]){__VA_ARGS__, I32(0)})
#define OOB           65534u /* a guest address whose 4-byte span runs past the one page */

static uint8_t *M(uint32_t gaddr)
{
    return sbx__wasm_memory_span(env.mem, gaddr, 1);
}

static void put_str(uint32_t gaddr, const char *s)
{
    memcpy(M(gaddr), s, strlen(s));
}

/* An iovec {buf, len} at gaddr. */
static void put_iov(uint32_t gaddr, uint32_t buf, uint32_t len)
{
    put_u32(M(gaddr), buf);
    put_u32(M(gaddr + 4), len);
}

/* A context with captured stdio, args, env and the fixture's root preopened as fd 3. */
static void setup_with(bool read_only, const char *stdin_text)
{
    fx_setup(&fx, read_only, SBX_WASI_RESOLVE_AUTO);
    sbx__wasi_destroy(fx.w);
    sbx__buf_init(&out_buf, 64);
    sbx__buf_init(&err_buf, 1024);
    static const char *const argv[] = {"prog", "a1", "arg two"};
    static const char *const envp[] = {"K=V", "EMPTY="};
    struct sbx__wasi_config cfg = {.policy = &fx.policy,
                                   .argv = argv,
                                   .argc = 3,
                                   .envp = envp,
                                   .envc = 2,
                                   .stdin_data = (const uint8_t *)stdin_text,
                                   .stdin_len = stdin_text ? strlen(stdin_text) : 0,
                                   .stdout_buf = &out_buf,
                                   .stderr_buf = &err_buf,
                                   .on_denied = fx_on_denied,
                                   .user = &fx};
    char err[256];
    ck_assert_int_eq(sbx__wasi_create(&cfg, &fx.w, err, sizeof(err)), SBX_OK);
    fx.root_fd = fx.w->fds[3].host_fd;
    struct wasm_store_limits lim = {0};
    ck_assert_int_eq(sbx__wasm_store_create(&lim, &store), SBX_OK);
    struct wasm_memtype mt = {.limits = {1, 1, true}};
    env = (struct wasi_env){.w = fx.w, .call = NULL, .mem = sbx__wasm_memory_new(store, &mt)};
    ck_assert_ptr_nonnull(env.mem);
    fx_file(&fx, "root/hello.txt", "hello world\n");
    fx_dir(&fx, "root/sub");
}

static void teardown_all(void)
{
    sbx__wasm_store_destroy(store);
    sbx__buf_free(&out_buf);
    sbx__buf_free(&err_buf);
    fx_teardown(&fx);
}

/* path_open of path under fd 3 with rights; returns the new fd number or -errno. */
static int open_at(const char *path, uint32_t oflags, uint64_t base, uint32_t fdflags)
{
    put_str(1000, path);
    uint32_t r = CALL(path_open, I32(3), I32(LOOKUP_SYMLINK_FOLLOW), I32(1000), I32(strlen(path)),
                      I32(oflags), I64(base), I64(base), I32(fdflags), I32(900));
    return r ? -(int)r : (int)get_u32(M(900));
}

START_TEST(args_and_environ)
{
    setup_with(false, NULL);
    ck_assert_uint_eq(CALL(args_sizes_get, I32(0), I32(4)), 0);
    ck_assert_uint_eq(get_u32(M(0)), 3);
    ck_assert_uint_eq(get_u32(M(4)), 5 + 3 + 8);
    ck_assert_uint_eq(CALL(args_get, I32(100), I32(200)), 0);
    ck_assert_uint_eq(get_u32(M(100)), 200);
    ck_assert_str_eq((char *)M(get_u32(M(108))), "arg two");
    ck_assert_uint_eq(CALL(environ_sizes_get, I32(0), I32(4)), 0);
    ck_assert_uint_eq(get_u32(M(0)), 2);
    ck_assert_uint_eq(get_u32(M(4)), 4 + 7);
    ck_assert_uint_eq(CALL(environ_get, I32(100), I32(200)), 0);
    ck_assert_str_eq((char *)M(get_u32(M(104))), "EMPTY=");
    /* every out-of-range pointer is EFAULT, and nothing is written */
    memset(M(100), 0xAA, 16);
    ck_assert_uint_eq(CALL(args_get, I32(100), I32(OOB)), WASI_EFAULT);
    ck_assert_uint_eq(*M(100), 0xAA);
    ck_assert_uint_eq(CALL(args_get, I32(OOB), I32(200)), WASI_EFAULT);
    ck_assert_uint_eq(CALL(args_sizes_get, I32(OOB), I32(4)), WASI_EFAULT);
    ck_assert_uint_eq(CALL(environ_sizes_get, I32(0), I32(OOB)), WASI_EFAULT);
    ck_assert_uint_eq(CALL(environ_get, I32(0xFFFFFFF0u), I32(0)), WASI_EFAULT);
    teardown_all();
}
END_TEST

START_TEST(stdio_captured)
{
    setup_with(false, "input!");
    put_str(300, "to stdout");
    put_iov(0, 300, 9);
    put_iov(8, 300, 3);
    ck_assert_uint_eq(CALL(fd_write, I32(1), I32(0), I32(2), I32(16)), 0);
    ck_assert_uint_eq(get_u32(M(16)), 12);
    ck_assert_uint_eq(out_buf.len, 12);
    ck_assert(memcmp(out_buf.data, "to stdoutto ", 12) == 0);
    /* past the cap the bytes are dropped but reported written, so the guest moves on */
    put_iov(0, 300, 60);
    ck_assert_uint_eq(CALL(fd_write, I32(1), I32(0), I32(1), I32(16)), 0);
    ck_assert_uint_eq(get_u32(M(16)), 60);
    ck_assert(out_buf.is_truncated);
    ck_assert_uint_eq(CALL(fd_write, I32(2), I32(0), I32(1), I32(16)), 0);
    ck_assert_uint_eq(err_buf.len, 60);
    /* an iovec reaching past memory: EFAULT, nothing appended */
    put_iov(0, 65530, 10);
    size_t before = err_buf.len;
    ck_assert_uint_eq(CALL(fd_write, I32(2), I32(0), I32(1), I32(16)), WASI_EFAULT);
    ck_assert_uint_eq(err_buf.len, before);
    ck_assert_uint_eq(CALL(fd_write, I32(2), I32(0), I32(1), I32(OOB)), WASI_EFAULT);
    ck_assert_uint_eq(CALL(fd_write, I32(2), I32(OOB), I32(1), I32(16)), WASI_EFAULT);
    ck_assert_uint_eq(CALL(fd_write, I32(2), I32(0), I32(5000), I32(16)), WASI_EINVAL);
    ck_assert_uint_eq(CALL(fd_write, I32(0), I32(0), I32(1), I32(16)), WASI_ENOTCAPABLE);
    ck_assert_uint_eq(CALL(fd_write, I32(77), I32(0), I32(1), I32(16)), WASI_EBADF);
    /* stdin reads the configured bytes, then EOF */
    put_iov(0, 400, 4);
    put_iov(8, 404, 10);
    ck_assert_uint_eq(CALL(fd_read, I32(0), I32(0), I32(2), I32(16)), 0);
    ck_assert_uint_eq(get_u32(M(16)), 6);
    ck_assert(memcmp(M(400), "input!", 6) == 0);
    ck_assert_uint_eq(CALL(fd_read, I32(0), I32(0), I32(2), I32(16)), 0);
    ck_assert_uint_eq(get_u32(M(16)), 0);
    ck_assert_uint_eq(CALL(fd_read, I32(1), I32(0), I32(1), I32(16)), WASI_ENOTCAPABLE);
    ck_assert_uint_eq(CALL(fd_seek, I32(1), I64(0), I32(0), I32(16)), WASI_ESPIPE);
    ck_assert_uint_eq(CALL(fd_tell, I32(1), I32(16)), WASI_ESPIPE);
    ck_assert_uint_eq(CALL(fd_pwrite, I32(1), I32(0), I32(1), I64(0), I32(16)), WASI_ESPIPE);
    ck_assert_uint_eq(CALL(fd_fdstat_get, I32(1), I32(32)), 0);
    ck_assert_uint_eq(get_u16(M(34)), FDF_APPEND);
    ck_assert_uint_eq(CALL(fd_fdstat_set_flags, I32(1), I32(FDF_NONBLOCK)), 0);
    ck_assert_uint_eq(CALL(fd_fdstat_get, I32(1), I32(32)), 0);
    ck_assert_uint_eq(get_u16(M(34)), FDF_NONBLOCK);
    ck_assert_uint_eq(CALL(fd_filestat_get, I32(1), I32(100)), 0);
    ck_assert_uint_eq(*M(116), FT_UNKNOWN);
    ck_assert_uint_eq(CALL(fd_sync, I32(1)), 0);
    ck_assert_uint_eq(CALL(fd_filestat_set_size, I32(1), I64(0)), WASI_ENOTCAPABLE);
    teardown_all();
}
END_TEST

START_TEST(prestat_and_renumber)
{
    setup_with(false, NULL);
    ck_assert_uint_eq(CALL(fd_prestat_get, I32(3), I32(0)), 0);
    ck_assert_uint_eq(*M(0), 0);
    ck_assert_uint_eq(get_u32(M(4)), 1);
    ck_assert_uint_eq(CALL(fd_prestat_dir_name, I32(3), I32(10), I32(1)), 0);
    ck_assert_uint_eq(*M(10), '/');
    ck_assert_uint_eq(CALL(fd_prestat_dir_name, I32(3), I32(10), I32(0)), WASI_ENAMETOOLONG);
    ck_assert_uint_eq(CALL(fd_prestat_dir_name, I32(3), I32(65536), I32(1)), WASI_EFAULT);
    ck_assert_uint_eq(CALL(fd_prestat_get, I32(3), I32(OOB)), WASI_EFAULT);
    ck_assert_uint_eq(CALL(fd_prestat_get, I32(1), I32(0)), WASI_EBADF);
    ck_assert_uint_eq(CALL(fd_prestat_get, I32(4), I32(0)), WASI_EBADF);
    ck_assert_uint_eq(CALL(fd_prestat_dir_name, I32(0), I32(0), I32(9)), WASI_EBADF);
    ck_assert_uint_eq(CALL(fd_prestat_dir_name, I32(9), I32(0), I32(9)), WASI_EBADF);
    /* renumber the preopen over stdin: it keeps being a preopen under the new number */
    int f = open_at("hello.txt", 0, R_FD_READ, 0);
    ck_assert_int_eq(f, 4);
    ck_assert_uint_eq(CALL(fd_renumber, I32(3), I32(9)), WASI_EBADF);
    ck_assert_uint_eq(CALL(fd_renumber, I32(9), I32(3)), WASI_EBADF);
    ck_assert_uint_eq(CALL(fd_renumber, I32(3), I32(3)), 0);
    ck_assert_uint_eq(CALL(fd_renumber, I32(3), I32(4)), 0);
    ck_assert_uint_eq(CALL(fd_prestat_get, I32(4), I32(0)), 0);
    ck_assert_uint_eq(CALL(fd_prestat_get, I32(3), I32(0)), WASI_EBADF);
    ck_assert_uint_eq(CALL(fd_close, I32(4)), 0);
    ck_assert_uint_eq(CALL(fd_close, I32(4)), WASI_EBADF);
    ck_assert_int_eq(open_at("hello.txt", 0, R_FD_READ, 0), -(int)WASI_EBADF);
    teardown_all();
}
END_TEST

START_TEST(file_io)
{
    setup_with(false, NULL);
    uint64_t rw = R_FD_READ | R_FD_WRITE | R_FD_SEEK | R_FD_TELL | R_FD_FILESTAT_GET |
                  R_FD_FILESTAT_SET_SIZE | R_FD_FILESTAT_SET_TIMES | R_FD_ADVISE | R_FD_ALLOCATE |
                  R_FD_SYNC | R_FD_DATASYNC | R_FD_FDSTAT_SET_FLAGS;
    int f = open_at("new.txt", OF_CREAT | OF_EXCL, rw, 0);
    ck_assert_int_eq(f, 4);
    ck_assert_int_eq(open_at("new.txt", OF_CREAT | OF_EXCL, rw, 0), -(int)WASI_EEXIST);
    put_str(300, "0123456789");
    put_iov(0, 300, 10);
    ck_assert_uint_eq(CALL(fd_write, I32(f), I32(0), I32(1), I32(16)), 0);
    ck_assert_uint_eq(CALL(fd_seek, I32(f), I64(-4), I32(2), I32(24)), 0);
    ck_assert_uint_eq(get_u64(M(24)), 6);
    ck_assert_uint_eq(CALL(fd_tell, I32(f), I32(24)), 0);
    ck_assert_uint_eq(get_u64(M(24)), 6);
    ck_assert_uint_eq(CALL(fd_seek, I32(f), I64(0), I32(3), I32(24)), WASI_EINVAL);
    ck_assert_uint_eq(CALL(fd_seek, I32(f), I64(-100), I32(0), I32(24)), WASI_EINVAL);
    ck_assert_uint_eq(CALL(fd_seek, I32(f), I64(0), I32(1), I32(OOB)), WASI_EFAULT);
    ck_assert_uint_eq(CALL(fd_tell, I32(f), I32(OOB)), WASI_EFAULT);
    put_iov(0, 400, 3);
    ck_assert_uint_eq(CALL(fd_pread, I32(f), I32(0), I32(1), I64(2), I32(16)), 0);
    ck_assert(memcmp(M(400), "234", 3) == 0);
    ck_assert_uint_eq(CALL(fd_pread, I32(f), I32(0), I32(1), I64(-1), I32(16)), WASI_EINVAL);
    ck_assert_uint_eq(CALL(fd_pread, I32(f), I32(0), I32(1), I64(0), I32(OOB)), WASI_EFAULT);
    put_str(300, "AB");
    put_iov(0, 300, 2);
    ck_assert_uint_eq(CALL(fd_pwrite, I32(f), I32(0), I32(1), I64(0), I32(16)), 0);
    ck_assert_uint_eq(CALL(fd_tell, I32(f), I32(24)), 0);
    ck_assert_uint_eq(get_u64(M(24)), 6); /* pwrite does not move the position */
    ck_assert_uint_eq(CALL(fd_filestat_get, I32(f), I32(100)), 0);
    ck_assert_uint_eq(*M(116), FT_REG);
    ck_assert_uint_eq(get_u64(M(132)), 10);
    ck_assert_uint_eq(CALL(fd_filestat_get, I32(f), I32(OOB)), WASI_EFAULT);
    ck_assert_uint_eq(CALL(fd_filestat_set_size, I32(f), I64(4)), 0);
    ck_assert_uint_eq(CALL(fd_filestat_set_size, I32(f), I64(-1)), WASI_EINVAL);
    ck_assert_uint_eq(
        CALL(fd_filestat_set_times, I32(f), I64(5000000000ull), I64(7), I32(FST_ATIM | FST_MTIM)),
        0);
    ck_assert_uint_eq(CALL(fd_filestat_get, I32(f), I32(100)), 0);
    ck_assert_uint_eq(get_u64(M(132)), 4);
    ck_assert_uint_eq(get_u64(M(140)), 5000000000ull);
    ck_assert_uint_eq(get_u64(M(148)), 7);
    ck_assert_uint_eq(
        CALL(fd_filestat_set_times, I32(f), I64(0), I64(0), I32(FST_ATIM | FST_ATIM_NOW)),
        WASI_EINVAL);
    ck_assert_uint_eq(CALL(fd_filestat_set_times, I32(f), I64(0), I64(0), I32(64)), WASI_EINVAL);
    ck_assert_uint_eq(CALL(fd_filestat_set_times, I32(f), I64(0), I64(0), I32(FST_MTIM_NOW)), 0);
    ck_assert_uint_eq(CALL(fd_advise, I32(f), I64(0), I64(10), I32(1)), 0);
    ck_assert_uint_eq(CALL(fd_advise, I32(f), I64(0), I64(10), I32(6)), WASI_EINVAL);
    ck_assert_uint_eq(CALL(fd_allocate, I32(f), I64(0), I64(100)), 0);
    ck_assert_uint_eq(CALL(fd_allocate, I32(f), I64(0), I64(0)), WASI_EINVAL);
    ck_assert_uint_eq(CALL(fd_sync, I32(f)), 0);
    ck_assert_uint_eq(CALL(fd_datasync, I32(f)), 0);
    ck_assert_uint_eq(CALL(fd_fdstat_set_flags, I32(f), I32(FDF_APPEND)), 0);
    ck_assert_uint_eq(CALL(fd_fdstat_get, I32(f), I32(32)), 0);
    ck_assert_uint_eq(get_u16(M(34)), FDF_APPEND);
    ck_assert_uint_eq(CALL(fd_fdstat_set_flags, I32(f), I32(FDF_SYNC)), WASI_ENOTSUP);
    ck_assert_uint_eq(CALL(fd_fdstat_set_flags, I32(f), I32(0x100)), WASI_EINVAL);
    ck_assert_uint_eq(CALL(fd_fdstat_get, I32(f), I32(OOB)), WASI_EFAULT);
    /* directories: no seek, no advise, no data */
    ck_assert_uint_eq(CALL(fd_seek, I32(3), I64(0), I32(0), I32(24)), WASI_ENOTCAPABLE);
    ck_assert_uint_eq(CALL(fd_advise, I32(3), I64(0), I64(0), I32(0)), WASI_EBADF);
    ck_assert_uint_eq(CALL(fd_sync, I32(3)), 0);
    ck_assert_uint_eq(CALL(fd_filestat_set_times, I32(3), I64(0), I64(0), I32(FST_MTIM_NOW)), 0);
    ck_assert_uint_eq(CALL(fd_close, I32(f)), 0);
    teardown_all();
}
END_TEST

START_TEST(rights_narrow_only)
{
    setup_with(false, NULL);
    int f = open_at("hello.txt", 0, R_FD_READ | R_FD_WRITE | R_FD_SEEK, 0);
    ck_assert_int_ge(f, 4);
    ck_assert_uint_eq(CALL(fd_fdstat_get, I32(f), I32(32)), 0);
    ck_assert_uint_eq(*M(32), FT_REG);
    ck_assert_uint_eq(get_u64(M(40)), R_FD_READ | R_FD_WRITE | R_FD_SEEK);
    ck_assert_uint_eq(get_u64(M(48)), 0); /* files pass nothing down */
    ck_assert_uint_eq(CALL(fd_fdstat_set_rights, I32(f), I64(R_FD_READ), I64(0)), 0);
    ck_assert_uint_eq(CALL(fd_fdstat_set_rights, I32(f), I64(R_FD_READ | R_FD_WRITE), I64(0)),
                      WASI_ENOTCAPABLE);
    ck_assert_uint_eq(CALL(fd_fdstat_set_rights, I32(f), I64(0), I64(R_FD_READ)), WASI_ENOTCAPABLE);
    ck_assert_uint_eq(CALL(fd_fdstat_set_rights, I32(99), I64(0), I64(0)), WASI_EBADF);
    put_iov(0, 300, 1);
    ck_assert_uint_eq(CALL(fd_write, I32(f), I32(0), I32(1), I32(16)), WASI_ENOTCAPABLE);
    ck_assert_uint_eq(CALL(fd_seek, I32(f), I64(1), I32(0), I32(16)), WASI_ENOTCAPABLE);
    ck_assert_int_eq(fx.denials, 0); /* a guest narrowing its own rights is no policy denial */
    /* a directory narrowed to read-only hands out no write rights either */
    ck_assert_uint_eq(CALL(fd_fdstat_get, I32(3), I32(32)), 0);
    uint64_t dir_base = get_u64(M(40)), dir_inh = get_u64(M(48));
    ck_assert_uint_eq(CALL(fd_fdstat_set_rights, I32(3), I64(dir_base), I64(dir_inh & ~R_FD_WRITE)),
                      0);
    f = open_at("hello.txt", 0, R_FD_READ | R_FD_WRITE, 0); /* masked, not refused */
    ck_assert_int_ge(f, 4);
    ck_assert_uint_eq(CALL(fd_fdstat_get, I32(f), I32(32)), 0);
    ck_assert_uint_eq(get_u64(M(40)), R_FD_READ);
    ck_assert_uint_eq(CALL(fd_write, I32(f), I32(0), I32(1), I32(16)), WASI_ENOTCAPABLE);
    ck_assert_uint_eq(CALL(fd_fdstat_set_rights, I32(3), I64(dir_base & ~R_PATH_OPEN), I64(0)), 0);
    ck_assert_int_eq(open_at("hello.txt", 0, R_FD_READ, 0), -(int)WASI_ENOTCAPABLE);
    teardown_all();
}
END_TEST

/* Reads the whole directory with fd_readdir through a small buffer; returns entry count. */
static int read_all_entries(int fd, uint32_t bufsize, char names[][32])
{
    uint64_t cookie = 0;
    int n = 0;
    for (int rounds = 0; rounds < 1000; rounds++) {
        ck_assert_uint_eq(CALL(fd_readdir, I32(fd), I32(2000), I32(bufsize), I64(cookie), I32(16)),
                          0);
        uint32_t used = get_u32(M(16)), off = 0;
        bool progressed = false;
        while (off + 24 <= used) {
            uint32_t nlen = get_u32(M(2000 + off + 16));
            if (off + 24 + nlen > used)
                break; /* cut short: ask again from the last complete entry */
            memcpy(names[n], M(2000 + off + 24), nlen);
            names[n][nlen] = '\0';
            n++;
            cookie = get_u64(M(2000 + off));
            off += 24 + nlen;
            progressed = true;
        }
        if (used < bufsize)
            return n;
        ck_assert(progressed);
    }
    return -1;
}

START_TEST(readdir_cookies)
{
    setup_with(false, NULL);
    for (int i = 0; i < 30; i++) {
        char p[64];
        snprintf(p, sizeof(p), "root/sub/entry-%02d", i);
        fx_file(&fx, p, "");
    }
    int d = open_at("sub", OF_DIRECTORY, R_FD_READDIR | R_PATH_OPEN, 0);
    ck_assert_int_ge(d, 4);
    static char names[64][32];
    ck_assert_int_eq(read_all_entries(d, 64, names), 32);
    ck_assert_str_eq(names[0], ".");
    ck_assert_str_eq(names[1], "..");
    int seen = 0;
    for (int i = 2; i < 32; i++)
        seen += strncmp(names[i], "entry-", 6) == 0;
    ck_assert_int_eq(seen, 30);
    ck_assert_int_eq(read_all_entries(d, 4000, names), 32);
    /* every allocation of a fresh listing may fail: ENOMEM, and the old listing survives */
    for (unsigned long k = 1; k < 12; k++) {
        sbx__alloc_fail_at(k);
        uint32_t r = CALL(fd_readdir, I32(d), I32(2000), I32(100), I64(0), I32(16));
        sbx__alloc_fail_at(0);
        ck_assert(r == 0 || r == WASI_ENOMEM);
    }
    ck_assert_int_eq(read_all_entries(d, 64, names), 32);
    ck_assert_uint_eq(CALL(fd_readdir, I32(d), I32(2000), I32(100), I64(1000), I32(16)), 0);
    ck_assert_uint_eq(get_u32(M(16)), 0);
    ck_assert_uint_eq(CALL(fd_readdir, I32(d), I32(65500), I32(100), I64(0), I32(16)), WASI_EFAULT);
    ck_assert_uint_eq(CALL(fd_readdir, I32(1), I32(2000), I32(100), I64(0), I32(16)),
                      WASI_ENOTCAPABLE);
    int f = open_at("hello.txt", 0, R_FD_READ | R_FD_READDIR, 0);
    /* a file never holds FD_READDIR (open masks it off) ... */
    ck_assert_uint_eq(CALL(fd_readdir, I32(f), I32(2000), I32(100), I64(0), I32(16)),
                      WASI_ENOTCAPABLE);
    /* ... and if it did, it still is no directory */
    fx.w->fds[f].base |= R_FD_READDIR;
    ck_assert_uint_eq(CALL(fd_readdir, I32(f), I32(2000), I32(100), I64(0), I32(16)), WASI_ENOTDIR);
    ck_assert_uint_eq(CALL(fd_readdir, I32(99), I32(2000), I32(100), I64(0), I32(16)), WASI_EBADF);
    teardown_all();
}
END_TEST

static uint32_t pcall2(uint32_t (*fn)(struct wasi_env *, const wasm_value *), const char *path)
{
    put_str(1000, path);
    return fn(&env, (const wasm_value[]){I32(3), I32(1000), I32(strlen(path))});
}

START_TEST(path_calls)
{
    setup_with(false, NULL);
    ck_assert_uint_eq(pcall2(sbx__wasi_path_create_directory, "made"), 0);
    ck_assert_uint_eq(pcall2(sbx__wasi_path_create_directory, "made/"), WASI_EEXIST);
    ck_assert_uint_eq(pcall2(sbx__wasi_path_create_directory, "../x"), WASI_ENOTCAPABLE);
    ck_assert(fx_exists(&fx, "root/made"));
    put_str(1000, "hello.txt");
    ck_assert_uint_eq(CALL(path_filestat_get, I32(3), I32(1), I32(1000), I32(9), I32(100)), 0);
    ck_assert_uint_eq(get_u64(M(132)), 12);
    ck_assert_uint_eq(CALL(path_filestat_get, I32(3), I32(1), I32(1000), I32(9), I32(OOB)),
                      WASI_EFAULT);
    ck_assert_uint_eq(CALL(path_filestat_get, I32(3), I32(1), I32(65530), I32(9), I32(100)),
                      WASI_EFAULT);
    ck_assert_uint_eq(CALL(path_filestat_set_times, I32(3), I32(1), I32(1000), I32(9), I64(0),
                           I64(9), I32(FST_MTIM)),
                      0);
    ck_assert_uint_eq(CALL(path_filestat_set_times, I32(3), I32(1), I32(1000), I32(9), I64(0),
                           I64(9), I32(FST_MTIM | FST_MTIM_NOW)),
                      WASI_EINVAL);
    /* symlinks: relative ok, absolute refused; readlink truncates to the buffer */
    put_str(1100, "hello.txt");
    put_str(1000, "ln");
    ck_assert_uint_eq(CALL(path_symlink, I32(1100), I32(9), I32(3), I32(1000), I32(2)), 0);
    ck_assert_uint_eq(CALL(path_symlink, I32(1100), I32(9), I32(3), I32(1000), I32(2)),
                      WASI_EEXIST);
    put_str(1000, "ln2/");
    ck_assert_uint_eq(CALL(path_symlink, I32(1100), I32(9), I32(3), I32(1000), I32(4)),
                      WASI_ENOENT);
    put_str(1100, "/etc/passwd");
    put_str(1000, "ln3");
    ck_assert_uint_eq(CALL(path_symlink, I32(1100), I32(11), I32(3), I32(1000), I32(3)),
                      WASI_ENOTCAPABLE);
    ck_assert_str_eq(fx.last_denial, "fs.escape");
    put_str(1000, "ln");
    ck_assert_uint_eq(CALL(path_readlink, I32(3), I32(1000), I32(2), I32(1200), I32(100), I32(16)),
                      0);
    ck_assert_uint_eq(get_u32(M(16)), 9);
    ck_assert(memcmp(M(1200), "hello.txt", 9) == 0);
    ck_assert_uint_eq(CALL(path_readlink, I32(3), I32(1000), I32(2), I32(1300), I32(4), I32(16)),
                      0);
    ck_assert_uint_eq(get_u32(M(16)), 4);
    ck_assert_uint_eq(CALL(path_readlink, I32(3), I32(1000), I32(2), I32(65530), I32(100), I32(16)),
                      WASI_EFAULT);
    put_str(1000, "hello.txt");
    ck_assert_uint_eq(CALL(path_readlink, I32(3), I32(1000), I32(9), I32(1200), I32(100), I32(16)),
                      WASI_EINVAL);
    put_str(1000, "ln");
    ck_assert_uint_eq(CALL(path_filestat_get, I32(3), I32(0), I32(1000), I32(2), I32(100)), 0);
    ck_assert_uint_eq(*M(116), FT_SYMLINK);
    /* link (no follow), rename, unlink, rmdir */
    put_str(1000, "hello.txt");
    put_str(1100, "hard");
    ck_assert_uint_eq(CALL(path_link, I32(3), I32(0), I32(1000), I32(9), I32(3), I32(1100), I32(4)),
                      0);
    ck_assert_uint_eq(CALL(path_link, I32(3), I32(1), I32(1000), I32(9), I32(3), I32(1100), I32(4)),
                      WASI_EINVAL);
    put_str(1100, "hard2/");
    ck_assert_uint_eq(CALL(path_link, I32(3), I32(0), I32(1000), I32(9), I32(3), I32(1100), I32(6)),
                      WASI_ENOENT);
    put_str(1000, "hard");
    put_str(1100, "made/moved");
    ck_assert_uint_eq(CALL(path_rename, I32(3), I32(1000), I32(4), I32(3), I32(1100), I32(10)), 0);
    ck_assert(fx_exists(&fx, "root/made/moved"));
    put_str(1000, "made/moved");
    put_str(1100, "x/");
    ck_assert_uint_eq(CALL(path_rename, I32(3), I32(1000), I32(10), I32(3), I32(1100), I32(2)),
                      WASI_ENOTDIR);
    ck_assert_uint_eq(pcall2(sbx__wasi_path_remove_directory, "made"), WASI_ENOTEMPTY);
    ck_assert_uint_eq(pcall2(sbx__wasi_path_unlink_file, "made/moved/"), WASI_ENOTDIR);
    ck_assert_uint_eq(pcall2(sbx__wasi_path_unlink_file, "made/"), WASI_EISDIR);
    ck_assert_uint_eq(pcall2(sbx__wasi_path_unlink_file, "made/moved"), 0);
    ck_assert_uint_eq(pcall2(sbx__wasi_path_remove_directory, "made/"), 0);
    ck_assert_uint_eq(pcall2(sbx__wasi_path_remove_directory, "."), WASI_EINVAL);
    ck_assert_uint_eq(pcall2(sbx__wasi_path_unlink_file, ""), WASI_ENOENT);
    /* paths: not UTF-8, embedded NUL, too long, out of memory range, on a non-directory */
    memcpy(M(1000), "a\xff", 2);
    ck_assert_uint_eq(CALL(path_unlink_file, I32(3), I32(1000), I32(2)), WASI_EILSEQ);
    memcpy(M(1000), "a\0b", 3);
    ck_assert_uint_eq(CALL(path_unlink_file, I32(3), I32(1000), I32(3)), WASI_EILSEQ);
    memcpy(M(1000), "\xed\xa0\x80", 3); /* a UTF-16 surrogate */
    ck_assert_uint_eq(CALL(path_unlink_file, I32(3), I32(1000), I32(3)), WASI_EILSEQ);
    memcpy(M(1000),
           "\xc3"
           "A",
           2); /* a lead byte without its continuation */
    ck_assert_uint_eq(CALL(path_unlink_file, I32(3), I32(1000), I32(2)), WASI_EILSEQ);
    memcpy(M(1000), "\xc0\xaf", 2); /* overlong */
    ck_assert_uint_eq(CALL(path_unlink_file, I32(3), I32(1000), I32(2)), WASI_EILSEQ);
    memcpy(M(1000), "\xe2\x82", 2); /* cut short */
    ck_assert_uint_eq(CALL(path_unlink_file, I32(3), I32(1000), I32(2)), WASI_EILSEQ);
    memcpy(M(1000), "\xc3\xa9t\xc3\xa9", 6);
    ck_assert_uint_eq(CALL(path_unlink_file, I32(3), I32(1000), I32(5)), WASI_ENOENT);
    ck_assert_uint_eq(CALL(path_unlink_file, I32(3), I32(0), I32(5000)), WASI_ENAMETOOLONG);
    ck_assert_uint_eq(CALL(path_unlink_file, I32(3), I32(65000), I32(5000)), WASI_EFAULT);
    ck_assert_uint_eq(CALL(path_unlink_file, I32(1), I32(1000), I32(1)), WASI_ENOTDIR);
    ck_assert_uint_eq(CALL(path_unlink_file, I32(50), I32(1000), I32(1)), WASI_EBADF);
    int f = open_at("hello.txt", 0, R_FD_READ, 0);
    ck_assert_uint_eq(CALL(path_unlink_file, I32(f), I32(1000), I32(1)), WASI_ENOTDIR);
    ck_assert_int_eq(open_at("hello.txt", OF_DIRECTORY, R_FD_READ, 0), -(int)WASI_ENOTDIR);
    ck_assert_int_eq(open_at("hello.txt", 0, R_FD_READ, 0) >= 0, 1);
    put_str(1000, "x");
    ck_assert_uint_eq(CALL(path_open, I32(3), I32(0), I32(1000), I32(1), I32(OF_CREAT), I64(0),
                           I64(0), I32(0), I32(OOB)),
                      WASI_EFAULT);
    ck_assert(!fx_exists(&fx, "root/x")); /* checked before anything is created */
    teardown_all();
}
END_TEST

START_TEST(read_only_preopen)
{
    setup_with(true, NULL);
    ck_assert_uint_eq(CALL(fd_fdstat_get, I32(3), I32(32)), 0);
    ck_assert_uint_eq(get_u64(M(40)) & (R_PATH_CREATE_FILE | R_PATH_UNLINK_FILE | R_FD_WRITE), 0);
    ck_assert_uint_eq(get_u64(M(48)) & (R_FD_WRITE | R_FD_FILESTAT_SET_SIZE), 0);
    int before = fx.denials;
    ck_assert_int_eq(open_at("new.txt", OF_CREAT, R_FD_READ, 0), -(int)WASI_ENOTCAPABLE);
    ck_assert_int_eq(open_at("hello.txt", OF_TRUNC, R_FD_READ, 0), -(int)WASI_ENOTCAPABLE);
    ck_assert_uint_eq(pcall2(sbx__wasi_path_create_directory, "d"), WASI_ENOTCAPABLE);
    ck_assert_uint_eq(pcall2(sbx__wasi_path_unlink_file, "hello.txt"), WASI_ENOTCAPABLE);
    ck_assert_uint_eq(pcall2(sbx__wasi_path_remove_directory, "sub"), WASI_ENOTCAPABLE);
    put_str(1100, "x");
    put_str(1000, "hello.txt");
    ck_assert_uint_eq(CALL(path_rename, I32(3), I32(1000), I32(9), I32(3), I32(1100), I32(1)),
                      WASI_ENOTCAPABLE);
    ck_assert_uint_eq(CALL(path_link, I32(3), I32(0), I32(1000), I32(9), I32(3), I32(1100), I32(1)),
                      WASI_ENOTCAPABLE);
    ck_assert_uint_eq(CALL(path_symlink, I32(1000), I32(9), I32(3), I32(1100), I32(1)),
                      WASI_ENOTCAPABLE);
    ck_assert_uint_eq(CALL(path_filestat_set_times, I32(3), I32(0), I32(1000), I32(9), I64(0),
                           I64(0), I32(FST_MTIM_NOW)),
                      WASI_ENOTCAPABLE);
    /* every right asked for (as Go does): write rights are masked off, reads work */
    int f = open_at("hello.txt", 0, R_ALL, 0);
    ck_assert_int_ge(f, 4);
    ck_assert_uint_eq(CALL(fd_fdstat_get, I32(f), I32(32)), 0);
    ck_assert_uint_eq(get_u64(M(40)) & (R_FD_WRITE | R_FD_ALLOCATE), 0);
    put_iov(0, 300, 1);
    ck_assert_uint_eq(CALL(fd_write, I32(f), I32(0), I32(1), I32(16)), WASI_ENOTCAPABLE);
    ck_assert_uint_eq(CALL(fd_filestat_set_size, I32(f), I64(0)), WASI_ENOTCAPABLE);
    ck_assert_uint_eq(CALL(fd_allocate, I32(f), I64(0), I64(1)), WASI_ENOTCAPABLE);
    ck_assert_uint_eq(CALL(fd_filestat_set_times, I32(f), I64(0), I64(0), I32(0)),
                      WASI_ENOTCAPABLE);
    ck_assert_int_eq(fx.denials - before, 13);
    ck_assert_str_eq(fx.last_denial, "fs.write");
    /* reading still works, and the file is untouched */
    put_iov(0, 400, 64);
    ck_assert_uint_eq(CALL(fd_read, I32(f), I32(0), I32(1), I32(16)), 0);
    ck_assert_uint_eq(get_u32(M(16)), 12);
    ck_assert(fx_exists(&fx, "root/hello.txt") && !fx_exists(&fx, "root/x"));
    teardown_all();
}
END_TEST

START_TEST(clocks_random_proc)
{
    setup_with(false, NULL);
    for (uint32_t id = 0; id < 4; id++) {
        ck_assert_uint_eq(CALL(clock_res_get, I32(id), I32(0)), 0);
        ck_assert_uint_gt(get_u64(M(0)), 0);
        ck_assert_uint_eq(CALL(clock_time_get, I32(id), I64(1), I32(8)), 0);
    }
    ck_assert_uint_eq(CALL(clock_time_get, I32(0), I64(1), I32(8)), 0);
    ck_assert_uint_gt(get_u64(M(8)), 1600000000ull * 1000000000ull);
    ck_assert_uint_eq(CALL(clock_res_get, I32(4), I32(0)), WASI_EINVAL);
    ck_assert_uint_eq(CALL(clock_time_get, I32(9), I64(0), I32(0)), WASI_EINVAL);
    ck_assert_uint_eq(CALL(clock_time_get, I32(1), I64(0), I32(OOB)), WASI_EFAULT);
    ck_assert_uint_eq(CALL(clock_res_get, I32(1), I32(OOB)), WASI_EFAULT);
    memset(M(100), 0, 64);
    ck_assert_uint_eq(CALL(random_get, I32(100), I32(64)), 0);
    int nonzero = 0;
    for (int i = 0; i < 64; i++)
        nonzero += *M((uint32_t)(100 + i)) != 0;
    ck_assert_int_gt(nonzero, 32);
    ck_assert_uint_eq(CALL(random_get, I32(100), I32(0)), 0);
    ck_assert_uint_eq(CALL(random_get, I32(65530), I32(64)), WASI_EFAULT);
    ck_assert_uint_eq(CALL(proc_raise, I32(15)), WASI_ENOSYS);
    ck_assert_uint_eq(CALL(sched_yield, I32(0)), 0);
    teardown_all();
}
END_TEST

/* A clock subscription at gaddr: relative ns, or absolute when abs. */
static void sub_clock(uint32_t gaddr, uint64_t userdata, uint32_t id, uint64_t ns, bool abs)
{
    memset(M(gaddr), 0, 48);
    put_u64(M(gaddr), userdata);
    *M(gaddr + 8) = 0;
    put_u32(M(gaddr + 16), id);
    put_u64(M(gaddr + 24), ns);
    put_u16(M(gaddr + 40), abs ? 1 : 0);
}

static void sub_fd(uint32_t gaddr, uint64_t userdata, uint8_t type, uint32_t fd)
{
    memset(M(gaddr), 0, 48);
    put_u64(M(gaddr), userdata);
    *M(gaddr + 8) = type;
    put_u32(M(gaddr + 16), fd);
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

START_TEST(poll_oneoff_calls)
{
    setup_with(false, "data");
    uint64_t t0 = mono_ns();
    sub_clock(0, 11, 1, 20000000, false);
    ck_assert_uint_eq(CALL(poll_oneoff, I32(0), I32(1000), I32(1), I32(2000)), 0);
    ck_assert_uint_ge(mono_ns() - t0, 20000000u);
    ck_assert_uint_eq(get_u32(M(2000)), 1);
    ck_assert_uint_eq(get_u64(M(1000)), 11);
    ck_assert_uint_eq(get_u16(M(1008)), 0);
    /* a ready fd wins over a long clock: stdin (captured) and stdout are always ready */
    sub_clock(0, 1, 1, 5000000000ull, false);
    sub_fd(48, 2, 1, 0);
    sub_fd(96, 3, 2, 1);
    sub_fd(144, 4, 1, 42);          /* bad fd: an event with EBADF */
    sub_clock(192, 5, 7, 0, false); /* bad clock: EINVAL event */
    t0 = mono_ns();
    ck_assert_uint_eq(CALL(poll_oneoff, I32(0), I32(1000), I32(5), I32(2000)), 0);
    ck_assert_uint_lt(mono_ns() - t0, 1000000000u);
    ck_assert_uint_eq(get_u32(M(2000)), 4);
    ck_assert_uint_eq(get_u64(M(1000)), 2);
    ck_assert_uint_eq(get_u64(M(1016)), 4); /* stdin bytes available */
    ck_assert_uint_eq(get_u64(M(1032)), 3);
    ck_assert_uint_eq(get_u64(M(1064)), 4);
    ck_assert_uint_eq(get_u16(M(1072)), WASI_EBADF);
    ck_assert_uint_eq(get_u64(M(1096)), 5);
    ck_assert_uint_eq(get_u16(M(1104)), WASI_EINVAL);
    /* an absolute deadline already past fires at once */
    sub_clock(0, 9, 0, 1, true);
    ck_assert_uint_eq(CALL(poll_oneoff, I32(0), I32(1000), I32(1), I32(2000)), 0);
    ck_assert_uint_eq(get_u64(M(1000)), 9);
    /* a pipe: not ready, then ready; hang-up is flagged */
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    uint32_t num, err;
    struct wasi_fd *pf = sbx__wasi_fd_alloc(fx.w, &num, &err);
    *pf = (struct wasi_fd){.kind = FDK_HOST,
                           .host_fd = p[0],
                           .filetype = FT_UNKNOWN,
                           .base = R_FD_READ | R_POLL_FD_READWRITE};
    sub_fd(0, 21, 1, num);
    sub_clock(48, 22, 1, 10000000, false);
    ck_assert_uint_eq(CALL(poll_oneoff, I32(0), I32(1000), I32(2), I32(2000)), 0);
    ck_assert_uint_eq(get_u32(M(2000)), 1);
    ck_assert_uint_eq(get_u64(M(1000)), 22);
    ck_assert_int_eq(write(p[1], "xyz", 3), 3);
    close(p[1]);
    ck_assert_uint_eq(CALL(poll_oneoff, I32(0), I32(1000), I32(2), I32(2000)), 0);
    ck_assert_uint_eq(get_u64(M(1000)), 21);
    ck_assert_uint_eq(get_u64(M(1016)), 3);
    /* argument errors */
    ck_assert_uint_eq(CALL(poll_oneoff, I32(0), I32(1000), I32(0), I32(2000)), WASI_EINVAL);
    ck_assert_uint_eq(CALL(poll_oneoff, I32(0), I32(1000), I32(5000), I32(2000)), WASI_ENOTSUP);
    ck_assert_uint_eq(CALL(poll_oneoff, I32(65500), I32(1000), I32(1), I32(2000)), WASI_EFAULT);
    ck_assert_uint_eq(CALL(poll_oneoff, I32(0), I32(65510), I32(1), I32(2000)), WASI_EFAULT);
    ck_assert_uint_eq(CALL(poll_oneoff, I32(0), I32(1000), I32(1), I32(OOB)), WASI_EFAULT);
    *M(8) = 9;
    ck_assert_uint_eq(CALL(poll_oneoff, I32(0), I32(1000), I32(1), I32(2000)), WASI_EINVAL);
    /* fd_read on the pipe, then an interrupt wakes a blocked wait at once */
    put_iov(0, 400, 8);
    ck_assert_uint_eq(CALL(fd_read, I32(num), I32(0), I32(1), I32(16)), 0);
    ck_assert_uint_eq(get_u32(M(16)), 3);
    sbx__wasi_interrupt(fx.w);
    sub_clock(0, 1, 1, 5000000000ull, false);
    t0 = mono_ns();
    ck_assert_uint_eq(CALL(poll_oneoff, I32(0), I32(1000), I32(1), I32(2000)), WASI_EINTR);
    ck_assert_uint_lt(mono_ns() - t0, 1000000000u);
    ck_assert_uint_eq(sbx__wasi_wait(fx.w, 0, false), WASI_EINTR);
    /* cleared, a short clock sleeps normally again */
    sbx__wasi_clear_interrupt(fx.w);
    sbx__wasi_clear_interrupt(fx.w);
    sbx__wasi_clear_interrupt(NULL);
    sub_clock(0, 1, 1, 1000000, false);
    ck_assert_uint_eq(CALL(poll_oneoff, I32(0), I32(1000), I32(1), I32(2000)), 0);
    teardown_all();
}
END_TEST

/* A WasmEdge address {buf, len} at gaddr pointing at 4 IPv4 bytes at gaddr + 8. */
static void put_addr4(uint32_t gaddr, const uint8_t ip[4])
{
    put_u32(M(gaddr), gaddr + 8);
    put_u32(M(gaddr + 4), 4);
    memcpy(M(gaddr + 8), ip, 4);
}

START_TEST(sockets_gate)
{
    setup_with(false, NULL);
    static const sbx_outbound_rule pats[] = {{"localhost", 0, false, true}};
    fx.w->outbound = pats;
    fx.w->outbound_count = 1;
    /* a host-side listener on 127.0.0.1 */
    int srv = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof(sa);
    ck_assert_int_eq(bind(srv, (struct sockaddr *)&sa, sl), 0);
    ck_assert_int_eq(listen(srv, 4), 0);
    ck_assert_int_eq(getsockname(srv, (struct sockaddr *)&sa, &sl), 0);
    uint16_t port = ntohs(sa.sin_port);
    static const uint8_t lo[4] = {127, 0, 0, 1};
    ck_assert_uint_eq(CALL(sock_open, I32(1), I32(2), I32(0)), 0);
    uint32_t s = get_u32(M(0));
    put_addr4(100, lo);
    /* the literal 127.0.0.1 is in no pattern: denied and counted */
    ck_assert_uint_eq(CALL(sock_connect, I32(s), I32(100), I32(port)), WASI_EACCES);
    ck_assert_str_eq(fx.last_denial, "net.connect");
    /* once "localhost" resolved to it, the address connects as that allowed name */
    put_str(300, "localhost");
    ck_assert_uint_eq(CALL(sock_addr_resolve, I32(300), I32(9), I32(0), I32(400), I32(4), I32(8)),
                      0);
    ck_assert_uint_ge(get_u32(M(8)), 1);
    ck_assert_uint_eq(CALL(sock_connect, I32(s), I32(100), I32(port)), 0);
    put_u32(M(200), 65530);
    put_u32(M(204), 128);
    ck_assert_uint_eq(CALL(sock_getpeeraddr, I32(s), I32(200), I32(16)), WASI_EFAULT);
    put_u32(M(200), 240);
    put_u32(M(204), 128);
    ck_assert_uint_eq(CALL(sock_getpeeraddr, I32(s), I32(200), I32(16)), 0);
    ck_assert_uint_eq(get_u32(M(16)), port);
    ck_assert_uint_eq(get_u16(M(240)), 1);
    ck_assert(memcmp(M(242), lo, 4) == 0);
    put_u32(M(204), 2);
    ck_assert_uint_eq(CALL(sock_getlocaladdr, I32(s), I32(200), I32(16)), WASI_EINVAL);
    put_u32(M(204), 4);
    ck_assert_uint_eq(CALL(sock_getlocaladdr, I32(s), I32(200), I32(16)), 0);
    put_str(300, "example.com");
    ck_assert_uint_eq(CALL(sock_addr_resolve, I32(300), I32(11), I32(0), I32(400), I32(4), I32(8)),
                      WASI_EACCES);
    ck_assert_str_eq(fx.last_denial, "net.resolve");
    ck_assert_uint_eq(
        CALL(sock_addr_resolve, I32(300), I32(11), I32(70000), I32(400), I32(4), I32(8)),
        WASI_EINVAL);
    ck_assert_uint_eq(
        CALL(sock_addr_resolve, I32(300), I32(11), I32(0), I32(65500), I32(4), I32(8)),
        WASI_EFAULT);
    /* options, send, shutdown; binding needs net.loopback */
    put_u32(M(50), 1);
    ck_assert_uint_eq(CALL(sock_setsockopt, I32(s), I32(0), I32(7), I32(50), I32(4)), 0);
    ck_assert_uint_eq(CALL(sock_getsockopt, I32(s), I32(0), I32(7), I32(50), I32(4)), 0);
    ck_assert_uint_eq(get_u32(M(50)), 1);
    ck_assert_uint_eq(CALL(sock_setsockopt, I32(s), I32(0), I32(99), I32(50), I32(4)),
                      WASI_ENOPROTOOPT);
    ck_assert_uint_eq(CALL(sock_setsockopt, I32(s), I32(0), I32(0), I32(50), I32(8)), WASI_EINVAL);
    put_str(500, "hi");
    put_iov(20, 500, 2);
    ck_assert_uint_eq(CALL(sock_send, I32(s), I32(20), I32(1), I32(0), I32(16)), 0);
    ck_assert_uint_eq(get_u32(M(16)), 2);
    ck_assert_uint_eq(CALL(sock_send, I32(s), I32(20), I32(1), I32(1), I32(16)), WASI_EINVAL);
    ck_assert_uint_eq(CALL(sock_shutdown, I32(s), I32(3)), 0);
    ck_assert_uint_eq(CALL(sock_shutdown, I32(1), I32(1)), WASI_ENOTSOCK);
    ck_assert_uint_eq(CALL(sock_bind, I32(s), I32(100), I32(0)), WASI_EACCES);
    ck_assert_str_eq(fx.last_denial, "net.bind");
    /* The call's result lists the denied connect and name (not the allowed connect, nor the
     * bind, which is not net.outbound), then starts afresh. */
    sbx_result r = {0};
    sbx__wasi_take_denials(fx.w, &r);
    ck_assert_uint_eq(r.denial_count, 2);
    ck_assert_uint_eq(r.denied_total, 2);
    ck_assert(!r.denials_truncated);
    ck_assert_int_eq(r.denials[0].kind, SBX_DENIAL_CONNECT);
    ck_assert_int_eq(r.denials[0].family, AF_INET);
    ck_assert_str_eq(r.denials[0].host, "127.0.0.1");
    ck_assert_uint_eq(r.denials[0].port, port);
    ck_assert_int_eq(r.denials[1].kind, SBX_DENIAL_DNS);
    ck_assert_str_eq(r.denials[1].host, "example.com");
    ck_assert_uint_eq(r.denials[1].count, 1);
    sbx_result_free(&r);
    sbx__wasi_take_denials(fx.w, &r);
    ck_assert_uint_eq(r.denied_total, 0);
    ck_assert_ptr_null(r.denials);
    ck_assert_uint_eq(CALL(sock_open, I32(9), I32(2), I32(0)), WASI_EAFNOSUPPORT);
    ck_assert_uint_eq(CALL(sock_open, I32(1), I32(9), I32(0)), WASI_EPROTOTYPE);
    ck_assert_uint_eq(CALL(sock_open, I32(1), I32(2), I32(OOB)), WASI_EFAULT);
    close(srv);
    /* nothing listens now: refused, through the wait for a blocking socket */
    ck_assert_uint_eq(CALL(sock_open, I32(1), I32(2), I32(0)), 0);
    ck_assert_uint_eq(CALL(sock_connect, I32(get_u32(M(0))), I32(100), I32(port)),
                      WASI_ECONNREFUSED);
    teardown_all();
}
END_TEST

START_TEST(loopback_server)
{
    setup_with(false, NULL);
    fx.w->net_loopback = true;
    static const uint8_t lo[4] = {127, 0, 0, 1};
    ck_assert_uint_eq(CALL(sock_open, I32(1), I32(2), I32(0)), 0);
    uint32_t srv = get_u32(M(0));
    put_addr4(100, lo);
    ck_assert_uint_eq(CALL(sock_bind, I32(srv), I32(100), I32(0)), 0);
    ck_assert_uint_eq(CALL(sock_listen, I32(srv), I32(5000)), 0);
    put_u32(M(200), 240);
    put_u32(M(204), 128);
    ck_assert_uint_eq(CALL(sock_getlocaladdr, I32(srv), I32(200), I32(16)), 0);
    uint16_t port = (uint16_t)get_u32(M(16));
    int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {
        .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    ck_assert_int_eq(connect(c, (struct sockaddr *)&sa, sizeof(sa)), 0);
    ck_assert_uint_eq(CALL(sock_accept, I32(srv), I32(0), I32(0)), 0);
    uint32_t conn = get_u32(M(0));
    ck_assert_uint_eq(CALL(sock_accept, I32(srv), I32(2), I32(0)), WASI_EINVAL);
    ck_assert_int_eq(write(c, "abcdef", 6), 6);
    put_iov(20, 500, 3);
    ck_assert_uint_eq(CALL(sock_recv, I32(conn), I32(20), I32(1), I32(1), I32(16), I32(30)), 0);
    ck_assert_uint_eq(get_u32(M(16)), 3); /* peeked */
    ck_assert_uint_eq(CALL(sock_recv, I32(conn), I32(20), I32(1), I32(0), I32(16), I32(30)), 0);
    ck_assert(memcmp(M(500), "abc", 3) == 0);
    ck_assert_uint_eq(CALL(sock_recv, I32(conn), I32(20), I32(1), I32(8), I32(16), I32(30)),
                      WASI_EINVAL);
    ck_assert_uint_eq(CALL(sock_recv, I32(conn), I32(20), I32(1), I32(0), I32(16), I32(65535)),
                      WASI_EFAULT);
    ck_assert_uint_eq(CALL(sock_shutdown, I32(conn), I32(0)), WASI_EINVAL);
    close(c);
    ck_assert_uint_eq(CALL(sock_accept_v1, I32(srv), I32(OOB)), WASI_EFAULT);
    /* the 128-byte address form (u16 family first), IPv6 loopback, bad families and spans */
    ck_assert_uint_eq(CALL(sock_open, I32(2), I32(1), I32(0)), 0); /* IPv6 datagram */
    uint32_t u6 = get_u32(M(0));
    memset(M(600), 0, 128);
    put_u16(M(600), 2);
    *M(600 + 2 + 15) = 1;
    put_u32(M(300), 600);
    put_u32(M(304), 128);
    uint32_t rb = CALL(sock_bind, I32(u6), I32(300), I32(0));
    ck_assert(rb == 0 || rb == WASI_EADDRNOTAVAIL || rb == WASI_EAFNOSUPPORT);
    put_u16(M(600), 7);
    ck_assert_uint_eq(CALL(sock_bind, I32(u6), I32(300), I32(0)), WASI_EINVAL);
    ck_assert_uint_eq(CALL(sock_bind, I32(u6), I32(300), I32(70000)), WASI_EINVAL);
    put_u32(M(300), 65500);
    ck_assert_uint_eq(CALL(sock_bind, I32(u6), I32(300), I32(0)), WASI_EFAULT);
    ck_assert_uint_eq(CALL(sock_bind, I32(u6), I32(OOB), I32(0)), WASI_EFAULT);
    ck_assert_uint_eq(CALL(sock_bind, I32(1), I32(300), I32(0)), WASI_ENOTSOCK);
    ck_assert_uint_eq(CALL(fd_fdstat_set_flags, I32(srv), I32(FDF_NONBLOCK)), 0);
    ck_assert_uint_eq(CALL(sock_accept_v1, I32(srv), I32(0)), WASI_EAGAIN);
    teardown_all();
}
END_TEST

START_TEST(resolve_imports)
{
    setup_with(false, NULL);
    struct wasm_import imp = {.module = "wasi_snapshot_preview1",
                              .module_len = 22,
                              .name = "fd_write",
                              .name_len = 8,
                              .kind = WASM_EXTERN_FUNC};
    struct wasm_extern ext;
    ck_assert(sbx__wasi_resolve(fx.w, store, NULL, &imp, &ext));
    ck_assert_uint_eq(ext.kind, WASM_EXTERN_FUNC);
    const struct wasm_functype *ft = sbx__wasm_func_type(ext.u.func);
    ck_assert_uint_eq(ft->param_count, 4);
    ck_assert_uint_eq(ft->result_count, 1);
    imp.name = "proc_exit";
    imp.name_len = 9;
    ck_assert(sbx__wasi_resolve(fx.w, store, NULL, &imp, &ext));
    ck_assert_uint_eq(sbx__wasm_func_type(ext.u.func)->result_count, 0);
    /* sock_accept: picked by the import's parameter count */
    wasm_vtype t2[] = {WASM_I32, WASM_I32, WASM_I32};
    struct wasm_functype types[] = {{2, 1, t2}};
    struct wasm_module m = {.types = types, .type_count = 1};
    imp.name = "sock_accept";
    imp.name_len = 11;
    imp.u.func_type = 0;
    ck_assert(sbx__wasi_resolve(fx.w, store, &m, &imp, &ext));
    ck_assert_uint_eq(sbx__wasm_func_type(ext.u.func)->param_count, 2);
    types[0].param_count = 5; /* no row has it: the first, for the engine to reject */
    ck_assert(sbx__wasi_resolve(fx.w, store, &m, &imp, &ext));
    ck_assert_uint_eq(sbx__wasm_func_type(ext.u.func)->param_count, 3);
    imp.name = "fd_nothing";
    imp.name_len = 10;
    ck_assert(!sbx__wasi_resolve(fx.w, store, NULL, &imp, &ext));
    imp.name = "fd_write";
    imp.name_len = 8;
    imp.module = "wasi_unstable";
    imp.module_len = 13;
    ck_assert(!sbx__wasi_resolve(fx.w, store, NULL, &imp, &ext));
    imp.module = "wasi_snapshot_preview1";
    imp.module_len = 22;
    imp.kind = WASM_EXTERN_MEMORY;
    ck_assert(!sbx__wasi_resolve(fx.w, store, NULL, &imp, &ext));
    teardown_all();
}
END_TEST

START_TEST(create_errors)
{
    struct sbx__fs_grant g = {"/nonexistent/sbx-wasi", "/x", false};
    struct sbx_policy p = {.fs = &g, .fs_count = 1};
    struct sbx__wasi_config cfg = {.policy = &p};
    struct sbx__wasi *w = (void *)1;
    char err[256];
    ck_assert_int_eq(sbx__wasi_create(&cfg, &w, err, sizeof(err)), SBX_E_INVALID_OPTIONS);
    ck_assert_ptr_null(w);
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent/sbx-wasi"));
    sbx__wasi_destroy(NULL);
    sbx__wasi_interrupt(NULL);
    /* policy env becomes "K=V"; inherited stdio is borrowed, never closed */
    struct sbx__env_var ev[] = {{"A", "1"}, {"B", ""}};
    struct sbx_policy p2 = {.env = ev, .env_count = 2};
    struct sbx__wasi_config c2 = {.policy = &p2, .inherit_stdio = true};
    ck_assert_int_eq(sbx__wasi_create(&c2, &w, err, sizeof(err)), SBX_OK);
    ck_assert_uint_eq(w->envc, 2);
    ck_assert_str_eq(w->env[0], "A=1");
    ck_assert_str_eq(w->env[1], "B=");
    ck_assert(w->fds[1].is_borrowed);
    sbx__wasi_destroy(w);
    ck_assert_int_ne(fcntl(1, F_GETFD), -1);
    /* every allocation failure is a clean SBX_E_NOMEM */
    fx_setup(&fx, false, SBX_WASI_RESOLVE_AUTO);
    sbx_outbound_rule np = {"a.b", 0, false, true};
    fx.policy.outbound = &np;
    fx.policy.outbound_count = 1;
    fx.policy.env = ev;
    fx.policy.env_count = 2;
    static const char *const argv[] = {"p", "q"};
    struct sbx__wasi_config c3 = {.policy = &fx.policy,
                                  .argv = argv,
                                  .argc = 2,
                                  .stdin_data = (const uint8_t *)"in",
                                  .stdin_len = 2};
    int ok = 0;
    for (unsigned long k = 1; k < 40; k++) {
        sbx__alloc_fail_at(k);
        sbx_err rc = sbx__wasi_create(&c3, &w, err, sizeof(err));
        sbx__alloc_fail_at(0);
        if (rc == SBX_OK) {
            ok++;
            sbx__wasi_destroy(w);
        } else {
            ck_assert_int_eq(rc, SBX_E_NOMEM);
            ck_assert_str_eq(err, "out of memory");
        }
    }
    ck_assert_int_gt(ok, 0);
    fx_teardown(&fx);
}
END_TEST

START_TEST(fd_table_limits)
{
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = rl.rlim_max > 8192 ? 8192 : rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl); /* so the table's own cap is what stops the guest */
    setup_with(false, NULL);
    for (int k = 4; k < 16; k++)
        ck_assert_int_eq(open_at("hello.txt", 0, R_FD_READ, 0), k);
    sbx__alloc_fail_at(2); /* 1: the path copy, 2: growing the table past 16 */
    ck_assert_int_eq(open_at("hello.txt", 0, R_FD_READ, 0), -(int)WASI_ENOMEM);
    sbx__alloc_fail_at(0);
    int n = 12, last = 0;
    for (;;) {
        int f = open_at("hello.txt", 0, R_FD_READ, 0);
        if (f < 0) {
            last = -f;
            break;
        }
        n++;
    }
    ck_assert_int_gt(n, 16);
    ck_assert_int_eq(last, WASI_EMFILE);
    /* the lowest free number is handed out next */
    ck_assert_uint_eq(CALL(fd_close, I32(10)), 0);
    ck_assert_int_eq(open_at("hello.txt", 0, R_FD_READ, 0), 10);
    teardown_all();
}
END_TEST

static Suite *calls_suite(void)
{
    Suite *s = suite_create("wasi_calls");
    TCase *tc = tcase_create("calls");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, args_and_environ);
    tcase_add_test(tc, stdio_captured);
    tcase_add_test(tc, prestat_and_renumber);
    tcase_add_test(tc, file_io);
    tcase_add_test(tc, rights_narrow_only);
    tcase_add_test(tc, readdir_cookies);
    tcase_add_test(tc, path_calls);
    tcase_add_test(tc, read_only_preopen);
    tcase_add_test(tc, clocks_random_proc);
    tcase_add_test(tc, poll_oneoff_calls);
    tcase_add_test(tc, sockets_gate);
    tcase_add_test(tc, loopback_server);
    tcase_add_test(tc, resolve_imports);
    tcase_add_test(tc, create_errors);
    tcase_add_test(tc, fd_table_limits);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return sbx_test_main(calls_suite());
}
