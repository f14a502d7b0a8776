/* bench/wasm/real/lua_nojmp.h: included (-include) into every Lua source of the benchmark build.
 * clang 14's wasm32-wasi has no setjmp/longjmp, which Lua uses to raise errors; the benchmark
 * script raises none, so a protected call just runs its body and an error ends the process.
 * Coroutines (which yield by the same jump) and pcall are thus unavailable to the script. The
 * other two overrides avoid what wasi-libc lacks (signal.h) or makes nondeterministic (table.sort
 * picks random pivots from clock()). Both the native and the wasm build use this, so they run the
 * same code; the wasm build also finds an empty setjmp.h in wasi/. */
#ifndef LUA_NOJMP_H
#define LUA_NOJMP_H
struct lua_State;
_Noreturn void lua_bench_throw(struct lua_State *L, int status);
#define LUAI_THROW(L, c) lua_bench_throw((L), (c)->status)
#define LUAI_TRY(L, c, a)                                                                          \
    {                                                                                              \
        a                                                                                          \
    }
#define luai_jmpbuf        int
#define l_signalT          int
#define l_randomizePivot() 0
#endif
