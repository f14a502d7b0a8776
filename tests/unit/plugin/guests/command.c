/* command.c: a WASI command for test_guests.c: args, env, stdin, files under a read-write and a
 * read-only preopen, clocks and random. Every line it prints is checked. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void files(void)
{
    FILE *w = fopen("/out/note.txt", "w");
    if (!w) {
        printf("write /out: %s\n", strerror(errno));
        return;
    }
    fputs("kept\n", w);
    fclose(w);
    char buf[32] = "";
    FILE *r = fopen("/out/note.txt", "r");
    if (r) {
        fgets(buf, sizeof(buf), r);
        fclose(r);
    }
    printf("out: %s", buf);
    FILE *in = fopen("/in/data.txt", "r");
    if (in) {
        fgets(buf, sizeof(buf), in);
        fclose(in);
        printf("in: %s", buf);
    }
    printf("write /in: %s\n", fopen("/in/new.txt", "w") ? "allowed" : strerror(errno));
    printf("escape: %s\n", fopen("/in/../../etc/passwd", "r") ? "ESCAPED" : strerror(errno));
}

static void clocks_random(void)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("monotonic: %s\n",
           (b.tv_sec > a.tv_sec || (b.tv_sec == a.tv_sec && b.tv_nsec >= a.tv_nsec)) ? "ok"
                                                                                     : "backwards");
    printf("realtime: %s\n", time(NULL) > 1700000000 ? "ok" : "wrong");
    unsigned char rnd[16] = {0};
    getentropy(rnd, sizeof(rnd));
    int varied = 0;
    for (int i = 1; i < 16; i++)
        varied |= rnd[i] != rnd[0];
    printf("random: %s\n", varied ? "ok" : "constant");
}

int main(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        printf("argv[%d]=%s\n", i, argv[i]);
    printf("MODE=%s\n", getenv("MODE") ? getenv("MODE") : "(unset)");
    printf("HOME=%s\n", getenv("HOME") ? getenv("HOME") : "(unset)");
    char in[128];
    size_t n = fread(in, 1, sizeof(in) - 1, stdin);
    in[n] = '\0';
    printf("stdin=%s\n", in);
    files();
    clocks_random();
    fprintf(stderr, "done\n");
    return argc > 1 ? atoi(argv[1]) : 0;
}
