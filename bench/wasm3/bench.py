#!/usr/bin/env python3
"""bench/wasm3/bench.py [--rounds R] [--sbx PATH] [--scale S]: the cost of two WebAssembly 3.0
operations in each of sbx's tiers against node, measured in the same run, interleaved:

  tail call   run(n): $a and $b return_call each other n times (a countdown)
  tail ind.   the same through return_call_indirect (a table of the two)
  throw/catch run(n): n iterations of a loop whose try_table catches the exception a callee
              throws (a throw/catch pair crossing one call)

Each cost is the CPU time (user + sys of the process and its threads) of run(3n) less that of
run(n), over 2n: process start, module load, compilation and warm-up cancel out. sbx runs
`sbx wasm --tier interp|compiled --no-cache --invoke run MODULE n`; node (Debian 12's v20)
runs the same module from bench/wasm3/node_run.mjs. Node 20 has tail calls by default, but no
exnref/try_table (no --experimental-wasm-exnref in `node --v8-options`): its throw/catch module
is the same loop in the legacy exception encoding (try/catch, on by default in node 20), the
nearest peer. Prints ns per operation (the median of the rounds) and the ratios to node."""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def leb(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def section(sid, body):
    return bytes([sid]) + leb(len(body)) + body


def vec(items):
    return leb(len(items)) + b"".join(items)


def name(s):
    return leb(len(s)) + s.encode()


def module(types, funcs, bodies, tags=None, export_func=0, table=None, elem=None):
    """types: list of (params, results) bytes; funcs: type index per function; bodies: code
    bytes (locals vector included, final end included)."""
    out = b"\0asm\1\0\0\0"
    out += section(1, vec([b"\x60" + vec([bytes([p]) for p in ps]) +
                           vec([bytes([r]) for r in rs]) for ps, rs in types]))
    out += section(3, vec([leb(t) for t in funcs]))
    if table is not None:
        out += section(4, table)
    if tags is not None:
        out += section(13, vec([b"\x00" + leb(t) for t in tags]))
    out += section(7, vec([name("run") + b"\x00" + leb(export_func)]))
    if elem is not None:
        out += section(9, elem)
    out += section(10, vec([leb(len(b)) + b for b in bodies]))
    return out


I32 = 0x7F


def tail_module():
    # $a(n) = n == 0 ? 0 : return_call $b(n - 1); $b the same, calling $a
    def body(other):
        return (b"\x00" + b"\x20\x00\x45\x04\x7f\x41\x00\x05" +
                b"\x20\x00\x41\x01\x6b\x12" + leb(other) + b"\x0b\x0b")
    return module([([I32], [I32])], [0, 0], [body(1), body(0)])


def tail_indirect_module():
    # the same countdown through return_call_indirect (table [$a, $b]): LLVM cannot turn it
    # into a loop as it may the direct pair
    def body(other):
        return (b"\x00" + b"\x20\x00\x45\x04\x7f\x41\x00\x05" +
                b"\x20\x00\x41\x01\x6b\x41" + leb(other) + b"\x13\x00\x00\x0b\x0b")
    return module([([I32], [I32])], [0, 0], [body(1), body(0)], table=b"\x01\x70\x00\x02",
                  elem=b"\x01\x00\x41\x00\x0b\x02\x00\x01")


def throw_module(legacy):
    # $thrower(x) throws $e(x); run(n): loop { acc += (try { call $thrower(n); 0 } catch $e);
    # n -= 1 } while n; acc
    thrower = b"\x00\x20\x00\x08\x00\x0b"
    if legacy:  # try (result i32) call; i32.const 0; catch 0; end
        guarded = (b"\x06\x7f" + b"\x20\x00\x10\x00\x41\x00" + b"\x07\x00" + b"\x0b")
    else:  # block $c (result i32) try_table (result i32) (catch 0 $c) call; i32.const 0 end end
        guarded = (b"\x02\x7f\x1f\x7f\x01\x00\x00\x00" + b"\x20\x00\x10\x00\x41\x00" +
                   b"\x0b\x0b")
    run = (b"\x01\x01\x7f" + b"\x03\x40" + guarded + b"\x20\x01\x6a\x21\x01" +
           b"\x20\x00\x41\x01\x6b\x22\x00\x0d\x00\x0b" + b"\x20\x01\x0b")
    return module([([I32], []), ([I32], [I32])], [0, 1], [thrower, run], tags=[0],
                  export_func=1)


def cpu_of(cmd):
    """CPU seconds (user + sys, children included) of cmd, which must succeed."""
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        try:
            os.execvp(cmd[0], cmd)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench/wasm3: failed ({status}): {' '.join(cmd)}")
    return ru.ru_utime + ru.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sbx", default="build/sbx")
    ap.add_argument("--scale", type=float, default=1.0)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="sbx-bench-wasm3-")
    files = {}
    for key, data in (("tail", tail_module()), ("tail_ind", tail_indirect_module()),
                      ("throw", throw_module(False)),
                      ("throw_legacy", throw_module(True))):
        files[key] = os.path.join(tmp, key + ".wasm")
        with open(files[key], "wb") as f:
            f.write(data)
    node_run = os.path.join(HERE, "node_run.mjs")
    cases = [("tail call", "tail", "tail", int(2e7 * a.scale)),
             ("tail ind.", "tail_ind", "tail_ind", int(2e7 * a.scale)),
             ("throw/catch", "throw", "throw_legacy", int(1e6 * a.scale))]
    engines = [("interp", lambda m, n: [a.sbx, "wasm", "--tier", "interp", "--no-cache",
                                        "--timeout-ms", "3600000", "--invoke", "run", m,
                                        str(n)]),
               ("compiled", lambda m, n: [a.sbx, "wasm", "--tier", "compiled", "--no-cache",
                                          "--timeout-ms", "3600000", "--invoke", "run", m,
                                          str(n)]),
               ("node", lambda m, n: ["node", node_run, m, str(n)])]
    ns = {}
    for r in range(a.rounds):  # interleaved: every engine and case in each round
        for label, mod, node_mod, n in cases:
            for eng, cmd in engines:
                m = files[node_mod if eng == "node" else mod]
                t1 = cpu_of(cmd(m, n))
                t3 = cpu_of(cmd(m, 3 * n))
                ns.setdefault((label, eng), []).append((t3 - t1) / (2 * n) * 1e9)
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    print(f"bench/wasm3: {a.rounds} rounds, median ns per operation (CPU time, run(3n) - run(n)"
          f" over 2n), load {' '.join(load)}")
    print(f"{'operation':<12} {'interp':>9} {'compiled':>9} {'node':>9} "
          f"{'interp/node':>12} {'compiled/node':>14}")
    for label, _, _, _ in cases:
        med = {e: statistics.median(ns[(label, e)]) for e, _ in engines}
        print(f"{label:<12} {med['interp']:9.1f} {med['compiled']:9.1f} {med['node']:9.1f} "
              f"{med['interp'] / med['node']:12.2f} {med['compiled'] / med['node']:14.2f}")
    print("(node 20: throw/catch in the legacy exception encoding; it has no exnref)")


if __name__ == "__main__":
    main()
