"""``mercado bench peer``: boardgame.io, the best-known open-source server for turn-based games,
under the load ``mercado bench server`` puts on this one, for figures side by side on one machine.

boardgame.io 0.50.2 (Node.js, socket.io) is pinned in ``peers/boardgameio`` and installed there with
``npm ci`` on first use. Its server (``server.js``, as boardgame.io's documentation sets one up)
serves a small market game (``game.js``: a move checked and applied, a view per seat with the other
hand hidden). ``clients`` Node load processes (``load.js``) keep ``matches`` 2-player matches in
play, both seats connected and watching every update, the seat to move answering its own update
with a random legal move; finished matches are replaced through the lobby API. Only the moves
answered inside the window count, after ``WARMUP_SECONDS`` of play; the server's CPU time over the
window is read from /proc, as ``bench server`` reads ours.

``storage``: ``memory`` keeps every match in the server process and writes nothing; ``disk`` is
boardgame.io's FlatFile (node-persist), which sends each update before it writes the new state,
and writes it with no fsync: neither is durable as this project's server is (every action
committed before it is answered).
"""

from __future__ import annotations

import json
import select
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from .process import ServerProcess, cpu_seconds, latency_ms, peak_memory_mib, shares

PEER = Path(__file__).parent / "peers" / "boardgameio"
WARMUP_SECONDS = 2.0  # of play before the window opens
SETUP_SECONDS = 120.0  # for every load process to start its first matches
RESULT_SECONDS = 30.0  # for a load process to report once the window has closed


def install() -> None:
    """The peer's pinned packages, installed once (again whenever its lock file changes)."""
    installed = PEER / "node_modules" / ".package-lock.json"  # written by npm ci
    if installed.exists() and installed.stat().st_mtime >= (PEER / "package-lock.json").stat().st_mtime:
        return
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=PEER, check=True)


def _pinned(package: str) -> str:
    """The version of ``package`` the peer pins."""
    return str(json.loads((PEER / "package.json").read_text())["dependencies"][package])


def _line(process: subprocess.Popen[str], deadline: float) -> str:
    """The next line ``process`` prints, or an error if it prints none by ``deadline``."""
    assert process.stdout is not None
    readable, _, _ = select.select([process.stdout], [], [], max(0.0, deadline - time.monotonic()))
    line = process.stdout.readline() if readable else ""
    if not line:
        raise RuntimeError(f"a load process said nothing in time (exit status {process.poll()})")
    return line.strip()


def _play(
    server: ServerProcess, matches: int, duration: float, clients: int, seed: int
) -> tuple[list[Any], float]:
    """Run the load processes through the window: their figures and the server's CPU seconds in it."""
    # A load process with no match would never say it is ready.
    split = shares(matches, min(clients, matches))
    loads = [
        subprocess.Popen(
            ["node", "load.js", json.dumps({"port": server.port, "slots": share, "seed": seed + i})],
            cwd=PEER,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for i, share in enumerate(split)
    ]
    try:
        deadline = time.monotonic() + SETUP_SECONDS
        for load in loads:
            if _line(load, deadline) != "ready":
                raise RuntimeError("a load process did not start its matches")
        start = time.time() + WARMUP_SECONDS
        end = start + duration
        for load in loads:
            assert load.stdin is not None
            load.stdin.write(json.dumps({"start": 1000 * start, "end": 1000 * end}) + "\n")
            load.stdin.flush()
        time.sleep(max(0.0, start - time.time()))
        before = cpu_seconds(server.pid)
        time.sleep(max(0.0, end - time.time()))
        after = cpu_seconds(server.pid)
        if before is None or after is None:
            raise RuntimeError(f"the server exited during the window:\n{server.log_tail()}")
        deadline = time.monotonic() + RESULT_SECONDS
        return [json.loads(_line(load, deadline)) for load in loads], after - before
    finally:
        for load in loads:
            if load.poll() is None:
                load.kill()
            load.wait()


def run(storage: str, matches: int, duration: float, clients: int, seed: int) -> dict[str, Any]:
    """Play boardgame.io under the load and report its figures."""
    install()
    with tempfile.TemporaryDirectory(prefix="mercado-bench-peer-") as temporary:
        directory = Path(temporary)
        stored = directory / "storage"
        server = ServerProcess(
            [str(PEER / "server.js"), storage, str(stored)],
            directory / "server.log",
            program="node",
            environment={"NODE_ENV": "production"},
        )
        server.start()
        try:
            figures, cpu = _play(server, matches, duration, clients, seed)
            peak_mib = peak_memory_mib(server.pid)
        finally:
            exit_code = server.stop()
        if exit_code != 0:
            raise RuntimeError(f"the server exited with status {exit_code}:\n{server.log_tail()}")
        files_stored = sum(1 for _ in stored.iterdir()) if stored.exists() else 0
    moves = sum(f["moves"] for f in figures)
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True).stdout.strip()
    return {
        "server": f"boardgame.io {_pinned('boardgame.io')}",
        "storage": storage,
        "moves_per_second": round(moves / duration, 1),
        "server_cpu_ms_per_move": round(1000 * cpu / moves, 3) if moves else None,
        "server_cores_used": round(cpu / duration, 2),
        "move_latency_ms": latency_ms([latency / 1000 for f in figures for latency in f["latencies"]]),
        "updates_delivered_per_second": round(sum(f["updates"] for f in figures) / duration, 1),
        "matches_concurrent": matches,
        "matches_started": sum(f["matchesStarted"] for f in figures),
        "matches_finished": sum(f["matchesFinished"] for f in figures),
        "load_errors": sum(f["errors"] for f in figures),
        "files_stored": files_stored,
        "server_peak_memory_mib": peak_mib,
        "duration_seconds": duration,
        "node_version": node,
    }
