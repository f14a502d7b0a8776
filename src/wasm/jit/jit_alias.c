/* wasm/jit/jit_alias.c: type-based alias metadata for the runtime state compiled code touches.
 * Every kind is a distinct TBAA scalar type under one root, so LLVM knows, for instance, that
 * guest stores leave the memory's size and the globals alone. Sound because the kinds really
 * are disjoint objects: linear memory is its own mapping, globals and tables their own heap
 * blocks. */
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "wasm/jit/emit.h"

static const char *const alias_names[JIT_ALIAS_COUNT_] = {
    [JIT_ALIAS_GUEST] = "guest memory",   [JIT_ALIAS_MEMSIZE] = "memory size",
    [JIT_ALIAS_LIMIT] = "stack limit",    [JIT_ALIAS_TABLE] = "table",
    [JIT_ALIAS_ELEM] = "table elements",  [JIT_ALIAS_FUNC] = "function",
    [JIT_ALIAS_FAULT] = "fault function",
};

/* The access tag !{T, T, 0} of a new scalar type T = !{name, root, 0}. */
static LLVMValueRef make_tag(struct jit_mod *jm, const char *name)
{
    LLVMContextRef c = jm->ctx;
    LLVMMetadataRef zero = L(ValueAsMetadata)(L(ConstInt)(jm->t_i64, 0, 0));
    if (!jm->tbaa_root) {
        LLVMMetadataRef s = L(MDStringInContext2)(c, "sbx wasm", 8);
        jm->tbaa_root = L(MDNodeInContext2)(c, &s, 1);
        jm->tbaa_kind = L(GetMDKindIDInContext)(c, "tbaa", 4);
    }
    LLVMMetadataRef ty[] = {L(MDStringInContext2)(c, name, strlen(name)), jm->tbaa_root, zero};
    LLVMMetadataRef t = L(MDNodeInContext2)(c, ty, 3);
    LLVMMetadataRef tag[] = {t, t, zero};
    return L(MetadataAsValue)(c, L(MDNodeInContext2)(c, tag, 3));
}

void sbx__jit_alias(struct jit_mod *jm, LLVMValueRef access, enum jit_alias kind)
{
    if (!jm->tbaa[kind])
        jm->tbaa[kind] = make_tag(jm, alias_names[kind]);
    L(SetMetadata)(access, jm->tbaa_kind, jm->tbaa[kind]);
}

void sbx__jit_alias_global(struct jit_mod *jm, LLVMValueRef access, uint32_t idx)
{
    if (!jm->tbaa_globals) {
        jm->tbaa_globals = sbx__calloc(jm->m->global_count, sizeof(*jm->tbaa_globals));
        if (!jm->tbaa_globals)
            return; /* no tag is always correct, only slower */
    }
    if (!jm->tbaa_globals[idx]) {
        char name[32];
        snprintf(name, sizeof(name), "global %u", idx);
        jm->tbaa_globals[idx] = make_tag(jm, name);
    }
    L(SetMetadata)(access, jm->tbaa_kind, jm->tbaa_globals[idx]);
}
