"""``mercado bench players``: many players on one server, each on a connection of its own, following
their matches and acting at a human pace: how many players a node serves.

The server runs as ``python -m server serve`` with its production limits, on a fresh database (SQLite,
or PostgreSQL: a throwaway cluster or a given address, with ``workers`` server processes sharing the
port). The players are a separate, cheap process: ``mercado-load`` (Go, ``clients/go/cmd/mercado-load``,
built on the Go client into ``.build/bench/`` by ``make bench-players`` or on first use). Each player
connects from a loopback address of its own, so that the server's per-network caps count players as
they would on the internet, signs in as a guest player and sits at a table of 2, 3 or 4 (``sizes``):
one of them creates a match with the server's default clock, every player takes a seat and holds the
match's event stream for as long as the match lasts, and the seat to move acts after a think time
drawn uniformly between half and one and a half times ``pace``. A finished match is followed by a new
one at the same table.

The tables sit down over ``ramp`` seconds; once every player follows its first match, the figures of
``warmup`` seconds are left out, then ``duration`` seconds are measured: the submissions (request to
answer), their propagation (answer to the last other seat's stream bringing the update), the errors
by call and code, and the server's and the load process's CPU time and memory over the window, read
from /proc. With ``restart`` the server is then stopped gracefully and started again on the same
database and port, and the players' reconnections are measured for ``restart_window`` seconds from
the new server's 'listening' line.

With ``peer="boardgameio"``, boardgame.io's server (``peers/boardgameio/server.js``, as ``mercado bench
peer`` runs it, in memory) takes the same players from ``peers/boardgameio/players.js``: socket.io
connections from addresses of their own, the same tables and pace; a move's answer is its own update
reaching the mover. It has no clocks.

With ``floor``, the same players (2-player tables of Mercado, seat credentials) are served by
``floor_server.py``, which plays no game and keeps nothing: what gRPC and the event loop allow one
process whatever the server does, the ceiling of any figure of ours on the machine.

``knee`` searches for the most players that meet ``SUBMIT_P99_MS`` and ``PROPAGATION_P99_MS``.
"""

from __future__ import annotations

import json
import os
import resource
import select
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .process import (
    ServerProcess,
    cpu_seconds,
    memory_mib,
    open_files_limit,
    peak_memory_mib,
    raise_open_files,
    tree_cpu_seconds,
    tree_memory_mib,
)

ROOT = Path(__file__).resolve().parents[2]
GO_CLIENT = ROOT / "clients" / "go"
LOAD_BINARY = ROOT / ".build" / "bench" / "mercado-load"
PEER = Path(__file__).parent / "peers" / "boardgameio"
SUBMIT_P99_MS = 100.0  # the knee: the most players whose submissions' p99 stays under this...
PROPAGATION_P99_MS = 200.0  # ...and their propagations' p99 under this
READY_SECONDS = 600.0  # for every player to follow its first match, beyond the ramp
REPORT_SECONDS = 120.0  # for the load process's report once told to stop
SPARE_FILES = 1024  # open files a process needs beside one per connection
RAMP_RATE = 500.0  # players a second sitting down, by default
KNEE_CLOSE_ENOUGH = 0.05  # the search stops when the best passing and worst failing N are this close
PEERS = ("boardgameio",)


@dataclass(frozen=True)
class Players:
    """The load: who plays, how fast, for how long."""

    players: int = 1000
    pace: float = 8.0  # mean seconds of thought before each action
    duration: float = 60.0  # seconds measured
    warmup: float | None = None  # seconds left out once every player follows; None: two paces
    ramp: float | None = None  # seconds over which the tables sit down; None: RAMP_RATE players a second
    sizes: tuple[int, ...] = (2,)  # players per table, the tables taking them in turn
    games: tuple[str, ...] = ("mercado",)
    seed: int = 1
    # Players sharing a connection (of different tables); None: one each, unless this machine's open-file
    # limit allows a process fewer connections than players (then the fewest sharing that fits).
    per_connection: int | None = None
    credential: str = "seat"  # what a seat's calls carry: its seat token, or its player's (the page's way)

    @property
    def sharing(self) -> int:
        """Players a connection."""
        return self.per_connection or -(-self.players // most_connections())

    @property
    def connections(self) -> int:
        return -(-self.players // self.sharing)

    @property
    def warmup_seconds(self) -> float:
        return 2 * self.pace if self.warmup is None else self.warmup

    @property
    def ramp_seconds(self) -> float:
        return self.players / RAMP_RATE if self.ramp is None else self.ramp


@dataclass(frozen=True)
class Deployment:
    """What serves them: this server (on SQLite, or PostgreSQL with ``workers`` processes) or a peer."""

    db: str = "sqlite"  # "sqlite", "postgres" (a throwaway cluster) or a postgresql:// address
    workers: int = 1
    peer: str | None = None
    restart: bool = False
    floor: bool = False  # the server that plays no game (floor_server.py)
    restart_window: float = 15.0  # seconds measured after a restarted server listens again


# --- the load process ------------------------------------------------------------------------------


def load_program() -> Path:
    """The Go load generator, built (again if its sources changed: Go's cache makes that quick)."""
    go = shutil.which("go")
    if go is None:
        if LOAD_BINARY.exists():
            return LOAD_BINARY
        raise RuntimeError("the players' load generator is written in Go: install Go (https://go.dev/dl/)")
    LOAD_BINARY.parent.mkdir(parents=True, exist_ok=True)
    built = subprocess.run(
        [go, "build", "-o", str(LOAD_BINARY), "./cmd/mercado-load"],
        cwd=GO_CLIENT,
        capture_output=True,
        text=True,
        check=False,
    )
    if built.returncode != 0:
        raise RuntimeError(f"building the load generator failed:\n{built.stderr.strip()}")
    return LOAD_BINARY


class LoadProcess:
    """A load generator speaking JSON lines: 'ready' once every player follows, then it takes phase
    names and a stop, and answers the stop with its figures."""

    def __init__(self, command: list[str], log: Path, players: int, cwd: Path | None = None) -> None:
        limit = players + SPARE_FILES
        with log.open("wb") as errors:
            self.process = subprocess.Popen(
                command,
                cwd=cwd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=errors,
                text=True,
                preexec_fn=lambda: raise_open_files(limit),
            )
        self.log = log

    @property
    def pid(self) -> int:
        return self.process.pid

    def _line(self, seconds: float) -> dict[str, Any]:
        stdout = self.process.stdout
        assert stdout is not None
        readable, _, _ = select.select([stdout], [], [], seconds)
        line = stdout.readline() if readable else ""
        if not line:
            tail = self.log.read_text(errors="replace").strip()[-2000:]
            status = self.process.poll()
            raise RuntimeError(f"the load generator said nothing in time (exit status {status}):\n{tail}")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def ready(self, seconds: float) -> None:
        if not self._line(seconds).get("ready"):
            raise RuntimeError("the load generator did not get its players to follow their matches")

    def tell(self, command: dict[str, Any]) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        stdin.write(json.dumps(command) + "\n")
        stdin.flush()

    def phase(self, name: str) -> None:
        self.tell({"phase": name})

    def stop(self) -> dict[str, Any]:
        self.tell({"stop": True})
        return self._line(REPORT_SECONDS)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


def _load_command(load: Players, deployment: Deployment, port: int) -> tuple[list[str], Path | None]:
    """The load generator's command line for ``deployment`` (and the directory it runs in)."""
    shared = {
        "server": f"127.0.0.1:{port}",
        "players": load.players,
        "sizes": ",".join(map(str, load.sizes)),
        "pace": f"{load.pace}s",
        "ramp": f"{load.ramp_seconds}s",
        "seed": load.seed,
        "per-connection": load.sharing,
        "ready-timeout": f"{load.ramp_seconds + READY_SECONDS}s",
    }
    if deployment.peer is not None:
        return ["node", "players.js", json.dumps(shared)], PEER
    ours = {**shared, "games": ",".join(load.games), "credential": load.credential}
    flags = [f"-{name}={value}" for name, value in ours.items()]
    return [str(load_program()), *flags], None


# --- the servers ------------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _open_files_allowed() -> int:
    """The most files a process started from here may open: the hard limit, which it may not raise."""
    return resource.getrlimit(resource.RLIMIT_NOFILE)[1]


def most_connections() -> int:
    """The most connections a server or a load process may hold on this machine."""
    return _open_files_allowed() - SPARE_FILES


def _check_open_files(load: Players, deployment: Deployment) -> None:
    """Refuse a run whose connections cannot all be open files of one process here."""
    if deployment.peer is not None and load.sharing > 1:
        raise RuntimeError(
            f"boardgame.io takes a socket a player, and a process here may hold {most_connections()}:"
            f" not {load.players} players"
        )
    if load.connections > most_connections():
        raise RuntimeError(
            f"{load.connections} connections and {SPARE_FILES} more files are above this machine's limit of"
            f" {_open_files_allowed()} open files a process: raise it (ulimit -Hn, as root), or share"
            " connections (--per-connection)"
        )


def _server(deployment: Deployment, db: str, port: int, log: Path, connections: int) -> ServerProcess:
    """The server process (not started): ours with its production limits, or the peer."""
    open_files = connections + SPARE_FILES
    if deployment.peer is not None:
        from .peer import install

        install()
        return ServerProcess(
            [str(PEER / "server.js"), "memory"],
            log,
            program="node",
            environment={"NODE_ENV": "production"},
            open_files=open_files,
        )
    if deployment.floor:
        floor = ["-m", "server.bench.floor_server", "--host", "127.0.0.1", "--port", str(port)]
        return ServerProcess([*floor, "--max-connections", str(connections)], log, open_files=open_files)
    serve = ["-m", "server", "serve", "--host", "127.0.0.1", "--port", str(port), "--web-port", "-1"]
    serve += ["--db", db, "--workers", str(deployment.workers)]
    return ServerProcess(serve, log, open_files=open_files)


@contextmanager
def _database(deployment: Deployment, directory: Path) -> Iterator[tuple[str, int | None]]:
    """The database the servers use, and the pid of a throwaway PostgreSQL cluster's postmaster."""
    if deployment.db == "sqlite":
        yield str(directory / "bench.db"), None
    elif deployment.db == "postgres":
        from .postgres import PostgresServer, available

        reason = available()
        if reason is not None:
            raise RuntimeError(f"PostgreSQL is not available: {reason}")
        with PostgresServer() as cluster:
            postmaster = int((cluster.data_dir / "postmaster.pid").read_text().split("\n", 1)[0])
            yield cluster.create_database("bench_players"), postmaster
    else:
        yield deployment.db, None


# --- one run ---------------------------------------------------------------------------------------


@dataclass
class Usage:
    """CPU seconds of the server (with its workers), the load process and the database at one moment."""

    server: float | None
    load: float | None
    database: float | None

    @classmethod
    def read(cls, server: ServerProcess, load: LoadProcess, postmaster: int | None) -> Usage:
        database = None if postmaster is None else tree_cpu_seconds(postmaster)
        return cls(tree_cpu_seconds(server.pid), cpu_seconds(load.pid), database)


def run(load: Players, deployment: Deployment | None = None) -> dict[str, Any]:
    """Serve ``load`` once and report its figures."""
    deployment = deployment or Deployment()
    with tempfile.TemporaryDirectory(prefix="mercado-bench-players-") as temporary:
        directory = Path(temporary)
        with _database(deployment, directory) as (db, postmaster):
            return _run(load, deployment, directory, db, postmaster)


def _run(
    load: Players, deployment: Deployment, directory: Path, db: str, postmaster: int | None
) -> dict[str, Any]:
    _check_open_files(load, deployment)
    port = 0 if deployment.peer else _free_port()  # ours keeps its port across a restart
    count = 1 if deployment.peer else deployment.workers
    server = _server(deployment, db, port, directory / "server.log", load.connections).start(count=count)
    servers = [server]
    baseline_mib = tree_memory_mib(server.pid)
    command, cwd = _load_command(load, deployment, server.port)
    players = LoadProcess(command, directory / "load.log", load.connections, cwd)
    restart: dict[str, Any] = {}
    try:
        players.ready(load.ramp_seconds + READY_SECONDS)
        players.phase("warmup")
        time.sleep(load.warmup_seconds)
        players.phase("window")
        before = Usage.read(server, players, postmaster)
        time.sleep(load.duration)
        after = Usage.read(server, players, postmaster)
        memory = {
            "server_rss_mib": tree_memory_mib(server.pid),
            "server_rss_mib_at_start": baseline_mib,
            "server_peak_rss_mib": peak_memory_mib(server.pid) if count == 1 else None,
            "load_rss_mib": memory_mib(players.pid),
            "server_open_files_limit": open_files_limit(server.pid),
        }
        if deployment.restart:
            players.phase("restart")
            stopped = time.perf_counter()
            _stop(server)
            server = _server(deployment, db, port, directory / "server-2.log", load.connections)
            servers.append(server.start(count=count))
            restart["down_seconds"] = round(time.perf_counter() - stopped, 2)
            players.phase("after_restart")
            time.sleep(deployment.restart_window)
        figures = players.stop()
    finally:
        players.close()
        codes = [_stop(s) for s in servers]
    if any(code != 0 for code in codes):
        raise RuntimeError(f"the server exited with status {codes[-1]}:\n{servers[-1].log_tail()}")
    return _report(load, deployment, figures, before, after, memory, restart)


def _stop(server: ServerProcess) -> int:
    """Stop a server gracefully; its exit status (a peer killed by SIGTERM counts as stopped)."""
    if server.process is None or server.process.poll() is not None:
        return 0 if server.process is None else server.process.returncode
    code = server.stop()
    return 0 if code in (0, -15) else code


def _per_player_minute(seconds: float | None, players: int, duration: float) -> float | None:
    """CPU milliseconds per player-minute, from CPU seconds over ``duration``."""
    return None if seconds is None else round(1000 * seconds / (players * duration / 60), 2)


def _spent(start: float | None, end: float | None) -> float | None:
    return None if start is None or end is None else end - start


def _report(
    load: Players,
    deployment: Deployment,
    figures: dict[str, Any],
    before: Usage,
    after: Usage,
    memory: dict[str, Any],
    restart: dict[str, Any],
) -> dict[str, Any]:
    window = figures["phases"]["window"]
    earlier = [figures["phases"][name] for name in ("setup", "warmup")]
    server_cpu = _spent(before.server, after.server)
    load_cpu = _spent(before.load, after.load)
    database_cpu = _spent(before.database, after.database)
    duration = load.duration
    rss, start = memory["server_rss_mib"], memory["server_rss_mib_at_start"]
    report: dict[str, Any] = {
        "server": _server_name(deployment),
        "players": figures["players"],
        "connections": figures["connections"],
        "tables": figures["tables"],
        "table_sizes": list(load.sizes),
        "games": ["market"] if deployment.peer else list(load.games),
        "pace_seconds": load.pace,
        "credential": "player" if deployment.peer else load.credential,
        "players_following": figures["players_following"],
        "players_between_matches": figures["players_between_matches"],
        "players_failing": figures["players_failing"],
        "errors": window["errors"],
        "error_samples": window["error_samples"],
        "errors_before_window": _merged([phase["errors"] for phase in earlier]),
        "submits_per_second": round(window["submit_latency_ms"]["count"] / duration, 1),
        "submit_latency_ms": window["submit_latency_ms"],
        "propagation_latency_ms": window["propagation_latency_ms"],
        "stream_open_latency_ms": figures["phases"]["setup"]["stream_open_latency_ms"],
        "updates_received_per_second": round(window["updates_received"] / duration, 1),
        "matches_finished": window["matches_finished"],
        "server_rss_mib": rss,
        "server_rss_kib_per_player": None if rss is None else round(1024 * rss / load.players, 1),
        "server_rss_mib_at_start": start,
        # What the players and their matches added to the server's memory, a player.
        "server_rss_kib_per_player_beyond_start": None
        if rss is None or start is None
        else round(1024 * (rss - start) / load.players, 1),
        "server_peak_rss_mib": memory["server_peak_rss_mib"],
        "server_cpu_cores_used": None if server_cpu is None else round(server_cpu / duration, 3),
        "server_cpu_ms_per_player_minute": _per_player_minute(server_cpu, load.players, duration),
        "load_cpu_cores_used": None if load_cpu is None else round(load_cpu / duration, 3),
        "load_cpu_ms_per_player_minute": _per_player_minute(load_cpu, load.players, duration),
        "load_rss_mib": memory["load_rss_mib"],
        "database": _storage_name(deployment),
        "workers": 1 if deployment.peer else deployment.workers,
        "database_cpu_cores_used": None if database_cpu is None else round(database_cpu / duration, 3),
        "server_open_files_limit": memory["server_open_files_limit"],
        "duration_seconds": duration,
        "warmup_seconds": load.warmup_seconds,
        "ramp_seconds": load.ramp_seconds,
        "seed": load.seed,
        "cpus": os.cpu_count(),
        "python_version": sys.version.split()[0],
    }
    if deployment.restart:
        after_restart = figures["phases"]["after_restart"]
        report["restart"] = {
            **restart,
            "errors_while_down": figures["phases"]["restart"]["errors"],
            "errors_after": after_restart["errors"],
            "error_samples_after": after_restart["error_samples"],
            "most_players_failing": max(
                figures["phases"]["restart"]["most_players_failing"], after_restart["most_players_failing"]
            ),
            "recovered_after_seconds": after_restart["recovered_after_seconds"],
            "stream_open_latency_ms": after_restart["stream_open_latency_ms"],
            "submit_latency_ms": after_restart["submit_latency_ms"],
            "propagation_latency_ms": after_restart["propagation_latency_ms"],
            "window_seconds": deployment.restart_window,
        }
    return report


def _server_name(deployment: Deployment) -> str:
    if deployment.floor:
        return "floor (no game, no database)"
    if deployment.peer is None:
        return "mercado"
    return f"boardgame.io {json.loads((PEER / 'package.json').read_text())['dependencies']['boardgame.io']}"


def _storage_name(deployment: Deployment) -> str:
    if deployment.floor:
        return "none"
    if deployment.peer is not None:
        return "memory"
    return "sqlite" if deployment.db == "sqlite" else "postgresql"


def _merged(tables: list[dict[str, dict[str, int]]]) -> dict[str, dict[str, int]]:
    """Errors by call and code, added up."""
    merged: dict[str, dict[str, int]] = {}
    for table in tables:
        for call, codes in table.items():
            for code, count in codes.items():
                merged.setdefault(call, {})
                merged[call][code] = merged[call].get(code, 0) + count
    return merged


# --- the knee --------------------------------------------------------------------------------------


def passes(report: dict[str, Any]) -> bool:
    """Whether one run served its players: no errors in the window, nobody failing at its end."""
    return not report["errors"] and report["players_failing"] == 0


@dataclass(frozen=True)
class Bounds:
    """What a count of players must meet to be served: the medians of its runs' p99s under these."""

    submit_p99_ms: float = SUBMIT_P99_MS
    propagation_p99_ms: float = PROPAGATION_P99_MS


def verdict(reports: list[dict[str, Any]], bounds: Bounds) -> dict[str, Any]:
    """The runs at one count: the medians of their p99s against the bounds, and every run served."""
    submit = statistics.median(r["submit_latency_ms"]["p99"] for r in reports)
    propagation = statistics.median(r["propagation_latency_ms"]["p99"] for r in reports)
    served = all(passes(r) for r in reports)
    return {
        "players": reports[0]["players"],
        "submit_p99_ms_median": submit,
        "propagation_p99_ms_median": propagation,
        "every_run_served": served,
        "passes": served and submit < bounds.submit_p99_ms and propagation < bounds.propagation_p99_ms,
        "runs": reports,
    }


def knee(
    load: Players,
    deployment: Deployment,
    runs: int,
    most: int,
    bounds: Bounds | None = None,
    measure: Callable[[Players, Deployment], dict[str, Any]] = run,
) -> dict[str, Any]:
    """The most players (up to ``most``) that pass, ``runs`` runs each: doubling from ``load.players``
    until a count fails, then halving the gap until the best passing and the worst failing count are
    within ``KNEE_CLOSE_ENOUGH`` of each other."""
    bounds = bounds or Bounds()
    tried: dict[int, dict[str, Any]] = {}

    def tries(players: int) -> bool:
        print(f"bench players --knee: {players} players, {runs} run(s)", file=sys.stderr)
        try:
            reports = [
                measure(replace(load, players=players, seed=load.seed + run), deployment)
                for run in range(runs)
            ]
        except RuntimeError as error:  # the server or the players gave up: not served
            tried[players] = {"players": players, "passes": False, "failed": str(error)[-2000:]}
            return False
        tried[players] = verdict(reports, bounds)
        return bool(tried[players]["passes"])

    if deployment.peer is not None:
        most = min(most, most_connections())  # a socket a player, which no two players share

    best, worst = 0, None
    players = load.players
    while worst is None:
        if tries(players):
            best = players
            if players >= most:
                break
            players = min(most, 2 * players)
        else:
            worst = players
    while worst is not None and worst - best > max(2, KNEE_CLOSE_ENOUGH * worst):
        middle = (best + worst) // 2 if best else worst // 2
        if middle < 2:
            break
        if tries(middle):
            best = middle
        else:
            worst = middle
    return {
        "knee_players": best or None,
        "first_failing_players": worst,
        "most_players_tried": most,
        "criteria": {
            "submit_p99_ms_below": bounds.submit_p99_ms,
            "propagation_p99_ms_below": bounds.propagation_p99_ms,
            "every_run_served": "no errors in the window and no player failing at its end",
            "runs_per_count": runs,
        },
        "server": _server_name(deployment),
        "database": _storage_name(deployment),
        "workers": 1 if deployment.peer else deployment.workers,
        "pace_seconds": load.pace,
        "duration_seconds": load.duration,
        "table_sizes": list(load.sizes),
        "tried": [tried[n] for n in sorted(tried)],
    }
