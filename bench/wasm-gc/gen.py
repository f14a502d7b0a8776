#!/usr/bin/env python3
"""bench/wasm-gc/gen.py OUT.wasm [v8proto]: the GC microbenchmark module (wabt here reads no GC
text). Exports, each (param $n i32) (result i32), a loop of n rounds:
  base:  acc += n                                   (the loop alone)
  alloc: acc += struct.get $pt 0 (struct.new $pt (n, n))   (one allocation)
  cast:  acc += struct.get $pt 0 (ref.cast (ref $pt) (select $a $b (n & 1)))
         ($a, $b: anyref locals; the select keeps the cast in the loop)
with (type $pt (struct (field (mut i32)) (field (mut i32)))). v8proto writes the same module in
the pre-standard encoding node 20's --experimental-wasm-gc (V8 11.3) reads: struct.new 0xfb07,
struct.get 0xfb03, ref.cast 0xfb41, anyref local 0x6e."""
import sys


def uleb(n):
    out = b''
    while True:
        b, n = n & 0x7F, n >> 7
        if not n:
            return out + bytes([b])
        out += bytes([b | 0x80])


def sec(i, c):
    return bytes([i]) + uleb(len(c)) + c


def vec(items):
    return uleb(len(items)) + b''.join(items)


def name(s):
    return uleb(len(s)) + s.encode()


def module(proto):
    new, get, cast = (b'\xfb\x07\x00', b'\xfb\x03\x00\x00', b'\xfb\x41\x00') if proto else \
        (b'\xfb\x00\x00', b'\xfb\x02\x00\x00', b'\xfb\x16\x00')
    anyref = b'\x6e' if proto else b'\x63\x6e'
    types = vec([b'\x5f\x02\x7f\x01\x7f\x01', b'\x60\x01\x7f\x01\x7f'])

    def loop(body, local_decls, pre=b''):
        # loop { body; br_if (local.tee $n (n - 1)) } then acc
        code = local_decls + pre + b'\x03\x40' + body + \
            b'\x20\x00\x41\x01\x6b\x22\x00\x0d\x00\x0b' + b'\x20\x01\x0b'
        return uleb(len(code)) + code
    acc = b'\x20\x01\x6a\x21\x01'  # acc += top
    bodies = [
        loop(b'\x20\x00\x20\x00' + new + get + acc, b'\x01\x01\x7f'),
        loop(b'\x20\x02\x20\x03\x20\x00\x41\x01\x71\x1c\x01\x6e' + cast + get + acc,
             b'\x02\x01\x7f\x02' + anyref,
             pre=b'\x41\x07\x41\x08' + new + b'\x21\x02\x41\x07\x41\x09' + new +
             b'\x21\x03'),
        loop(b'\x20\x00' + acc, b'\x01\x01\x7f'),
    ]
    exports = vec([name('alloc') + b'\x00\x00', name('cast') + b'\x00\x01',
                   name('base') + b'\x00\x02'])
    return (b'\0asm\1\0\0\0' + sec(1, types) + sec(3, vec([b'\x01'] * 3)) + sec(7, exports) +
            sec(10, vec(bodies)))


with open(sys.argv[1], 'wb') as f:
    f.write(module(len(sys.argv) > 2 and sys.argv[2] == 'v8proto'))
