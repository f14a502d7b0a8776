#!/usr/bin/env python3
"""bench/wasm/code_bytes.py FILE.wasm: prints the bytes of its function bodies (the code
section's entries without their size prefixes), what src/wasm/jit/level.h chooses by."""
import sys


def leb(b, i):
    v = shift = 0
    while True:
        x = b[i]
        i += 1
        v |= (x & 0x7F) << shift
        shift += 7
        if x < 0x80:
            return v, i


def main():
    b = open(sys.argv[1], "rb").read()
    i, total = 8, 0
    while i < len(b):
        sid = b[i]
        size, i = leb(b, i + 1)
        if sid == 10:
            n, j = leb(b, i)
            for _ in range(n):
                body, j = leb(b, j)
                total += body
                j += body
        i += size
    print(total)


main()
