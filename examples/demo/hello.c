/* A WASI command for the demo: greets, reads its arguments and environment, writes a file into
 * its one writable preopen, and is refused a file outside its grants. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    printf("hello from wasm32-wasi, argc=%d", argc);
    for (int i = 1; i < argc; i++)
        printf(" [%s]", argv[i]);
    const char *who = getenv("WHO");
    printf("\nWHO=%s\n", who ? who : "(unset)");
    FILE *f = fopen("/out/greeting.txt", "w");
    if (f) {
        fputs("written by the guest\n", f);
        fclose(f);
        puts("wrote /out/greeting.txt");
    }
    FILE *secret = fopen("/etc/passwd", "r");
    printf("/etc/passwd is %s\n", secret ? "READABLE (policy breach!)" : "not reachable");
    return secret ? 1 : 0;
}
