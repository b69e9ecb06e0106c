"""A server process for the benchmarks, and what they read of it: CPU time, memory, latencies."""

from __future__ import annotations

import json
import math
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

AGENT_KEY = "bench-agent-key-0123456789"  # of the servers the benchmarks start
STARTUP_SECONDS = 120.0  # for the server to log 'listening' (a large database is opened first)
STOP_SECONDS = 30.0  # for the server's graceful shutdown


@dataclass
class ServerProcess:
    """``python <args>`` (a server) as a child process; its log goes to a file, its port is read from it.
    Another ``program`` may run instead of Python if it logs its 'listening' line the same way."""

    args: list[str]
    log: Path
    program: str = sys.executable
    environment: dict[str, str] = field(default_factory=dict)  # on top of the inherited one
    open_files: int | None = None  # the open-file limit it needs at least, if it can have it
    process: subprocess.Popen[bytes] | None = None
    port: int = 0
    web_port: int | None = None
    startup_seconds: float = 0.0  # from the spawn to its 'listening' line

    def start(self, ready: str = "listening", count: int = 1) -> ServerProcess:
        """Spawn it and wait for ``count`` log lines whose message is ``ready`` (one per worker)."""
        started = time.perf_counter()
        limit = self.open_files
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [self.program, *self.args],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
                env={**os.environ, "PYTHONUNBUFFERED": "1", **self.environment},
                preexec_fn=None if limit is None else lambda: raise_open_files(limit),
            )
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline:
            records = []
            for line in self.log.read_text(errors="replace").splitlines():
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict) and record.get("message") == ready:
                    records.append(record)
            if len(records) >= count:
                self.startup_seconds = time.perf_counter() - started
                self.port = int(records[0].get("port", 0))
                self.web_port = records[0].get("web_port")
                return self
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited early:\n{self.log_tail()}")
            time.sleep(0.01)
        self.process.kill()
        self.process.wait()
        raise RuntimeError(f"it did not say {ready!r} in {STARTUP_SECONDS:.0f} s:\n{self.log_tail()}")

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def log_tail(self, lines: int = 20) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    def stop(self) -> int:
        """SIGTERM, then wait for the graceful shutdown (SIGKILL if it hangs); returns the exit status."""
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()


def raise_open_files(at_least: int) -> None:
    """Raise this process's open-file limit (soft and hard) to ``at_least`` where it is lower, as far as
    it is allowed to (above the hard limit only with the privilege to): for a child about to hold a
    connection per player."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= at_least:
        return
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, at_least), max(hard, at_least)))
    except (ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def open_files_limit(pid: int) -> int | None:
    """The soft limit of open files of a running process (Linux)."""
    try:
        for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
            if line.startswith("Max open files"):
                return int(line.split()[3])
    except (OSError, ValueError, IndexError):
        pass
    return None


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux): a server's workers."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat_fields(int(entry.name))  # None: it exited meanwhile
            if fields is not None and fields[1] == str(pid):
                found.append(int(entry.name))
    return found


def shares(total: int, parts: int) -> list[int]:
    """``total`` (matches) split over ``parts`` (load processes) as evenly as it goes, the first ones
    taking one more."""
    return [total // parts + (i < total % parts) for i in range(parts)]


def _stat_fields(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the ')' closing the name, or None (no such process)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def cpu_seconds(pid: int) -> float | None:
    """User plus system CPU time of a process so far (Linux)."""
    fields = _stat_fields(pid)
    if fields is None:
        return None
    # After the ')' closing the name: state is field 3, utime field 14, stime field 15.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(pid: int) -> float | None:
    """User plus system CPU time so far of a process and its children (Linux): the children
    running now, and those that exited (counted in their parent once it has waited for them).

    For a PostgreSQL cluster, ``pid`` is the postmaster: every backend, the WAL writer, the
    checkpointer and the other workers are its children. A child's own children count only
    once they have exited.
    """
    own = _stat_fields(pid)
    if own is None:
        return None
    # After the ')': ppid is field 4, utime, stime, cutime and cstime fields 14 to 17.
    ticks = sum(int(value) for value in own[11:15])
    for child in children(pid):
        fields = _stat_fields(child)  # None: it exited meanwhile
        if fields is not None:
            ticks += sum(int(value) for value in fields[11:15])
    return ticks / os.sysconf("SC_CLK_TCK")


def _status_mib(pid: int, field: str) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return None


def peak_memory_mib(pid: int) -> float | None:
    """VmHWM, the peak resident set size of a process (Linux)."""
    return _status_mib(pid, "VmHWM")


def memory_mib(pid: int) -> float | None:
    """VmRSS, the resident set size of a process now (Linux)."""
    return _status_mib(pid, "VmRSS")


def tree_memory_mib(pid: int) -> float | None:
    """VmRSS of a process and its children (a server and its workers), summed."""
    own = memory_mib(pid)
    if own is None:
        return None
    return round(own + sum(memory_mib(child) or 0.0 for child in children(pid)), 1)


def percentile_ms(samples: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile, in milliseconds."""
    if not samples:
        return 0.0
    ordered = sorted(samples)
    return round(1000 * ordered[max(0, math.ceil(fraction * len(ordered)) - 1)], 2)


def latency_ms(samples: Sequence[float]) -> dict[str, float]:
    return {"p50": percentile_ms(samples, 0.50), "p99": percentile_ms(samples, 0.99)}
