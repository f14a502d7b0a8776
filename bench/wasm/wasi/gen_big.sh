#!/bin/sh
# bench/wasm/wasi/gen_big.sh COUNT: prints a C file of COUNT distinct functions reached through
# a function-pointer table (so none is dropped), about 300 bytes of wasm each: the ~1 MB module
# for the instantiation benchmark. Exports bench(i); no imports.
awk -v n="${1:-3000}" 'BEGIN {
    print "static const int tbl[256] = {"
    for (i = 0; i < 256; i++) printf "%d,", (i * 2654435761) % 1000003
    print "};"
    for (f = 0; f < n; f++) {
        printf "static int f%d(int x)\n{\n    int a = x * %d + %d;\n", f, f * 2 + 1, f % 97
        printf "    for (int i = 0; i < (x & 15); i++) {\n"
        printf "        a = (a << %d) ^ (a >> %d) ^ (i * %d);\n", f % 7 + 1, f % 5 + 2, f + 3
        printf "        a += (a & 1) ? tbl[(i + %d) & 255] : -tbl[(a + %d) & 255];\n", f, f * 3
        printf "    }\n    switch (x & 7) {\n"
        for (c = 0; c < 6; c++)
            printf "    case %d:\n        return a * %d + %d;\n", c, f + c + 1, c * f + 11
        printf "    default:\n        return a ^ %d;\n    }\n}\n", f * 7919
    }
    print "static int (*const fns[])(int) = {"
    for (f = 0; f < n; f++) printf "f%d,", f
    print "};"
    print "__attribute__((export_name(\"bench\"))) int bench(int i);"
    printf "int bench(int i)\n{\n    return fns[(unsigned)i %% %d](i);\n}\n", n
}'
