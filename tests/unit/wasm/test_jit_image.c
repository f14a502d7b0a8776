/* Images of the compiled tier (src/wasm/jit/image.h) and our loader (link.c): one image runs
 * in several instances, each on its own memory, globals and tables; instances importing from
 * different providers behave as their interpreted twins; an encoded image decodes, links and
 * runs in a process that never loads libLLVM; corrupt images fail with a clear error and never
 * crash (run under ASan by `make SAN=1 test`). */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jit_image_mods.h"
#include "lsan_no_tls.h"
#include "sbx_test.h"
#include "util/alloc.h"
#include "wasm/jit/image.h"
#include "wasm/jit/jit.h"
#include "wasm_env.h"

#define IMAGE_HEADER 48 /* image.c's header, then one u64 length per object */

static struct wasm_store *store_new(uint8_t tier)
{
    struct wasm_store_limits l = {.tier = tier};
    struct wasm_store *s = NULL;
    ck_assert_int_eq(sbx__wasm_store_create(&l, &s), SBX_OK);
    return s;
}

/* Imports come from the instance user points to, by name. */
static bool from_instance(void *user, const struct wasm_import *imp, struct wasm_extern *out)
{
    return user && sbx__wasm_instance_export(user, imp->name, imp->name_len, out);
}

static struct wasm_instance *inst_new(struct wasm_store *s, const struct wasm_module *m,
                                      struct wasm_instance *provider)
{
    return wenv_instance(s, m, from_instance, provider);
}

/* Calls export name with at most one i32 argument; returns its i32 result (0 if none). */
static int32_t call(struct wasm_store *s, struct wasm_instance *i, const char *name, int32_t arg)
{
    wasm_value a = {.i32 = (uint32_t)arg};
    return (int32_t)wenv_func_i32(s, i, name, &a);
}

/* Every defined function of i has native code. */
static void assert_native(const struct wasm_instance *i)
{
    const struct wasm_module *m = i->module;
    for (uint32_t k = 0; k < m->func_def_count; k++)
        ck_assert_ptr_nonnull(i->funcs[m->func_import_count + k]->jit_entry);
}

/* Two instances of one module in an interpreted store, both linked from one image, the
 * store then switched to native calls: each sees its own memory, global and table. */
START_TEST(one_image_two_instances)
{
    char err[256] = "";
    struct wasm_module *m = wenv_module(mod_self, sizeof(mod_self));
    struct wasm_store *s = store_new(WASM_TIER_INTERP);
    struct wasm_instance *a = inst_new(s, m, NULL), *b = inst_new(s, m, NULL);
    struct sbx__jit_image *im = NULL;
    ck_assert_msg(sbx__jit_image_build(m, false, NULL, &im, err, sizeof(err)) == SBX_OK, "%s", err);
    ck_assert_msg(sbx__jit_image_link(im, a, err, sizeof(err)) == SBX_OK, "%s", err);
    ck_assert_msg(sbx__jit_image_link(im, b, err, sizeof(err)) == SBX_OK, "%s", err);
    sbx__jit_image_free(im); /* the code belongs to the store */
    assert_native(a);
    assert_native(b);
    s->limits.tier = WASM_TIER_COMPILED;
    uint64_t before = sbx__wasm_store_native_entries(s);
    call(s, a, "set", 5);
    call(s, b, "set", 7);
    ck_assert_int_eq(call(s, a, "get", 0), 10); /* a's memory (via a's table) + a's global */
    ck_assert_int_eq(call(s, b, "get", 0), 14);
    ck_assert_int_eq(call(s, a, "grow", 0), 2); /* old size */
    ck_assert_int_eq(call(s, a, "tsize", 0), 3);
    ck_assert_int_eq(call(s, b, "tsize", 0), 2);
    ck_assert_uint_eq(sbx__wasm_store_native_entries(s) - before, 7);
    sbx__wasm_store_destroy(s);
    sbx__wasm_module_destroy(m);
}
END_TEST

/* The code is a function of the module (and CPU) only: two builds are the same bytes. */
START_TEST(build_is_deterministic)
{
    struct wasm_module *m = wenv_module(mod_user, sizeof(mod_user));
    uint8_t *buf[2];
    size_t len[2];
    for (int k = 0; k < 2; k++) {
        char err[256] = "";
        struct sbx__jit_image *im = NULL;
        ck_assert_msg(sbx__jit_image_build(m, false, NULL, &im, err, sizeof(err)) == SBX_OK, "%s",
                      err);
        ck_assert_int_eq(sbx__jit_image_encode(im, &buf[k], &len[k]), SBX_OK);
        sbx__jit_image_free(im);
    }
    ck_assert_uint_eq(len[0], len[1]);
    ck_assert(memcmp(buf[0], buf[1], len[0]) == 0);
    sbx__free(buf[0]);
    sbx__free(buf[1]);
    sbx__wasm_module_destroy(m);
}
END_TEST

/* The values a user instance computes against its provider. */
struct observed {
    int32_t run, run_bumped, msize, tsize;
};

static struct observed observe(struct wasm_store *s, struct wasm_instance *u)
{
    struct observed o;
    o.run = call(s, u, "run", 3);
    call(s, u, "bump", 0);
    o.run_bumped = call(s, u, "run", 3);
    o.msize = call(s, u, "msize", 0);
    o.tsize = call(s, u, "tsize", 0);
    return o;
}

/* Runs user against provider 1 and provider 2 in a store of the given tier. */
static void observe_tier(uint8_t tier, struct observed out[2])
{
    struct wasm_module *u = wenv_module(mod_user, sizeof(mod_user));
    struct wasm_module *p1 = wenv_module(mod_prov1, sizeof(mod_prov1));
    struct wasm_module *p2 = wenv_module(mod_prov2, sizeof(mod_prov2));
    struct wasm_store *s = store_new(tier);
    struct wasm_instance *ui[2] = {inst_new(s, u, inst_new(s, p1, NULL)),
                                   inst_new(s, u, inst_new(s, p2, NULL))};
    for (int k = 0; k < 2; k++) {
        if (tier == WASM_TIER_COMPILED)
            assert_native(ui[k]);
        out[k] = observe(s, ui[k]);
    }
    sbx__wasm_store_destroy(s);
    sbx__wasm_module_destroy(u);
    sbx__wasm_module_destroy(p1);
    sbx__wasm_module_destroy(p2);
}

/* The imported function, immutable and mutable global, memory (its contents and size) and
 * table (its function and size) differ between the providers; the compiled instances (one
 * image: the store compiles the module once) agree with the interpreter's. */
START_TEST(imports_from_providers_match_interpreter)
{
    struct observed c[2], i[2];
    observe_tier(WASM_TIER_COMPILED, c);
    observe_tier(WASM_TIER_INTERP, i);
    /* provider 1: f = 3x, g = 100, gm = 1000, mem[0] = 5, 1 page, h = x + 7, 1 elem */
    ck_assert_int_eq(i[0].run, 9 + 100 + 1000 + 5 + 10);
    ck_assert_int_eq(i[1].run, 15 + 200 + 2000 + 9 + 14);
    for (int k = 0; k < 2; k++) {
        ck_assert_int_eq(c[k].run, i[k].run);
        ck_assert_int_eq(c[k].run_bumped, i[k].run + 1);
        ck_assert_int_eq(c[k].run_bumped, i[k].run_bumped);
        ck_assert_int_eq(c[k].msize, i[k].msize);
        ck_assert_int_eq(c[k].tsize, i[k].tsize);
    }
    ck_assert_int_eq(c[0].msize, 1);
    ck_assert_int_eq(c[1].msize, 3);
    ck_assert_int_eq(c[1].tsize, 4);
}
END_TEST

/* Encoded image bytes of m (built in a child, so that this process never loads LLVM). */
static uint8_t *encoded_in_child(const uint8_t *mod, size_t mod_len, size_t *len)
{
    char path[] = "/tmp/sbx-jit-image-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        struct wasm_module *m = wenv_module(mod, mod_len);
        struct sbx__jit_image *im = NULL;
        uint8_t *buf = NULL;
        size_t n = 0;
        bool ok = sbx__jit_image_build(m, false, NULL, &im, NULL, 0) == SBX_OK &&
                  sbx__jit_image_encode(im, &buf, &n) == SBX_OK && write(fd, buf, n) == (ssize_t)n;
        _exit(ok ? 0 : 1);
    }
    int st = 0;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    off_t n = lseek(fd, 0, SEEK_END);
    ck_assert_int_gt(n, IMAGE_HEADER);
    uint8_t *buf = malloc((size_t)n);
    ck_assert_int_eq(pread(fd, buf, (size_t)n, 0), n);
    close(fd);
    unlink(path);
    *len = (size_t)n;
    return buf;
}

START_TEST(decode_and_link_without_llvm)
{
    size_t len;
    uint8_t *bytes = encoded_in_child(mod_self, sizeof(mod_self), &len);
    char err[256] = "";
    struct sbx__jit_image *im = NULL;
    ck_assert_msg(sbx__jit_image_decode(bytes, len, &im, err, sizeof(err)) == SBX_OK, "%s", err);
    free(bytes);
    struct wasm_module *m = wenv_module(mod_self, sizeof(mod_self));
    struct wasm_store *s = store_new(WASM_TIER_INTERP);
    struct wasm_instance *a = inst_new(s, m, NULL);
    ck_assert_msg(sbx__jit_image_link(im, a, err, sizeof(err)) == SBX_OK, "%s", err);
    sbx__jit_image_free(im);
    s->limits.tier = WASM_TIER_COMPILED;
    call(s, a, "set", 20);
    ck_assert_int_eq(call(s, a, "get", 0), 40);
    ck_assert_uint_eq(sbx__wasm_store_native_entries(s), 2);
    ck_assert(!sbx__jit_llvm_is_loaded());
    sbx__wasm_store_destroy(s);
    sbx__wasm_module_destroy(m);
}
END_TEST

/* --- corrupt images ------------------------------------------------------------------------ */

static uint8_t *good; /* an encoded image of mod_self, one object */
static size_t good_len;

static void good_setup(void)
{
    char err[256] = "";
    struct wasm_module *m = wenv_module(mod_self, sizeof(mod_self));
    struct sbx__jit_image *im = NULL;
    ck_assert_msg(sbx__jit_image_build(m, false, NULL, &im, err, sizeof(err)) == SBX_OK, "%s", err);
    ck_assert_int_eq(sbx__jit_image_encode(im, &good, &good_len), SBX_OK);
    sbx__jit_image_free(im);
    sbx__wasm_module_destroy(m);
    uint32_t nobjs;
    memcpy(&nobjs, good + 12, 4);
    ck_assert_uint_eq(nobjs, 1);
}

static void good_teardown(void)
{
    sbx__free(good);
}

/* A copy of the good image; its object starts at obj. */
static uint8_t *copy(uint8_t **obj)
{
    uint8_t *b = malloc(good_len);
    memcpy(b, good, good_len);
    *obj = b + IMAGE_HEADER + 8;
    return b;
}

/* Decodes and links bytes into a fresh instance: must fail, with want in the message and no
 * function given native code. */
static void assert_rejected(const uint8_t *bytes, size_t len, const char *want)
{
    char err[256] = "";
    struct sbx__jit_image *im = NULL;
    struct wasm_module *m = wenv_module(mod_self, sizeof(mod_self));
    struct wasm_store *s = store_new(WASM_TIER_INTERP);
    struct wasm_instance *a = inst_new(s, m, NULL);
    sbx_err rc = sbx__jit_image_decode(bytes, len, &im, err, sizeof(err));
    if (rc == SBX_OK) {
        rc = sbx__jit_image_link(im, a, err, sizeof(err));
        sbx__jit_image_free(im);
    }
    ck_assert_int_eq(rc, SBX_E_UNAVAILABLE);
    ck_assert_msg(strstr(err, want) != NULL, "error \"%s\" lacks \"%s\"", err, want);
    for (uint32_t k = 0; k < m->func_def_count; k++)
        ck_assert_ptr_null(a->funcs[m->func_import_count + k]->jit_entry);
    ck_assert_int_eq(call(s, a, "tsize", 0), 2); /* still runs, interpreted */
    sbx__wasm_store_destroy(s);
    sbx__wasm_module_destroy(m);
}

/* The control: the good image's copy links. */
START_TEST(good_image_links)
{
    char err[256] = "";
    struct sbx__jit_image *im = NULL;
    struct wasm_module *m = wenv_module(mod_self, sizeof(mod_self));
    struct wasm_store *s = store_new(WASM_TIER_INTERP);
    struct wasm_instance *a = inst_new(s, m, NULL);
    ck_assert_int_eq(sbx__jit_image_decode(good, good_len, &im, err, sizeof(err)), SBX_OK);
    ck_assert_msg(sbx__jit_image_link(im, a, err, sizeof(err)) == SBX_OK, "%s", err);
    assert_native(a);
    sbx__jit_image_free(im);
    sbx__wasm_store_destroy(s);
    sbx__wasm_module_destroy(m);
}
END_TEST

START_TEST(truncated)
{
    for (size_t cut = 1; cut < good_len; cut += cut < 64 ? 1 : 997)
        assert_rejected(good, good_len - cut, "bad image");
}
END_TEST

/* The object cut short, its length in the image adjusted to match. */
START_TEST(truncated_object)
{
    uint8_t *obj, *b = copy(&obj);
    uint64_t n;
    memcpy(&n, b + IMAGE_HEADER, 8);
    n /= 2;
    memcpy(b + IMAGE_HEADER, &n, 8);
    assert_rejected(b, IMAGE_HEADER + 8 + n, "past the end");
    free(b);
}
END_TEST

START_TEST(flipped_elf_header)
{
    static const struct {
        size_t off;
        const char *want;
    } flips[] = {
        {offsetof(Elf64_Ehdr, e_ident) + 1, "not an ELF64"},
        {offsetof(Elf64_Ehdr, e_machine), "not an x86-64"},
        {offsetof(Elf64_Ehdr, e_shoff) + 3, "section headers past the end"},
        {offsetof(Elf64_Ehdr, e_shentsize), "bad section header table"},
    };
    for (size_t i = 0; i < sizeof(flips) / sizeof(flips[0]); i++) {
        uint8_t *obj, *b = copy(&obj);
        obj[flips[i].off] ^= 0x40;
        assert_rejected(b, good_len, flips[i].want);
        free(b);
    }
}
END_TEST

/* The first relocation of a loaded section, in the object at obj. */
static uint8_t *first_rela(uint8_t *obj)
{
    Elf64_Ehdr eh;
    memcpy(&eh, obj, sizeof(eh));
    for (uint32_t i = 1; i < eh.e_shnum; i++) {
        Elf64_Shdr sh, target;
        memcpy(&sh, obj + eh.e_shoff + i * sizeof(sh), sizeof(sh));
        if (sh.sh_type != SHT_RELA || sh.sh_size == 0)
            continue;
        memcpy(&target, obj + eh.e_shoff + sh.sh_info * sizeof(sh), sizeof(sh));
        if (target.sh_flags & SHF_ALLOC)
            return obj + sh.sh_offset;
    }
    ck_abort_msg("no relocations");
    return NULL;
}

START_TEST(relocation_past_its_section)
{
    uint8_t *obj, *b = copy(&obj);
    Elf64_Rela r;
    uint8_t *at = first_rela(obj);
    memcpy(&r, at, sizeof(r));
    r.r_offset = 0xfffffff0u;
    memcpy(at, &r, sizeof(r));
    assert_rejected(b, good_len, "past its section");
    free(b);
}
END_TEST

START_TEST(unknown_relocation_type)
{
    uint8_t *obj, *b = copy(&obj);
    Elf64_Rela r;
    uint8_t *at = first_rela(obj);
    memcpy(&r, at, sizeof(r));
    r.r_info = ELF64_R_INFO(ELF64_R_SYM(r.r_info), R_X86_64_TPOFF32);
    memcpy(at, &r, sizeof(r));
    assert_rejected(b, good_len, "unsupported relocation type 23");
    free(b);
}
END_TEST

/* A symbol's name changed in the string table: a helper that does not exist, an instance
 * object out of the module's range. */
START_TEST(unknown_symbol)
{
    static const struct {
        const char *from, *to;
    } names[] = {{"sbx_rt_trap", "sbx_rt_xrap"}, {"sbx_k_mem0", "sbx_k_mem9"}};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        uint8_t *obj, *b = copy(&obj);
        size_t n = strlen(names[i].from) + 1;
        uint8_t *at = memmem(obj, good_len - (size_t)(obj - b), names[i].from, n);
        ck_assert_ptr_nonnull(at);
        memcpy(at, names[i].to, n);
        char want[64];
        snprintf(want, sizeof(want), "unknown symbol %s", names[i].to);
        assert_rejected(b, good_len, want);
        free(b);
    }
}
END_TEST

/* An image of another module is refused before its code is looked at. */
START_TEST(other_module)
{
    char err[256] = "";
    struct sbx__jit_image *im = NULL;
    struct wasm_module *m = wenv_module(mod_prov1, sizeof(mod_prov1));
    struct wasm_store *s = store_new(WASM_TIER_INTERP);
    struct wasm_instance *a = inst_new(s, m, NULL);
    ck_assert_int_eq(sbx__jit_image_decode(good, good_len, &im, err, sizeof(err)), SBX_OK);
    ck_assert_int_eq(sbx__jit_image_link(im, a, err, sizeof(err)), SBX_E_UNAVAILABLE);
    ck_assert_msg(strstr(err, "another module") != NULL, "%s", err);
    sbx__jit_image_free(im);
    sbx__wasm_store_destroy(s);
    sbx__wasm_module_destroy(m);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("wasm_jit_image");
    TCase *tc = tcase_create("image");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, one_image_two_instances);
    tcase_add_test(tc, imports_from_providers_match_interpreter);
    tcase_add_test(tc, decode_and_link_without_llvm);
    tcase_add_test(tc, build_is_deterministic);
    suite_add_tcase(s, tc);
    TCase *bad = tcase_create("corrupt");
    tcase_set_timeout(bad, 120);
    tcase_add_checked_fixture(bad, good_setup, good_teardown);
    tcase_add_test(bad, good_image_links);
    tcase_add_test(bad, truncated);
    tcase_add_test(bad, truncated_object);
    tcase_add_test(bad, flipped_elf_header);
    tcase_add_test(bad, relocation_past_its_section);
    tcase_add_test(bad, unknown_relocation_type);
    tcase_add_test(bad, unknown_symbol);
    tcase_add_test(bad, other_module);
    suite_add_tcase(s, bad);
    return s;
}

int main(void)
{
    return sbx_test_main(suite());
}
