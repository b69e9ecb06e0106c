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

Only what completes inside a phase's window is counted. This module talks to
the server only through the public API, like any client.

With ``floor``, the server is floor_server.py instead, which plays no game and
writes nothing: the same harness then measures what the calls and stream
messages themselves cost, the most any server could reach here.
"""

from __future__ import annotations

import asyncio
import math
import random
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .process import ServerProcess, cpu_seconds, latency_ms, peak_memory_mib

if TYPE_CHECKING:
    from mercado.v1 import match_pb2 as api
    from mercado.v1 import match_pb2_grpc as api_grpc

CONNECT_SECONDS = 30.0  # for a load generator's channel to connect
SETUP_SECONDS = 120.0  # for every load generator to set up its first matches
CALL_SECONDS = 10.0  # deadline of one RPC
BENCH_STREAMS_PER_CONNECTION = 100_000  # the calls one load process's channel holds at once, and more

Metadata = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class WorkerConfig:
    """What one load-generating process is told (picklable: it crosses a 'spawn')."""

    index: int
    target: str
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


def _bearer(token: str) -> Metadata:
    return (("authorization", f"Bearer {token}"),)


class Watcher:
    """One seat's ``StreamEvents``: counts what it delivers and keeps the seat's latest view."""

    def __init__(self, result: WorkerResult, deadline: float) -> None:
        self.result = result
        self.deadline = deadline
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
                if time.perf_counter() <= self.deadline:
                    self.result.updates_delivered += 1
                    self.result.events_delivered += len(update.events)
                self.version = update.version
                self.state = update.state
                self.changed.set()
        except asyncio.CancelledError:
            raise
        except Exception:
            # Counted; the match then stalls on this seat and its slot moves on at the timeout.
            if time.perf_counter() <= self.deadline:
                self.result.stream_errors += 1
        finally:
            self.ended = True
            self.changed.set()

    async def state_at(self, version: int) -> api.MatchState | None:
        """The seat's view once its stream has reached ``version``; None at the deadline or on a stall."""
        while self.version < version:
            remaining = self.deadline - time.perf_counter()
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
    """One match in play: its seats' tokens and watchers."""

    match_id: str
    tokens: list[Metadata]
    watchers: list[Watcher]
    state: api.MatchState  # the view of the seat to move, with its legal actions


class Driver:
    """The matches of one load-generating process."""

    def __init__(self, stub: api_grpc.MatchServiceStub, config: WorkerConfig, result: WorkerResult) -> None:
        self.stub = stub
        self.config = config
        self.result = result
        self.rng = random.Random(f"{config.seed}:{config.index}")
        self.deadline = math.inf
        self.requests = 0
        self.stream_tasks: set[asyncio.Task[None]] = set()

    async def new_game(self) -> Game:
        """Create a 2-player match, take both seats, watch both, fetch the first mover's view once."""
        from mercado.v1 import match_pb2 as api

        created = await self.stub.CreateMatch(
            api.CreateMatchRequest(game=api.GAME_MERCADO, players=2, seed=self.rng.getrandbits(63)),
            timeout=CALL_SECONDS,
        )
        match_id = created.match_id
        tokens: list[Metadata] = []
        for seat in (0, 1):
            joined = await self.stub.JoinMatch(
                api.JoinMatchRequest(match_id=match_id, seat=seat, display_name=f"bench-{seat}"),
                timeout=CALL_SECONDS,
            )
            tokens.append(_bearer(joined.seat_token))
        watchers = [Watcher(self.result, self.deadline) for _ in tokens]
        for watcher, token in zip(watchers, tokens, strict=True):
            task = asyncio.create_task(watcher.run(self.stub, match_id, token))
            self.stream_tasks.add(task)
            task.add_done_callback(self.stream_tasks.discard)
        state = await self.stub.GetView(
            api.GetViewRequest(match_id=match_id), metadata=tokens[0], timeout=CALL_SECONDS
        )
        if state.HasField("to_move") and state.to_move != 0:
            state = await self.stub.GetView(
                api.GetViewRequest(match_id=match_id), metadata=tokens[state.to_move], timeout=CALL_SECONDS
            )
        self.result.matches_started += 1
        return Game(match_id, tokens, watchers, state)

    async def play(self, game: Game, pace: list[float]) -> None:
        """Random legal actions until the match ends, the deadline passes or something fails.

        ``pace`` holds the time of the slot's next submission (paced load only).
        """
        import grpc
        from mercado.v1 import match_pb2 as api

        state = game.state
        clock = time.perf_counter
        interval = self.config.interval
        while clock() < self.deadline:
            if not state.HasField("to_move") or not state.legal_actions:
                return
            if interval:
                # Fixed slots in time; a slot that fell behind starts again from now, without a burst.
                delay = pace[0] - clock()
                if delay > 0:
                    await asyncio.sleep(delay)
                    if clock() >= self.deadline:
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
                response = await self.stub.SubmitAction(
                    request, metadata=game.tokens[seat], timeout=CALL_SECONDS
                )
            except grpc.aio.AioRpcError:
                self.result.submit_errors += 1
                return
            end = clock()
            # Every submission started in the window has its latency taken; only those
            # answered in the window count as throughput.
            self.result.submit_latencies.append(end - start)
            if end > self.deadline:
                return
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
            game = await self.new_game() if time.perf_counter() < self.deadline else None

    async def stop_streams(self) -> None:
        for task in self.stream_tasks:
            task.cancel()
        await asyncio.gather(*self.stream_tasks, return_exceptions=True)


async def _health_phase(channel: Any, slots: int, duration: float, result: WorkerResult) -> None:
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    stub = health_pb2_grpc.HealthStub(channel)
    request = health_pb2.HealthCheckRequest(service="")
    deadline = time.perf_counter() + duration

    async def caller() -> None:
        clock = time.perf_counter
        while (start := clock()) < deadline:
            await stub.Check(request, timeout=CALL_SECONDS)
            end = clock()
            if end <= deadline:
                result.health_latencies.append(end - start)

    await asyncio.gather(*(caller() for _ in range(slots)))


async def _load(config: WorkerConfig, barrier: Any, results: Any) -> None:
    import grpc
    from mercado.v1 import match_pb2_grpc as api_grpc

    result = WorkerResult()
    channel = grpc.aio.insecure_channel(config.target)
    try:
        await asyncio.wait_for(channel.channel_ready(), CONNECT_SECONDS)
        await asyncio.to_thread(barrier.wait, SETUP_SECONDS)
        cpu_start = time.process_time()
        await _health_phase(channel, config.slots, config.duration, result)
        result.baseline_cpu_seconds = time.process_time() - cpu_start

        driver = Driver(api_grpc.MatchServiceStub(channel), config, result)
        games = await asyncio.gather(*(driver.new_game() for _ in range(config.slots)))
        await asyncio.to_thread(barrier.wait, SETUP_SECONDS)
        cpu_start = time.process_time()
        driver.deadline = time.perf_counter() + config.duration
        for game in games:
            for watcher in game.watchers:
                watcher.deadline = driver.deadline
        await asyncio.wait_for(
            asyncio.gather(*(driver.slot(game) for game in games)), config.duration + 2 * CALL_SECONDS
        )
        result.matches_cpu_seconds = time.process_time() - cpu_start
        await driver.stop_streams()
    finally:
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


# --- the parent: server process, phases, figures -------------------------------


def _count_actions(db: Path) -> int:
    """Actions the server wrote to its database (read after it stopped)."""
    import sqlite3

    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        (count,) = connection.execute("SELECT COUNT(*) FROM actions").fetchone()
        return int(count)
    finally:
        connection.close()


# The harness is one client (one address) with one channel per load process, and its matches
# are seeded: the server is told so. Its rate limits stay on, set far above what the load asks,
# so that what they and the metrics cost is in the figures (``bare`` turns both off).
BENCH_SERVER_FLAGS = [
    "--web-port", "-1",
    "--allow-chosen-seeds",
    "--grpc-max-streams-per-connection", str(BENCH_STREAMS_PER_CONNECTION),
    "--max-waiting-per-client", "1000000",
    "--max-waiting", "1000000",
    "--max-streams-per-client", "1000000",
    "--max-streams", "1000000",
]  # fmt: skip
LIMITS_ON = ["--rate-limit", "all=1000000/1000000"]
LIMITS_OFF = ["--rate-limit", "all=off", "--no-metrics"]


def start_server(db: Path, log: Path, profile: Path | None, floor: bool, bare: bool) -> ServerProcess:
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


def run(
    matches: int = 200,
    duration: float = 20.0,
    clients: int = 2,
    seed: int | None = None,
    rate: float = 0.0,
    profile: Path | None = None,
    floor: bool = False,
    bare: bool = False,
) -> dict[str, Any]:
    """Start a server, measure the baseline and the matches, stop the server; all figures.

    ``rate``: offered submissions per second over all matches, each match pacing its
    own; 0 (the default) submits as fast as the server answers, which measures the
    most it sustains (and, by Little's law, a latency of about matches / throughput).
    ``profile``: run the server under cProfile and write its statistics there.
    ``floor``: run the server that plays no game (floor_server.py), which gives the
    most this harness can measure on this machine, whatever the server does.
    ``bare``: run the server with its rate limits and metrics off, to show what they cost.
    """
    import multiprocessing
    import threading

    import grpc

    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    clients = max(1, min(clients, matches))
    shares = [matches // clients + (i < matches % clients) for i in range(clients)]
    interval = matches / rate if rate > 0 else 0.0
    context = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory(prefix="mercado-bench-") as tmp:
        server = start_server(Path(tmp) / "bench.db", Path(tmp) / "server.log", profile, floor, bare)
        target = f"127.0.0.1:{server.port}"
        barrier = context.Barrier(clients + 1)
        results = context.Queue()
        processes = [
            context.Process(
                target=_worker,
                args=(WorkerConfig(i, target, share, duration, seed, interval), barrier, results),
                name=f"mercado-bench-load-{i}",
                daemon=True,
            )
            for i, share in enumerate(shares)
        ]
        exit_code: int | None = None
        try:
            for process in processes:
                process.start()
            # The parent joins both barriers only to read the server's CPU time over each window.
            cpu: list[float | None] = []
            for _phase in ("baseline", "matches"):
                try:
                    barrier.wait(SETUP_SECONDS + duration)
                except threading.BrokenBarrierError:
                    _collect(results, processes, time.monotonic() + CALL_SECONDS)
                    raise RuntimeError("a load generator did not reach the start of a phase") from None
                cpu.append(cpu_seconds(server.pid))
                time.sleep(duration)
                cpu.append(cpu_seconds(server.pid))
            by_index = _collect(results, processes, time.monotonic() + duration + 4 * CALL_SECONDS)
            peak_mib = peak_memory_mib(server.pid)
        finally:
            for process in processes:
                process.join(timeout=CALL_SECONDS)
                if process.is_alive():
                    process.kill()
                    process.join()
            exit_code = server.stop()
        if exit_code != 0:
            raise RuntimeError(f"the server exited with status {exit_code}:\n{server.log_tail()}")
        persisted = None if floor else _count_actions(Path(tmp) / "bench.db")

    workers = [by_index[i] for i in sorted(by_index)]
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
        "server": "floor" if floor else "mercado, rate limits and metrics off" if bare else "mercado",
        "baseline_health_calls_per_second": round(baseline_rate, 1),
        "submit_actions_per_second": round(submit_rate, 1),
        "ratio": round(submit_rate / baseline_rate, 3) if baseline_rate else 0.0,
        "submit_latency_ms": latency_ms(submits),
        "updates_delivered_per_second": round(sum(w.updates_delivered for w in workers) / duration, 1),
        "events_delivered_per_second": round(sum(w.events_delivered for w in workers) / duration, 1),
        "matches_concurrent": matches,
        "offered_actions_per_second": rate or None,
        "matches_finished": sum(w.matches_finished for w in workers),
        "server_peak_memory_mib": peak_mib,
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
        "client_processes": clients,
        "client_cpu_cores_used": {
            "baseline": round(sum(w.baseline_cpu_seconds for w in workers) / duration, 2),
            "matches": round(sum(w.matches_cpu_seconds for w in workers) / duration, 2),
        },
        "seed": seed,
    }
