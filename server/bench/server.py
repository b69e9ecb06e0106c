"""``mercado bench server``: a real server process under load from client processes on loopback.

The server runs as ``python -m server serve`` on a free loopback port with a
fresh database, exactly as in production. ``clients`` load-generating
processes (the 'spawn' start method, one asyncio loop and one grpc.aio channel
each) share ``matches`` slots between them and run two timed phases of
``duration`` seconds each, started together at a barrier:

1. the baseline: every slot calls the bare ``grpc.health.v1.Health/Check`` in a
   loop, so the server sees the same concurrency through the same harness;
2. the matches: every slot plays 2-player matches with uniformly random legal
   actions, one ``SubmitAction`` at a time with ``expected_version``; both
   seats watch with ``StreamEvents``, as the two players of a real game would.
   The next seat's legal actions come from the last ``SubmitActionResponse``
   (when the same seat moves again) or from that seat's stream (when the turn
   passes): never from an extra ``GetView``. A finished match is replaced by a
   new one, so ``matches`` stay in play.

Only what completes inside a phase's window is counted. The matches play
WARMUP_SECONDS before their window opens: 200 matches making their first moves
at once, on a server whose database connections have not prepared their
statements yet, is how a benchmark starts, not how a server runs. This module talks to
the server only through the public API, like any client.

With ``nodes`` above 1 on SQLite, that many servers run, each on a SQLite file of
its own: they share nothing, which no deployment of ``mercado serve`` does (its
workers need PostgreSQL), so their figures are the most that many server
processes do on this machine, whatever they would share. With ``db="postgres"``,
one run measures the configurations in turn on the same harness and load: SQLite
with one server (and with ``nodes``, sharing nothing), PostgreSQL with one server,
and PostgreSQL with ``nodes`` servers. A throwaway PostgreSQL cluster
(postgres.py) serves every PostgreSQL configuration, each on a fresh database;
its nodes are ``python -m server serve`` processes on free loopback ports with
the same ``--db``. Every load process holds one channel per node and spreads
its matches over the nodes round-robin (by slot over all processes), both
seats of a match on the node that created it, as a sticky load balancer would
place them; so the nodes hear each other's news (NOTIFY) but never have to
catch up with a match another node moved. The baseline's callers are spread
the same way.

With ``floor``, the server is floor_server.py instead, which plays no game and
writes nothing: the same harness then measures what the calls and stream
messages themselves cost, the most any server could reach here. With
``beside_floor``, the server and the floor are measured in turn, round after round,
and the server's figures are reported as fractions of the floor's of its round.
"""

from __future__ import annotations

import asyncio
import math
import random
import statistics
import tempfile
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .process import ServerProcess, cpu_seconds, latency_ms, peak_memory_mib, shares, tree_cpu_seconds

if TYPE_CHECKING:
    from mercado.v1 import match_pb2 as api
    from mercado.v1 import match_pb2_grpc as api_grpc


CONNECT_SECONDS = 30.0  # for a load generator's channel to connect
SETUP_SECONDS = 120.0  # for every load generator to set up its first matches
CALL_SECONDS = 10.0  # deadline of one RPC
WARMUP_SECONDS = 2.0  # of play before the matches' window opens
BENCH_STREAMS_PER_CONNECTION = 100_000  # the calls one load process's channel holds at once, and more

Metadata = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class WorkerConfig:
    """What one load-generating process is told (picklable: it crosses a 'spawn')."""

    index: int
    targets: tuple[str, ...]  # the nodes' addresses
    first_slot: int  # this process's slots are first_slot, first_slot + 1, ... over all processes
    slots: int  # matches (and baseline callers) this process keeps busy
    duration: float
    seed: int
    interval: float = 0.0  # seconds between one match's submissions; 0: as fast as the server answers


@dataclass
class WorkerResult:
    """What one load-generating process counted inside the two windows."""

    health_latencies: list[float] = field(default_factory=list)
    submit_latencies: list[float] = field(default_factory=list)
    submits_accepted: int = 0
    submit_errors: int = 0
    updates_delivered: int = 0
    events_delivered: int = 0
    stream_errors: int = 0
    matches_started: int = 0
    matches_finished: int = 0
    baseline_cpu_seconds: float = 0.0  # this process's CPU time in each window
    matches_cpu_seconds: float = 0.0


# --- the load generator (runs in each spawned process) ------------------------


@dataclass
class Window:
    """When the matches' figures count: from ``opens`` (after the warm-up) to ``closes``."""

    opens: float = math.inf
    closes: float = math.inf

    def holds(self, moment: float) -> bool:
        return self.opens <= moment <= self.closes


def _bearer(token: str) -> Metadata:
    return (("authorization", f"Bearer {token}"),)


class Watcher:
    """One seat's ``StreamEvents``: counts what it delivers and keeps the seat's latest view."""

    def __init__(self, result: WorkerResult, window: Window) -> None:
        self.result = result
        self.window = window  # what the stream delivers inside it counts
        self.version = 0
        self.state: api.MatchState | None = None
        self.changed = asyncio.Event()
        self.ended = False

    async def run(self, stub: api_grpc.MatchServiceStub, match_id: str, token: Metadata) -> None:
        from mercado.v1 import match_pb2 as api

        request = api.StreamEventsRequest(match_id=match_id, after_version=0)
        try:
            call: Any = stub.StreamEvents(request, metadata=token)
            async for update in call:
                if self.window.holds(time.perf_counter()):
                    self.result.updates_delivered += 1
                    self.result.events_delivered += len(update.events)
                self.version = update.version
                self.state = update.state
                self.changed.set()
        except asyncio.CancelledError:
            raise
        except Exception:
            # Counted; the match then stalls on this seat and its slot moves on at the timeout.
            if self.window.holds(time.perf_counter()):
                self.result.stream_errors += 1
        finally:
            self.ended = True
            self.changed.set()

    async def state_at(self, version: int) -> api.MatchState | None:
        """The seat's view once its stream has reached ``version``; None at the deadline or on a stall."""
        while self.version < version:
            remaining = self.window.closes - time.perf_counter()
            if self.ended or remaining <= 0:
                return None
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), min(remaining, CALL_SECONDS))
            except TimeoutError:
                return None
        return self.state


@dataclass
class Game:
    """One match in play: the node that serves it, its seats' tokens and watchers."""

    stub: api_grpc.MatchServiceStub
    match_id: str
    tokens: list[Metadata]
    watchers: list[Watcher]
    state: api.MatchState  # the view of the seat to move, with its legal actions


class Driver:
    """The matches of one load-generating process."""

    def __init__(
        self, stubs: list[api_grpc.MatchServiceStub], config: WorkerConfig, result: WorkerResult
    ) -> None:
        self.stubs = stubs  # one per node
        self.config = config
        self.result = result
        self.rng = random.Random(f"{config.seed}:{config.index}")
        self.window = Window()  # set once the matches start
        self.requests = 0
        self.stream_tasks: set[asyncio.Task[None]] = set()

    def stub_of(self, slot: int) -> api_grpc.MatchServiceStub:
        """The node of this process's ``slot``: round-robin over the nodes, by slot over all processes."""
        return self.stubs[(self.config.first_slot + slot) % len(self.stubs)]

    async def new_game(self, stub: api_grpc.MatchServiceStub) -> Game:
        """Create a 2-player match on a node, take both seats there, watch both, fetch the first
        mover's view once."""
        from mercado.v1 import match_pb2 as api

        created = await stub.CreateMatch(
            api.CreateMatchRequest(game=api.GAME_MERCADO, players=2, seed=self.rng.getrandbits(63)),
            timeout=CALL_SECONDS,
        )
        match_id = created.match_id
        tokens: list[Metadata] = []
        for seat in (0, 1):
            joined = await stub.JoinMatch(
                api.JoinMatchRequest(match_id=match_id, seat=seat, display_name=f"bench-{seat}"),
                timeout=CALL_SECONDS,
            )
            tokens.append(_bearer(joined.seat_token))
        watchers = [Watcher(self.result, self.window) for _ in tokens]
        for watcher, token in zip(watchers, tokens, strict=True):
            task = asyncio.create_task(watcher.run(stub, match_id, token))
            self.stream_tasks.add(task)
            task.add_done_callback(self.stream_tasks.discard)
        state = await stub.GetView(
            api.GetViewRequest(match_id=match_id), metadata=tokens[0], timeout=CALL_SECONDS
        )
        if state.HasField("to_move") and state.to_move != 0:
            state = await stub.GetView(
                api.GetViewRequest(match_id=match_id), metadata=tokens[state.to_move], timeout=CALL_SECONDS
            )
        self.result.matches_started += 1
        return Game(stub, match_id, tokens, watchers, state)

    async def play(self, game: Game, pace: list[float]) -> None:
        """Random legal actions until the match ends, the deadline passes or something fails.

        ``pace`` holds the time of the slot's next submission (paced load only).
        """
        import grpc
        from mercado.v1 import match_pb2 as api

        state = game.state
        clock = time.perf_counter
        interval = self.config.interval
        while clock() < self.window.closes:
            if not state.HasField("to_move") or not state.legal_actions:
                return
            if interval:
                # Fixed slots in time; a slot that fell behind starts again from now, without a burst.
                delay = pace[0] - clock()
                if delay > 0:
                    await asyncio.sleep(delay)
                    if clock() >= self.window.closes:
                        return
                pace[0] = max(pace[0], clock() - interval) + interval
            seat = state.to_move
            actions = state.legal_actions
            self.requests += 1
            request = api.SubmitActionRequest(
                match_id=game.match_id,
                expected_version=state.version,
                request_id=f"{self.config.index}-{self.requests}",
                action=actions[self.rng.randrange(len(actions))],
            )
            start = clock()
            try:
                response = await game.stub.SubmitAction(
                    request, metadata=game.tokens[seat], timeout=CALL_SECONDS
                )
            except grpc.aio.AioRpcError:
                if clock() >= self.window.opens:
                    self.result.submit_errors += 1
                return
            end = clock()
            # Every submission started in the window has its latency taken; only those
            # answered in the window count as throughput.
            if start >= self.window.opens:
                self.result.submit_latencies.append(end - start)
            if end > self.window.closes:
                return
            if end >= self.window.opens:
                self.result.submits_accepted += 1
            after = response.state
            if after.match.status == api.MATCH_STATUS_FINISHED or not after.HasField("to_move"):
                self.result.matches_finished += 1
                return
            if after.to_move == seat:
                state = after
            else:
                next_state = await game.watchers[after.to_move].state_at(response.version)
                if next_state is None:
                    return
                state = next_state

    async def slot(self, first: Game) -> None:
        """Keep one match in play until the deadline: replace each finished match with a new one."""
        game: Game | None = first
        pace = [time.perf_counter() + self.rng.uniform(0, self.config.interval)]
        while game is not None:
            await self.play(game, pace)
            game = await self.new_game(first.stub) if time.perf_counter() < self.window.closes else None

    async def stop_streams(self) -> None:
        for task in self.stream_tasks:
            task.cancel()
        await asyncio.gather(*self.stream_tasks, return_exceptions=True)


async def _health_phase(channels: list[Any], config: WorkerConfig, result: WorkerResult) -> None:
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    stubs = [health_pb2_grpc.HealthStub(channel) for channel in channels]
    request = health_pb2.HealthCheckRequest(service="")
    deadline = time.perf_counter() + config.duration

    async def caller(slot: int) -> None:
        stub = stubs[(config.first_slot + slot) % len(stubs)]  # the node of the slot's matches
        clock = time.perf_counter
        while (start := clock()) < deadline:
            await stub.Check(request, timeout=CALL_SECONDS)
            end = clock()
            if end <= deadline:
                result.health_latencies.append(end - start)

    await asyncio.gather(*(caller(slot) for slot in range(config.slots)))


async def _load(config: WorkerConfig, barrier: Any, results: Any) -> None:
    import grpc
    from mercado.v1 import match_pb2_grpc as api_grpc

    result = WorkerResult()
    channels = [grpc.aio.insecure_channel(target) for target in config.targets]
    try:
        await asyncio.wait_for(
            asyncio.gather(*(channel.channel_ready() for channel in channels)), CONNECT_SECONDS
        )
        await asyncio.to_thread(barrier.wait, SETUP_SECONDS)
        cpu_start = time.process_time()
        await _health_phase(channels, config, result)
        result.baseline_cpu_seconds = time.process_time() - cpu_start

        driver = Driver([api_grpc.MatchServiceStub(channel) for channel in channels], config, result)
        games = await asyncio.gather(*(driver.new_game(driver.stub_of(slot)) for slot in range(config.slots)))
        await asyncio.to_thread(barrier.wait, SETUP_SECONDS)
        driver.window.opens = time.perf_counter() + WARMUP_SECONDS
        driver.window.closes = driver.window.opens + config.duration
        cpu_at_open: list[float] = []
        asyncio.get_running_loop().call_later(WARMUP_SECONDS, lambda: cpu_at_open.append(time.process_time()))
        await asyncio.wait_for(
            asyncio.gather(*(driver.slot(game) for game in games)),
            WARMUP_SECONDS + config.duration + 2 * CALL_SECONDS,
        )
        result.matches_cpu_seconds = time.process_time() - cpu_at_open[0]
        await driver.stop_streams()
    finally:
        for channel in channels:
            await channel.close()
        # Let the calls the close cancelled finish their bookkeeping: grpc.aio can hang in
        # asyncio.run's teardown when it has to cancel them itself.
        others = asyncio.all_tasks() - {asyncio.current_task()}
        if others:
            await asyncio.wait(others, timeout=CALL_SECONDS)
    # Reported from inside the loop, so that a hang in the loop's teardown cannot lose it.
    results.put((config.index, result))


def _worker(config: WorkerConfig, barrier: Any, results: Any) -> None:
    """The body of one load-generating process: its result, or the error's traceback, goes to ``results``."""
    try:
        asyncio.run(_load(config, barrier, results))
    except BaseException:
        barrier.abort()
        results.put((config.index, traceback.format_exc()))


# --- the parent: server processes, phases, figures -----------------------------


def _count_actions(db: Path) -> int:
    """Actions the server wrote to its database (read after it stopped)."""
    import sqlite3

    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        (count,) = connection.execute("SELECT COUNT(*) FROM actions").fetchone()
        return int(count)
    finally:
        connection.close()


def _ask(dsn: str, statement: str) -> Any:
    """Run one statement on a connection of its own to ``dsn``; its first value."""
    import asyncpg

    async def ask() -> Any:
        connection = await asyncpg.connect(dsn)
        try:
            return await connection.fetchval(statement)
        finally:
            await connection.close()

    return asyncio.run(ask())


def _count_actions_postgres(dsn: str) -> int:
    """Actions the nodes wrote to their PostgreSQL database (read after they stopped)."""
    return int(_ask(dsn, "SELECT count(*) FROM actions"))


def _checkpoint(dsn: str) -> None:
    """Write out what earlier configurations left in PostgreSQL's buffers: this one does not pay for it."""
    _ask(dsn, "CHECKPOINT")


def _postgres_version(dsn: str) -> str:
    return str(_ask(dsn, "SHOW server_version"))


# The harness is one client (one address) with one channel per load process and node, and its
# matches are seeded: the server is told so. Its rate limits stay on, set far above what the load
# asks, so that what they and the metrics cost is in the figures (``bare`` turns both off).
BENCH_SERVER_FLAGS = [
    "--web-port", "-1",
    "--allow-chosen-seeds",
    "--grpc-max-streams-per-connection", str(BENCH_STREAMS_PER_CONNECTION),
    "--max-waiting-per-client", "1000000",
    "--max-waiting-per-network", "1000000",
    "--max-waiting", "1000000",
    "--max-streams-per-client", "1000000",
    "--max-streams-per-network", "1000000",
    "--max-streams", "1000000",
]  # fmt: skip
LIMITS_ON = ["--rate-limit", "all=1000000/1000000"]
LIMITS_OFF = ["--rate-limit", "all=off", "--no-metrics"]


def start_server(db: Path | str, log: Path, profile: Path | None, floor: bool, bare: bool) -> ServerProcess:
    """A server on a free loopback port; ``db`` is a SQLite file or a PostgreSQL DSN."""
    if floor:
        serve = ["-m", "server.bench.floor_server", "--host", "127.0.0.1", "--port", "0"]
    else:
        serve = [
            "-m",
            "server",
            "serve",
            "--allow-anonymous",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--db",
            str(db),
        ]
        serve += BENCH_SERVER_FLAGS + (LIMITS_OFF if bare else LIMITS_ON)
    prefix = ["-m", "cProfile", "-o", str(profile)] if profile else []
    return ServerProcess([*prefix, *serve], log).start()


def _collect(results: Any, processes: list[Any], deadline: float) -> dict[int, WorkerResult]:
    """Every load generator's result; raises on the first failure or at ``deadline``."""
    import queue

    collected: dict[int, WorkerResult] = {}
    while len(collected) < len(processes):
        try:
            index, outcome = results.get(timeout=0.5)
        except queue.Empty:
            if time.monotonic() > deadline:
                raise RuntimeError("the load generators did not report in time") from None
            if any(p.exitcode not in (None, 0) for p in processes):
                raise RuntimeError("a load generator died without reporting") from None
            continue
        if isinstance(outcome, str):
            raise RuntimeError(f"load generator {index} failed:\n{outcome}")
        collected[index] = outcome
    return collected


@dataclass(frozen=True)
class Load:
    """What the load generators do; the same for every configuration of a run."""

    matches: int
    duration: float
    clients: int
    seed: int
    rate: float  # offered actions per second over all matches; 0: as fast as answered


@dataclass
class Measured:
    """What the parent read around the two windows, and what the load generators counted."""

    workers: list[WorkerResult]
    # At the start and end of the baseline window, then of the matches window (None: unreadable).
    server_cpu: list[float | None]  # summed over the nodes
    database_cpu: list[float | None]  # the PostgreSQL cluster's processes; empty for SQLite
    server_peak_mib: float | None  # summed over the nodes


def _total(values: list[float | None]) -> float | None:
    return None if any(value is None for value in values) else sum(value or 0.0 for value in values)


def _measure(load: Load, servers: list[ServerProcess], postmaster: int | None) -> Measured:
    """Run the load generators against ``servers`` (the nodes) through both windows."""
    import multiprocessing
    import threading

    split = shares(load.matches, load.clients)
    firsts = [sum(split[:i]) for i in range(load.clients)]
    interval = load.matches / load.rate if load.rate > 0 else 0.0
    targets = tuple(server.target for server in servers)
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(load.clients + 1)
    results = context.Queue()
    processes = [
        context.Process(
            target=_worker,
            args=(
                WorkerConfig(i, targets, first, share, load.duration, load.seed, interval),
                barrier,
                results,
            ),
            name=f"mercado-bench-load-{i}",
            daemon=True,
        )
        for i, (first, share) in enumerate(zip(firsts, split, strict=True))
    ]

    def read_cpu() -> None:
        server_cpu.append(_total([cpu_seconds(server.pid) for server in servers]))
        if postmaster is not None:
            database_cpu.append(tree_cpu_seconds(postmaster))

    server_cpu: list[float | None] = []
    database_cpu: list[float | None] = []
    try:
        for process in processes:
            process.start()
        # The parent joins both barriers only to read the CPU times over each window.
        for phase in ("baseline", "matches"):
            try:
                barrier.wait(SETUP_SECONDS + load.duration)
            except threading.BrokenBarrierError:
                _collect(results, processes, time.monotonic() + CALL_SECONDS)
                raise RuntimeError("a load generator did not reach the start of a phase") from None
            if phase == "matches":
                time.sleep(WARMUP_SECONDS)
            read_cpu()
            time.sleep(load.duration)
            read_cpu()
        by_index = _collect(
            results, processes, time.monotonic() + WARMUP_SECONDS + load.duration + 4 * CALL_SECONDS
        )
        peak_mib = _total([peak_memory_mib(server.pid) for server in servers])
    finally:
        for process in processes:
            process.join(timeout=CALL_SECONDS)
            if process.is_alive():
                process.kill()
                process.join()
    return Measured([by_index[i] for i in sorted(by_index)], server_cpu, database_cpu, peak_mib)


def _run_servers(
    load: Load,
    databases: Sequence[Path | str],
    directory: Path,
    profile: Path | None,
    floor: bool,
    bare: bool,
    postmaster: int | None = None,
) -> Measured:
    """Start a server on each of ``databases`` (one node each), measure, stop them; a server that
    fails is an error."""
    nodes = len(databases)
    servers: list[ServerProcess] = []
    exit_codes: list[int] = []
    try:
        for node, db in enumerate(databases):
            node_profile = profile
            if profile is not None and nodes > 1:
                node_profile = profile.with_name(f"{profile.stem}-node{node}{profile.suffix}")
            log = directory / ("server.log" if nodes == 1 else f"server-{node}.log")
            servers.append(start_server(db, log, node_profile, floor, bare))
        measured = _measure(load, servers, postmaster)
    finally:
        exit_codes = [server.stop() for server in servers]
    for server, exit_code in zip(servers, exit_codes, strict=True):
        if exit_code != 0:
            raise RuntimeError(f"the server exited with status {exit_code}:\n{server.log_tail()}")
    return measured


def _report(load: Load, measured: Measured, server: str, persisted: int | None) -> dict[str, Any]:
    """The figures of one configuration (the report of a run on SQLite, as it always was)."""
    import grpc

    workers, cpu, duration = measured.workers, measured.server_cpu, load.duration
    health = [latency for w in workers for latency in w.health_latencies]
    submits = [latency for w in workers for latency in w.submit_latencies]
    accepted = sum(w.submits_accepted for w in workers)
    baseline_rate = len(health) / duration
    submit_rate = accepted / duration

    def server_cpu_ms(first: int, count: int) -> float | None:
        start, end = cpu[first], cpu[first + 1]
        if start is None or end is None or count == 0:
            return None
        return round(1000 * (end - start) / count, 3)

    def cpu_ratio(health_ms: float | None, action_ms: float | None) -> float | None:
        return round(health_ms / action_ms, 3) if health_ms and action_ms else None

    def server_utilisation(first: int) -> float | None:
        start, end = cpu[first], cpu[first + 1]
        return None if start is None or end is None else round((end - start) / duration, 2)

    return {
        "server": server,
        "baseline_health_calls_per_second": round(baseline_rate, 1),
        "submit_actions_per_second": round(submit_rate, 1),
        "ratio": round(submit_rate / baseline_rate, 3) if baseline_rate else 0.0,
        "submit_latency_ms": latency_ms(submits),
        "updates_delivered_per_second": round(sum(w.updates_delivered for w in workers) / duration, 1),
        "events_delivered_per_second": round(sum(w.events_delivered for w in workers) / duration, 1),
        "matches_concurrent": load.matches,
        "offered_actions_per_second": load.rate or None,
        "matches_finished": sum(w.matches_finished for w in workers),
        "server_peak_memory_mib": measured.server_peak_mib,
        "duration_seconds": duration,
        "grpcio_version": grpc.__version__,
        # Supporting figures.
        "baseline_latency_ms": latency_ms(health),
        "actions_accepted": accepted,
        # Every accepted action is in the database (also those answered after the window closed).
        "actions_persisted": persisted,
        "submit_errors": sum(w.submit_errors for w in workers),
        "stream_errors": sum(w.stream_errors for w in workers),
        "matches_started": sum(w.matches_started for w in workers),
        "server_cpu_ms_per_health_call": server_cpu_ms(0, len(health)),
        "server_cpu_ms_per_action": server_cpu_ms(2, accepted),
        # The ratio again, from the server's CPU cost per call rather than from throughput: it does
        # not depend on how much CPU the server got, so it is steadier on a shared machine.
        "ratio_by_server_cpu": cpu_ratio(server_cpu_ms(0, len(health)), server_cpu_ms(2, accepted)),
        "server_cpu_cores_used": {"baseline": server_utilisation(0), "matches": server_utilisation(2)},
        "client_processes": load.clients,
        "client_cpu_cores_used": {
            "baseline": round(sum(w.baseline_cpu_seconds for w in workers) / duration, 2),
            "matches": round(sum(w.matches_cpu_seconds for w in workers) / duration, 2),
        },
        "seed": load.seed,
    }


DATABASE_FIGURES = ("database_cpu_ms_per_action", "database_cpu_cores_used")


def _database_figures(load: Load, measured: Measured) -> dict[str, Any]:
    """The PostgreSQL cluster's CPU over the matches window: per accepted action, and in cores."""
    accepted = sum(w.submits_accepted for w in measured.workers)
    start, end = measured.database_cpu[2], measured.database_cpu[3]
    if start is None or end is None:
        return dict.fromkeys(DATABASE_FIGURES)
    return {
        "database_cpu_ms_per_action": round(1000 * (end - start) / accepted, 3) if accepted else None,
        "database_cpu_cores_used": round((end - start) / load.duration, 2),
    }


DATABASES = ("sqlite", "postgres")


def run(
    matches: int = 200,
    duration: float = 20.0,
    clients: int = 2,
    seed: int | None = None,
    rate: float = 0.0,
    profile: Path | None = None,
    floor: bool = False,
    bare: bool = False,
    db: str = "sqlite",
    nodes: int = 1,
    beside_floor: int = 0,
) -> dict[str, Any]:
    """Start a server, measure the baseline and the matches, stop the server; all figures.

    ``rate``: offered submissions per second over all matches, each match pacing its
    own; 0 (the default) submits as fast as the server answers, which measures the
    most it sustains (and, by Little's law, a latency of about matches / throughput).
    ``profile``: run the server under cProfile and write its statistics there.
    ``floor``: run the server that plays no game (floor_server.py), which gives the
    most this harness can measure on this machine, whatever the server does.
    ``bare``: run the server with its rate limits and metrics off, to show what they cost.
    ``nodes``: on SQLite, that many servers sharing nothing, each on a file of its own.
    ``db="postgres"``: measure, in one run, SQLite with one server (and ``nodes``), then
    PostgreSQL with one and with ``nodes`` servers (when above 1) on a throwaway cluster,
    and report each configuration in ``"configurations"`` (``run_postgres``).
    ``beside_floor``: measure the server then the floor that many times in turn and report
    them side by side (``run_beside_floor``).
    """
    if db not in DATABASES:
        raise ValueError(f"db must be one of {', '.join(DATABASES)}, not {db!r}")
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    load = Load(matches, duration, max(1, min(clients, matches)), seed, rate)
    if db == "postgres":
        if floor or beside_floor:
            raise ValueError("the floor server has no database: it cannot run on PostgreSQL")
        return run_postgres(load, nodes, profile, bare)
    if nodes != 1 and (floor or beside_floor):
        raise ValueError("the floor is one server: it has no nodes")
    if beside_floor:
        if floor or profile is not None:
            raise ValueError("beside_floor runs the server and the floor itself, unprofiled")
        return run_beside_floor(load, beside_floor, bare)
    return _run_sqlite(load, profile, floor, bare, nodes)


def _run_on_sqlite(
    load: Load, directory: Path, nodes: int, profile: Path | None, floor: bool, bare: bool
) -> tuple[Measured, int | None]:
    """One server (or the floor) on a fresh SQLite file in ``directory``, or ``nodes`` servers that
    share nothing, on a file each: the measures, and the actions the files hold (None: the floor)."""
    files = [directory / ("bench.db" if nodes == 1 else f"bench-{node}.db") for node in range(nodes)]
    measured = _run_servers(load, files, directory, profile, floor, bare)
    return measured, None if floor else sum(_count_actions(file) for file in files)


def _run_sqlite(load: Load, profile: Path | None, floor: bool, bare: bool, nodes: int = 1) -> dict[str, Any]:
    """One server (or the floor) on SQLite, or ``nodes`` servers sharing nothing: the report."""
    with tempfile.TemporaryDirectory(prefix="mercado-bench-") as tmp:
        measured, persisted = _run_on_sqlite(load, Path(tmp), nodes, profile, floor, bare)
    server = "floor" if floor else "mercado, rate limits and metrics off" if bare else "mercado"
    return {**_report(load, measured, server, persisted), "nodes": nodes}


def run_beside_floor(load: Load, rounds: int, bare: bool = False) -> dict[str, Any]:
    """The server then the floor, ``rounds`` times, on the same load: each round's two reports and
    the server's figures as fractions of the floor's in that round, and their medians.

    A shared machine's speed moves from one minute to the next, by a quarter or more; a server and
    the floor measured a few seconds apart meet about the same machine, so their ratio is the
    figure to compare, and several rounds show how far it moves."""
    results: list[dict[str, Any]] = []
    for number in range(1, rounds + 1):
        server = _run_sqlite(load, None, False, bare)
        floor = _run_sqlite(load, None, True, False)
        results.append({"round": number, "server": server, "floor": floor, **_of_floor(server, floor)})
    return {
        "rounds": results,
        **{f"median_{key}": _median([r[key] for r in results]) for key in OF_FLOOR},
        **_load_figures(load),
    }


def _load_figures(load: Load) -> dict[str, Any]:
    """The load a report of several runs measured them all under."""
    return {
        "matches_concurrent": load.matches,
        "offered_actions_per_second": load.rate or None,
        "duration_seconds": load.duration,
        "client_processes": load.clients,
        "seed": load.seed,
    }


# Each fraction of the floor's figure a round reports, and the figure of both reports it divides.
OF_FLOOR = {
    "actions_per_second_of_floor": "submit_actions_per_second",
    "cpu_per_action_of_floor": "server_cpu_ms_per_action",
}


def _of_floor(server: dict[str, Any], floor: dict[str, Any]) -> dict[str, float | None]:
    """The server's actions per second and CPU per action, each as a fraction of the floor's."""
    fractions: dict[str, float | None] = {}
    for name, key in OF_FLOOR.items():
        ours, floors = server[key], floor[key]
        fractions[name] = round(ours / floors, 3) if ours and floors else None
    return fractions


def _median(values: list[float | None]) -> float | None:
    known = [value for value in values if value is not None]
    return round(statistics.median(known), 3) if known else None


def run_postgres(load: Load, nodes: int, profile: Path | None = None, bare: bool = False) -> dict[str, Any]:
    """SQLite with one node and with ``nodes`` nodes sharing nothing, PostgreSQL with one node and
    with ``nodes`` nodes (the configurations of ``nodes`` only if it is above 1).

    One throwaway PostgreSQL cluster serves every PostgreSQL configuration, each on a
    database of its own, checkpointed first. Each configuration's report is that of a
    single run, with its database and node count, and the cluster's CPU time over the
    matches window per accepted action (its postmaster and every child of it: backends,
    WAL writer, checkpointer...). The server's CPU per action is summed over the nodes.
    With ``profile``, each node writes its statistics to a file of its own beside it
    (``NAME-sqlite-1.EXT``, ``NAME-postgresql-2-node0.EXT`` and so on).
    """
    import asyncpg

    from .postgres import PostgresServer, available

    reason = available()
    if reason is not None:
        raise RuntimeError(f"PostgreSQL is not available: {reason}")
    server = "mercado, rate limits and metrics off" if bare else "mercado"
    counts = [1, nodes] if nodes > 1 else [1]
    configurations = [(database, count) for database in ("sqlite", "postgresql") for count in counts]
    reports: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="mercado-bench-") as tmp, PostgresServer() as cluster:
        postgres_version = _postgres_version(cluster.dsn)
        for number, (database, count) in enumerate(configurations):
            directory = Path(tmp) / f"{database}-{count}"
            directory.mkdir()
            label = f"{database}-{count}"
            config_profile = profile.with_name(f"{profile.stem}-{label}{profile.suffix}") if profile else None
            if database == "sqlite":
                measured, persisted = _run_on_sqlite(load, directory, count, config_profile, False, bare)
                figures: dict[str, Any] = dict.fromkeys(DATABASE_FIGURES)
            else:
                dsn = cluster.create_database(f"bench_{number}")
                _checkpoint(dsn)
                measured = _run_servers(
                    load, [dsn] * count, directory, config_profile, False, bare, cluster.postmaster_pid
                )
                persisted = _count_actions_postgres(dsn)
                figures = _database_figures(load, measured)
            report = _report(load, measured, server, persisted)
            reports.append({"database": database, "nodes": count, **report, **figures})
    return {
        "configurations": reports,
        **_load_figures(load),
        "postgresql_version": postgres_version,
        "asyncpg_version": asyncpg.__version__,
    }


def _ms(value: float | None) -> str:
    """A time in milliseconds as the tables show it."""
    return "-" if value is None else f"{value:.2f} ms"


def table(report: dict[str, Any]) -> str:
    """The configurations of a ``run_postgres`` report as a Markdown table."""
    lines = [
        "| configuration | actions/s | submit p50 | submit p99 | updates/s | events/s"
        " | server CPU per action | database CPU per action | actions/s per server core |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]

    def per_core(cpu_ms: float | None) -> str:
        """What one core given wholly to a node would serve: what N nodes on N free cores multiply."""
        return "-" if not cpu_ms else f"{1000 / cpu_ms:,.0f}"

    for config in report["configurations"]:
        nodes = config["nodes"]
        name = f"{'SQLite' if config['database'] == 'sqlite' else 'PostgreSQL'}, {nodes} node"
        if nodes > 1:
            name += "s, a file each" if config["database"] == "sqlite" else "s"
        latency = config["submit_latency_ms"]
        lines.append(
            f"| {name} | {config['submit_actions_per_second']:,.0f}"
            f" | {_ms(latency['p50'])} | {_ms(latency['p99'])}"
            f" | {config['updates_delivered_per_second']:,.0f} | {config['events_delivered_per_second']:,.0f}"
            f" | {_ms(config['server_cpu_ms_per_action'])} | {_ms(config['database_cpu_ms_per_action'])}"
            f" | {per_core(config['server_cpu_ms_per_action'])} |"
        )
    return "\n".join(lines)


def floor_table(report: dict[str, Any]) -> str:
    """The rounds of a ``run_beside_floor`` report as a Markdown table, medians last."""
    lines = [
        "| round | actions/s | server CPU per action | submit p99"
        " | floor's actions/s | floor's CPU per action | floor's submit p99"
        " | actions/s ÷ floor's | CPU per action ÷ floor's |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]

    def measured(run: dict[str, Any]) -> str:
        cpu, p99 = _ms(run["server_cpu_ms_per_action"]), _ms(run["submit_latency_ms"]["p99"])
        return f"{run['submit_actions_per_second']:,.0f} | {cpu} | {p99}"

    def fractions(figures: dict[str, Any], prefix: str = "") -> str:
        return " | ".join(
            "-" if figures[prefix + name] is None else f"{figures[prefix + name]:.3f}" for name in OF_FLOOR
        )

    for result in report["rounds"]:
        server, floor = measured(result["server"]), measured(result["floor"])
        lines.append(f"| {result['round']} | {server} | {floor} | {fractions(result)} |")
    lines.append(f"| median | | | | | | | {fractions(report, 'median_')} |")
    return "\n".join(lines)
