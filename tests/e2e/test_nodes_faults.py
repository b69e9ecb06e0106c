"""Nodes (servers on one PostgreSQL database) under faults, end to end: real processes, real PostgreSQL.

A turn clock that runs out while the database is away is carried out once it is back, by whichever
node holds the match. A node that starts while others play reads what changed as it loaded. A seat
change that a clock decided at one version is refused once the match has moved on. A sealed bid
still open in its step is accepted whichever node takes it. A node that cannot hear the others
(its listening connection silent) reads again on its own and says it is not serving until it hears
them again. A read through any node shows every write acknowledged before it, through any other.
A join retried with its request id, through any node and after a restart, gets the seat and token
the first took.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest
from grpc_health.v1 import health_pb2
from mercado.v1 import match_pb2 as api
from mercado_client import Seat
from nodes import (
    CALL_SECONDS,
    Caller,
    ClientOf,
    Nodes,
    eventually,
    health_of,
    listening_backends,
    move,
    playing,
    stored_actions,
    timely,
    until,
)

from server.bench.faults import paused
from server.bench.postgres import PostgresServer

pytestmark = pytest.mark.postgres

OUTAGE_SECONDS = 8.0  # the database is away this long, across a turn's deadline
TURN_SECONDS = 4
HANDED_OVER_SECONDS = 20.0  # once the database is back (the target is a few seconds)
SLOW_TURN_SECONDS = 5  # a turn whose timeout is written late
SEALED_STEPS = 20  # steps of sealed bids sent at once through two nodes
MATCHES_IN_PLAY = 60  # as a node restarts
SILENCE_SECONDS = 20.0  # for a node whose listener is silent to read again on its own
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


async def test_a_turn_that_runs_out_while_the_database_is_away_is_handed_to_the_ai_once_it_is_back(
    own_postgres: PostgresServer, nodes: Nodes, client_of: ClientOf
) -> None:
    dsn = own_postgres.create_database("nodes")
    one, two = nodes(2, dsn=dsn)
    clock = api.TimeControl(turn_seconds=TURN_SECONDS, reserve_seconds=0, on_timeout=api.ON_TIMEOUT_AI)
    match_id = await timely(client_of(one).create_match(players=2, seed=401, clock=clock))
    seats = [await timely(client_of(one).join(match_id, name)) for name in ("ana", "bo")]
    state = await timely(client_of(two).view(match_id))  # both nodes hold the match, and its clock
    mover = state.to_move
    # The database stops before the turn's deadline and is away until well after it; nobody moves.
    await asyncio.to_thread(own_postgres.stop, "fast")
    await asyncio.sleep(OUTAGE_SECONDS)
    assert time.time() * 1000 > state.match.deadline_unix_ms + 1000, "the outage ended before the deadline"
    await asyncio.to_thread(own_postgres.start)

    async def handed_over() -> bool:
        return (await seats[mover].view()).match.seats[mover].played_by_ai

    await eventually(handed_over, "the seat that ran out to be handed to the AI", HANDED_OVER_SECONDS)

    # The AI then plays the seat's turn, as without an outage.
    async def moved() -> bool:
        return (await seats[1 - mover].view()).version > state.version

    await eventually(moved, "the AI to play the seat's turn")


async def lock_waiters(dsn: str) -> int:
    """How many connections to the database wait for a lock another holds."""
    db = await asyncpg.connect(dsn, timeout=CALL_SECONDS)
    try:
        waiting: int = await db.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
        )
    finally:
        await db.close()
    return waiting


@contextlib.asynccontextmanager
async def seat_held(dsn: str, match_id: str, seat: int) -> AsyncIterator[None]:
    """Writes of the seat, and of the match's own row, wait until the block ends (as behind a slow
    write or a paused server); an action is stored meanwhile (its key share of the match's row is
    not held back)."""
    db = await asyncpg.connect(dsn, timeout=CALL_SECONDS)
    try:
        async with db.transaction():
            await db.execute(
                "SELECT 1 FROM seats WHERE match_id = $1 AND seat = $2 FOR UPDATE", match_id, seat
            )
            await db.execute("SELECT 1 FROM matches WHERE match_id = $1 FOR NO KEY UPDATE", match_id)
            yield
    finally:
        await db.close()


async def stored_seat(dsn: str, match_id: str, seat: int) -> str:
    """Who plays the seat, as the database holds it."""
    db = await asyncpg.connect(dsn, timeout=CALL_SECONDS)
    try:
        played_by: str = await db.fetchval(
            "SELECT played_by FROM seats WHERE match_id = $1 AND seat = $2", match_id, seat
        )
    finally:
        await db.close()
    return played_by


async def test_a_timeout_decided_before_the_seat_moved_through_another_node_is_not_written_after(
    nodes: Nodes, client_of: ClientOf, postgres_dsn: str
) -> None:
    one, two = nodes(2)
    clock = api.TimeControl(turn_seconds=SLOW_TURN_SECONDS, reserve_seconds=0, on_timeout=api.ON_TIMEOUT_AI)
    match_id = await timely(client_of(one).create_match(players=2, seed=403, clock=clock))
    seats = [await timely(client_of(one).join(match_id, name)) for name in ("ana", "bo")]
    mover = (await timely(seats[0].view())).to_move
    async with seat_held(postgres_dsn, match_id, mover):
        # Node one's clock runs out; its hand-over to the AI waits for the database.
        async def node_one_writes() -> bool:
            return await lock_waiters(postgres_dsn) > 0

        await eventually(node_one_writes, "node one to write the timeout", SLOW_TURN_SECONDS + 15.0)
        # Meanwhile the seat moves through node two (which counts the turn from when it reads the match).
        through_two = Seat(client_of(two), match_id, mover, seats[mover].token)
        state = await timely(through_two.view())
        assert state.version == 0 and not state.match.seats[mover].played_by_ai
        moved = await timely(through_two.submit(state.legal_actions[0], 0, uuid.uuid4().hex))
        assert moved.version == 1

    # Node one's decision, made at version 0, is refused: the seat stays its owner's.
    async def node_one_caught_up() -> bool:
        return await lock_waiters(postgres_dsn) == 0 and (await seats[mover].view()).version >= 1

    await eventually(node_one_caught_up, "node one to hear of the move")
    assert await stored_seat(postgres_dsn, match_id, mover) == "owner"
    assert not (await timely(seats[mover].view())).match.seats[mover].played_by_ai


async def test_sealed_bids_sent_at_once_through_two_nodes_are_accepted(
    nodes: Nodes, client_of: ClientOf
) -> None:
    one, two = nodes(2)
    match_id = await timely(client_of(one).create_match(players=2, seed=404, game="leilao"))
    tokens = [(await timely(client_of(one).join(match_id, name))).token for name in ("ana", "bo")]
    through = [Seat(client_of(node), match_id, n, tokens[n]) for n, node in enumerate((one, two))]
    version = 0

    async def both_at(version: int) -> bool:
        return [(await seat.view()).version for seat in through] == [version, version]

    for _ in range(SEALED_STEPS):
        await eventually(functools.partial(both_at, version), f"both nodes to show version {version}")
        views = [await timely(seat.view()) for seat in through]
        if views[0].match.status == api.MATCH_STATUS_FINISHED:
            break
        bidders = [n for n, view in enumerate(views) if view.legal_actions]
        # Each seat to move sends its choice at once, through its own node, against the same version.
        results = await timely(
            asyncio.gather(
                *(through[n].submit(views[n].legal_actions[0], version, uuid.uuid4().hex) for n in bidders),
                return_exceptions=True,
            )
        )
        refused = [result for result in results if not isinstance(result, api.SubmitActionResponse)]
        assert not refused, f"at version {version}: {refused}"
        assert sorted(result.version for result in results) == [version + 1 + n for n in range(len(bidders))]
        version += len(bidders)
    assert version >= SEALED_STEPS


async def test_a_node_that_starts_while_another_plays_serves_every_match_as_it_stands(
    nodes: Nodes, client_of: ClientOf, postgres_dsn: str
) -> None:
    one, two = nodes(2)
    client = client_of(one)
    matches: list[list[Seat]] = []
    for number in range(MATCHES_IN_PLAY):
        match_id = await timely(client.create_match(players=2, seed=405 + number))
        matches.append([await timely(client.join(match_id, name)) for name in ("ana", "bo")])
    await asyncio.to_thread(two.kill)
    starting = asyncio.ensure_future(asyncio.to_thread(two.start))

    async def play(seats: list[Seat], pause: float) -> None:
        """Move through node one, every ``pause`` seconds, until node two listens."""
        while not starting.done():
            if await move(seats) is None:
                return  # over
            await asyncio.sleep(pause)

    pauses = [0.5 + number / MATCHES_IN_PLAY for number in range(MATCHES_IN_PLAY)]
    await timely(asyncio.gather(starting, *(map(play, matches, pauses))), 60.0)

    # Node two shows every match at the version the database holds (many moved as it started).
    through_two = client_of(two)
    stored = {
        seats[0].match_id: len(await stored_actions(postgres_dsn, seats[0].match_id)) for seats in matches
    }

    async def every_match_current() -> bool:
        shown = {match_id: (await through_two.view(match_id)).version for match_id in stored}
        return shown == stored

    await eventually(every_match_current, "node two to show every match as the database holds it")


async def test_a_node_whose_listener_falls_silent_reads_again_and_is_not_serving_until_it_hears(
    nodes: Nodes, client_of: ClientOf, postgres_dsn: str
) -> None:
    one, two = nodes(2)
    match_id = await timely(client_of(one).create_match(players=2, seed=406))
    seats = [await timely(client_of(one).join(match_id, name)) for name in ("ana", "bo")]
    watcher = Caller(client_of(two), match_id)  # holds the match in node two's memory
    async with playing([watcher]) as watching, health_of(two) as statuses:
        await until(lambda: bool(watcher.updates), "node two's stream to open", watching)
        assert statuses == [SERVING]
        listeners = await listening_backends(postgres_dsn)
        assert len(listeners) == 2
        # The listening connections' processes stop: open, but silent.
        with paused(listeners):
            for version in range(3):
                assert await move(seats) == version + 1
            await until(
                lambda: watcher.versions == [1, 2, 3], "node two to read again", watching, SILENCE_SECONDS
            )
        # Meanwhile it said it was not serving, until it heard the others again.
        await until(lambda: statuses[-1:] == [SERVING], "node two to serve again", watching)
    assert NOT_SERVING in statuses


async def test_a_read_through_any_node_shows_every_write_acknowledged_before_it(
    nodes: Nodes, client_of: ClientOf, postgres_dsn: str
) -> None:
    one, two = nodes(2)
    through_one, through_two = client_of(one), client_of(two)
    match_id = await timely(through_one.create_match(players=2, seed=407))
    assert (await timely(through_two.view(match_id))).match.status == api.MATCH_STATUS_WAITING
    # Node two hears nothing from now on (until it finds its listener silent): what it answers, it
    # answers from the database.
    with paused(await listening_backends(postgres_dsn)):
        seats = [await timely(through_one.join(match_id, name)) for name in ("ana", "bo")]
        seen = await timely(through_two.view(match_id))
        assert seen.match.status == api.MATCH_STATUS_PLAYING
        assert [seat.display_name for seat in seen.match.seats] == ["ana", "bo"]
        for version in range(1, 4):
            state = await timely(seats[seen.to_move].view())
            await timely(seats[state.to_move].submit(state.legal_actions[0], state.version, uuid.uuid4().hex))
            # The player's own view, its stream and a spectator's view, each through node two.
            mine = Seat(through_two, match_id, state.to_move, seats[state.to_move].token)
            assert (await timely(mine.view())).version == version
            async with contextlib.aclosing(through_two.follow(match_id)) as updates:
                assert (await timely(anext(updates))).version == version
            seen = await timely(through_two.view(match_id))
            assert seen.version == version


async def test_a_join_retried_with_its_request_id_through_another_node_or_after_a_restart_gets_its_seat(
    nodes: Nodes, client_of: ClientOf
) -> None:
    one, two = nodes(2)
    match_id = await timely(client_of(one).create_match(players=3, seed=408))
    join = api.JoinMatchRequest(match_id=match_id, display_name="ana", request_id=uuid.uuid4().hex)
    first = await timely(client_of(one).stub.JoinMatch(join))
    # Its answer was lost, say: the client sends it again, through the other node.
    again = await timely(client_of(two).stub.JoinMatch(join))
    assert (again.seat, again.seat_token) == (first.seat, first.seat_token)
    assert [seat.taken for seat in again.match.seats] == [True, False, False]
    # ...or through the first node once it has restarted.
    await asyncio.to_thread(one.restart)
    later = await timely(client_of(one).stub.JoinMatch(join))
    assert (later.seat, later.seat_token) == (first.seat, first.seat_token)
    # The seat token acts for the seat; another join takes another seat.
    assert (await timely(Seat(client_of(two), match_id, first.seat, first.seat_token).view())).your_seat == 0
    other = await timely(client_of(two).join(match_id, "bo"))
    assert other.seat == 1
