"""The search's worker processes do not outlive the process that started them, even a killed one."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

from processes import children, running

# Starts a pool of two workers, has them work, says so and waits to be killed.
PARENT = """
import time
from ai.workers import search_pool

if __name__ == "__main__":
    pool = search_pool(2)
    list(pool.map(abs, range(100)))
    print("ready", flush=True)
    time.sleep(600)
"""


def test_workers_exit_when_their_parent_is_killed() -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    assert parent.stdout.readline().strip() == "ready"
    workers = children(parent.pid)
    assert len(workers) >= 2  # the two workers (and the resource tracker their semaphores use)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while alive := [pid for pid in workers if running(pid)]:
        assert time.monotonic() < deadline, f"processes {alive} outlived their parent"
        time.sleep(0.05)
