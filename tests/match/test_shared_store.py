"""Two authorities on one PostgreSQL database, in one process: what one holds in memory while the other
changes the matches, seen from inside (the end-to-end tests of several servers are tests/e2e/test_nodes*).

A server that starts while another plays holds every match in play as the database does once it has
started, and keeps it so, without a caller asking for any of them: it listens to the other before
it loads them, and reads again what changed as each loaded.
"""

from __future__ import annotations

import asyncio
import random

import pytest
from authorities import POLICY, close

from server.games.mercado import Options, legal_actions
from server.match import Match, MatchService
from server.store.postgres import PostgresStore

pytestmark = pytest.mark.postgres

MATCHES = 40
WAIT_SECONDS = 15.0


async def authority(dsn: str) -> MatchService:
    service = MatchService(await PostgresStore.open(dsn), policy=POLICY)
    await service.start()
    return service


async def stop(service: MatchService) -> None:
    """Close the authority and its store, whose listener ends on its next turn: let it."""
    await close(service)
    store = service.store
    assert isinstance(store, PostgresStore)
    await asyncio.gather(*(task for task in (store.listener, store.prober) if task), return_exceptions=True)


async def test_a_server_that_starts_while_another_plays_holds_every_match_as_stored(
    postgres_dsn: str,
) -> None:
    playing = await authority(postgres_dsn)
    matches: list[tuple[Match, list[str]]] = []
    for seed in range(MATCHES):
        match = await playing.create_match(Options(players=2), [], seed)
        matches.append((match, [(await playing.join(match.match_id, f"p{n}")).token for n in range(2)]))
    rng = random.Random(1)
    starting = asyncio.ensure_future(authority(postgres_dsn))

    async def move(match: Match, tokens: list[str]) -> None:
        """Random moves until the other server has started, letting it load between them."""
        while not starting.done() and not match.state.is_terminal:
            seat = match.state.current_player
            action = rng.choice(legal_actions(match.state))
            await playing.submit(match.match_id, tokens[seat], match.version, f"r{match.version}", action)
            await asyncio.sleep(rng.uniform(0.0, 0.05))

    await asyncio.gather(starting, *(move(match, tokens) for match, tokens in matches))
    started = starting.result()
    try:
        # Nobody asks the new server for anything: what it holds it heard of, or read as it loaded.
        def held() -> list[int | None]:
            return [getattr(started.cache.peek(match.match_id), "version", None) for match, _ in matches]

        deadline = asyncio.get_running_loop().time() + WAIT_SECONDS
        while held() != [match.version for match, _ in matches]:
            assert asyncio.get_running_loop().time() < deadline, (held(), [m.version for m, _ in matches])
            await asyncio.sleep(0.05)
    finally:
        await stop(started)
        await stop(playing)
