"""Nodes under faults: ``mercado bench failover`` and the fault test (tests/e2e/test_faults.py).

Three ``mercado serve`` nodes share one throwaway PostgreSQL cluster. Matches of every game are
played by clients of their own (each seat's player, and a spectator) that call a node chosen at
random and, when it fails them (``UNAVAILABLE``, or no answer in time), carry on through another,
as a client behind a load balancer would: a stream is resumed after the last version it carried,
an action in flight is sent again with its request id, a player reads the match through another
node after each acknowledged action, and takes its seat back when the AI stood in for it. Each
match has a short turn clock, so a seat whose player is held up is played by the AI meanwhile.
While the faults last, a match that ends is followed by another of its game.

One fault at a time, every ``Plan.every`` seconds, in turn: a node killed (SIGKILL) and started
again; a node stopped (SIGSTOP) for longer than ``--orphan-timeout``, then continued; PostgreSQL
stopped (fast, then immediate the next time) and started again; the nodes' listening connections
ended. Once the faults stop, every match must finish; then ``fault_checks`` holds what the clients
were told against the database and every node.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import random
import re
import signal
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
import grpc
from mercado.v1 import match_pb2 as api
from mercado.v1 import match_pb2_grpc as api_grpc
from mercado_client import games

from server.store.postgres import LISTENER_NAME

from .fault_checks import Journal, Segment, check, serialized
from .postgres import PostgresServer, StopMode, available
from .process import ServerProcess

NODES = 3
GAMES = ("mercado", "oregano", "leilao")
FAULTS = ("kill", "pause", "database", "listeners")  # in turn
DATABASE_STOPS: tuple[StopMode, ...] = ("fast", "immediate")  # in turn
CALL_SECONDS = 5.0  # a unary call's deadline: then its node counts as failing
QUIET_SECONDS = 5.0  # a stream silent this long is resumed through another node
TURN_SECONDS = 6  # each match's turn clock; the AI stands in for a seat that runs out
ORPHAN_SECONDS = 5.0  # --orphan-timeout
PAUSE_SECONDS = ORPHAN_SECONDS + 3.0
DOWN_SECONDS = 2.0  # a killed node is started again after this long
OUTAGE_SECONDS = 3.0  # the database is away this long (besides its stop and start)
# While the faults last, a player is sometimes away for longer than its turn: the AI stands in for it
# meanwhile, and it takes its seat back on its return.
AWAY_CHANCE = 0.02  # before each move
AWAY_SECONDS = TURN_SECONDS + 2.0
RETRY_SECONDS = (0.1, 1.0)  # a caller's wait before trying another node: first, and at most
TRANSIENT = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
# A channel tries a node that went away again soon (gRPC's default waits up to two minutes).
CHANNEL_OPTIONS = [
    ("grpc.initial_reconnect_backoff_ms", 200),
    ("grpc.min_reconnect_backoff_ms", 200),
    ("grpc.max_reconnect_backoff_ms", 1000),
    ("grpc.use_local_subchannel_pool", 1),  # each caller a connection of its own, as separate clients
]


@dataclass(frozen=True)
class Plan:
    """A run: ``duration`` seconds of faults, one every ``every`` seconds, with ``tables`` matches of
    each game in play at once, players pausing ``think`` seconds before each move; then up to
    ``finish_seconds`` for every match to finish."""

    duration: float
    every: float
    tables: int
    seed: int = 1
    think: float = 0.2
    finish_seconds: float = 120.0


class Cluster:
    """The nodes and their database, and the faults done to them."""

    def __init__(self, database: PostgresServer, dsn: str, directory: Path) -> None:
        self.database = database
        self.dsn = dsn
        self.directory = directory
        self.nodes = [ServerProcess(_serve(dsn, 0), directory / "node.log") for _ in range(NODES)]
        self.logs: list[Path] = []  # of every node's every start
        self.faults: Counter[str] = Counter()
        self.outages: list[tuple[float, float]] = []  # (from, to) by the wall clock: the database away

    @property
    def targets(self) -> list[str]:
        return [node.target for node in self.nodes]

    def start(self, index: int) -> None:
        """Start node ``index`` (again on the port it had), its log in a file of its own."""
        node = self.nodes[index]
        node.args = _serve(self.dsn, node.port)
        node.log = self.directory / f"node{index}-{len(self.logs)}.log"
        self.logs.append(node.log)
        node.start()

    def stop(self) -> None:
        for node in self.nodes:
            if node.process is not None:
                node.stop()

    async def inflict(self, kind: str, rng: random.Random) -> None:
        """One fault of ``kind`` (``FAULTS``), until it is over."""
        index = rng.randrange(NODES)
        if kind == "kill":
            process = self.nodes[index].process
            assert process is not None
            process.kill()
            await asyncio.to_thread(process.wait)
            await asyncio.sleep(DOWN_SECONDS)
            await asyncio.to_thread(self.start, index)
            self.faults["node_kills"] += 1
        elif kind == "pause":
            with paused([self.nodes[index].pid]):
                await asyncio.sleep(PAUSE_SECONDS)
            self.faults["node_pauses"] += 1
        elif kind == "database":
            mode = DATABASE_STOPS[self.faults["database_restarts"] % len(DATABASE_STOPS)]
            away = time.time()
            await asyncio.to_thread(self.database.stop, mode)
            await asyncio.sleep(OUTAGE_SECONDS)
            await asyncio.to_thread(self.database.start)
            self.outages.append((away, time.time()))
            self.faults["database_restarts"] += 1
            self.faults[f"database_stops_{mode}"] += 1
        else:
            self.faults["listeners_cut"] += await cut_listeners(self.dsn)


@contextlib.contextmanager
def paused(pids: list[int]) -> Iterator[None]:
    """The processes stopped (SIGSTOP) until the block ends: their connections stay open, and silent."""
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGCONT)


async def cut_listeners(dsn: str) -> int:
    """End every node's connection that listens for the others' news (each makes it again in a moment,
    and meanwhile hears nothing); how many there were."""
    db = await asyncpg.connect(dsn, timeout=CALL_SECONDS)
    try:
        cut: int = await db.fetchval(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = current_database() AND application_name = $1",
            LISTENER_NAME,
        )
    finally:
        await db.close()
    return cut


def _serve(dsn: str, port: int) -> list[str]:
    """A node's command line; port 0 the first time (any free one), then the port it had."""
    args = ["-m", "server", "serve", "--host", "127.0.0.1", "--port", str(port), "--web-port", "-1"]
    args += ["--db", dsn, "--allow-anonymous", "--rate-limit-exempt", "127.0.0.0/8"]
    return [*args, "--orphan-timeout", str(ORPHAN_SECONDS)]


class Client:
    """A client of the nodes: it calls one chosen at random and, whenever that one fails it, another."""

    def __init__(
        self, journal: Journal, targets: list[str], rng: random.Random, token: str | None = None
    ) -> None:
        self.journal = journal
        self.channels = [grpc.aio.insecure_channel(target, options=CHANNEL_OPTIONS) for target in targets]
        self.stubs = [api_grpc.MatchServiceStub(channel) for channel in self.channels]
        self.rng = rng
        self.metadata = (("authorization", f"Bearer {token}"),) if token else None
        self.node = rng.randrange(len(targets))
        self.failures = 0  # in a row

    async def close(self) -> None:
        for channel in self.channels:
            await channel.close()

    def options(self) -> dict[str, Any]:
        """A unary call's metadata and deadline."""
        return {"metadata": self.metadata, "timeout": CALL_SECONDS}

    async def answer(self, method: str, request: Any) -> Any:
        """The answer to a call of ``method``, through one node or another, the same request each time;
        None when it is refused (a stale version, a turn or a seat no longer this caller's: the match
        moved on)."""
        while True:
            try:
                answer = await getattr(self.stubs[self.node], method)(request, **self.options())
            except grpc.aio.AioRpcError as error:
                if error.code() in TRANSIENT:
                    await self.failed(error)
                    continue
                reason = re.sub(r"\d+", "N", error.details() or "")  # one count for every version
                self.journal.refusals[f"{method} {error.code().name}: {reason}"] += 1
                if error.code() not in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION):
                    self.journal.errors[f"{method} {error.code().name}: {error.details()}"] += 1
                return None
            self.failures = 0
            return answer

    async def failed(self, error: Exception) -> None:
        """Its node failed it: another one, after a wait that grows with the failures in a row."""
        if isinstance(error, grpc.aio.AioRpcError) and error.code() not in TRANSIENT:
            self.journal.errors[f"StreamEvents {error.code().name}: {error.details()}"] += 1
        self.journal.counts["failovers"] += 1
        self.node = self.rng.choice([n for n in range(len(self.stubs)) if n != self.node])
        first, most = RETRY_SECONDS
        await asyncio.sleep(min(most, first * 2**self.failures))
        self.failures += 1


class Caller(Client):
    """One client of a match: a seat's player (with its token) or, with ``seat`` None, a spectator.
    It follows the match to its end, resuming its stream through another node whenever one fails
    it; a player moves when its stream shows its turn, and takes its seat back from the AI."""

    def __init__(
        self,
        journal: Journal,
        targets: list[str],
        rng: random.Random,
        match_id: str,
        seat: int | None = None,
        token: str | None = None,
        think: float = 0.0,
    ) -> None:
        super().__init__(journal, targets, rng, token)
        self.match_id = match_id
        self.seat = seat
        self.think = think
        self.last = 0  # the newest version of an action its streams carried
        self.newest = 0  # the newest version it has seen
        self.moved_at: set[int] = set()  # the versions it moved at...
        self.reclaimed_at: set[int] = set()  # ...and took its seat back from the AI at

    async def follow(self) -> None:
        """The match, to its end."""
        while True:
            request = api.StreamEventsRequest(match_id=self.match_id, after_version=self.last)
            call = self.stubs[self.node].StreamEvents(request, metadata=self.metadata)
            segment = Segment(self.match_id, self.last)
            self.journal.segments.append(segment)
            try:
                while True:
                    update = await asyncio.wait_for(call.read(), QUIET_SECONDS)
                    if update is grpc.aio.EOF:
                        return  # the match has ended
                    self.failures = 0
                    self._saw(update, segment)
                    if update.state.match.status == api.MATCH_STATUS_FINISHED:
                        return
                    if self.seat is not None and update.state.version == self.newest:
                        await self._take_turn(update.state)
            except (grpc.aio.AioRpcError, TimeoutError) as error:
                await self.failed(error)
            finally:
                call.cancel()

    def _saw(self, update: api.MatchUpdate, segment: Segment) -> None:
        self.newest = max(self.newest, update.version)
        self.journal.seen.setdefault(self.match_id, {}).setdefault(update.version, time.monotonic())
        if update.HasField("seat"):
            action = serialized(update.action) if update.HasField("action") else None
            segment.actions.append((update.version, update.seat, action))
            self.last = update.version

    async def _take_turn(self, state: api.MatchState) -> None:
        """Move, or take the seat back from the AI, if the newest state asks for it."""
        assert self.seat is not None
        if state.match.status != api.MATCH_STATUS_PLAYING:
            return
        if state.match.seats[self.seat].played_by_ai:
            if state.version not in self.reclaimed_at:
                self.reclaimed_at.add(state.version)
                if await self.answer("ReclaimSeat", api.ReclaimSeatRequest(match_id=self.match_id)):
                    self.journal.counts["seats_taken_back"] += 1
        elif state.legal_actions and state.version not in self.moved_at:
            self.moved_at.add(state.version)
            if not self.journal.faults_ended and self.rng.random() < AWAY_CHANCE:
                await self._away()
                return
            await asyncio.sleep(self.think)
            await self._move(state, self.rng.choice(list(state.legal_actions)))

    async def _away(self) -> None:
        """Away for longer than a turn; back, where the match stands now (its stream holds what it
        carried meanwhile: no longer the newest)."""
        await asyncio.sleep(AWAY_SECONDS)
        state = await self.answer("GetView", api.GetViewRequest(match_id=self.match_id))
        if state is not None:
            self.newest = max(self.newest, state.version)

    async def _move(self, state: api.MatchState, action: api.Action) -> None:
        request_id = uuid.uuid4().hex
        submit = api.SubmitActionRequest(
            match_id=self.match_id, expected_version=state.version, request_id=request_id, action=action
        )
        self.journal.requests[request_id] = (self.match_id, "unanswered")
        response = await self.answer("SubmitAction", submit)
        if response is None:
            self.journal.requests[request_id] = (self.match_id, "refused")
            return
        self.journal.requests[request_id] = (self.match_id, "acknowledged")
        self.journal.acks.append((self.match_id, response.version, request_id, serialized(action)))
        self.newest = max(self.newest, response.version)  # what its stream carried meanwhile is behind
        await self._read_own_write(response.version)

    async def _read_own_write(self, version: int) -> None:
        """The match, read through another node at once, shows the action just acknowledged."""
        stub = self.stubs[self.rng.choice([n for n in range(len(self.stubs)) if n != self.node])]
        try:
            state = await stub.GetView(api.GetViewRequest(match_id=self.match_id), **self.options())
        except grpc.aio.AioRpcError as error:
            if error.code() not in TRANSIENT:
                self.journal.errors[f"GetView {error.code().name}: {error.details()}"] += 1
            return  # that node is away: no read
        self.journal.counts["reads_after_writes"] += 1
        if state.version < version:
            self.journal.counts["reads_behind_writes"] += 1


async def _table(
    game: str, cluster: Cluster, journal: Journal, plan: Plan, rng: random.Random, over: asyncio.Event
) -> None:
    """Matches of ``game``, one after another, while the faults last."""
    while not over.is_set():
        callers = await _seated(game, cluster.targets, journal, plan, rng)
        try:
            await asyncio.gather(*(caller.follow() for caller in callers))
        finally:
            for caller in callers:
                await caller.close()


async def _seated(
    game: str, targets: list[str], journal: Journal, plan: Plan, rng: random.Random
) -> list[Caller]:
    """A new match of ``game`` for two, created and joined through nodes at random, with its callers:
    each seat's player and a spectator. A join is retried with its request id, so a lost answer
    loses no seat (were one refused, the AI would play it)."""
    organizer = Client(journal, targets, rng)
    clock = api.TimeControl(
        turn_seconds=TURN_SECONDS,
        reserve_seconds=0,
        on_timeout=api.ON_TIMEOUT_AI,
        fallback_level=api.BOT_LEVEL_EASY,
    )
    create = api.CreateMatchRequest(game=games.game_enum(game), players=2, time_control=clock)
    try:
        # A creation whose answer was lost is made again: the match it made waits unplayed, and expires.
        created = await organizer.answer("CreateMatch", create)
        if created is None:
            raise RuntimeError(f"a match could not be created: {dict(journal.errors)}")
        tokens = []
        for seat in range(2):
            join = api.JoinMatchRequest(
                match_id=created.match_id,
                seat=seat,
                display_name=f"player {seat}",
                request_id=uuid.uuid4().hex,
            )
            joined = await organizer.answer("JoinMatch", join)
            if joined is None:
                journal.counts["seats_lost"] += 1
            else:
                tokens.append((seat, joined.seat_token))
    finally:
        await organizer.close()
    journal.matches[created.match_id] = game
    players = [
        Caller(journal, targets, random.Random(rng.random()), created.match_id, seat, token, plan.think)
        for seat, token in tokens
    ]
    return [*players, Caller(journal, targets, random.Random(rng.random()), created.match_id)]


async def play(cluster: Cluster, plan: Plan) -> dict[str, Any]:
    """Matches played through ``cluster``'s nodes under ``plan``'s faults, then checked."""
    rng = random.Random(plan.seed)
    journal = Journal()
    over = asyncio.Event()
    tables = [
        asyncio.create_task(_table(game, cluster, journal, plan, random.Random(rng.random()), over))
        for game in GAMES
        for _ in range(plan.tables)
    ]
    started = time.monotonic()
    kinds = itertools.cycle(FAULTS)
    for at in itertools.takewhile(lambda at: at <= plan.duration, itertools.count(plan.every, plan.every)):
        await asyncio.sleep(max(0.0, started + at - time.monotonic()))
        await cluster.inflict(next(kinds), rng)
        _raise_failure(tables)
    journal.faults_ended = time.monotonic()
    over.set()
    try:
        await asyncio.wait(tables, timeout=plan.finish_seconds)
        _raise_failure(tables)
    finally:
        for table in tables:
            table.cancel()
        await asyncio.gather(*tables, return_exceptions=True)
    report = await check(journal, cluster.dsn, cluster.targets, cluster.logs, cluster.outages)
    report["faults"] = dict(sorted(cluster.faults.items()))
    report["play"]["seconds_of_faults"] = round(journal.faults_ended - started, 1)
    return report


def _raise_failure(tables: list[asyncio.Task[None]]) -> None:
    """The harness's own failure, if a table ended with one."""
    for table in tables:
        if table.done() and not table.cancelled() and table.exception() is not None:
            table.result()


async def run_on(database: PostgresServer, directory: Path, plan: Plan) -> dict[str, Any]:
    """``plan`` on three nodes started on a fresh database of ``database``, their logs in ``directory``."""
    cluster = Cluster(database, database.create_database("failover"), directory)
    try:
        await asyncio.gather(*(asyncio.to_thread(cluster.start, n) for n in range(NODES)))
        return await play(cluster, plan)
    finally:
        await asyncio.to_thread(cluster.stop)


def run(plan: Plan) -> dict[str, Any]:
    """``mercado bench failover``: ``plan`` on a throwaway PostgreSQL cluster of its own."""
    reason = available()
    if reason is not None:
        raise RuntimeError(f"PostgreSQL is not available: {reason}")
    with tempfile.TemporaryDirectory(prefix="mercado-failover-") as tmp, PostgresServer() as database:
        return asyncio.run(run_on(database, Path(tmp), plan))
