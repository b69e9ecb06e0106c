"""Several servers ("nodes") on one PostgreSQL database, end to end: real processes, real PostgreSQL.

Any node serves any match. The database orders each match's actions, so two nodes racing on one
version store exactly one action; the nodes hear of each other's changes (LISTEN/NOTIFY), so every
stream carries every version once and in order, whichever node wrote it. A client whose node goes
away (killed, stopped) carries on through another with the same seat token: it resumes its stream
after the last version it saw and retries the call it had in flight with the same request id, which
is applied at most once wherever it arrives. A node asked for a replay, to let a seat go or to give
one back reads the match again first: its player may have seen, through another node, a change
this one has yet to hear of.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2
from matchplay import assert_reason, bearer, refusal
from mercado.v1 import match_pb2 as api
from mercado_client import MercadoClient, Seat
from nodes import (
    CALL_SECONDS,
    FAILOVER_SECONDS,
    MATCH_SECONDS,
    Caller,
    ClientOf,
    Nodes,
    assert_played,
    eventually,
    log_records,
    logged,
    move,
    playing,
    stored_actions,
    timely,
    until,
)
from positions import ROOT
from server_process import ServerProcess, health

from server.bench.faults import cut_listeners
from server.bench.postgres import PostgresServer, StopMode

pytestmark = pytest.mark.postgres

THINK_SECONDS = 0.02  # a player's pause before each move: a match then outlasts what befalls its node
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
# What a reason given to a client must not carry: statements, the database's address.
SQL_WORDS = ("select ", "insert ", "update ", "delete ", "pg_", "$1", "postgresql://")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def follow_until(client: MercadoClient, match_id: str, version: int) -> list[int]:
    """The versions of the actions a spectator's stream carries, up to ``version``."""
    versions: list[int] = []
    async with contextlib.aclosing(client.follow(match_id)) as updates:
        async for update in updates:
            if update.HasField("action"):
                versions.append(update.version)
            if update.version >= version and versions:
                return versions
    raise AssertionError(f"the stream ended at version {versions[-1:]}, before {version}")


def without_deadline(response: api.SubmitActionResponse) -> api.SubmitActionResponse:
    """A response but for the turn's deadline, which each node counts from when it learned of the turn."""
    copy = api.SubmitActionResponse()
    copy.CopyFrom(response)
    copy.state.match.ClearField("deadline_unix_ms")
    return copy


async def test_three_nodes_play_one_match(nodes: Nodes, client_of: ClientOf) -> None:
    one, two, three = nodes(3)
    match_id = await timely(client_of(one).create_match(players=2, seed=301))
    seats = [
        await timely(client_of(one).join(match_id, "ana")),
        await timely(client_of(two).join(match_id, "bo")),
    ]
    callers = [Caller.of(seat, seed=n) for n, seat in enumerate(seats)]
    callers.append(Caller(client_of(three), match_id))  # a spectator

    await timely(asyncio.gather(*(caller.run() for caller in callers)), MATCH_SECONDS)

    replays = [await timely(client_of(node).replay(match_id)) for node in (one, two, three)]
    assert replays[0] == replays[1] == replays[2]
    assert_played(callers, replays[0])
    # Each seat played through its own node only: the other seat's moves reached it as news.
    assert all(caller.acks for caller in callers[:2])


async def test_nodes_racing_on_one_version_store_exactly_one_action(
    nodes: Nodes, client_of: ClientOf, postgres_dsn: str
) -> None:
    one, two = nodes(2)
    match_id = await timely(client_of(one).create_match(players=2, seed=302))
    tokens = [(await timely(client_of(one).join(match_id, name))).token for name in ("ana", "bo")]
    # Each seat, through each node.
    through = [
        [Seat(client_of(node), match_id, n, token) for n, token in enumerate(tokens)] for node in (one, two)
    ]
    rng = random.Random(302)
    latest = 0  # a node known to be at the newest version: the one that wrote it
    winners: list[str] = []  # the accepted request ids
    for turn in range(20):
        to_move = (await timely(through[latest][0].view())).to_move
        state = await timely(through[latest][to_move].view())
        assert state.version == turn
        legal = list(state.legal_actions)
        actions = rng.sample(legal, 2) if len(legal) > 1 else legal * 2
        request_ids = [uuid.uuid4().hex for _ in range(2)]
        # The same seat token, the same expected version, two different actions: one through each node.
        results = await timely(
            asyncio.gather(
                *(
                    through[node][to_move].submit(actions[node], state.version, request_ids[node])
                    for node in (0, 1)
                ),
                return_exceptions=True,
            )
        )
        won = [n for n, result in enumerate(results) if isinstance(result, api.SubmitActionResponse)]
        assert len(won) == 1, results
        latest = won[0]
        response, error = results[latest], results[1 - latest]
        assert isinstance(response, api.SubmitActionResponse)
        assert response.version == turn + 1
        # The loser is told its version is stale, whether its node read the winner's action before
        # it tried, or the database refused it the version.
        assert isinstance(error, grpc.aio.AioRpcError), error
        assert_reason(error, grpc.StatusCode.ABORTED)
        winners.append(request_ids[latest])

    # The database holds exactly the winners, one per version, with no gap; both nodes say so.
    assert await stored_actions(postgres_dsn, match_id) == list(enumerate(winners, start=1))
    for node in (one, two):
        assert await timely(follow_until(client_of(node), match_id, 20)) == list(range(1, 21))
        assert (await timely(client_of(node).view(match_id))).version == 20


async def test_a_retry_through_another_node_returns_the_first_result(
    nodes: Nodes, client_of: ClientOf, postgres_dsn: str
) -> None:
    one, two = nodes(2)
    match_id = await timely(client_of(one).create_match(players=2, seed=303))
    seats = [await timely(client_of(one).join(match_id, name)) for name in ("ana", "bo")]
    watcher = Caller(client_of(two), match_id)
    watching: asyncio.Future[None] | None = None
    rounds = 8
    for turn in range(rounds):
        if turn == 1:
            # The first retry found the match only in the database; from now on node two holds it in
            # memory, and hears of each action as news (before or after the retry arrives).
            watching = asyncio.ensure_future(watcher.run())
        to_move = (await timely(seats[0].view())).to_move
        state = await timely(seats[to_move].view())
        action = state.legal_actions[0]
        request_id = uuid.uuid4().hex
        first = await timely(seats[to_move].submit(action, state.version, request_id))
        elsewhere = Seat(client_of(two), match_id, to_move, seats[to_move].token)
        again = await timely(elsewhere.submit(action, state.version, request_id))
        assert again.version == first.version == turn + 1
        assert without_deadline(again) == without_deadline(first)
        # The same id for another action is refused there too.
        other = next((a for a in state.legal_actions if a != action), None)
        if other is not None:
            error = await refusal(elsewhere.submit(other, state.version, request_id))
            assert_reason(error, grpc.StatusCode.INVALID_ARGUMENT)

    # Each request advanced the match once.
    stored = await stored_actions(postgres_dsn, match_id)
    assert [version for version, _ in stored] == list(range(1, rounds + 1))
    for node in (one, two):
        assert (await timely(client_of(node).view(match_id))).version == rounds
    await until(lambda: watcher.versions[-1:] == [rounds], "node two's stream to catch up", watching)
    assert watcher.versions == list(range(1, rounds + 1))
    assert watching is not None
    watching.cancel()


@pytest.mark.slow
async def test_clients_of_a_killed_node_finish_through_another(nodes: Nodes, client_of: ClientOf) -> None:
    a, b = nodes(2)
    match_id = await timely(client_of(a).create_match(players=2, seed=304))
    on_a = await timely(client_of(a, FAILOVER_SECONDS).join(match_id, "ana"))
    on_b = await timely(client_of(b).join(match_id, "bo"))
    away = {"elsewhere": [b.target], "connect": client_of, "think": THINK_SECONDS}
    callers = [
        Caller.of(on_a, seed=1, **away),
        Caller.of(on_b, seed=2, think=THINK_SECONDS),
        Caller(client_of(a, FAILOVER_SECONDS), match_id, **away),  # a spectator
    ]
    async with playing(callers) as play:
        await until(lambda: callers[2].newest >= 10, "version 10", play)
        await asyncio.to_thread(a.kill)
        killed_at = max(caller.newest for caller in callers)
        await timely(play, MATCH_SECONDS)

    replay = await timely(client_of(b).replay(match_id))
    assert len(replay.steps) > killed_at
    assert callers[0].moved_to == callers[2].moved_to == [b.target]
    assert callers[1].moved_to == []
    assert_played(callers, replay)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["fast", "immediate"])
async def test_nodes_ride_out_a_database_restart(
    own_postgres: PostgresServer, nodes: Nodes, client_of: ClientOf, mode: StopMode
) -> None:
    dsn = own_postgres.create_database("nodes")
    one, two = nodes(2, dsn=dsn)
    match_id = await timely(client_of(one).create_match(players=2, seed=305))
    # The clients keep trying their node through the outage: no node is gone, only the database.
    seats = [
        await timely(client_of(one, 30.0).join(match_id, "ana")),
        await timely(client_of(two, 30.0).join(match_id, "bo")),
    ]
    callers = [Caller.of(seat, seed=n, think=THINK_SECONDS) for n, seat in enumerate(seats)]
    callers.append(Caller(client_of(two, 30.0), match_id))
    async with playing(callers) as play:
        await until(lambda: callers[2].newest >= 6, "version 6", play)

        await asyncio.to_thread(own_postgres.stop, mode)
        # Nothing is answered that the database cannot vouch for: a read (which asks it first whether
        # another node moved the match on) is UNAVAILABLE, and so is an action, which cannot be stored.
        stubs = [client_of(node).stub for node in (one, two)]
        for stub in stubs:
            error = await refusal(stub.GetView(api.GetViewRequest(match_id=match_id), timeout=CALL_SECONDS))
            assert_reason(error, grpc.StatusCode.UNAVAILABLE)
        await until(
            lambda: callers[0].newest == callers[1].newest == callers[2].newest, "the last move", play
        )
        to_move, state = next(
            (n, caller.updates[-1].state)
            for n, caller in enumerate(callers[:2])
            if caller.updates[-1].state.legal_actions
        )
        index = 0
        node = (one, two)[index]
        probe = uuid.uuid4().hex
        request = api.SubmitActionRequest(
            match_id=match_id, expected_version=state.version, request_id=probe, action=state.legal_actions[0]
        )
        error = await refusal(
            stubs[index].SubmitAction(request, metadata=bearer(seats[to_move].token), timeout=CALL_SECONDS)
        )
        assert_reason(error, grpc.StatusCode.UNAVAILABLE)
        assert not any(word in (error.details() or "").lower() for word in SQL_WORDS), error.details()
        health_of_node = await timely(health(node.target))
        if health_of_node != NOT_SERVING:  # the failure is reported as the call returns; allow it a moment
            await asyncio.sleep(0.5)
            health_of_node = await timely(health(node.target))
        assert health_of_node == NOT_SERVING

        started = time.monotonic()
        await asyncio.to_thread(own_postgres.start)
        for each in (one, two):
            while await timely(health(each.target)) != SERVING:
                assert time.monotonic() - started < 10.0, (
                    "the node did not recover from the database's restart"
                )
                await asyncio.sleep(0.1)
        await timely(play, MATCH_SECONDS)

    replay = await timely(client_of(one).replay(match_id))
    assert replay == await timely(client_of(two).replay(match_id))
    assert_played(callers, replay)
    stored = await stored_actions(dsn, match_id)
    assert [version for version, _ in stored] == list(range(1, len(replay.steps) + 1))
    assert probe not in {request_id for _, request_id in stored}


async def test_a_stopped_node_sends_its_clients_to_another(nodes: Nodes, client_of: ClientOf) -> None:
    a, b = nodes(2)
    match_id = await timely(client_of(a).create_match(players=2, seed=306))
    seats = [await timely(client_of(a, FAILOVER_SECONDS).join(match_id, name)) for name in ("ana", "bo")]
    away = {"elsewhere": [b.target], "connect": client_of, "think": THINK_SECONDS}
    callers = [Caller.of(seat, seed=n, **away) for n, seat in enumerate(seats)]
    callers.append(Caller(client_of(b), match_id))  # a spectator on the node that stays

    # Bare streams on node A, to see how they end: a match's, and a player's queued for a match
    # (of four, which two players never make).
    ended: list[api.MatchUpdate] = []
    queued: list[api.FindMatchUpdate] = []
    queuer = await timely(client_of(a).create_player("Cy"))

    async def ending(call: Any, seen: list[Any]) -> grpc.aio.AioRpcError:
        try:
            async for update in call:
                seen.append(update)
        except grpc.aio.AioRpcError as error:
            return error
        raise AssertionError("the stream ended without an error")

    bare = asyncio.ensure_future(
        ending(client_of(a).stub.StreamEvents(api.StreamEventsRequest(match_id=match_id)), ended)
    )
    find = api.FindMatchRequest(players=4)
    queue = asyncio.ensure_future(
        ending(client_of(a).stub.FindMatch(find, metadata=bearer(queuer.player_token)), queued)
    )
    async with playing(callers) as play:
        await until(lambda: callers[2].newest >= 8 and bool(queued), "version 8 and a queued player", play)

        assert await asyncio.to_thread(a.stop) == 0, "".join(a.log_lines[-20:])
        for stream in (bare, queue):
            error = await timely(stream)
            assert_reason(error, grpc.StatusCode.UNAVAILABLE)
            assert "shutting down" in (error.details() or "")
        await timely(play, MATCH_SECONDS)

    assert [caller.moved_to for caller in callers] == [[b.target], [b.target], []]
    replay = await timely(client_of(b).replay(match_id))
    assert len(replay.steps) > max(update.version for update in ended)
    assert_played(callers, replay)
    # Started again, node A serves the match as node B finished it.
    await asyncio.to_thread(a.start)
    assert await timely(client_of(a).replay(match_id)) == replay


def worker_connections(pids: list[int], port: int) -> dict[int, int]:
    """How many established connections to ``port`` each process holds (from /proc)."""
    established: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError), open(table) as lines:
            for line in list(lines)[1:]:
                fields = line.split()
                local_port = int(fields[1].rsplit(":", 1)[1], 16)
                if local_port == port and fields[3] == "01":  # ESTABLISHED
                    established.add(fields[9])  # the socket's inode
    counts = {}
    for pid in pids:
        fds = Path(f"/proc/{pid}/fd")
        sockets = {
            os.readlink(fd)[len("socket:[") : -1]
            for fd in fds.iterdir()
            if os.readlink(fd).startswith("socket:")
        }
        counts[pid] = len(sockets & established)
    return counts


@pytest.mark.slow
async def test_workers_share_a_port(postgres_dsn: str, client_of: ClientOf) -> None:
    port = free_port()
    server = ServerProcess(postgres_dsn, port=port, web_port=-1, args=["--workers", "2"])
    await asyncio.to_thread(server.start)
    try:
        await until(lambda: len(logged(server, "listening")) == 2, "both workers to listen")
        pids = [record["pid"] for record in logged(server, "worker started")]
        assert len(pids) == 2
        assert {record["port"] for record in logged(server, "listening")} == {port}
        assert await timely(health(server.target)) == SERVING

        # Every caller has a connection of its own: the kernel spreads them over the workers, so a
        # match is created, joined, played and watched through both.
        def connect() -> MercadoClient:
            return client_of(server, own_connection=True)

        callers: list[Caller] = []
        for number in range(4):
            match_id = await timely(connect().create_match(players=2, seed=307 + number))
            seats = [await timely(connect().join(match_id, name)) for name in ("ana", "bo")]
            callers += [Caller.of(seat, seed=n) for n, seat in enumerate(seats)]
            callers.append(Caller(connect(), match_id))
        await timely(asyncio.gather(*(caller.run() for caller in callers)), MATCH_SECONDS)
        for number in range(4):
            group = callers[3 * number : 3 * number + 3]
            assert_played(group, await timely(client_of(server).replay(group[0].match_id)))
        connections = worker_connections(pids, port)
        assert all(count > 0 for count in connections.values()), connections

        started = time.monotonic()
        assert await asyncio.to_thread(server.stop) == 0, "".join(server.log_lines[-20:])
        assert time.monotonic() - started < 10.0
    finally:
        if server.process is not None and server.process.poll() is None:
            server.kill()
    records = log_records(server)
    assert [r["message"] for r in records].count("stopped") == 3  # each worker, then the parent
    assert not [r for r in records if r.get("levelname") in ("ERROR", "CRITICAL")], records
    for pid in pids:
        assert not Path(f"/proc/{pid}").exists()


def test_workers_need_postgres(tmp_path: Path) -> None:
    db = tmp_path / "mercado.db"
    command = [sys.executable, "-m", "server", "serve", "--workers", "2", "--port", str(free_port())]
    result = subprocess.run(
        [*command, "--web-port", "-1", "--db", str(db)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, result.stderr
    assert "PostgreSQL" in errors[0]
    assert not db.exists()


async def test_a_stream_hears_of_seats_taken_through_another_node(nodes: Nodes, client_of: ClientOf) -> None:
    one, two = nodes(2)
    watcher = client_of(one)
    match_id = await timely(watcher.create_match(players=2, seed=308))
    updates: list[api.MatchUpdate] = []

    async def follow() -> None:
        async for update in watcher.follow(match_id):
            updates.append(update)

    def seats_taken() -> list[str]:
        """The names of the taken seats, as node one's stream last showed them."""
        return [s.display_name for s in updates[-1].state.match.seats if s.taken] if updates else []

    following = asyncio.ensure_future(follow())
    try:
        await until(lambda: bool(updates), "the stream to open", following)
        assert updates[0].state.match.status == api.MATCH_STATUS_WAITING
        assert seats_taken() == []

        # From now on, every call goes to node two; node one only streams.
        seats = [await timely(client_of(two).join(match_id, "ana"))]
        await until(lambda: seats_taken() == ["ana"], "node one to see the first seat taken", following)
        assert updates[-1].state.match.status == api.MATCH_STATUS_WAITING
        seats.append(await timely(client_of(two).join(match_id, "bo")))
        await until(
            lambda: seats_taken() == ["ana", "bo"], "node one to see the second seat taken", following
        )
        started = updates[-1].state
        assert started.match.status == api.MATCH_STATUS_PLAYING
        assert started.HasField("to_move") and not started.HasField("your_seat")

        mover = seats[started.to_move]
        state = await timely(mover.view())
        await timely(mover.submit(state.legal_actions[0], state.version, uuid.uuid4().hex))
        await until(lambda: any(u.HasField("action") for u in updates), "node one to see the move", following)
        moved = next(u for u in updates if u.HasField("action"))
        assert (moved.version, moved.seat, moved.action) == (1, started.to_move, state.legal_actions[0])
        assert not any(u.version > 1 for u in updates)
    finally:
        following.cancel()
        await asyncio.gather(following, return_exceptions=True)


async def test_a_node_that_missed_news_reads_the_match_again(
    nodes: Nodes, client_of: ClientOf, postgres_dsn: str
) -> None:
    one, two = nodes(2)
    match_id = await timely(client_of(one).create_match(players=2, seed=309))
    seats = [await timely(client_of(one).join(match_id, name)) for name in ("ana", "bo")]
    watcher = Caller(client_of(two), match_id)  # holds the match in node two's memory

    async with playing([watcher]) as watching:
        await until(lambda: bool(watcher.updates), "node two's stream to open", watching)
        # Moves made while node two hears no news reach its stream once it listens again.
        assert await cut_listeners(postgres_dsn) == 2
        assert [await move(seats), await move(seats)] == [1, 2]
        await until(lambda: watcher.versions == [1, 2], "node two to read the match again", watching)

        # A client that saw a version through node one resumes after it through node two, even
        # before node two hears of it.
        assert await cut_listeners(postgres_dsn) == 2
        seen = await move(seats)
        resumed = client_of(two).follow(match_id, after_version=seen)
        async with contextlib.aclosing(resumed):
            first = await timely(anext(resumed))
        assert first.version == seen and not first.HasField("action")
        await until(lambda: watcher.versions == [1, 2, 3], "node two's stream to carry the move", watching)


@pytest.mark.parametrize("asked", ["replay", "leave"])
async def test_a_node_that_missed_the_end_of_a_match_reads_it_again_before_answering_its_player(
    nodes: Nodes, client_of: ClientOf, postgres_dsn: str, asked: str
) -> None:
    one, two = nodes(2)
    # A first match played to its end gives the moves of a whole match with its seed.
    first = await timely(client_of(one).create_match(players=2, seed=310))
    joined = [await timely(client_of(one).join(first, name)) for name in "ab"]
    players = [Caller.of(seat, seed=n) for n, seat in enumerate(joined)]
    await timely(asyncio.gather(*(player.run() for player in players)), MATCH_SECONDS)
    steps = list((await timely(client_of(one).replay(first))).steps)

    # A second match with the same seed and the same moves, held in node two's memory from the start.
    match_id = await timely(client_of(one).create_match(players=2, seed=310))
    seats = [await timely(client_of(one).join(match_id, name)) for name in "ab"]
    assert (await timely(client_of(two).view(match_id))).version == 0
    for step in steps[:-1]:
        await timely(seats[step.seat].submit(step.action, step.version - 1, uuid.uuid4().hex))
    # The last move ends it while node two hears no news; a player then asks node two at once.
    assert await cut_listeners(postgres_dsn) == 2
    last = steps[-1]
    ended = await timely(seats[last.seat].submit(last.action, last.version - 1, uuid.uuid4().hex))
    assert ended.state.match.status == api.MATCH_STATUS_FINISHED
    if asked == "replay":
        assert list((await timely(client_of(two).replay(match_id))).steps) == steps
    else:
        through_two = Seat(client_of(two), match_id, 0, seats[0].token)
        error = await timely(refusal(through_two.leave()))
        assert_reason(error, grpc.StatusCode.FAILED_PRECONDITION)
        assert error.details() == "the match is finished"


async def test_a_seat_reclaimed_through_a_node_that_missed_its_timeout_is_given_back(
    nodes: Nodes, client_of: ClientOf, postgres_dsn: str
) -> None:
    one, two = nodes(2)
    clock = api.TimeControl(turn_seconds=3, reserve_seconds=0, on_timeout=api.ON_TIMEOUT_AI)
    match_id = await timely(client_of(one).create_match(players=2, seed=311, clock=clock))
    seats = [await timely(client_of(one).join(match_id, name)) for name in "ab"]
    mover = (await timely(seats[0].view())).to_move
    # Node two counts the first turn from when it reads the match, 1.5 s after node one does, so node
    # one's clock runs out first; half a second before it does, node two stops hearing news (for the
    # second it takes to listen again).
    await asyncio.sleep(1.5)
    assert (await timely(client_of(two).view(match_id))).version == 0
    await asyncio.sleep(1.0)
    assert await cut_listeners(postgres_dsn) == 2

    async def handed_over() -> bool:
        return (await seats[mover].view()).match.seats[mover].played_by_ai

    await eventually(handed_over, "node one to hand the seat to the AI", 5.0)
    # Its player, told by node one, takes the seat back through node two at once.
    reclaimed = await timely(Seat(client_of(two), match_id, mover, seats[mover].token).reclaim())
    assert not reclaimed.match.seats[mover].played_by_ai
