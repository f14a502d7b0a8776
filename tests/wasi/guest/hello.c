/* Prints its arguments and one environment variable: args_* and environ_* end to end. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        printf("arg%d=%s\n", i, argv[i]);
    const char *v = getenv("GREETING");
    printf("GREETING=%s\n", v ? v : "(unset)");
    printf("HOME=%s\n", getenv("HOME") ? getenv("HOME") : "(unset)");
    return argc == 3 ? 0 : 3;
}
