/* bench/wasm/real/wasi/setjmp.h: wasi-libc has no setjmp.h (clang 14 cannot lower setjmp for
 * wasm); Lua's ldo.c includes it unconditionally, and lua_nojmp.h makes it use none of it. */
