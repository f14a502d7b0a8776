/* plugin/probes.c: the conformance probe module, one reactor whose exports each try one
 * capability through wasi_snapshot_preview1 (or a capability import) and return the WASI errno
 * or the import's result; env/args/clock/random also write what they saw to stdout. */
#include <stdio.h>
#include <string.h>

#include "plugin/plugin.h"
#include "util/alloc.h"

/* WASI preview1 values (witx): rights bits, oflags, lookupflags, clock ids. */
#define RIGHT_FD_READ     (1ull << 1)
#define RIGHT_FD_WRITE    (1ull << 6)
#define OFLAG_CREAT       1u
#define LOOKUP_FOLLOW     1u
#define CLOCK_REALTIME_ID 0u
/* WasmEdge's socket extension: address family inet4, socket type stream. */
#define SOCK_AF_INET4 1u
#define SOCK_STREAM   2u

enum { OP_CALL = 0x10, OP_DROP = 0x1a, OP_I32_STORE = 0x36, OP_I32_CONST = 0x41 };
enum { OP_I64_CONST = 0x42, OP_I32_LOAD = 0x28, OP_END = 0x0b };

/* The strings the probes name, at PROBE_STRINGS + 64 * index. */
enum { S_DATA, S_NEW, S_DOTDOT, S_LINK, S_ABS, S_TEXT, S_COUNT };
static const char *const strings[S_COUNT] = {
    [S_DATA] = "data.txt", [S_NEW] = "new.txt", [S_DOTDOT] = "../secret.txt",
    [S_LINK] = "link",     [S_ABS] = "abs",     [S_TEXT] = "sbx conformance write\n",
};

enum imp {
    IMP_PATH_OPEN,
    IMP_FD_READ,
    IMP_FD_WRITE,
    IMP_ENV_SIZES,
    IMP_ENV_GET,
    IMP_ARGS_SIZES,
    IMP_ARGS_GET,
    IMP_CLOCK,
    IMP_RANDOM,
    IMP_SOCK_OPEN,
    IMP_SOCK_CONNECT,
    IMP_COUNT
};

static const struct {
    const char *name, *params;
} wasi_imports[IMP_COUNT] = {
    [IMP_PATH_OPEN] = {"path_open", "iiiiiIIii"}, [IMP_FD_READ] = {"fd_read", "iiii"},
    [IMP_FD_WRITE] = {"fd_write", "iiii"},        [IMP_ENV_SIZES] = {"environ_sizes_get", "ii"},
    [IMP_ENV_GET] = {"environ_get", "ii"},        [IMP_ARGS_SIZES] = {"args_sizes_get", "ii"},
    [IMP_ARGS_GET] = {"args_get", "ii"},          [IMP_CLOCK] = {"clock_time_get", "iIi"},
    [IMP_RANDOM] = {"random_get", "ii"},          [IMP_SOCK_OPEN] = {"sock_open", "iii"},
    [IMP_SOCK_CONNECT] = {"sock_connect", "iii"},
};

/* A straight-line function body under construction. */
struct body {
    uint8_t b[256];
    size_t len;
};

static void emit(struct body *c, uint8_t byte)
{
    if (c->len < sizeof(c->b))
        c->b[c->len++] = byte;
}

static void sleb(struct body *c, int64_t v)
{
    for (;;) {
        uint8_t byte = (uint8_t)(v & 0x7f);
        v >>= 7; /* arithmetic on every compiler sbx supports */
        bool is_done = (v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40));
        emit(c, is_done ? byte : (uint8_t)(byte | 0x80));
        if (is_done)
            return;
    }
}

static void i32c(struct body *c, uint32_t v)
{
    emit(c, OP_I32_CONST);
    sleb(c, (int32_t)v);
}

static void i64c(struct body *c, uint64_t v)
{
    emit(c, OP_I64_CONST);
    sleb(c, (int64_t)v);
}

static void call(struct body *c, uint32_t func)
{
    emit(c, OP_CALL);
    sleb(c, func); /* function indices stay below 64: one byte, same as unsigned */
}

static void memop(struct body *c, uint8_t op)
{
    emit(c, op);
    emit(c, 2);
    emit(c, 0);
}

/* Sets the iovec at PROBE_IOV to {buf, len}, len taken from memory when len_addr != 0. */
static void set_iov(struct body *c, uint32_t buf, uint32_t len, uint32_t len_addr)
{
    i32c(c, PROBE_IOV);
    i32c(c, buf);
    memop(c, OP_I32_STORE);
    i32c(c, PROBE_IOV + 4);
    if (len_addr) {
        i32c(c, len_addr);
        memop(c, OP_I32_LOAD);
    } else {
        i32c(c, len);
    }
    memop(c, OP_I32_STORE);
}

static void write_iov(struct body *c, uint32_t fd)
{
    i32c(c, fd);
    i32c(c, PROBE_IOV);
    i32c(c, 1);
    i32c(c, PROBE_NOUT);
    call(c, IMP_FD_WRITE);
}

static void export_body(struct sbx__enc *e, uint32_t type, const char *name, struct body *c)
{
    emit(c, OP_END);
    sbx__enc_export_func(e, name, sbx__enc_func(e, type, c->b, c->len));
}

/* path_open(3, dirflags, strings[s], oflags, rights, 0, 0, PROBE_FDOUT) -> errno */
static void open_probe(struct sbx__enc *e, uint32_t type, const char *name, uint32_t dirflags,
                       int s, uint32_t oflags, uint64_t rights)
{
    struct body c = {0};
    i32c(&c, 3);
    i32c(&c, dirflags);
    i32c(&c, PROBE_STRINGS + 64u * (uint32_t)s);
    i32c(&c, (uint32_t)strlen(strings[s]));
    i32c(&c, oflags);
    i64c(&c, rights);
    i64c(&c, 0);
    i32c(&c, 0);
    i32c(&c, PROBE_FDOUT);
    call(&c, IMP_PATH_OPEN);
    export_body(e, type, name, &c);
}

/* fd_read / fd_write on the fd path_open left at PROBE_FDOUT -> errno */
static void io_probe(struct sbx__enc *e, uint32_t type, const char *name, bool is_write)
{
    struct body c = {0};
    if (is_write)
        set_iov(&c, PROBE_STRINGS + 64u * S_TEXT, (uint32_t)strlen(strings[S_TEXT]), 0);
    else
        set_iov(&c, PROBE_BUF, 64, 0);
    i32c(&c, PROBE_FDOUT);
    memop(&c, OP_I32_LOAD);
    i32c(&c, PROBE_IOV);
    i32c(&c, 1);
    i32c(&c, PROBE_NOUT);
    call(&c, is_write ? IMP_FD_WRITE : IMP_FD_READ);
    export_body(e, type, name, &c);
}

/* *_sizes_get, *_get into PROBE_PTRS / PROBE_BUF, then the buffer to stdout -> get's errno */
static void list_probe(struct sbx__enc *e, uint32_t type, const char *name, uint32_t sizes,
                       uint32_t get)
{
    struct body c = {0};
    i32c(&c, PROBE_SIZES);
    i32c(&c, PROBE_SIZES + 4);
    call(&c, sizes);
    emit(&c, OP_DROP);
    i32c(&c, PROBE_PTRS);
    i32c(&c, PROBE_BUF);
    call(&c, get);
    set_iov(&c, PROBE_BUF, 0, PROBE_SIZES + 4);
    write_iov(&c, 1);
    emit(&c, OP_DROP);
    export_body(e, type, name, &c);
}

/* clock_time_get(realtime) and random_get: the bytes go to stdout -> errno */
static void bytes_probe(struct sbx__enc *e, uint32_t type, const char *name, bool is_clock)
{
    struct body c = {0};
    if (is_clock) {
        i32c(&c, CLOCK_REALTIME_ID);
        i64c(&c, 1);
        i32c(&c, PROBE_CLOCK);
        call(&c, IMP_CLOCK);
        set_iov(&c, PROBE_CLOCK, 8, 0);
    } else {
        i32c(&c, PROBE_BUF);
        i32c(&c, 32);
        call(&c, IMP_RANDOM);
        set_iov(&c, PROBE_BUF, 32, 0);
    }
    write_iov(&c, 1);
    emit(&c, OP_DROP);
    export_body(e, type, name, &c);
}

/* sock_open(inet4, stream, PROBE_FDOUT); sock_connect(fd, PROBE_ADDR, port) -> errno */
static void net_probes(struct sbx__enc *e, uint32_t type, uint16_t port)
{
    struct body c = {0};
    i32c(&c, SOCK_AF_INET4);
    i32c(&c, SOCK_STREAM);
    i32c(&c, PROBE_FDOUT);
    call(&c, IMP_SOCK_OPEN);
    export_body(e, type, "sock_open", &c);
    c.len = 0;
    i32c(&c, PROBE_FDOUT);
    memop(&c, OP_I32_LOAD);
    i32c(&c, PROBE_ADDR);
    i32c(&c, port);
    call(&c, IMP_SOCK_CONNECT);
    export_body(e, type, "connect", &c);
}

static void add_data(struct sbx__enc *e)
{
    for (int i = 0; i < S_COUNT; i++)
        sbx__enc_data(e, PROBE_STRINGS + 64u * (uint32_t)i, strings[i], strlen(strings[i]));
    static const uint8_t loopback[4] = {127, 0, 0, 1};
    const uint32_t addr[2] = {PROBE_IP, 4}; /* {buf, buf_len}, little-endian like wasm */
    sbx__enc_data(e, PROBE_ADDR, addr, sizeof(addr));
    sbx__enc_data(e, PROBE_IP, loopback, sizeof(loopback));
}

static void add_imports(struct sbx__enc *e, const char *const *caps, size_t cap_count,
                        uint32_t probe_type)
{
    for (int i = 0; i < IMP_COUNT; i++) {
        uint32_t t = sbx__enc_type(e, wasi_imports[i].params, "i");
        sbx__enc_import(e, "wasi_snapshot_preview1", wasi_imports[i].name, t);
    }
    char module[128];
    for (size_t i = 0; i < cap_count; i++) {
        const char *dot = strchr(caps[i], '.');
        size_t mlen = dot ? (size_t)(dot - caps[i]) : 0;
        if (!dot || mlen >= sizeof(module))
            continue; /* conformance.c only passes "module.name" */
        memcpy(module, caps[i], mlen);
        module[mlen] = '\0';
        sbx__enc_import(e, module, dot + 1, probe_type);
    }
}

uint8_t *sbx__probe_module(const char *const *caps, size_t cap_count, uint16_t port, size_t *len)
{
    struct sbx__enc e;
    sbx__enc_init(&e);
    uint32_t type = sbx__enc_type(&e, "", "i");
    add_imports(&e, caps, cap_count, type);
    sbx__enc_memory(&e, 2);
    add_data(&e);
    open_probe(&e, type, "open_read", 0, S_DATA, 0, RIGHT_FD_READ);
    io_probe(&e, type, "read", false);
    open_probe(&e, type, "open_write", 0, S_DATA, 0, RIGHT_FD_WRITE);
    io_probe(&e, type, "write", true);
    open_probe(&e, type, "create", 0, S_NEW, OFLAG_CREAT, RIGHT_FD_WRITE);
    open_probe(&e, type, "dotdot", 0, S_DOTDOT, 0, RIGHT_FD_READ);
    open_probe(&e, type, "symlink", LOOKUP_FOLLOW, S_LINK, 0, RIGHT_FD_READ);
    open_probe(&e, type, "abs_symlink", LOOKUP_FOLLOW, S_ABS, 0, RIGHT_FD_READ);
    list_probe(&e, type, "env", IMP_ENV_SIZES, IMP_ENV_GET);
    list_probe(&e, type, "args", IMP_ARGS_SIZES, IMP_ARGS_GET);
    bytes_probe(&e, type, "clock", true);
    bytes_probe(&e, type, "random", false);
    net_probes(&e, type, port);
    for (size_t i = 0; i < cap_count; i++) {
        struct body c = {0};
        char name[32];
        call(&c, IMP_COUNT + (uint32_t)i);
        snprintf(name, sizeof(name), "cap%zu", i);
        export_body(&e, type, name, &c);
    }
    uint8_t *bytes = sbx__enc_finish(&e, len);
    sbx__enc_free(&e);
    return bytes;
}
