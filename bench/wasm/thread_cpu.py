#!/usr/bin/env python3
"""bench/wasm/thread_cpu.py [--thread NAME] CMD...: runs CMD, prints its CPU (user + sys of all
threads), wall, peak RSS and, with --thread, the CPU of its thread named NAME (sampled from /proc
every 10 ms, the last sample before it exits; 0 if it never ran). Output to /dev/null; exit
status of CMD."""
import os, resource, subprocess, sys, time

TICK = os.sysconf("SC_CLK_TCK")


def thread_cpu(pid, name):
    best = 0.0
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                if f.read().strip() != name:
                    continue
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            best = max(best, (int(fields[11]) + int(fields[12])) / TICK)
    except OSError:
        pass  # the process or thread ended between two reads
    return best


name, cmd = (sys.argv[2], sys.argv[3:]) if sys.argv[1] == "--thread" else (None, sys.argv[1:])
t = time.monotonic()
child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
named = 0.0
while child.poll() is None:
    if name:
        named = max(named, thread_cpu(child.pid, name))
    time.sleep(0.01)
wall = time.monotonic() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
what = f"{os.path.basename(cmd[0])} {cmd[1]}" if len(cmd) > 1 else cmd[0]
print(f"cpu {r.ru_utime + r.ru_stime:7.2f} s  wall {wall:7.2f} s  peak RSS {r.ru_maxrss / 1024:6.1f} MiB"
      + (f"  {name} {named:6.2f} s" if name else "")
      + ("" if child.returncode == 0 else f"  ({what} failed: exit {child.returncode})"))
sys.exit(child.returncode)
