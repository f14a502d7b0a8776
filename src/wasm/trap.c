/* wasm/trap.c: the spec's text for every trap kind (the strings assert_trap compares). */
#include "wasm/wasm.h"

const char *sbx__wasm_trap_text(enum wasm_trap_kind kind)
{
    switch (kind) {
    case WASM_TRAP_NONE:
        return "no trap";
    case WASM_TRAP_UNREACHABLE:
        return "unreachable";
    case WASM_TRAP_MEMORY_OOB:
        return "out of bounds memory access";
    case WASM_TRAP_TABLE_OOB:
        return "out of bounds table access";
    case WASM_TRAP_DIV_ZERO:
        return "integer divide by zero";
    case WASM_TRAP_INT_OVERFLOW:
        return "integer overflow";
    case WASM_TRAP_INVALID_CONVERSION:
        return "invalid conversion to integer";
    case WASM_TRAP_UNDEFINED_ELEMENT:
        return "undefined element";
    case WASM_TRAP_UNINITIALIZED_ELEMENT:
        return "uninitialized element";
    case WASM_TRAP_INDIRECT_TYPE:
        return "indirect call type mismatch";
    case WASM_TRAP_STACK_EXHAUSTED:
        return "call stack exhausted";
    case WASM_TRAP_FUEL_EXHAUSTED:
        return "fuel exhausted";
    case WASM_TRAP_INTERRUPTED:
        return "interrupted";
    case WASM_TRAP_HOST:
        return "host function failed";
    case WASM_TRAP_EXIT:
        return "exit";
    case WASM_TRAP_NULL_REFERENCE:
        return "null reference";
    case WASM_TRAP_NULL_FUNC_REF:
        return "null function reference";
    case WASM_TRAP_NULL_STRUCT_REF:
        return "null structure reference";
    case WASM_TRAP_NULL_ARRAY_REF:
        return "null array reference";
    case WASM_TRAP_NULL_I31_REF:
        return "null i31 reference";
    case WASM_TRAP_NULL_EXN_REF:
        return "null exception reference";
    case WASM_TRAP_CAST:
        return "cast failure";
    case WASM_TRAP_ARRAY_OOB:
        return "out of bounds array access";
    case WASM_TRAP_EXCEPTION:
        return "uncaught exception";
    case WASM_TRAP_HEAP_EXHAUSTED:
        return "out of memory: the GC heap is full";
    case WASM_TRAP_KIND_COUNT:
        break;
    }
    return "unknown trap";
}
