"""HAProxy in front of nodes, for the end-to-end tests: ``deploy/haproxy.cfg`` itself, run on loopback.

HAProxy listens for callers on 127.0.0.1 and ::1 (two callers of two addresses) and calls the nodes
from 127.0.0.2, the address the nodes trust as their proxy (``PROXY_SOURCE``), so that they tell
HAProxy's own calls from its callers'. Debian's haproxy package is installed by
scripts/install-test-servers.sh; the tests that need it are skipped without it.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path

import pytest
from positions import ROOT
from server_process import ServerProcess

CONFIG = ROOT / "deploy" / "haproxy.cfg"
PROXY_SOURCE = "127.0.0.2"  # the nodes' --trusted-proxy
TRUSTED_PROXY = ("--trusted-proxy", f"{PROXY_SOURCE}/32")
START_SECONDS = 20.0
CHECKED_SECONDS = 30.0  # for HAProxy to find a node up or down (two checks, 2 s apart)
# A stopping node serves on for longer than HAProxy takes to find it NOT_SERVING (about 4 s).
DRAIN = ("--drain", "8")


def program() -> str:
    """The haproxy program, or the test is skipped."""
    found = shutil.which("haproxy", path=f"{os.environ.get('PATH', '')}:/usr/sbin")
    if found is None:
        pytest.skip("HAProxy is not installed (scripts/install-test-servers.sh installs it)")
    return found


def free_port() -> int:
    """A port free on both 127.0.0.1 and ::1."""
    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port: int = probe.getsockname()[1]
        with socket.socket(socket.AF_INET6) as probe:
            try:
                probe.bind(("::1", port))
            except OSError:
                continue
        return port


class HAProxy:
    """``haproxy -f deploy/haproxy.cfg`` in front of ``nodes`` (two), its log in ``log``."""

    def __init__(self, nodes: Sequence[ServerProcess], log: Path) -> None:
        assert len(nodes) == 2, "deploy/haproxy.cfg names two nodes"
        self.port = free_port()
        self.web_port = free_port()
        self.stats_port = free_port()
        environment = {
            "MERCADO_GRPC_BIND": f"127.0.0.1:{self.port},[::1]:{self.port}",
            "MERCADO_WEB_BIND": f"127.0.0.1:{self.web_port}",
            "MERCADO_STATS_BIND": f"127.0.0.1:{self.stats_port}",
            "MERCADO_SOURCE": PROXY_SOURCE,
        }
        for number, node in enumerate(nodes, start=1):
            environment[f"MERCADO_NODE{number}"] = node.target
            environment[f"MERCADO_NODE{number}_WEB"] = f"127.0.0.1:{node.web_port}"
        self.log_path = log
        with log.open("wb") as output:
            self.process = subprocess.Popen(
                [program(), "-db", "-f", str(CONFIG)],
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                env={**os.environ, **environment},
            )
        deadline = time.monotonic() + START_SECONDS
        while not self._accepts():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"HAProxy did not start:\n{self.log()}")
            time.sleep(0.05)

    @property
    def targets(self) -> tuple[str, str]:
        """Its gRPC port on 127.0.0.1 and on ::1: a caller of each address."""
        return f"127.0.0.1:{self.port}", f"[::1]:{self.port}"

    def _accepts(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.stats_port), timeout=1):
                return True
        except OSError:
            return False

    def servers(self) -> dict[str, dict[str, str]]:
        """The gRPC backend's servers (node1, node2), as HAProxy's statistics show them: ``status``
        (UP, DOWN, ...), ``stot`` (calls sent to it so far), ..."""
        url = f"http://127.0.0.1:{self.stats_port}/;csv"
        with urllib.request.urlopen(url, timeout=10) as page:
            text = page.read().decode().lstrip("# ")
        rows = csv.DictReader(io.StringIO(text))
        return {
            row["svname"]: row for row in rows if row["pxname"] == "grpc" and row["svname"].startswith("node")
        }

    def calls(self) -> dict[str, int]:
        """The calls each node was sent so far."""
        return {name: int(row["stot"]) for name, row in self.servers().items()}

    def wait_up(self, names: Sequence[str] = ("node1", "node2")) -> None:
        """Until HAProxy finds every one of ``names`` healthy."""
        self.wait_until("UP", names)

    def wait_until(self, status: str, names: Sequence[str] = ("node1", "node2")) -> None:
        """Until HAProxy shows every one of ``names`` in ``status`` (UP, DOWN)."""
        deadline = time.monotonic() + CHECKED_SECONDS
        while True:
            states = self.servers()
            if all(states[name]["status"] == status for name in names):
                return
            if time.monotonic() > deadline:
                shown = {name: state["status"] for name, state in states.items()}
                raise AssertionError(f"the nodes are not {status}: {shown}")
            time.sleep(0.1)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
