/* path_open of a directory: with O_DIRECTORY it opens for reading, never for writing (EISDIR,
 * as wasi-testsuite's path_open tests and Linux's open(2) say); O_DIRECTORY on a file is
 * ENOTDIR. Before issue 10 the write right was dropped silently and the open succeeded. */
#include <stdio.h>
#include <string.h>
#include <wasi/api.h>

#define PREOPEN 3

static void try(const char *label, const char *path, __wasi_oflags_t oflags, __wasi_rights_t rights)
{
    __wasi_fd_t fd;
    __wasi_errno_t e = __wasi_path_open(PREOPEN, 0, path, oflags, rights, 0, 0, &fd);
    if (e == 0) {
        __wasi_fdstat_t st = {0};
        e = __wasi_fd_fdstat_get(fd, &st);
        printf("%s: opened, write right %s\n", label,
               e == 0 && (st.fs_rights_base & __WASI_RIGHTS_FD_WRITE) ? "yes" : "no");
        if (__wasi_fd_close(fd) != 0)
            printf("%s: close failed\n", label);
        return;
    }
    printf("%s: %s\n", label,
           e == __WASI_ERRNO_ISDIR    ? "EISDIR"
           : e == __WASI_ERRNO_NOTDIR ? "ENOTDIR"
                                      : strerror(e));
}

int main(void)
{
    try("dir for reading", "sub", __WASI_OFLAGS_DIRECTORY, __WASI_RIGHTS_FD_READDIR);
    try("dir for writing", "sub", __WASI_OFLAGS_DIRECTORY, __WASI_RIGHTS_FD_WRITE);
    try("dir read-write", "sub", __WASI_OFLAGS_DIRECTORY,
        __WASI_RIGHTS_FD_READ | __WASI_RIGHTS_FD_WRITE);
    try("preopen itself for writing", ".", __WASI_OFLAGS_DIRECTORY, __WASI_RIGHTS_FD_WRITE);
    try("file as dir", "data.txt", __WASI_OFLAGS_DIRECTORY, __WASI_RIGHTS_FD_WRITE);
    try("file for writing", "data.txt", 0, __WASI_RIGHTS_FD_WRITE);
    try("dir without O_DIRECTORY for writing", "sub", 0, __WASI_RIGHTS_FD_WRITE);
    return 0;
}
