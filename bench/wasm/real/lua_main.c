/* bench/wasm/real/lua_main.c: runs bench.lua (embedded by run.sh as lua_script.h, a C string) in
 * Debian's Lua 5.4 core with the base, string, table, math and utf8 libraries (io, os, package
 * and coroutine need what wasi-libc or lua_nojmp.h lacks). */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>

static const char script[] =
#include "lua_script.h"
    ;

/* The error object is on the top of the stack (luaD_throw's callers push it). */
_Noreturn void lua_bench_throw(lua_State *L, int status)
{
    const char *msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?";
    printf("lua: error %d raised, which this build cannot catch: %s\n", status, msg);
    fflush(stdout);
    exit(3);
}

static const luaL_Reg libs[] = {
    {LUA_GNAME, luaopen_base},       {LUA_STRLIBNAME, luaopen_string},
    {LUA_TABLIBNAME, luaopen_table}, {LUA_MATHLIBNAME, luaopen_math},
    {LUA_UTF8LIBNAME, luaopen_utf8},
};

int main(void)
{
    lua_State *L = luaL_newstate();
    if (!L) {
        printf("lua: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
        luaL_requiref(L, libs[i].name, libs[i].func, 1);
        lua_pop(L, 1);
    }
    if (luaL_loadbuffer(L, script, sizeof(script) - 1, "=bench.lua") != LUA_OK) {
        printf("lua: %s\n", lua_tostring(L, -1));
        return 1;
    }
    lua_call(L, 0, 0);
    lua_close(L);
    fflush(stdout);
    return 0;
}
