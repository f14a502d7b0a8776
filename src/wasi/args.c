/* wasi/args.c: args_* and environ_*: the strings the config and policy.env gave, copied out
 * as a pointer array plus one buffer of NUL-terminated strings. Both guest ranges are checked
 * before a byte is written. */
#include "wasi/internal.h"

static uint32_t sizes_get(const struct wasi_env *e, char *const *s, uint32_t n,
                          uint32_t count_gaddr, uint32_t size_gaddr)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += strlen(s[i]) + 1;
    if (total > UINT32_MAX)
        return WASI_EOVERFLOW;
    uint8_t *pc = g_span(e, count_gaddr, 4);
    uint8_t *ps = g_span(e, size_gaddr, 4);
    if (!pc || !ps)
        return WASI_EFAULT;
    put_u32(pc, n);
    put_u32(ps, (uint32_t)total);
    return WASI_ESUCCESS;
}

static uint32_t strings_get(const struct wasi_env *e, char *const *s, uint32_t n,
                            uint32_t ptrs_gaddr, uint32_t buf_gaddr)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += strlen(s[i]) + 1;
    if (total > UINT32_MAX || (uint64_t)n * 4 > UINT32_MAX)
        return WASI_EOVERFLOW;
    uint8_t *ptrs = g_span(e, ptrs_gaddr, n * 4);
    uint8_t *buf = g_span(e, buf_gaddr, (uint32_t)total);
    if (!ptrs || !buf)
        return WASI_EFAULT;
    uint32_t off = 0;
    for (uint32_t i = 0; i < n; i++) {
        size_t len = strlen(s[i]) + 1;
        put_u32(ptrs + 4 * i, buf_gaddr + off);
        memcpy(buf + off, s[i], len);
        off += (uint32_t)len;
    }
    return WASI_ESUCCESS;
}

WASI_FN(args_sizes_get)
{
    return sizes_get(e, e->w->args, e->w->argc, a[0].i32, a[1].i32);
}

WASI_FN(args_get)
{
    return strings_get(e, e->w->args, e->w->argc, a[0].i32, a[1].i32);
}

WASI_FN(environ_sizes_get)
{
    return sizes_get(e, e->w->env, e->w->envc, a[0].i32, a[1].i32);
}

WASI_FN(environ_get)
{
    return strings_get(e, e->w->env, e->w->envc, a[0].i32, a[1].i32);
}
