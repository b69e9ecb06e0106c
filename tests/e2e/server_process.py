"""Start a real ``mercado serve`` process on a free loopback port, for end-to-end tests."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from positions import ROOT

STARTUP_SECONDS = 20.0
# The agent key of test servers, which the tests' AI agents claim bot seats with.
AGENT_KEY = "test-agent-key-0123456789"


@dataclass
class ServerProcess:
    """A running server; ``restart`` keeps the database file."""

    db: Path | str  # a SQLite file, or a PostgreSQL address that several servers share
    port: int = 0
    web_port: int = 0  # the browser's port (gRPC-Web and the page); -1 for none
    # Beyond the test defaults: an agent key, and chosen seeds (tests replay seeded set-ups).
    args: list[str] = field(default_factory=list)
    agent_key: str | None = AGENT_KEY
    chosen_seeds: bool = True
    preexec: Callable[[], None] | None = None  # run in the child before it starts (resource limits)
    process: subprocess.Popen[str] | None = None
    log_lines: list[str] = field(default_factory=list)
    drain: threading.Thread | None = None

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> ServerProcess:
        # Reuse the port after a restart so clients reconnect to the same address.
        command = [sys.executable, "-m", "server", "serve", "--port", str(self.port), "--db", str(self.db)]
        command.append("--allow-anonymous")  # most tests play with seat tokens alone
        command += ["--web-port", str(self.web_port), *self.args]
        command += ["--agent-key", self.agent_key] if self.agent_key else []
        command += ["--allow-chosen-seeds"] if self.chosen_seeds else []
        self.process = subprocess.Popen(
            command,
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            preexec_fn=self.preexec,
        )
        deadline = time.monotonic() + STARTUP_SECONDS
        assert self.process.stderr is not None
        while time.monotonic() < deadline:
            line = self.process.stderr.readline()
            if not line:
                raise RuntimeError(f"server exited early: {''.join(self.log_lines)}")
            self.log_lines.append(line)
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # not a log line: a usage error, say, which the exit then reports
            if record.get("message") == "listening":
                self.port = record["port"]
                self.web_port = -1 if record.get("web_port") is None else record["web_port"]
                # Keep reading the log: a full stderr pipe would block the server.
                self.drain = threading.Thread(target=self._drain, args=(self.process.stderr,), daemon=True)
                self.drain.start()
                return self
        raise RuntimeError("server did not start in time")

    def _drain(self, stream: IO[str]) -> None:
        for line in stream:
            self.log_lines.append(line)

    def kill(self) -> None:
        """SIGKILL: no chance to clean up, as in a crash."""
        if self.process:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
            self._join_drain()

    def stop(self) -> int:
        """SIGTERM and wait for the graceful shutdown; returns the exit status."""
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        status = self.process.wait(timeout=30)
        self._join_drain()
        return status

    def stop_cleanly(self) -> None:
        """``stop``, and fail (with the log's tail) unless the shutdown was clean: exit status 0."""
        status = self.stop()
        assert status == 0, "".join(self.log_lines[-20:])

    def _join_drain(self) -> None:
        if self.drain is not None:
            self.drain.join(timeout=10)
            self.drain = None

    def restart(self) -> ServerProcess:
        self.kill()
        return self.start()


Start = Callable[..., ServerProcess]  # the ``start`` fixture (tests/conftest.py)


async def health(target: str, timeout: float = 5.0) -> int:
    """The health service's status for the whole server (an error if it does not answer in time)."""
    async with grpc.aio.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        response = await stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=timeout)
        return int(response.status)


class AgentProcess:
    """``python -m server ai`` against a server, its log in a file."""

    def __init__(self, target: str, log: Path, state: Path, args: Sequence[str] = ()) -> None:
        self.log_path = log
        self.log: IO[str] = log.open("w", encoding="utf-8")
        command = [sys.executable, "-m", "server", "ai", "--server", target, "--level", "easy"]
        command += ["--agent-key", AGENT_KEY, "--state-file", str(state), *args]
        self.process = subprocess.Popen(
            command,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=self.log,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )

    def records(self) -> list[dict[str, object]]:
        out = []
        for line in self.log_path.read_text(encoding="utf-8").splitlines():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                out.append({"message": line})
        return out

    def messages(self) -> list[object]:
        """What it has logged so far, message by message."""
        return [r.get("message") for r in self.records()]

    def started(self) -> bool:
        """Whether it has said hello to the server (its first heartbeat): it can take bot seats now."""
        return "agent started" in self.messages()

    def tail(self) -> str:
        return "\n".join(self.log_path.read_text(encoding="utf-8").splitlines()[-30:])

    def stop(self) -> int:
        """SIGTERM and wait for it to exit; returns the exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=30)
        finally:
            self.log.close()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.log.close()
