"""Start a real ``mercado serve`` process on a free loopback port, for end-to-end tests."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

STARTUP_SECONDS = 20.0


@dataclass
class ServerProcess:
    """A running server; ``restart`` keeps the database file."""

    db: Path
    port: int = 0
    process: subprocess.Popen[str] | None = None
    log_lines: list[str] = field(default_factory=list)

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> ServerProcess:
        # Reuse the port after a restart so clients reconnect to the same address.
        command = [sys.executable, "-m", "server", "serve", "--port", str(self.port), "--db", str(self.db)]
        self.process = subprocess.Popen(
            command,
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
            cwd=Path(__file__).resolve().parents[2],
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        deadline = time.monotonic() + STARTUP_SECONDS
        assert self.process.stderr is not None
        while time.monotonic() < deadline:
            line = self.process.stderr.readline()
            if not line:
                raise RuntimeError(f"server exited early: {''.join(self.log_lines)}")
            self.log_lines.append(line)
            record = json.loads(line)
            if record.get("message") == "listening":
                self.port = record["port"]
                return self
        raise RuntimeError("server did not start in time")

    def kill(self) -> None:
        """SIGKILL: no chance to clean up, as in a crash."""
        if self.process:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def stop(self) -> int:
        """SIGTERM and wait for the graceful shutdown; returns the exit status."""
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        status = self.process.wait(timeout=30)
        if self.process.stderr:
            self.log_lines += self.process.stderr.readlines()
        return status

    def restart(self) -> ServerProcess:
        self.kill()
        return self.start()
