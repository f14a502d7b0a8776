/* wasm/jit/link.c: loading compiled objects into executable memory (link.h). Headers,
 * symbols and relocations are copied out of the input with memcpy (its fields may be
 * misaligned) after their bounds are checked. */
#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/alloc.h"
#include "wasm/jit/cache.h"
#include "wasm/jit/image.h"
#include "wasm/jit/level.h"
#include "wasm/jit/link.h"
#include "wasm/jit/rt.h"
#include "wasm/jit/sym.h"

#define MAX_OBJS     SBX__JIT_MAX_PARTS
#define MAX_SECTIONS 65280u     /* below SHN_LORESERVE: no extended numbering */
#define MAX_IMAGE    (1u << 30) /* keeps every rel32 between the mapping's parts in range */
#define MAX_ALIGN    4096u
#define PLT_STUB     8u  /* jmp *got(%rip); ud2 */
#define PROBE_BYTES  64u /* the mapping's stack probe (write_probe) */
#define NO_SLOT      UINT32_MAX

/* The kinds of pages, in mapping order. */
enum seg { SEG_TEXT, SEG_RODATA, SEG_DATA, SEG_COUNT_ };

struct sbx__jit_code {
    void *base;
    size_t len;
    const struct wasm_instance *inst; /* the code's: a fault's pc names its instance (fault.c) */
    struct sbx__jit_code *next;
};

/* One object being linked. */
struct obj {
    const uint8_t *b;
    size_t len;
    Elf64_Shdr *sh; /* copied; shnum entries */
    uint32_t shnum;
    uint32_t symtab; /* section index of SHT_SYMTAB */
    uint32_t nsym;
    const char *str; /* the symbol string table */
    size_t str_len;
    uint64_t *sec_off; /* per section: offset in the mapping, or UINT64_MAX (not loaded) */
    uintptr_t *val;    /* per symbol: its resolved address */
    uint32_t *got;     /* per symbol: GOT slot or NO_SLOT */
    uint32_t *plt;     /* per symbol: PLT stub or NO_SLOT */
    uint8_t *ok; /* per symbol: val is set (a defined symbol in a loaded section, or resolved) */
};

/* The whole link: the objects, the layout and the mapping. */
struct linker {
    struct obj o[MAX_OBJS];
    uint32_t n;
    const struct wasm_instance *inst;
    uint32_t ndefs;
    bool is_some; /* a hot-only batch: functions without a wrapper here are not in it */
    /* Per defined function: the object and symbol of sbx_f<i>, sbx_w<i> and its OSR entry
     * sbx_o<i>, which only functions with loops have (+1; 0 = none). */
    uint32_t *f_obj, *f_sym, *w_obj, *w_sym, *o_obj, *o_sym;
    uint64_t seg_off[SEG_COUNT_], seg_len[SEG_COUNT_];
    uint64_t got_off, plt_off, probe_off;
    uint32_t ngot, nplt;
    uint8_t *base;
    size_t len;
    char *err;
    size_t errlen;
};

static sbx_err fail(struct linker *lk, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static sbx_err fail(struct linker *lk, const char *fmt, ...)
{
    if (lk->err && lk->errlen) {
        int k = snprintf(lk->err, lk->errlen, "compiled tier: cannot load the code: ");
        va_list ap;
        va_start(ap, fmt);
        if (k > 0 && (size_t)k < lk->errlen)
            vsnprintf(lk->err + k, lk->errlen - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return SBX_E_UNAVAILABLE;
}

/* [off, off + size) lies within len, without overflow. */
static bool in_bounds(uint64_t off, uint64_t size, uint64_t len)
{
    return off <= len && size <= len - off;
}

static bool is_pow2(uint64_t v)
{
    return v && (v & (v - 1)) == 0;
}

/* The NUL-terminated string at off of a string table, or NULL. */
static const char *str_at(const char *tab, size_t tab_len, uint32_t off)
{
    if (off >= tab_len || !memchr(tab + off, '\0', tab_len - off))
        return NULL;
    return tab + off;
}

static bool get_sym(const struct obj *o, uint32_t i, Elf64_Sym *s)
{
    if (i >= o->nsym)
        return false;
    memcpy(s, o->b + o->sh[o->symtab].sh_offset + (uint64_t)i * sizeof(*s), sizeof(*s));
    return true;
}

static sbx_err check_header(struct linker *lk, struct obj *o, uint32_t which)
{
    Elf64_Ehdr eh;
    if (o->len < sizeof(eh))
        return fail(lk, "object %u: truncated header", which);
    memcpy(&eh, o->b, sizeof(eh));
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_ident[EI_VERSION] != EV_CURRENT)
        return fail(lk, "object %u: not an ELF64 little-endian file", which);
    if (eh.e_type != ET_REL || eh.e_machine != EM_X86_64)
        return fail(lk, "object %u: not an x86-64 relocatable object", which);
    if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 || eh.e_shnum > MAX_SECTIONS ||
        eh.e_shstrndx >= eh.e_shnum)
        return fail(lk, "object %u: bad section header table", which);
    if (!in_bounds(eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr), o->len))
        return fail(lk, "object %u: section headers past the end", which);
    o->shnum = eh.e_shnum;
    o->sh = sbx__calloc(o->shnum, sizeof(*o->sh));
    o->sec_off = sbx__calloc(o->shnum, sizeof(*o->sec_off));
    if (!o->sh || !o->sec_off)
        return SBX_E_NOMEM;
    memcpy(o->sh, o->b + eh.e_shoff, o->shnum * sizeof(*o->sh));
    return SBX_OK;
}

/* Every section's bytes within the file; the one symbol table and its strings. */
static sbx_err check_sections(struct linker *lk, struct obj *o, uint32_t which)
{
    o->symtab = 0;
    o->sec_off[0] = UINT64_MAX;
    for (uint32_t i = 1; i < o->shnum; i++) {
        const Elf64_Shdr *s = &o->sh[i];
        o->sec_off[i] = UINT64_MAX;
        if (s->sh_type != SHT_NOBITS && !in_bounds(s->sh_offset, s->sh_size, o->len))
            return fail(lk, "object %u: section %u past the end", which, i);
        if (s->sh_type == SHT_SYMTAB) {
            if (o->symtab)
                return fail(lk, "object %u: two symbol tables", which);
            o->symtab = i;
        }
    }
    if (!o->symtab)
        return fail(lk, "object %u: no symbol table", which);
    const Elf64_Shdr *st = &o->sh[o->symtab];
    if (st->sh_entsize != sizeof(Elf64_Sym) || st->sh_size % sizeof(Elf64_Sym) != 0 ||
        st->sh_size / sizeof(Elf64_Sym) > UINT32_MAX || st->sh_link == 0 ||
        st->sh_link >= o->shnum || o->sh[st->sh_link].sh_type != SHT_STRTAB)
        return fail(lk, "object %u: bad symbol table", which);
    o->nsym = (uint32_t)(st->sh_size / sizeof(Elf64_Sym));
    o->str = (const char *)o->b + o->sh[st->sh_link].sh_offset;
    o->str_len = o->sh[st->sh_link].sh_size;
    o->val = sbx__calloc(o->nsym ? o->nsym : 1, sizeof(*o->val));
    o->got = sbx__mallocn(o->nsym ? o->nsym : 1, sizeof(*o->got));
    o->plt = sbx__mallocn(o->nsym ? o->nsym : 1, sizeof(*o->plt));
    o->ok = sbx__calloc(o->nsym ? o->nsym : 1, 1);
    if (!o->val || !o->got || !o->plt || !o->ok)
        return SBX_E_NOMEM;
    memset(o->got, 0xff, o->nsym * sizeof(*o->got));
    memset(o->plt, 0xff, o->nsym * sizeof(*o->plt));
    return SBX_OK;
}

/* The kind of pages a loadable section goes to; false if it cannot be loaded. */
static bool seg_of(const Elf64_Shdr *s, enum seg *seg)
{
    if ((s->sh_flags & SHF_TLS) || ((s->sh_flags & SHF_WRITE) && (s->sh_flags & SHF_EXECINSTR)))
        return false;
    *seg = (s->sh_flags & SHF_EXECINSTR) ? SEG_TEXT
           : (s->sh_flags & SHF_WRITE)   ? SEG_DATA
                                         : SEG_RODATA;
    return true;
}

/* Places every SHF_ALLOC section: offsets within its kind's pages, for now. */
static sbx_err place_sections(struct linker *lk)
{
    for (uint32_t k = 0; k < lk->n; k++) {
        struct obj *o = &lk->o[k];
        for (uint32_t i = 1; i < o->shnum; i++) {
            const Elf64_Shdr *s = &o->sh[i];
            enum seg seg;
            if (!(s->sh_flags & SHF_ALLOC))
                continue;
            uint64_t align = s->sh_addralign ? s->sh_addralign : 1;
            if (!seg_of(s, &seg) || !is_pow2(align) || align > MAX_ALIGN || s->sh_size > MAX_IMAGE)
                return fail(lk, "object %u: section %u cannot be loaded", k, i);
            uint64_t at = (lk->seg_len[seg] + align - 1) & ~(align - 1);
            o->sec_off[i] = at; /* relative to its segment until layout() */
            lk->seg_len[seg] = at + s->sh_size;
            if (lk->seg_len[seg] > MAX_IMAGE)
                return fail(lk, "the code is too large");
        }
    }
    return SBX_OK;
}

/* Records the object and symbol of a defined sbx_f<i> / sbx_w<i> (the functions and their
 * wrappers, which the two parts of a module call by name). */
static sbx_err index_defs(struct linker *lk)
{
    for (uint32_t k = 0; k < lk->n; k++) {
        const struct obj *o = &lk->o[k];
        for (uint32_t i = 1; i < o->nsym; i++) {
            Elf64_Sym s;
            get_sym(o, i, &s);
            const char *name = str_at(o->str, o->str_len, s.st_name);
            uint32_t idx;
            if (!name)
                return fail(lk, "object %u: symbol %u has a bad name", k, i);
            bool is_f = strncmp(name, "sbx_f", 5) == 0, is_w = strncmp(name, "sbx_w", 5) == 0;
            bool is_o = strncmp(name, "sbx_o", 5) == 0;
            if (s.st_shndx == SHN_UNDEF || ELF64_ST_BIND(s.st_info) != STB_GLOBAL ||
                !(is_f || is_w || is_o) || !sbx__jit_sym_index(name + 5, &idx))
                continue;
            if (idx >= lk->ndefs)
                return fail(lk, "object %u: %s is not a function of the module", k, name);
            uint32_t *ko = is_f ? lk->f_obj : is_w ? lk->w_obj : lk->o_obj;
            uint32_t *ks = is_f ? lk->f_sym : is_w ? lk->w_sym : lk->o_sym;
            if (ko[idx])
                return fail(lk, "%s is defined twice", name);
            ko[idx] = k + 1;
            ks[idx] = i;
        }
    }
    return SBX_OK;
}

/* The relocation types applied, each with the width it writes and how. */
enum how { H_ABS, H_PCREL, H_PLT, H_GOT };
static const struct {
    uint32_t type;
    uint8_t width;
    uint8_t how;
    bool is_signed32; /* a 4-byte value: signed (else unsigned) */
} relocs[] = {
    {R_X86_64_64, 8, H_ABS, false},           {R_X86_64_PC64, 8, H_PCREL, false},
    {R_X86_64_PC32, 4, H_PCREL, true},        {R_X86_64_PLT32, 4, H_PLT, true},
    {R_X86_64_GOTPCREL, 4, H_GOT, true},      {R_X86_64_GOTPCRELX, 4, H_GOT, true},
    {R_X86_64_REX_GOTPCRELX, 4, H_GOT, true}, {R_X86_64_32, 4, H_ABS, false},
    {R_X86_64_32S, 4, H_ABS, true},
};

static int reloc_row(uint32_t type)
{
    for (size_t i = 0; i < sizeof(relocs) / sizeof(relocs[0]); i++) {
        if (relocs[i].type == type)
            return (int)i;
    }
    return -1;
}

/* Section i of o as relocations of a loaded section (*target), checked; false when it is not
 * one (other sections, or relocations of sections not loaded, e.g. debug info). */
static sbx_err rela_section(struct linker *lk, uint32_t k, uint32_t i, uint32_t *target,
                            uint64_t *count)
{
    const struct obj *o = &lk->o[k];
    const Elf64_Shdr *s = &o->sh[i];
    *count = 0;
    if (s->sh_type != SHT_RELA && s->sh_type != SHT_REL)
        return SBX_OK;
    if (s->sh_info == 0 || s->sh_info >= o->shnum)
        return fail(lk, "object %u: relocations of section %u, which does not exist", k,
                    s->sh_info);
    if (o->sec_off[s->sh_info] == UINT64_MAX)
        return SBX_OK;
    if (s->sh_type == SHT_REL)
        return fail(lk, "object %u: REL relocations (only RELA is produced)", k);
    if (s->sh_link != o->symtab || s->sh_entsize != sizeof(Elf64_Rela) ||
        s->sh_size % sizeof(Elf64_Rela) != 0)
        return fail(lk, "object %u: bad relocation section %u", k, i);
    *target = s->sh_info;
    *count = s->sh_size / sizeof(Elf64_Rela);
    return SBX_OK;
}

/* Checks one relocation (type, symbol, place) and reserves its GOT slot or PLT stub. */
static sbx_err scan_one(struct linker *lk, uint32_t k, uint32_t target, const Elf64_Rela *r)
{
    struct obj *o = &lk->o[k];
    uint32_t sym = (uint32_t)ELF64_R_SYM(r->r_info), type = (uint32_t)ELF64_R_TYPE(r->r_info);
    int row = reloc_row(type);
    if (row < 0)
        return fail(lk, "object %u: unsupported relocation type %u", k, type);
    if (sym >= o->nsym)
        return fail(lk, "object %u: relocation of symbol %u, which does not exist", k, sym);
    if (o->sh[target].sh_type == SHT_NOBITS ||
        !in_bounds(r->r_offset, relocs[row].width, o->sh[target].sh_size))
        return fail(lk, "object %u: relocation at %#llx, past its section %u", k,
                    (unsigned long long)r->r_offset, target);
    Elf64_Sym s;
    get_sym(o, sym, &s);
    /* A call to the other part's function stays direct; the rest go through a stub. */
    const char *name = str_at(o->str, o->str_len, s.st_name);
    uint32_t idx;
    bool is_ext = sym != 0 && s.st_shndx == SHN_UNDEF &&
                  !(name && strncmp(name, "sbx_f", 5) == 0 && sbx__jit_sym_index(name + 5, &idx));
    if (relocs[row].how == H_PLT && is_ext && o->plt[sym] == NO_SLOT)
        o->plt[sym] = lk->nplt++;
    if ((relocs[row].how == H_GOT || o->plt[sym] != NO_SLOT) && o->got[sym] == NO_SLOT)
        o->got[sym] = lk->ngot++;
    return SBX_OK;
}

/* Walks every relocation of loaded sections: scan (apply == false) or apply. */
static sbx_err apply_one(struct linker *lk, uint32_t k, uint32_t target, const Elf64_Rela *r);

static sbx_err each_reloc(struct linker *lk, bool apply)
{
    for (uint32_t k = 0; k < lk->n; k++) {
        const struct obj *o = &lk->o[k];
        for (uint32_t i = 1; i < o->shnum; i++) {
            uint32_t target = 0;
            uint64_t count = 0;
            sbx_err rc = rela_section(lk, k, i, &target, &count);
            for (uint64_t j = 0; rc == SBX_OK && j < count; j++) {
                Elf64_Rela r;
                memcpy(&r, o->b + o->sh[i].sh_offset + j * sizeof(r), sizeof(r));
                rc = apply ? apply_one(lk, k, target, &r) : scan_one(lk, k, target, &r);
            }
            if (rc != SBX_OK)
                return rc;
        }
    }
    return SBX_OK;
}

static uint64_t page_up(uint64_t v, uint64_t page)
{
    return (v + page - 1) & ~(page - 1);
}

/* Segments one after another, each on its own pages; PLT stubs after the code, the GOT after
 * the read-only data. Section offsets become offsets in the mapping. */
static sbx_err layout(struct linker *lk)
{
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    lk->plt_off = (lk->seg_len[SEG_TEXT] + 15) & ~(uint64_t)15;
    lk->probe_off = lk->plt_off + (uint64_t)lk->nplt * PLT_STUB;
    lk->seg_len[SEG_TEXT] = lk->probe_off + PROBE_BYTES;
    lk->got_off = (lk->seg_len[SEG_RODATA] + 7) & ~(uint64_t)7;
    lk->seg_len[SEG_RODATA] = lk->got_off + (uint64_t)lk->ngot * 8;
    uint64_t at = 0;
    for (int s = 0; s < SEG_COUNT_; s++) {
        lk->seg_off[s] = at;
        at = page_up(at + lk->seg_len[s], page);
    }
    if (at > MAX_IMAGE)
        return fail(lk, "the code is too large");
    lk->plt_off += lk->seg_off[SEG_TEXT];
    lk->probe_off += lk->seg_off[SEG_TEXT];
    lk->got_off += lk->seg_off[SEG_RODATA];
    for (uint32_t k = 0; k < lk->n; k++) {
        struct obj *o = &lk->o[k];
        for (uint32_t i = 1; i < o->shnum; i++) {
            enum seg seg;
            if (o->sec_off[i] != UINT64_MAX && seg_of(&o->sh[i], &seg))
                o->sec_off[i] += lk->seg_off[seg];
        }
    }
    lk->len = at ? at : page;
    return SBX_OK;
}

static sbx_err map_and_copy(struct linker *lk)
{
    void *p = mmap(NULL, lk->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return SBX_E_NOMEM;
    lk->base = p;
    for (uint32_t k = 0; k < lk->n; k++) {
        const struct obj *o = &lk->o[k];
        for (uint32_t i = 1; i < o->shnum; i++) {
            if (o->sec_off[i] != UINT64_MAX && o->sh[i].sh_type != SHT_NOBITS)
                memcpy(lk->base + o->sec_off[i], o->b + o->sh[i].sh_offset, o->sh[i].sh_size);
        }
    }
    return SBX_OK;
}

/* An undefined symbol: a function of the other part, or an instance object or helper. */
static bool resolve_ext(struct linker *lk, const char *name, uintptr_t *addr)
{
    uint32_t idx;
    if (strncmp(name, "sbx_f", 5) == 0 && sbx__jit_sym_index(name + 5, &idx)) {
        if (idx >= lk->ndefs || !lk->f_obj[idx])
            return false;
        const struct obj *d = &lk->o[lk->f_obj[idx] - 1];
        *addr = d->ok[lk->f_sym[idx]] ? d->val[lk->f_sym[idx]] : 0;
        return d->ok[lk->f_sym[idx]];
    }
    if (strcmp(name, SBX__JIT_PROBE_SYM) == 0) {
        *addr = (uintptr_t)(lk->base + lk->probe_off);
        return true;
    }
    return sbx__jit_sym_resolve(name, lk->inst, addr);
}

/* Addresses of every symbol: defined ones first (resolve_ext reads them), then the rest. */
static sbx_err resolve_symbols(struct linker *lk)
{
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t k = 0; k < lk->n; k++) {
            struct obj *o = &lk->o[k];
            for (uint32_t i = 1; i < o->nsym; i++) {
                Elf64_Sym s;
                get_sym(o, i, &s);
                bool is_undef = s.st_shndx == SHN_UNDEF;
                if (is_undef != (pass == 1))
                    continue;
                const char *name = str_at(o->str, o->str_len, s.st_name);
                if (is_undef && !resolve_ext(lk, name, &o->val[i]))
                    return fail(lk, "object %u: unknown symbol %s", k, name);
                if (s.st_shndx == SHN_ABS) {
                    o->val[i] = (uintptr_t)s.st_value;
                } else if (!is_undef && s.st_shndx < o->shnum &&
                           o->sec_off[s.st_shndx] != UINT64_MAX &&
                           s.st_value <= o->sh[s.st_shndx].sh_size) {
                    o->val[i] = (uintptr_t)(lk->base + o->sec_off[s.st_shndx] + s.st_value);
                } else if (!is_undef) {
                    continue; /* not loaded (or bad): an error only if a relocation uses it */
                }
                o->ok[i] = 1;
            }
        }
    }
    return SBX_OK;
}

static uint8_t *put_imm64(uint8_t *p, const uint8_t op[2], uintptr_t v)
{
    uint64_t v64 = v;
    memcpy(p, op, 2);
    memcpy(p + 2, &v64, 8);
    return p + 10;
}

/* The stack probe of this mapping (sym.h), entered from a prologue with the frame's size in
 * %rax before the frame exists, the store's limit and the trap's arguments built in: it may
 * use only %r11 (no argument register, dead at an entry) and the flags, and keeps %rax for
 * the prologue's `sub %rax, %rsp`. The frame would end at %rsp + 8 - %rax; below the limit it
 * traps from here, where the caller's frame passed its own check, so the trap path runs
 * within the limit's margin, above the stack's end. */
static void write_probe(struct linker *lk)
{
    static const uint8_t check[] = {
        0x4d, 0x8b, 0x1b,             /* mov (%r11), %r11: the limit */
        0x4d, 0x8d, 0x5c, 0x03, 0xf8, /* lea -8(%r11,%rax), %r11 */
        0x4c, 0x39, 0xdc,             /* cmp %r11, %rsp */
        0x72, 0x01,                   /* jb trap */
        0xc3,                         /* ret */
        0x48, 0x83, 0xe4, 0xf0,       /* trap: and $-16, %rsp (the call's alignment) */
    };
    struct wasm_jit_store *js = lk->inst->store->jit;
    uint8_t *p = put_imm64(lk->base + lk->probe_off, (const uint8_t[]){0x49, 0xbb},
                           (uintptr_t)&js->stack_limit); /* movabs $&limit, %r11 */
    memcpy(p, check, sizeof(check));
    p += sizeof(check);
    p = put_imm64(p, (const uint8_t[]){0x48, 0xbf}, (uintptr_t)js);       /* %rdi */
    p = put_imm64(p, (const uint8_t[]){0x48, 0xbe}, (uintptr_t)lk->inst); /* %rsi */
    p = put_imm64(p, (const uint8_t[]){0x48, 0xb8}, (uintptr_t)sbx__jit_rt_stack_trap);
    memcpy(p, "\xff\xd0\x0f\x0b", 4); /* call *%rax; ud2 */
}

/* GOT entries hold the symbols' addresses; each PLT stub jumps through its entry. */
static void fill_got_plt(struct linker *lk)
{
    for (uint32_t k = 0; k < lk->n; k++) {
        const struct obj *o = &lk->o[k];
        for (uint32_t i = 0; i < o->nsym; i++) {
            if (o->got[i] == NO_SLOT)
                continue;
            uint64_t g = lk->got_off + (uint64_t)o->got[i] * 8, v = o->val[i];
            memcpy(lk->base + g, &v, 8);
            if (o->plt[i] == NO_SLOT)
                continue;
            uint8_t *stub = lk->base + lk->plt_off + (uint64_t)o->plt[i] * PLT_STUB;
            int32_t rel = (int32_t)((int64_t)g - (int64_t)(lk->plt_off + o->plt[i] * PLT_STUB + 6));
            stub[0] = 0xff; /* jmp *rel32(%rip) */
            stub[1] = 0x25;
            memcpy(stub + 2, &rel, 4);
            stub[6] = 0x0f; /* ud2 */
            stub[7] = 0x0b;
        }
    }
}

static sbx_err apply_one(struct linker *lk, uint32_t k, uint32_t target, const Elf64_Rela *r)
{
    const struct obj *o = &lk->o[k];
    uint32_t sym = (uint32_t)ELF64_R_SYM(r->r_info);
    int row = reloc_row((uint32_t)ELF64_R_TYPE(r->r_info));
    if (sym != 0 && !o->ok[sym])
        return fail(lk, "object %u: relocation against symbol %u, which is not loaded", k, sym);
    uint64_t place = (uint64_t)(uintptr_t)lk->base + o->sec_off[target] + r->r_offset;
    uint64_t s = sym ? o->val[sym] : 0, a = (uint64_t)r->r_addend, v;
    switch (relocs[row].how) {
    case H_ABS:
        v = s + a;
        break;
    case H_PLT:
        if (o->plt[sym] != NO_SLOT)
            s = (uint64_t)(uintptr_t)lk->base + lk->plt_off + (uint64_t)o->plt[sym] * PLT_STUB;
        v = s + a - place;
        break;
    case H_GOT:
        v = (uint64_t)(uintptr_t)lk->base + lk->got_off + (uint64_t)o->got[sym] * 8 + a - place;
        break;
    default:
        v = s + a - place;
    }
    uint8_t *at = lk->base + o->sec_off[target] + r->r_offset;
    if (relocs[row].width == 8) {
        memcpy(at, &v, 8);
        return SBX_OK;
    }
    bool fits =
        relocs[row].is_signed32 ? (int64_t)v == (int64_t)(int32_t)(uint32_t)v : v <= UINT32_MAX;
    if (!fits)
        return fail(lk, "object %u: relocation at %#llx out of range", k,
                    (unsigned long long)r->r_offset);
    uint32_t v32 = (uint32_t)v;
    memcpy(at, &v32, 4);
    return SBX_OK;
}

/* Code read+exec, data read-only (the GOT with it), writable data read+write. */
static sbx_err protect(struct linker *lk)
{
    static const int prot[SEG_COUNT_] = {PROT_READ | PROT_EXEC, PROT_READ, PROT_READ | PROT_WRITE};
    for (int s = 0; s < SEG_COUNT_; s++) {
        uint64_t end = s + 1 < SEG_COUNT_ ? lk->seg_off[s + 1] : lk->len;
        if (end > lk->seg_off[s] &&
            mprotect(lk->base + lk->seg_off[s], end - lk->seg_off[s], prot[s]) != 0)
            return fail(lk, "mprotect failed");
    }
    return SBX_OK;
}

/* Whether symbol sym of object obj (+1) is a function in the code. */
static bool is_code(const struct linker *lk, uint32_t obj, uint32_t sym)
{
    const struct obj *o = &lk->o[obj - 1];
    Elf64_Sym s;
    get_sym(o, sym, &s);
    enum seg seg;
    return ELF64_ST_TYPE(s.st_info) == STT_FUNC && o->ok[sym] && s.st_shndx < o->shnum &&
           seg_of(&o->sh[s.st_shndx], &seg) && seg == SEG_TEXT;
}

/* Every defined function's wrapper, and each OSR entry there is, a function in the code; a
 * function over the compile-cost bound (level.h) has neither, nor one outside a hot-only batch. */
static sbx_err check_entries(struct linker *lk)
{
    uint32_t has = 0, must = 0;
    for (uint32_t i = 0; i < lk->ndefs; i++) {
        bool may_lack = lk->is_some || !sbx__jit_func_fits(lk->inst->module, i);
        must += !may_lack;
        if (!lk->w_obj[i] && may_lack && !lk->o_obj[i])
            continue;
        if (!lk->w_obj[i])
            return fail(lk, "no entry for function %u", i);
        has++;
        if (!is_code(lk, lk->w_obj[i], lk->w_sym[i]))
            return fail(lk, "the entry of function %u is not code", i);
        if (lk->o_obj[i] && !is_code(lk, lk->o_obj[i], lk->o_sym[i]))
            return fail(lk, "the OSR entry of function %u is not code", i);
    }
    /* (every function may lack one: all of them catch exceptions, say) */
    return has || must == 0 ? SBX_OK : fail(lk, "no entry for any function");
}

static void set_entries(struct linker *lk, struct wasm_instance *inst)
{
    for (uint32_t i = 0; i < lk->ndefs; i++) {
        struct wasm_func *f = inst->funcs[inst->module->func_import_count + i];
        if (!lk->w_obj[i])
            continue; /* not in this hot-only batch */
        uintptr_t a = lk->o[lk->w_obj[i] - 1].val[lk->w_sym[i]];
        uintptr_t o = lk->o_obj[i] ? lk->o[lk->o_obj[i] - 1].val[lk->o_sym[i]] : 0;
        f->osr_entry = (uint32_t(*)(uint64_t *, uint32_t))o;
        /* last, with release: its reader (acquire) reads osr_entry after it */
        __atomic_store_n(&f->jit_entry, (void (*)(uint64_t *))a, __ATOMIC_RELEASE);
    }
}

static void linker_free(struct linker *lk)
{
    for (uint32_t k = 0; k < lk->n; k++) {
        struct obj *o = &lk->o[k];
        sbx__free(o->sh);
        sbx__free(o->sec_off);
        sbx__free(o->val);
        sbx__free(o->got);
        sbx__free(o->plt);
        sbx__free(o->ok);
    }
    sbx__free(lk->f_obj);
    sbx__free(lk->f_sym);
    sbx__free(lk->w_obj);
    sbx__free(lk->w_sym);
    sbx__free(lk->o_obj);
    sbx__free(lk->o_sym);
    if (lk->base)
        munmap(lk->base, lk->len);
}

/* Each object's header, sections and symbol table, before anything else reads them. */
static sbx_err check_objs(struct linker *lk)
{
    sbx_err rc = SBX_OK;
    for (uint32_t k = 0; k < lk->n && rc == SBX_OK; k++) {
        rc = check_header(lk, &lk->o[k], k);
        if (rc == SBX_OK)
            rc = check_sections(lk, &lk->o[k], k);
    }
    return rc;
}

static sbx_err link_all(struct linker *lk)
{
    sbx_err rc = check_objs(lk);
    sbx_err (*const steps[])(struct linker *) = {place_sections, index_defs,   NULL,
                                                 layout,         map_and_copy, resolve_symbols};
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]) && rc == SBX_OK; i++)
        rc = steps[i] ? steps[i](lk) : each_reloc(lk, false);
    if (rc != SBX_OK)
        return rc;
    fill_got_plt(lk);
    write_probe(lk);
    rc = each_reloc(lk, true);
    if (rc == SBX_OK)
        rc = check_entries(lk);
    return rc == SBX_OK ? protect(lk) : rc;
}

sbx_err sbx__jit_store(struct wasm_store *store, struct wasm_jit_store **out)
{
    if (!store->jit) {
        store->jit = sbx__calloc(1, sizeof(*store->jit));
        if (!store->jit)
            return SBX_E_NOMEM;
        store->jit->store = store;
    }
    *out = store->jit;
    return SBX_OK;
}

/* Sets lk up for objs and ndefs defined functions (linker_free frees it, also on failure). */
static sbx_err linker_init(struct linker *lk, const struct sbx__jit_obj *objs, uint32_t n,
                           uint32_t ndefs)
{
    if (n == 0 || n > MAX_OBJS)
        return fail(lk, "%u objects", n);
    lk->n = n;
    lk->ndefs = ndefs;
    size_t nd = ndefs ? ndefs : 1;
    lk->f_obj = sbx__calloc(nd, sizeof(uint32_t));
    lk->f_sym = sbx__calloc(nd, sizeof(uint32_t));
    lk->w_obj = sbx__calloc(nd, sizeof(uint32_t));
    lk->w_sym = sbx__calloc(nd, sizeof(uint32_t));
    lk->o_obj = sbx__calloc(nd, sizeof(uint32_t));
    lk->o_sym = sbx__calloc(nd, sizeof(uint32_t));
    for (uint32_t k = 0; k < n; k++) {
        lk->o[k].b = objs[k].bytes;
        lk->o[k].len = objs[k].len;
    }
    bool has_all = lk->f_obj && lk->f_sym && lk->w_obj && lk->w_sym && lk->o_obj && lk->o_sym;
    return has_all ? SBX_OK : SBX_E_NOMEM;
}

static sbx_err link_objs(const struct sbx__jit_obj *objs, uint32_t n, struct wasm_instance *inst,
                         bool is_some, char *err, size_t errlen)
{
    struct linker lk = {.inst = inst, .is_some = is_some, .err = err, .errlen = errlen};
    struct wasm_jit_store *js;
    struct sbx__jit_code *code = sbx__calloc(1, sizeof(*code));
    sbx_err rc = code ? sbx__jit_store(inst->store, &js) : SBX_E_NOMEM;
    if (rc == SBX_OK)
        rc = linker_init(&lk, objs, n, inst->module->func_def_count);
    if (rc == SBX_OK)
        rc = link_all(&lk);
    if (rc == SBX_OK) {
        set_entries(&lk, inst);
        *code =
            (struct sbx__jit_code){.base = lk.base, .len = lk.len, .inst = inst, .next = js->code};
        /* Published whole: the fault handler may walk the list on another thread meanwhile. */
        __atomic_store_n(&js->code, code, __ATOMIC_RELEASE);
        lk.base = NULL; /* the store's now */
    } else {
        sbx__free(code);
    }
    linker_free(&lk);
    return rc;
}

sbx_err sbx__jit_objs_defs(const struct sbx__jit_obj *objs, uint32_t n, uint32_t ndefs,
                           uint8_t *only, char *err, size_t errlen)
{
    struct linker lk = {.err = err, .errlen = errlen};
    sbx_err rc = linker_init(&lk, objs, n, ndefs);
    if (rc == SBX_OK)
        rc = check_objs(&lk);
    if (rc == SBX_OK)
        rc = index_defs(&lk);
    for (uint32_t i = 0; i < ndefs && rc == SBX_OK; i++)
        only[i] = !lk.w_obj[i] ? 0 : lk.o_obj[i] ? SBX__JIT_ONLY_OSR : SBX__JIT_ONLY_FUNC;
    linker_free(&lk);
    return rc;
}

sbx_err sbx__jit_link(const struct sbx__jit_obj *objs, uint32_t n, struct wasm_instance *inst,
                      char *err, size_t errlen)
{
    return link_objs(objs, n, inst, false, err, errlen);
}

sbx_err sbx__jit_link_some(const struct sbx__jit_obj *objs, uint32_t n, struct wasm_instance *inst,
                           char *err, size_t errlen)
{
    return link_objs(objs, n, inst, true, err, errlen);
}

const struct wasm_instance *sbx__jit_code_instance(const struct wasm_jit_store *js, uintptr_t pc)
{
    for (const struct sbx__jit_code *c = __atomic_load_n(&js->code, __ATOMIC_ACQUIRE); c;
         c = c->next) {
        if (pc - (uintptr_t)c->base < c->len)
            return c->inst;
    }
    return NULL;
}

void sbx__wasm_jit_store_free(struct wasm_jit_store *js)
{
    if (!js)
        return;
    for (struct sbx__jit_code *c = js->code, *next; c; c = next) {
        next = c->next;
        munmap(c->base, c->len);
        sbx__free(c);
    }
    sbx__jit_images_free(js->images);
    sbx__jit_hot_free(js);
    sbx__free(js);
}
