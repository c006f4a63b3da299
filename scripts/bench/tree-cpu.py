#!/usr/bin/env python3
"""The CPU time (user + sys) of a command and every process it starts, printed on stderr.

    python3 scripts/bench/tree-cpu.py npx vitest run --project node test/node/web.test.ts

`time` counts only the processes their parents wait for: a wrangler dev stopped by its process
group leaves its workerd to init, and so does a browser's helper whose parent ended first. This
process is a child subreaper (Linux), so every descendant left behind comes back to it and is
reaped here, with its CPU time. Python, because Node cannot make itself a subreaper.
"""
import ctypes
import os
import resource
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
# How long the descendants that outlive the command may run before they are ended.
GRACE_SECONDS = 15

if len(sys.argv) < 2:
    sys.exit(__doc__)
if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
    sys.exit('tree-cpu: cannot become a child subreaper')

start = time.monotonic()
command = os.fork()
if command == 0:
    os.execvp(sys.argv[1], sys.argv[1:])

status = None
deadline = None
while True:
    try:
        pid, wait_status = os.waitpid(-1, 0 if deadline is None else os.WNOHANG)
    except ChildProcessError:
        break
    if pid == 0:
        if time.monotonic() > deadline:
            for entry in os.listdir('/proc'):
                if not entry.isdigit():
                    continue
                try:
                    with open(f'/proc/{entry}/stat') as stat:
                        parent = int(stat.read().rsplit(')', 1)[1].split()[1])
                    if parent == os.getpid():
                        print(f'tree-cpu: ending pid {entry}, left running', file=sys.stderr)
                        os.kill(int(entry), 9)
                except (OSError, ValueError):
                    pass
            deadline = time.monotonic() + GRACE_SECONDS
        time.sleep(0.1)
        continue
    if pid == command:
        status = wait_status
        deadline = time.monotonic() + GRACE_SECONDS

usage = resource.getrusage(resource.RUSAGE_CHILDREN)
code = os.waitstatus_to_exitcode(status)
print(
    f'CPU {usage.ru_utime + usage.ru_stime:.1f} s (user {usage.ru_utime:.1f}, sys '
    f'{usage.ru_stime:.1f}), wall {time.monotonic() - start:.1f} s, exit {code}',
    file=sys.stderr,
)
sys.exit(code if code >= 0 else 1)
