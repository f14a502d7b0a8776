/* A read-only preopen: reads work, every kind of write is ENOTCAPABLE (and counted). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

static const char *res(int rc)
{
    return rc == 0 ? "OK" : errno == ENOTCAPABLE ? "ENOTCAPABLE" : strerror(errno);
}

int main(void)
{
    char buf[32] = {0};
    int fd = open("/data.txt", O_RDONLY);
    printf("read: %s %zd\n", fd >= 0 ? "OK" : res(-1), fd >= 0 ? read(fd, buf, 31) : -1);
    if (fd >= 0)
        close(fd);
    fd = open("/data.txt", O_WRONLY);
    printf("open for write: %s\n", fd >= 0 ? "OK" : res(-1));
    if (fd >= 0) {
        printf("write: %s\n", res(write(fd, "x", 1) == 1 ? 0 : -1));
        close(fd);
    }
    printf("create: %s\n", res(open("/new.txt", O_CREAT | O_WRONLY, 0644) >= 0 ? 0 : -1));
    printf("truncate: %s\n", res(open("/data.txt", O_TRUNC | O_RDONLY) >= 0 ? 0 : -1));
    printf("mkdir: %s\n", res(mkdir("/d", 0755)));
    printf("unlink: %s\n", res(unlink("/data.txt")));
    printf("rmdir: %s\n", res(rmdir("/sub")));
    printf("rename: %s\n", res(rename("/data.txt", "/x.txt")));
    printf("link: %s\n", res(link("/data.txt", "/x.txt")));
    printf("symlink: %s\n", res(symlink("data.txt", "/x.txt")));
    printf("utimes: %s\n", res(utimes("/data.txt", NULL)));
    printf("truncate(): %s\n", res(truncate("/data.txt", 0)));
    struct stat st;
    printf("stat: %s size %lld\n", res(stat("/data.txt", &st)), (long long)st.st_size);
    return 0;
}
