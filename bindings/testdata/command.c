/* command.c: the WASI command both bindings' tests run: echoes its arguments and stdin to
 * stdout and exits with the status given as its last argument. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        printf("arg %s\n", argv[i]);
    int c;
    while ((c = getchar()) != EOF)
        putchar(c);
    return argc > 1 ? (int)strtol(argv[argc - 1], NULL, 10) : 0;
}
