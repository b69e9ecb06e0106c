"""Nodes (servers on one PostgreSQL database) under faults, end to end: real processes, real PostgreSQL.

A turn clock that runs out while the database is away is carried out once it is back, by whichever
node holds the match. A node that starts while others play reads what changed as it loaded. A seat
change that a clock decided at one version is refused once the match has moved on. A sealed bid
still open in its step is accepted whichever node takes it. A node that cannot hear the others
(its listening connection silent) reads again on its own and says it is not serving until it hears
them again.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from mercado.v1 import match_pb2 as api
from nodes import ClientOf, Nodes, eventually, timely

from server.bench.postgres import PostgresServer

pytestmark = pytest.mark.postgres

OUTAGE_SECONDS = 8.0  # the database is away this long, across a turn's deadline
TURN_SECONDS = 4
HANDED_OVER_SECONDS = 20.0  # once the database is back (the target is a few seconds)


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
    back = time.monotonic()

    async def handed_over() -> bool:
        return (await seats[mover].view()).match.seats[mover].played_by_ai

    await eventually(handed_over, "the seat that ran out to be handed to the AI", HANDED_OVER_SECONDS)
    print(f"handed over {time.monotonic() - back:.1f} s after the database came back")

    # The AI then plays the seat's turn, as without an outage.
    async def moved() -> bool:
        return (await seats[1 - mover].view()).version > state.version

    await eventually(moved, "the AI to play the seat's turn")
