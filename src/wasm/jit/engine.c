/* wasm/jit/engine.c: compiling one part of a module (part.h) to a relocatable object: LLVM
 * module set-up (types, declarations), the per-function emitters, verification, the
 * optimisation pipeline and code generation. The objects depend on the module, the tier and the
 * CPU only (sym.h); link.c loads them for an instance. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "wasm/jit/emit.h"
#include "wasm/jit/level.h"
#include "wasm/jit/part.h"
#include "wasm/jit/sym.h"

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
        sbx__jit_func_conv(jm, jm->fns[i]); /* tail calls (emit_call.c) */
        if (!m->funcs[i].has_tail_call)
            L(AddAttributeAtIndex)
        (jm->fns[i], (LLVMAttributeIndex)LLVMAttributeFunctionIndex, no_tail);
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

/* Why the compile stops at this function or phase (SBX_OK: it goes on): its stop (a store being
 * destroyed, a deadline or abort of the run that instantiates), or the process exiting
 * (quiesce.c). */
static sbx_err stop_code(const struct jit_mod *jm)
{
    if (sbx__jit_test_pause)
        sbx__jit_test_pause(2);
    sbx_err rc = sbx__jit_stop_check(jm->stop);
    return rc == SBX_OK && sbx__jit_is_stopped() ? SBX_E_ABORTED : rc;
}

static bool is_in(const struct jit_mod *jm, uint32_t def)
{
    if (jm->huge_end && sbx__jit_level_of_func(jm->m, def, jm->huge_end) != jm->level)
        return false;
    return !jm->only || jm->only[def];
}

/* Why an emitter failed: NOMEM, or a feature this tier does not compile (named in err). */
static sbx_err emit_failed(const struct jit_mod *jm, char *err, size_t errlen)
{
    if (!jm->feature)
        return SBX_E_NOMEM;
    set_err(err, errlen, "the module uses a feature this tier does not compile yet", jm->feature);
    return SBX_E_UNAVAILABLE;
}

/* Every function of the part, its wrapper and OSR entry, checking the stop before each function.
 * Functions over the compile-cost bound get a stub, no wrapper and no OSR entry (level.h); a
 * hot-only batch never holds one (lazy.c). */
static sbx_err emit_all(struct jit_mod *jm, char *err, size_t errlen)
{
    const struct wasm_module *m = jm->m;
    sbx_err rc = SBX_OK;
    for (uint32_t i = jm->def_first; i < jm->def_end && rc == SBX_OK; i++) {
        if (!is_in(jm, i) || (rc = stop_code(jm)) != SBX_OK)
            continue;
        bool ok = sbx__jit_func_fits(m, i) ? sbx__jit_emit_func(jm, i) : sbx__jit_emit_stub(jm, i);
        rc = ok ? SBX_OK : emit_failed(jm, err, errlen);
    }
    for (uint32_t i = jm->def_first; i < jm->def_end && rc == SBX_OK; i++) {
        char name[48];
        sbx__jit_wrapper_name(name, sizeof(name), i);
        if (is_in(jm, i) && sbx__jit_func_fits(m, i) && !sbx__jit_emit_wrapper(jm, i, name))
            rc = emit_failed(jm, err, errlen);
    }
    for (uint32_t i = jm->def_first; i < jm->def_end && rc == SBX_OK; i++) { /* emit_osr.c */
        if (!is_in(jm, i) || (jm->only && jm->only[i] != SBX__JIT_ONLY_OSR) ||
            !sbx__jit_func_fits(m, i) || !sbx__jit_has_loop(m, i) || (rc = stop_code(jm)) != SBX_OK)
            continue;
        rc = sbx__jit_emit_osr(jm, i) ? SBX_OK : emit_failed(jm, err, errlen);
    }
    return rc;
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
    sbx_err rc = emit_all(jm, err, errlen);
    if (rc != SBX_OK)
        return rc;
    probe_frames(jm);
    rc = optimise(jm, err, errlen);
    if (rc == SBX_OK)
        rc = stop_code(jm);
    return rc == SBX_OK ? emit_object(jm, err, errlen) : rc;
}

void sbx__jit_part_build(struct sbx__jit_part *p)
{
    struct jit_mod *jm = &p->jm;
    jm->tm = host_machine(jm->level);
    if (!jm->tm) {
        set_err(p->err, sizeof(p->err), "no target machine for the host", NULL);
        p->rc = SBX_E_UNAVAILABLE;
        return;
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
}

sbx_err sbx__jit_stop_check(const struct sbx__jit_stop *stop)
{
    if (!stop)
        return SBX_OK;
    if ((stop->cancel && atomic_load_explicit(stop->cancel, memory_order_relaxed)) ||
        (stop->interrupt && atomic_load_explicit(stop->interrupt, memory_order_relaxed)))
        return SBX_E_ABORTED;
    return sbx__wasm_guard_check(stop->guard);
}

void sbx__jit_objs_free(struct sbx__jit_obj *objs, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        sbx__free(objs[i].bytes);
        objs[i].bytes = NULL;
        objs[i].len = 0;
    }
}
