/* Files end to end: create, write, append, seek, pread/pwrite, truncate, stat, rename, unlink. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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

static int slurp(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, cap - 1);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return (int)n;
}

int main(void)
{
    char buf[256];
    CHECK(slurp("/input.txt", buf, sizeof(buf)) == 6 && strcmp(buf, "hello\n") == 0);
    printf("read: %s", buf);

    int fd = open("/out.txt", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    CHECK(fd >= 0);
    CHECK(write(fd, "0123456789", 10) == 10);
    CHECK(lseek(fd, 2, SEEK_SET) == 2);
    CHECK(write(fd, "ab", 2) == 2);
    CHECK(lseek(fd, 0, SEEK_CUR) == 4);
    CHECK(pwrite(fd, "Z", 1, 9) == 1);
    CHECK(lseek(fd, 0, SEEK_CUR) == 4); /* pwrite leaves the position alone */
    CHECK(close(fd) == 0);
    CHECK(slurp("/out.txt", buf, sizeof(buf)) == 10);
    printf("out: %s\n", buf);

    fd = open("/out.txt", O_WRONLY | O_APPEND);
    CHECK(fd >= 0);
    CHECK(lseek(fd, 0, SEEK_SET) == 0);
    CHECK(write(fd, "++", 2) == 2); /* O_APPEND: at the end whatever the position */
    CHECK(close(fd) == 0);
    CHECK(slurp("/out.txt", buf, sizeof(buf)) == 12);
    printf("appended: %s\n", buf);

    fd = open("/out.txt", O_RDWR);
    CHECK(fd >= 0);
    CHECK(pread(fd, buf, 3, 5) == 3);
    buf[3] = '\0';
    printf("pread: %s\n", buf);
    CHECK(ftruncate(fd, 4) == 0);
    struct stat st;
    CHECK(fstat(fd, &st) == 0 && st.st_size == 4 && S_ISREG(st.st_mode));
    CHECK(close(fd) == 0);
    printf("size after truncate: %lld\n", (long long)st.st_size);

    CHECK(stat("/out.txt", &st) == 0 && st.st_size == 4);
    CHECK(rename("/out.txt", "/moved.txt") == 0);
    CHECK(stat("/out.txt", &st) != 0 && errno == ENOENT);
    CHECK(open("/moved.txt", O_CREAT | O_EXCL | O_WRONLY, 0644) < 0 && errno == EEXIST);
    CHECK(unlink("/moved.txt") == 0);
    CHECK(unlink("/moved.txt") != 0 && errno == ENOENT);
    CHECK(open("/input.txt/", O_RDONLY) < 0 && errno == ENOTDIR);
    CHECK(open("/missing/x", O_CREAT | O_WRONLY, 0644) < 0 && errno == ENOENT);

    FILE *f = fopen("/stdio.txt", "w");
    CHECK(f != NULL);
    fprintf(f, "line %d\n", 42);
    CHECK(fclose(f) == 0);
    CHECK(slurp("/stdio.txt", buf, sizeof(buf)) > 0);
    printf("stdio: %s", buf);
    return 0;
}
