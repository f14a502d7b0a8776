/* The two-run attack on a grant through a planted symlink (plant.json runs it): "plant" tries
 * links that climb out of the preopen (refused, ENOTCAPABLE) and links that stay inside (made,
 * and read through), and makes a real directory; "read FILE" reads what a later run was
 * granted. Prints one line per attempt. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *err_name(int e)
{
    return e == ENOTCAPABLE ? "ENOTCAPABLE" : e == ENOENT ? "ENOENT" : strerror(e);
}

static void show(const char *path)
{
    char buf[64] = "";
    int fd = open(path, O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n < 0) {
        printf("read %s: %s\n", path, err_name(errno));
        return;
    }
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    printf("read %s: %s\n", path, buf);
}

static void try_link(const char *target, const char *link)
{
    printf("symlink %s -> %s: %s\n", link, target,
           symlink(target, link) == 0 ? "OK" : err_name(errno));
}

static int plant(void)
{
    static const char *const out[][2] = {
        {"../../../../etc", "/cache"}, {"..", "/up"},        {"sub/../..", "/up2"},
        {"../../etc", "/sub/out"},     {"./../sub", "/up3"},
    };
    static const char *const in[][2] = {
        {"inside.txt", "/ok1"},
        {"../inside.txt", "/sub/ok2"},
        {"sub/../inside.txt", "/ok3"},
        {"real", "/ok4"},
    };
    for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++)
        try_link(out[i][0], out[i][1]);
    printf("mkdir /real: %s\n", mkdir("/real", 0755) == 0 ? "OK" : err_name(errno));
    FILE *f = fopen("/real/f", "w");
    if (f) {
        fputs("mine\n", f);
        fclose(f);
    }
    for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
        try_link(in[i][0], in[i][1]);
    show("/ok1");
    show("/sub/ok2");
    show("/ok3");
    show("/ok4/f");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "plant") == 0)
        return plant();
    for (int i = 2; i < argc; i++)
        show(argv[i]);
    return 0;
}
