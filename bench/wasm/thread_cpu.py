#!/usr/bin/env python3
"""bench/wasm/thread_cpu.py THREAD CMD...: runs CMD, prints its CPU (user + sys of all threads),
wall, peak RSS and the CPU of its thread named THREAD (sampled from /proc every 10 ms, the last
sample before it exits; 0 if it never ran). Output to /dev/null; exit status of CMD."""
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


t = time.monotonic()
child = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL)
named = 0.0
while child.poll() is None:
    named = max(named, thread_cpu(child.pid, sys.argv[1]))
    time.sleep(0.01)
wall = time.monotonic() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"cpu {r.ru_utime + r.ru_stime:7.2f} s  wall {wall:7.2f} s  peak RSS {r.ru_maxrss / 1024:6.1f} MiB"
      f"  {sys.argv[1]} {named:6.2f} s" + ("" if child.returncode == 0 else f"  (exit {child.returncode})"))
sys.exit(child.returncode)
