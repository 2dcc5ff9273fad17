"""A child subreaper for a benchmark's libvirtd: what systemd (PID 1) is to libvirtd on a host.

libvirt starts each QEMU daemonized, so QEMU's parent is the nearest subreaper, normally PID 1. libvirt's stop of a
QEMU (destroy, or the stop inside a snapshot revert) waits until the process is gone, and a dead QEMU is gone only
once its parent reaps it. systemd reaps at once; this sandbox's PID 1 (process_api) reaps about 1.7 s late, which
every stop here pays. Run as `python3 subreaper.py <libvirtd> -d ...`: it becomes a subreaper (PR_SET_CHILD_SUBREAPER),
runs the command, prints "started <exit code>" when the daemonizing command returns, then reaps every orphan that is
reparented to it (the daemon, its QEMUs) as it exits, until none is left.
"""
import ctypes
import os
import sys

PR_SET_CHILD_SUBREAPER = 36
if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
    sys.exit(f"prctl(PR_SET_CHILD_SUBREAPER) failed: {os.strerror(ctypes.get_errno())}")
first = os.fork()
if first == 0:
    os.execv(sys.argv[1], sys.argv[1:])
while True:
    try:
        pid, status = os.wait()
    except ChildProcessError:
        break
    if pid == first:
        try:
            print(f"started {os.waitstatus_to_exitcode(status)}", flush=True)
        except OSError:
            pass
