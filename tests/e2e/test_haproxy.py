"""Two nodes behind HAProxy (deploy/haproxy.cfg, on loopback), end to end: real processes, real
PostgreSQL, Debian's HAProxy.

HAProxy balances gRPC call by call, so one client's consecutive calls land on different nodes, and
each still sees what the one before did. Nodes restarted one after the other while matches are
played (each serving on until HAProxy finds it NOT_SERVING, --drain) cost the clients nothing their
own retries do not cover. Each client behind HAProxy has its own rate limits, HAProxy none of its
own: the nodes read the client's address in x-forwarded-for.
"""

from __future__ import annotations

import asyncio
import http.client
import random
import struct
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from haproxy import DRAIN, TRUSTED_PROXY, HAProxy
from matchplay import assert_reason, refusal
from mercado.v1 import match_pb2 as api
from mercado.v1 import match_pb2_grpc as api_grpc
from mercado_client import retry_after
from nodes import (
    MATCH_SECONDS,
    Caller,
    ClientOf,
    Nodes,
    assert_played,
    playing,
    timely,
    until,
)
from server_process import ServerProcess

from server.bench.postgres import PostgresServer

pytestmark = pytest.mark.postgres

RESTART_THINK_SECONDS = 1.2  # a player's pause before each move: the matches outlast both restarts
RETRY_SECONDS = 60.0  # the clients' reconnect window (the library's default)
Balanced = Callable[..., tuple[list[ServerProcess], HAProxy]]


@pytest.fixture
def balanced(nodes: Nodes, tmp_path: Path) -> Iterator[Balanced]:
    """``balanced(*flags, dsn=...)``: two nodes (with ``flags``, trusting HAProxy; on the test's own
    database unless ``dsn`` names another) and HAProxy in front of them."""
    started: list[HAProxy] = []

    def start(*args: str, dsn: str | None = None) -> tuple[list[ServerProcess], HAProxy]:
        pair = nodes(2, *TRUSTED_PROXY, *args, dsn=dsn, web=True)
        haproxy = HAProxy(pair, tmp_path / "haproxy.log")
        started.append(haproxy)
        haproxy.wait_up()
        return pair, haproxy

    yield start
    for haproxy in started:
        haproxy.stop()


async def test_a_match_is_played_to_its_end_by_calls_that_alternate_between_nodes(
    balanced: Balanced, client_of: ClientOf
) -> None:
    (one, two), haproxy = balanced()
    target = haproxy.targets[0]
    match_id = await timely(client_of(target).create_match(players=2, seed=411))
    seats = [await timely(client_of(target).join(match_id, name)) for name in ("ana", "bo")]
    spectator = Caller(client_of(target), match_id)
    rng = random.Random(411)
    async with playing([spectator]) as watching:
        await until(lambda: bool(spectator.updates), "the spectator's stream to open", watching)
        before = haproxy.calls()
        calls = 1
        # One call after another, each on the other node than the one before: every call sees what
        # the call before it did, through the other node.
        state = await timely(seats[0].view())
        while state.match.status != api.MATCH_STATUS_FINISHED:
            mine = await timely(seats[state.to_move].view())
            assert mine.version == state.version
            action = rng.choice(list(mine.legal_actions))
            moved = await timely(seats[state.to_move].submit(action, mine.version, uuid.uuid4().hex))
            assert moved.version == mine.version + 1
            state = await timely(seats[0].view())
            assert state.version == moved.version
            calls += 3
        sent = {name: count - before[name] for name, count in haproxy.calls().items()}
        assert sorted(sent.values()) == [calls // 2, calls - calls // 2], sent
        await timely(watching, MATCH_SECONDS)

    replays = [await timely(client_of(node).replay(match_id)) for node in (one, two)]
    assert replays[0] == replays[1]
    final = len(replays[0].steps)
    assert final == state.version
    assert spectator.versions == list(range(1, final + 1))
    assert [update.action for update in spectator.updates if update.HasField("action")] == [
        step.action for step in replays[0].steps
    ]


@pytest.mark.slow
async def test_a_rolling_restart_under_play_fails_no_call_beyond_the_clients_own_retries(
    balanced: Balanced, client_of: ClientOf
) -> None:
    nodes, haproxy = balanced(*DRAIN)
    target = haproxy.targets[0]
    groups: list[list[Caller]] = []
    for number in range(3):
        match_id = await timely(client_of(target).create_match(players=2, seed=412 + number))
        seats = [
            await timely(client_of(target, RETRY_SECONDS).join(match_id, name)) for name in ("ana", "bo")
        ]
        group = [Caller.of(seat, seed=n, think=RESTART_THINK_SECONDS) for n, seat in enumerate(seats)]
        groups.append([*group, Caller(client_of(target, RETRY_SECONDS), match_id)])
    callers = [caller for group in groups for caller in group]

    def moves() -> int:
        return sum(max(caller.newest for caller in group) for group in groups)

    # Any error the client library does not retry ends a caller's play, and the play, with it.
    async with playing(callers) as play:
        await until(lambda: all(group[2].newest >= 3 for group in groups), "every match to start", play)
        for name, node in zip(("node1", "node2"), nodes, strict=True):
            moved = moves()
            assert await asyncio.to_thread(node.stop) == 0, "".join(node.log_lines[-20:])
            await asyncio.to_thread(node.start)
            await asyncio.to_thread(haproxy.wait_up, [name])
            await until(lambda before=moved: moves() > before, f"play past {name}'s restart", play)
        assert not play.done(), "the matches ended before the restarts did: make them longer"
        await timely(play, MATCH_SECONDS * 3)

    for group in groups:
        replay = await timely(client_of(nodes[0]).replay(group[0].match_id))
        assert replay == await timely(client_of(nodes[1]).replay(group[0].match_id))
        assert_played(group, replay)


async def test_nodes_that_are_not_serving_get_no_calls_until_they_serve_again(
    balanced: Balanced, client_of: ClientOf, own_postgres: PostgresServer
) -> None:
    _, haproxy = balanced(dsn=own_postgres.create_database("balanced"))
    # Without their database the nodes report NOT_SERVING, and HAProxy's gRPC health checks take
    # them out: a call is refused by HAProxy itself.
    await asyncio.to_thread(own_postgres.stop, "fast")
    await asyncio.to_thread(haproxy.wait_until, "DOWN")
    refused = await timely(refusal(client_of(haproxy.targets[0], 0.0).create_match(players=2)))
    assert_reason(refused, grpc.StatusCode.UNAVAILABLE)
    await asyncio.to_thread(own_postgres.start)
    await asyncio.to_thread(haproxy.wait_up)
    await timely(client_of(haproxy.targets[0]).create_match(players=2))


async def test_the_limits_count_each_client_behind_haproxy_and_not_haproxy(
    balanced: Balanced, client_of: ClientOf
) -> None:
    # Two matches' creation per client and node, and no more for a long while.
    _, haproxy = balanced("--rate-limit", "CreateMatch=0.01/2")
    ipv4, ipv6 = (client_of(target).stub for target in haproxy.targets)

    def create(stub: api_grpc.MatchServiceStub, *forwarded: str) -> Any:
        metadata = tuple(("x-forwarded-for", address) for address in forwarded)
        return stub.CreateMatch(api.CreateMatchRequest(players=2), metadata=metadata, timeout=10)

    for _ in range(4):  # two through each node
        await create(ipv4)
    for stub, forged in ((ipv4, ()), (ipv4, ("203.0.113.50",))):
        for _ in range(2):  # refused by each node, whatever the client says it is
            error = await timely(refusal(create(stub, *forged)))
            assert_reason(error, grpc.StatusCode.RESOURCE_EXHAUSTED)
            assert (retry_after(error) or 0) >= 1
    # Another client behind the same HAProxy has a budget of its own.
    for _ in range(4):
        await create(ipv6)


FRAME = struct.Struct(">BI")


async def test_the_browsers_port_reaches_the_nodes_but_not_their_metrics(
    balanced: Balanced, client_of: ClientOf
) -> None:
    _, haproxy = balanced()
    match_id = await timely(client_of(haproxy.targets[0]).create_match(players=2, seed=415))
    payload = api.GetViewRequest(match_id=match_id).SerializeToString()

    def exchange(method: str, path: str, body: bytes = b"") -> tuple[int, bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", haproxy.web_port, timeout=10)
        headers = {"content-type": "application/grpc-web+proto", "x-grpc-web": "1"} if body else {}
        connection.request(method, path, body, headers)
        response = connection.getresponse()
        return response.status, response.read()

    for _ in range(2):  # through each node
        status, body = await asyncio.to_thread(
            exchange, "POST", "/mercado.v1.MatchService/GetView", FRAME.pack(0, len(payload)) + payload
        )
        assert status == 200
        flag, length = FRAME.unpack(body[: FRAME.size])
        assert flag == 0
        assert api.MatchState.FromString(body[FRAME.size : FRAME.size + length]).match.match_id == match_id
    status, _ = await asyncio.to_thread(exchange, "GET", "/metrics")
    assert status == 404
