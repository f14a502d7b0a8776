/* Every way out of the preopen must fail: "..", absolute symlinks, symlinks to "..", loops,
 * and links that climb through a subdirectory. Prints one line per attempt. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *err_name(int e)
{
    switch (e) {
    case ENOTCAPABLE:
        return "ENOTCAPABLE";
    case ELOOP:
        return "ELOOP";
    case ENOENT:
        return "ENOENT";
    case EPERM:
        return "EPERM";
    default:
        return strerror(e);
    }
}

static void try_open(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd >= 0) {
        char buf[64] = {0};
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        printf("%s: OPENED (%zd bytes)\n", path, n);
        close(fd);
        return;
    }
    printf("%s: %s\n", path, err_name(errno));
}

int main(void)
{
    try_open("/../outside/secret.txt");
    try_open("/sub/../../outside/secret.txt");
    try_open("/abs/passwd");
    try_open("/abs_file");
    try_open("/up/outside/secret.txt");
    try_open("/sub/deep/secret.txt");
    try_open("/loop1");
    try_open("/sub/../inside.txt");
    try_open("/sub/back/inside.txt");
    struct stat st;
    printf("stat abs_file: %s\n", stat("/abs_file", &st) == 0 ? "OK" : err_name(errno));
    printf("lstat abs_file: %s\n", lstat("/abs_file", &st) == 0 ? "OK" : err_name(errno));
    printf("symlink to /etc: %s\n", symlink("/etc", "/mine") == 0 ? "OK" : err_name(errno));
    printf("mkdir ../x: %s\n", mkdir("/../x", 0755) == 0 ? "OK" : err_name(errno));
    printf("rename out: %s\n",
           rename("/inside.txt", "/../outside/stolen") == 0 ? "OK" : err_name(errno));
    return 0;
}
