#!/usr/bin/env python3
"""bench/wasm/real/reap.py TIME BG CMD...: runs CMD as `/usr/bin/time -f '%U %S %e' -o TIME`
would (stdio passed through, CMD's exit status), then waits for what CMD left running after it
ended (`sbx wasm`'s upgrade of its kept hot code, src/cli/background.c: a process of its own
session that outlives the run). This process is their subreaper, so they become its children
when their parents exit, and their CPU is exact (wait4), not sampled. BG gets "CPU_S WALL_S": the
CPU of all of them (user + sys) and the wall time from CMD's end to the last one's."""
import ctypes, os, sys, time

PR_SET_CHILD_SUBREAPER = 36


def cpu(ru):
    return ru.ru_utime + ru.ru_stime


def main():
    time_path, bg_path, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit("reap.py: prctl(PR_SET_CHILD_SUBREAPER) failed")
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(cmd[0], cmd)
        finally:
            os._exit(127)
    bg_cpu, status, ended = 0.0, None, None
    while True:
        try:
            got, st, ru = os.wait4(-1, 0)
        except ChildProcessError:
            break  # nothing left: CMD and everything it left behind have ended
        if got == pid:
            ended = time.monotonic()
            status = os.waitstatus_to_exitcode(st)
            with open(time_path, "w") as f:
                f.write(f"{ru.ru_utime:.2f} {ru.ru_stime:.2f} {ended - start:.2f}\n")
        else:
            bg_cpu += cpu(ru)
    with open(bg_path, "w") as f:
        f.write(f"{bg_cpu:.2f} {time.monotonic() - ended:.2f}\n")
    sys.exit(status if status >= 0 else 128 - status)


main()
