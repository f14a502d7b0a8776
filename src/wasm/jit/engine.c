/* wasm/jit/engine.c: compiling a module to relocatable objects: LLVM module set-up (types,
 * declarations), the per-function emitters, verification, the optimisation pipeline and code
 * generation. The objects depend on the module, the tier and the CPU only (sym.h); link.c
 * loads them for an instance. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "wasm/jit/emit.h"
#include "wasm/jit/level.h"
#include "wasm/jit/sym.h"

/* Modules with less code than this are compiled as one part, on the calling thread. */
#define SPLIT_MIN_BYTES (64u << 10)

static void set_err(char *err, size_t errlen, const char *what, const char *detail)
{
    if (err && errlen)
        snprintf(err, errlen, "compiled tier: %s%s%s", what, detail ? ": " : "",
                 detail ? detail : "");
}

/* Consumes e; writes its message to err. */
static sbx_err llvm_fail(LLVMErrorRef e, char *err, size_t errlen, const char *what)
{
    char *msg = L(GetErrorMessage)(e);
    set_err(err, errlen, what, msg);
    L(DisposeErrorMessage)(msg);
    return SBX_E_UNAVAILABLE;
}

/* The host's target machine (CPU name and features), or NULL. Position-independent code in
 * the small code model: calls between the module's functions stay direct (call rel32, the
 * loader keeps one mapping well under 2 GiB) and every address outside it is a GOT entry
 * the loader fills per instance, so the bytes of the code never depend on an address. */
static LLVMTargetMachineRef host_machine(const struct sbx__jit_level *level)
{
    char *triple = L(GetDefaultTargetTriple)();
    char *cpu = L(GetHostCPUName)(), *features = L(GetHostCPUFeatures)();
    LLVMTargetRef target = NULL;
    char *msg = NULL;
    LLVMTargetMachineRef tm = NULL;
    if (!L(GetTargetFromTriple)(triple, &target, &msg))
        tm = L(CreateTargetMachine)(target, triple, cpu, features,
                                    (LLVMCodeGenOptLevel)level->codegen, LLVMRelocPIC,
                                    LLVMCodeModelSmall);
    L(DisposeMessage)(msg);
    L(DisposeMessage)(triple);
    L(DisposeMessage)(cpu);
    L(DisposeMessage)(features);
    return tm;
}

static void init_types(struct jit_mod *jm)
{
    LLVMContextRef c = jm->ctx;
    jm->t_void = L(VoidTypeInContext)(c);
    jm->t_i1 = L(Int1TypeInContext)(c);
    jm->t_i8 = L(Int8TypeInContext)(c);
    jm->t_i16 = L(Int16TypeInContext)(c);
    jm->t_i32 = L(Int32TypeInContext)(c);
    jm->t_i64 = L(Int64TypeInContext)(c);
    jm->t_f32 = L(FloatTypeInContext)(c);
    jm->t_f64 = L(DoubleTypeInContext)(c);
    jm->t_ptr = L(PointerTypeInContext)(c, 0);
}

/* The native signature of a wasm type: params as themselves; no result, one, or a struct. */
static LLVMTypeRef native_type(struct jit_mod *jm, const struct wasm_functype *t)
{
    LLVMTypeRef p[1000], r[1000];
    uint32_t np = t->param_count > 1000 ? 1000 : t->param_count;
    uint32_t nr = t->result_count > 1000 ? 1000 : t->result_count;
    for (uint32_t i = 0; i < np; i++)
        p[i] = sbx__jit_type(jm, t->types[i]);
    for (uint32_t i = 0; i < nr; i++)
        r[i] = nr == 1 ? sbx__jit_type(jm, t->types[t->param_count])
                       : sbx__jit_member_type(jm, t->types[t->param_count + i]);
    LLVMTypeRef ret = nr == 0   ? jm->t_void
                      : nr == 1 ? r[0]
                                : L(StructTypeInContext)(jm->ctx, r, nr, 0);
    return L(FunctionType)(ret, p, np, 0);
}

/* Declares every defined function (internal: LLVM may inline and specialise) and the table of
 * their addresses that call_indirect reads. */
static bool declare(struct jit_mod *jm)
{
    const struct wasm_module *m = jm->m;
    jm->fn_types = sbx__calloc(m->type_count ? m->type_count : 1, sizeof(*jm->fn_types));
    jm->fns = sbx__calloc(m->func_def_count ? m->func_def_count : 1, sizeof(*jm->fns));
    if (!jm->fn_types || !jm->fns)
        return false;
    for (uint32_t i = 0; i < m->type_count; i++)
        jm->fn_types[i] = native_type(jm, &m->types[i]);
    /* Recursion must grow the stack so that runaway recursion traps "call stack exhausted"
     * (spec: call.wast); this attribute keeps LLVM's tail-recursion elimination from turning
     * it into a loop. */
    LLVMAttributeRef no_tail =
        L(CreateStringAttribute)(jm->ctx, "disable-tail-calls", 18, "true", 4);
    for (uint32_t i = 0; i < m->func_def_count; i++) {
        char name[48];
        if (jm->only && !jm->only[i])
            continue;
        snprintf(name, sizeof(name), "sbx_f%u", i);
        jm->fns[i] = L(AddFunction)(jm->mod, name, jm->fn_types[m->funcs[i].type_index]);
        /* Internal when the module is one part (LLVM may drop what it inlined); otherwise
         * the other part links to it by name. */
        if (jm->is_whole)
            L(SetLinkage)(jm->fns[i], LLVMInternalLinkage);
        L(AddAttributeAtIndex)(jm->fns[i], (LLVMAttributeIndex)LLVMAttributeFunctionIndex, no_tail);
    }
    if (jm->only)
        return true; /* call_indirect goes through the runtime (emit_call.c) */
    LLVMTypeRef arr = L(ArrayType)(jm->t_ptr, m->func_def_count);
    jm->fn_table = L(AddGlobal)(jm->mod, arr, "fn_table");
    L(SetInitializer)(jm->fn_table, L(ConstArray)(jm->t_ptr, jm->fns, m->func_def_count));
    L(SetGlobalConstant)(jm->fn_table, 1);
    L(SetLinkage)(jm->fn_table, LLVMInternalLinkage);
    return true;
}

void sbx__jit_wrapper_name(char *buf, size_t len, uint32_t def_idx)
{
    snprintf(buf, len, "sbx_w%u", def_idx);
}

/* A tier-up whose store is being destroyed, or any compile once the process exits
 * (quiesce.c), stops at the next function or phase. */
static bool is_cancelled(const struct jit_mod *jm)
{
    if (sbx__jit_test_pause)
        sbx__jit_test_pause(2);
    return (jm->cancel && atomic_load_explicit(jm->cancel, memory_order_relaxed)) ||
           sbx__jit_is_stopped();
}

static bool is_in(const struct jit_mod *jm, uint32_t def)
{
    if (jm->huge_end && sbx__jit_level_of_func(jm->m, def, jm->huge_end) != jm->level)
        return false;
    return !jm->only || jm->only[def];
}

static bool emit_all(struct jit_mod *jm)
{
    for (uint32_t i = jm->def_first; i < jm->def_end; i++) {
        if (is_in(jm, i) && (is_cancelled(jm) || !sbx__jit_emit_func(jm, i)))
            return false;
    }
    for (uint32_t i = jm->def_first; i < jm->def_end; i++) {
        char name[48];
        sbx__jit_wrapper_name(name, sizeof(name), i);
        if (is_in(jm, i) && !sbx__jit_emit_wrapper(jm, i, name))
            return false;
    }
    for (uint32_t i = jm->def_first; i < jm->def_end; i++) { /* emit_osr.c */
        if (is_in(jm, i) && (!jm->only || jm->only[i] == SBX__JIT_ONLY_OSR) &&
            sbx__jit_has_loop(jm->m, i) && (is_cancelled(jm) || !sbx__jit_emit_osr(jm, i)))
            return false;
    }
    return true;
}

/* Every function defined here (wasm functions, wrappers, OSR entries) probes a frame of
 * SBX__JIT_PROBE_BYTES or more before allocating it (sym.h): no frame, however many values it
 * spills, can start below the stack limit, where the check after the prologue came too late. */
static void probe_frames(struct jit_mod *jm)
{
    char size[16];
    int n = snprintf(size, sizeof(size), "%u", SBX__JIT_PROBE_BYTES);
    LLVMAttributeRef probe = L(CreateStringAttribute)(
        jm->ctx, "probe-stack", 11, SBX__JIT_PROBE_SYM, (unsigned)strlen(SBX__JIT_PROBE_SYM));
    LLVMAttributeRef at =
        L(CreateStringAttribute)(jm->ctx, "stack-probe-size", 16, size, (unsigned)n);
    for (LLVMValueRef fn = L(GetFirstFunction)(jm->mod); fn; fn = L(GetNextFunction)(fn)) {
        if (L(IsDeclaration)(fn))
            continue;
        L(AddAttributeAtIndex)(fn, (LLVMAttributeIndex)LLVMAttributeFunctionIndex, probe);
        L(AddAttributeAtIndex)(fn, (LLVMAttributeIndex)LLVMAttributeFunctionIndex, at);
    }
}

static sbx_err optimise(struct jit_mod *jm, char *err, size_t errlen)
{
    char *msg = NULL;
    if (L(VerifyModule)(jm->mod, LLVMReturnStatusAction, &msg)) {
        set_err(err, errlen, "internal error: invalid IR", msg);
        L(DisposeMessage)(msg);
        return SBX_E_UNAVAILABLE;
    }
    L(DisposeMessage)(msg);
    LLVMPassBuilderOptionsRef po = L(CreatePassBuilderOptions)();
    LLVMErrorRef e = L(RunPasses)(jm->mod, jm->level->pipeline, jm->tm, po);
    L(DisposePassBuilderOptions)(po);
    return e ? llvm_fail(e, err, errlen, "optimisation failed") : SBX_OK;
}

/* Machine code for the optimised module, in jm->obj (codegen runs here, on the part's thread,
 * not later inside the JIT's lookup). */
static sbx_err emit_object(struct jit_mod *jm, char *err, size_t errlen)
{
    char *msg = NULL;
    if (L(TargetMachineEmitToMemoryBuffer)(jm->tm, jm->mod, LLVMObjectFile, &msg, &jm->obj)) {
        set_err(err, errlen, "code generation failed", msg);
        L(DisposeMessage)(msg);
        return SBX_E_UNAVAILABLE;
    }
    return SBX_OK;
}

static sbx_err build(struct jit_mod *jm, char *err, size_t errlen)
{
    char *triple = L(GetTargetMachineTriple)(jm->tm);
    L(SetTarget)(jm->mod, triple);
    L(DisposeMessage)(triple);
    L(SetModuleDataLayout)(jm->mod, jm->layout);
    init_types(jm);
    if (!declare(jm))
        return SBX_E_NOMEM;
    if (!emit_all(jm)) {
        if (is_cancelled(jm))
            return SBX_E_ABORTED;
        if (!jm->feature)
            return SBX_E_NOMEM;
        set_err(err, errlen, "the module uses a feature this tier does not compile yet",
                jm->feature);
        return SBX_E_UNAVAILABLE;
    }
    probe_frames(jm);
    sbx_err rc = optimise(jm, err, errlen);
    if (rc == SBX_OK && is_cancelled(jm))
        return SBX_E_ABORTED;
    return rc == SBX_OK ? emit_object(jm, err, errlen) : rc;
}

/* One part of the module: its own LLVM context, module, target machine and object. */
struct jit_part {
    struct jit_mod jm;
    sbx_err rc;
    char err[256];
};

static void *part_run(void *arg)
{
    struct jit_part *p = arg;
    struct jit_mod *jm = &p->jm;
    jm->tm = host_machine(jm->level);
    if (!jm->tm) {
        set_err(p->err, sizeof(p->err), "no target machine for the host", NULL);
        p->rc = SBX_E_UNAVAILABLE;
        return NULL;
    }
    jm->layout = L(CreateTargetDataLayout)(jm->tm);
    jm->ctx = L(ContextCreate)();
    jm->mod = L(ModuleCreateWithNameInContext)("wasm", jm->ctx);
    jm->b = L(CreateBuilderInContext)(jm->ctx);
    p->rc = build(jm, p->err, sizeof(p->err));
    L(DisposeBuilder)(jm->b);
    L(DisposeModule)(jm->mod);
    L(ContextDispose)(jm->ctx);
    L(DisposeTargetData)(jm->layout);
    L(DisposeTargetMachine)(jm->tm);
    sbx__free(jm->fn_types);
    sbx__free(jm->fns);
    sbx__free(jm->tbaa_globals);
    return NULL;
}

/* Where the second part starts: about half of the code bytes in each (0 = one part). */
static uint32_t split_point(const struct wasm_module *m)
{
    uint64_t total = sbx__jit_code_bytes(m), half = 0;
    if (total < SPLIT_MIN_BYTES || m->func_def_count < 2)
        return 0;
    for (uint32_t i = 0; i < m->func_def_count; i++) {
        half += m->funcs[i].code_len;
        if (2 * half >= total)
            return i + 1 < m->func_def_count ? i + 1 : 0;
    }
    return 0;
}

/* Copies the object code out of LLVM's buffer. */
static sbx_err take_object(LLVMMemoryBufferRef buf, struct sbx__jit_obj *o)
{
    size_t len = L(GetBufferSize)(buf);
    o->bytes = sbx__mallocn(len ? len : 1, 1);
    if (!o->bytes)
        return SBX_E_NOMEM;
    memcpy(o->bytes, L(GetBufferStart)(buf), len);
    o->len = len;
    return SBX_OK;
}

/* Builds the parts, the second on its own thread (or after the first if it cannot start). */
static void run_parts(struct jit_part *parts, uint32_t n)
{
    pthread_t t;
    bool is_threaded = n == 2 && pthread_create(&t, NULL, part_run, &parts[1]) == 0;
    part_run(&parts[0]);
    if (is_threaded)
        pthread_join(t, NULL);
    else if (n == 2)
        part_run(&parts[1]);
}

/* Sets up the parts (returns how many): a large module with huge functions is split by level
 * (level.h), another large one in halves, the rest is one part. */
static uint32_t plan_parts(struct jit_part parts[2], const struct wasm_module *m, bool is_guarded,
                           const uint8_t *only, const atomic_bool *cancel)
{
    uint32_t huge_end = only ? 0 : sbx__jit_huge_end(m);
    uint32_t split = only || huge_end ? 0 : split_point(m), n = split || huge_end ? 2 : 1;
    for (uint32_t i = 0; i < n; i++) {
        struct jit_mod *jm = &parts[i].jm;
        jm->m = m;
        jm->only = only;
        jm->level = only ? sbx__jit_level_of_batch() : sbx__jit_level_of(m);
        jm->huge_end = huge_end;
        if (huge_end && i == 1) /* the huge functions' part */
            jm->level = sbx__jit_level_of_func(m, huge_end - 1, huge_end);
        jm->cancel = cancel;
        jm->is_whole = n == 1;
        jm->is_guarded = is_guarded && m->mem_count > 0; /* nothing can fault without memory */
        jm->def_first = i == 0 ? 0 : split;
        jm->def_end = i == 0 && split ? split : m->func_def_count;
    }
    return n;
}

static sbx_err compile(const struct wasm_module *m, bool is_guarded, const uint8_t *only,
                       const atomic_bool *cancel, struct sbx__jit_obj objs[2], uint32_t *nobjs,
                       char *err, size_t errlen)
{
    if (!sbx__jit_llvm_load(err, errlen))
        return SBX_E_UNAVAILABLE;
    if (sbx__jit_test_pause)
        sbx__jit_test_pause(1);
    struct jit_part parts[2];
    memset(parts, 0, sizeof(parts));
    uint32_t n = plan_parts(parts, m, is_guarded, only, cancel);
    run_parts(parts, n);
    sbx_err rc = SBX_OK;
    for (uint32_t i = 0; i < n && rc == SBX_OK; i++) {
        if (parts[i].rc != SBX_OK) {
            rc = parts[i].rc;
            snprintf(err, errlen, "%s", parts[i].err);
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        if (rc == SBX_OK)
            rc = take_object(parts[i].jm.obj, &objs[i]);
        if (parts[i].jm.obj)
            L(DisposeMemoryBuffer)(parts[i].jm.obj);
    }
    if (rc == SBX_OK)
        *nobjs = n;
    else
        sbx__jit_objs_free(objs, n);
    return rc;
}

sbx_err sbx__jit_compile_set(const struct wasm_module *m, bool is_guarded, const uint8_t *only,
                             const atomic_bool *cancel, struct sbx__jit_obj objs[2],
                             uint32_t *nobjs, char *err, size_t errlen)
{
    *nobjs = 0;
    if (!sbx__jit_use_begin(false)) {
        snprintf(err, errlen, "compiled tier: the process is exiting (sbx_shutdown)");
        return SBX_E_ABORTED;
    }
    sbx_err rc = compile(m, is_guarded, only, cancel, objs, nobjs, err, errlen);
    sbx__jit_use_end(false);
    return rc;
}

sbx_err sbx__jit_compile(const struct wasm_module *m, bool is_guarded, const atomic_bool *cancel,
                         struct sbx__jit_obj objs[2], uint32_t *nobjs, char *err, size_t errlen)
{
    return sbx__jit_compile_set(m, is_guarded, NULL, cancel, objs, nobjs, err, errlen);
}

void sbx__jit_objs_free(struct sbx__jit_obj *objs, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        sbx__free(objs[i].bytes);
        objs[i].bytes = NULL;
        objs[i].len = 0;
    }
}
