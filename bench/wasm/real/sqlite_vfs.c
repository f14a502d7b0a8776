/* bench/wasm/real/sqlite_vfs.c: the OS layer for SQLite built with SQLITE_OS_OTHER=1 (wasi-libc
 * lacks what os_unix.c needs: mmap of files, locks, fchown). The workload is in-memory with
 * temporary storage in memory, so this VFS opens no file; its randomness and clock are fixed so
 * that every build gives the same output. Native builds use it too: both run the same code. */
#include <sqlite3.h>
#include <string.h>

static int vfs_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *out)
{
    (void)vfs, (void)name, (void)flags, (void)out;
    file->pMethods = 0;
    return SQLITE_CANTOPEN;
}

static int vfs_delete(sqlite3_vfs *vfs, const char *name, int sync_dir)
{
    (void)vfs, (void)name, (void)sync_dir;
    return SQLITE_IOERR_DELETE;
}

static int vfs_access(sqlite3_vfs *vfs, const char *name, int flags, int *res)
{
    (void)vfs, (void)name, (void)flags;
    *res = 0;
    return SQLITE_OK;
}

static int vfs_full_pathname(sqlite3_vfs *vfs, const char *name, int len, char *out)
{
    (void)vfs;
    sqlite3_snprintf(len, out, "%s", name);
    return SQLITE_OK;
}

static int vfs_randomness(sqlite3_vfs *vfs, int len, char *out)
{
    (void)vfs;
    for (int i = 0; i < len; i++)
        out[i] = (char)(i * 37 + 11);
    return len;
}

static int vfs_sleep(sqlite3_vfs *vfs, int us)
{
    (void)vfs;
    return us;
}

static int vfs_current_time(sqlite3_vfs *vfs, double *now)
{
    (void)vfs;
    *now = 2461000.5; /* a fixed Julian day */
    return SQLITE_OK;
}

static int vfs_last_error(sqlite3_vfs *vfs, int len, char *out)
{
    (void)vfs;
    if (len > 0)
        out[0] = 0;
    return 0;
}

static sqlite3_vfs memory_only = {
    .iVersion = 1,
    .szOsFile = sizeof(sqlite3_file),
    .mxPathname = 512,
    .zName = "bench-memory",
    .xOpen = vfs_open,
    .xDelete = vfs_delete,
    .xAccess = vfs_access,
    .xFullPathname = vfs_full_pathname,
    .xRandomness = vfs_randomness,
    .xSleep = vfs_sleep,
    .xCurrentTime = vfs_current_time,
    .xGetLastError = vfs_last_error,
};

int sqlite3_os_init(void)
{
    return sqlite3_vfs_register(&memory_only, 1);
}

int sqlite3_os_end(void)
{
    return SQLITE_OK;
}
