/* Directories: mkdir, readdir (sorted here for a stable listing), nested paths with "..",
 * symlinks inside the preopen, rename of directories, rmdir of a non-empty directory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            printf("FAILED line %d: %s (errno %d %s)\n", __LINE__, #c, errno, strerror(errno));    \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return -1;
    char *names[64];
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && n < 64)
        names[n++] = strdup(de->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof(names[0]), cmp);
    printf("%s:", path);
    for (int i = 0; i < n; i++) {
        printf(" %s", names[i]);
        free(names[i]);
    }
    printf("\n");
    return n;
}

int main(void)
{
    CHECK(mkdir("/a", 0755) == 0);
    CHECK(mkdir("/a", 0755) != 0 && errno == EEXIST);
    CHECK(mkdir("/a/b/", 0755) == 0);
    for (int i = 0; i < 40; i++) { /* more entries than one fd_readdir buffer holds */
        char p[64];
        snprintf(p, sizeof(p), "/a/b/f%02d", i);
        int fd = open(p, O_CREAT | O_WRONLY, 0644);
        CHECK(fd >= 0);
        close(fd);
    }
    CHECK(list("/a/b") == 42);
    CHECK(list("/a/b/../b/./..") == 3);
    CHECK(symlink("b", "/a/link") == 0);
    char target[32] = {0};
    CHECK(readlink("/a/link", target, sizeof(target)) == 1 && target[0] == 'b');
    struct stat st;
    CHECK(stat("/a/link/f07", &st) == 0 && S_ISREG(st.st_mode));
    CHECK(lstat("/a/link", &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(stat("/a/link", &st) == 0 && S_ISDIR(st.st_mode));
    CHECK(rmdir("/a/b") != 0 && errno == ENOTEMPTY);
    CHECK(rename("/a/b", "/a/c") == 0);
    CHECK(stat("/a/link/f00", &st) != 0 && errno == ENOENT); /* dangling now */
    CHECK(unlink("/a/link") == 0);
    for (int i = 0; i < 40; i++) {
        char p[64];
        snprintf(p, sizeof(p), "/a/c/f%02d", i);
        CHECK(unlink(p) == 0);
    }
    CHECK(unlink("/a/c") != 0 && (errno == EISDIR || errno == EPERM));
    CHECK(rmdir("/a/c/") == 0);
    CHECK(list("/a") == 2);
    CHECK(rmdir("/a") == 0);
    CHECK(mkdir("/sub/../top", 0755) == 0);
    CHECK(list("/") >= 4);
    return 0;
}
