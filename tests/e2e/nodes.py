"""Helpers of the end-to-end tests of several servers ("nodes") on one PostgreSQL database: the
fixtures that start nodes and connect clients to them, and ``Caller``, a client that plays (or watches)
a match through one node and carries on through another when that node goes away.

tests/e2e/conftest.py makes the fixtures (``nodes``, ``client_of``) available to
every end-to-end test module.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import asyncpg
import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from matchplay import replay_history
from mercado.v1 import match_pb2 as api
from mercado.v1 import match_pb2_grpc as api_grpc
from mercado_client import MercadoClient, Seat
from server_process import ServerProcess

from server.games.mercado import player_view
from server.rpc.wires.mercado import view_message
from server.store.postgres import LISTENER_NAME

T = TypeVar("T")
CALL_SECONDS = 10.0  # any one call, or the wait for a stream's next message
MATCH_SECONDS = 40.0  # a match played to its end
FAILOVER_SECONDS = 1.0  # how long a client keeps trying a node that is gone before it moves on

Nodes = Callable[..., list[ServerProcess]]
ClientOf = Callable[..., MercadoClient]


async def timely(call: Awaitable[T], seconds: float = CALL_SECONDS) -> T:
    return await asyncio.wait_for(call, seconds)


async def until(
    check: Callable[[], bool], what: str, watching: asyncio.Future[Any] | None = None, seconds: float = 15.0
) -> None:
    """Wait for ``check`` to hold; fail with the error of ``watching`` (the play) if it ends first."""
    deadline = time.monotonic() + seconds
    while not check():
        if watching is not None and watching.done():
            await watching  # it failed (or ended too soon): say how
            raise AssertionError(f"the play ended before {what}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.005)


async def eventually(check: Callable[[], Awaitable[bool]], what: str, seconds: float = 15.0) -> None:
    """Wait for the asynchronous ``check`` to hold."""
    deadline = time.monotonic() + seconds
    while not await timely(check()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


def log_records(node: ServerProcess) -> list[dict[str, Any]]:
    records = []
    for line in list(node.log_lines):
        with contextlib.suppress(json.JSONDecodeError):
            records.append(json.loads(line))
    return records


def logged(node: ServerProcess, message: str) -> list[dict[str, Any]]:
    return [record for record in log_records(node) if record.get("message") == message]


@pytest.fixture
def nodes(request: pytest.FixtureRequest) -> Iterator[Nodes]:
    """``nodes(count, *flags, dsn=..., web=False)`` starts ``count`` servers at once on one database (by
    default the test's own fresh one), with web ports if ``web``; those still running at the end must
    stop cleanly."""
    started: list[ServerProcess] = []

    def start(count: int, *args: str, dsn: str | None = None, web: bool = False) -> list[ServerProcess]:
        database = dsn if dsn is not None else request.getfixturevalue("postgres_dsn")
        group = [ServerProcess(database, web_port=0 if web else -1, args=list(args)) for _ in range(count)]
        started.extend(group)
        with ThreadPoolExecutor(count) as pool:
            list(pool.map(ServerProcess.start, group))
        return group

    yield start
    for node in started:
        if node.process is not None and node.process.poll() is None:
            node.stop_cleanly()


@pytest.fixture
async def client_of() -> AsyncIterator[ClientOf]:
    """``client_of(node or target, reconnect_seconds=...)``: a client (its own connection) of a node,
    closed after the test."""
    made: list[MercadoClient] = []
    channels: list[grpc.aio.Channel] = []

    def connect(
        node: ServerProcess | str, reconnect_seconds: float = 20.0, own_connection: bool = False
    ) -> MercadoClient:
        target = node.target if isinstance(node, ServerProcess) else node
        client = MercadoClient(target, reconnect_seconds=reconnect_seconds)
        if own_connection:
            # gRPC shares one connection among a process's channels to one address; not this one's.
            channels.append(client.channel)
            client.channel = grpc.aio.insecure_channel(
                target, options=[("grpc.use_local_subchannel_pool", 1)]
            )
            client.stub = api_grpc.MatchServiceStub(client.channel)
        made.append(client)
        return client

    yield connect
    for client in made:
        await client.close()
    for channel in channels:
        await channel.close()


class Caller:
    """One caller of a match, as a real client: a seat that plays random legal moves when its stream
    shows its turn (or, with ``seat`` None, a spectator), through one node and, when that node is
    gone, through the next of ``elsewhere``: it resumes its stream after the last version it saw and
    retries the call it had in flight with the same request id."""

    def __init__(
        self,
        client: MercadoClient,
        match_id: str,
        seat: int | None = None,
        token: str | None = None,
        *,
        elsewhere: list[str] | None = None,
        connect: ClientOf | None = None,
        seed: int = 0,
        think: float = 0.0,
    ) -> None:
        self.client = client
        self.match_id = match_id
        self.seat = seat
        self.token = token
        self.elsewhere = list(elsewhere or [])
        self.connect = connect
        self.rng = random.Random(seed)
        self.think = think
        self.updates: list[api.MatchUpdate] = []  # every stream message, in order of arrival
        self.versions: list[int] = []  # the versions of the actions its streams carried
        self.acks: list[tuple[int, api.Action]] = []  # (version, action) of each acknowledged action
        self.moved_to: list[str] = []  # the nodes it moved to
        self.newest = 0  # the newest version it has seen
        self.acted: set[int] = set()  # the versions it submitted an action for

    @classmethod
    def of(cls, seat: Seat, **options: Any) -> Caller:
        return cls(seat.client, seat.match_id, seat.seat, seat.token, **options)

    async def run(self, after_version: int = 0) -> None:
        """Follow (and play) the match until it ends."""
        last = after_version
        while True:
            client = self.client
            updates = client.follow(self.match_id, self.token, last)
            try:
                async with contextlib.aclosing(updates):
                    async for update in updates:
                        self.updates.append(update)
                        self.newest = max(self.newest, update.version)
                        if update.HasField("action"):
                            self.versions.append(update.version)
                            last = update.version
                        if self._my_turn(update):
                            await self._act(update.state)
                            if self.client is not client:
                                break  # it moved to another node while acting: follow there
                    else:
                        return  # the match has ended
            except grpc.aio.AioRpcError as error:
                if self.client is client:
                    self._move(error)

    def _my_turn(self, update: api.MatchUpdate) -> bool:
        # Only the newest state: a resumed stream shows the match as it stands before the backlog.
        state = update.state
        return bool(state.legal_actions) and state.version == self.newest and state.version not in self.acted

    async def _act(self, state: api.MatchState) -> None:
        assert self.seat is not None
        self.acted.add(state.version)
        if self.think:
            await asyncio.sleep(self.think)
        action = self.rng.choice(list(state.legal_actions))
        request_id = uuid.uuid4().hex
        while True:
            seat = Seat(self.client, self.match_id, self.seat, self.token or "")
            try:
                response = await timely(seat.submit(action, state.version, request_id))
                break
            except grpc.aio.AioRpcError as error:
                self._move(error)  # and submit the same request there
        assert response.version == state.version + 1
        self.acks.append((response.version, action))

    def _move(self, error: grpc.aio.AioRpcError) -> None:
        """Carry on through the next node, if the one in use is gone; else fail with ``error``."""
        if error.code() != grpc.StatusCode.UNAVAILABLE or not self.elsewhere or self.connect is None:
            raise error
        target = self.elsewhere.pop(0)
        self.client = self.connect(target, reconnect_seconds=FAILOVER_SECONDS)
        self.moved_to.append(target)


@contextlib.asynccontextmanager
async def playing(callers: list[Caller]) -> AsyncIterator[asyncio.Future[list[None]]]:
    """The callers' play, in the background until the block ends (then stopped, if it still runs)."""
    play = asyncio.ensure_future(asyncio.gather(*(caller.run() for caller in callers)))
    try:
        yield play
    finally:
        play.cancel()
        await asyncio.gather(play, return_exceptions=True)


def action_updates(caller: Caller) -> list[api.MatchUpdate]:
    return [update for update in caller.updates if update.HasField("action")]


def assert_played(callers: list[Caller], replay: api.Replay) -> None:
    """Every caller's streams carried every version once, in order, to the end; every acknowledged
    action is the replay's; every state a stream showed is the one the replay makes, for its viewer."""
    final = len(replay.steps)
    assert final > 0
    history = replay_history(replay)
    for caller in callers:
        assert caller.versions == list(range(1, final + 1)), (caller.seat, caller.versions)
        assert caller.updates[-1].version == final
        assert caller.updates[-1].state.match.status == api.MATCH_STATUS_FINISHED
        assert [u.action for u in action_updates(caller)] == [step.action for step in replay.steps]
        for version, action in caller.acks:
            assert replay.steps[version - 1].action == action
            assert replay.steps[version - 1].seat == caller.seat
        for update in action_updates(caller):
            seen = view_message(player_view(history[update.version][0], caller.seat))
            assert update.state.view.mercado == seen, (caller.seat, update.version)
    players = [caller for caller in callers if caller.seat is not None]
    acknowledged = sorted(version for caller in players for version, _ in caller.acks)
    assert acknowledged == list(range(1, final + 1))


async def move(seats: list[Seat]) -> int | None:
    """The first legal action of the seat to move, each seat through its own client: the version it
    made, or None if the match is over."""
    state = await timely(seats[(await timely(seats[0].view())).to_move].view())
    if not state.legal_actions:
        return None
    moved = await timely(seats[state.to_move].submit(state.legal_actions[0], state.version, uuid.uuid4().hex))
    return moved.version


async def stored_actions(dsn: str, match_id: str) -> list[tuple[int, str]]:
    """The (version, request id) of each action the database holds for the match, in order."""
    db = await asyncpg.connect(dsn, timeout=CALL_SECONDS)
    try:
        rows = await db.fetch(
            "SELECT version, request_id FROM actions WHERE match_id = $1 ORDER BY version", match_id
        )
    finally:
        await db.close()
    return [(row["version"], row["request_id"]) for row in rows]


async def listening_backends(dsn: str) -> list[int]:
    """The database's processes that serve the nodes' connections listening for each other's news."""
    db = await asyncpg.connect(dsn, timeout=CALL_SECONDS)
    try:
        rows = await db.fetch(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1",
            LISTENER_NAME,
        )
    finally:
        await db.close()
    return [row["pid"] for row in rows]


@contextlib.asynccontextmanager
async def health_of(node: ServerProcess) -> AsyncIterator[list[int]]:
    """The node's health (its Watch stream), each status as it is reported, while the block runs."""
    statuses: list[int] = []

    async def watch(channel: grpc.aio.Channel) -> None:
        request = health_pb2.HealthCheckRequest(service="")
        async for response in health_pb2_grpc.HealthStub(channel).Watch(request):
            statuses.append(response.status)

    async with grpc.aio.insecure_channel(node.target) as channel:
        watching = asyncio.ensure_future(watch(channel))
        try:
            await until(lambda: bool(statuses), "the health stream to open", watching)
            yield statuses
        finally:
            watching.cancel()
            await asyncio.gather(watching, return_exceptions=True)
