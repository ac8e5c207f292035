#!/usr/bin/env python3
"""thread-cpu.py PID: samples /proc/PID/task/*/stat every 0.2 s until PID exits, then prints the CPU seconds
(user + system) of each group of threads, named as the kernel names them with trailing numbers removed (C2
CompilerThread0 and 1 are one group). Linux only. Used for docs/client-capacity-and-health.md, "What a quiet second
costs": start the client, then `python3 scripts/thread-cpu.py $!`. A thread that ends before the process is
counted as of its last sample, so up to 0.2 s of a short-lived thread's CPU can be missed."""
import os, sys, time, re, collections
if len(sys.argv) != 2 or not sys.argv[1].isdigit() or not os.path.exists(f'/proc/{sys.argv[1]}'):
    sys.exit('usage: thread-cpu.py PID (a running process on this Linux machine)')
pid = int(sys.argv[1]); hz = os.sysconf('SC_CLK_TCK')
last = {}
while os.path.exists(f'/proc/{pid}'):
    try:
        for tid in os.listdir(f'/proc/{pid}/task'):
            try:
                st = open(f'/proc/{pid}/task/{tid}/stat').read()
                name = st[st.index('(') + 1:st.rindex(')')]
                f = st[st.rindex(')') + 2:].split()
                last[tid] = (name, (int(f[11]) + int(f[12])) / hz)
            except (FileNotFoundError, ProcessLookupError, ValueError):
                pass
    except FileNotFoundError:
        break
    time.sleep(0.2)
groups = collections.Counter()
for name, cpu in last.values():
    g = re.sub(r'[#\-]?\d+$', '', name).strip()
    groups[g] += cpu
total = sum(groups.values()) or 1e-9
for g, c in groups.most_common(25):
    print(f'{c:7.2f} s  {100*c/total:5.1f} %  {g}')
print(f'{total:7.2f} s  total (threads seen)')
