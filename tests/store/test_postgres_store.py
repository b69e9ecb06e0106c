"""What only a database shared by several servers shows: PostgresStores on one database racing for the
same version, seat, rating or secret, migrating it together, hearing each other's changes, and a
database that stops and comes back.

What every store does alike is in test_store_conformance.py."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import Any

import asyncpg
import pytest
from test_store_conformance import COIN, COIN_TEXT, OFFER_TEXT, Database, record, taken

from server.bench.postgres import PostgresServer
from server.store import AgentRecord, Conflict, StoreBusy, StoreUnavailable
from server.store.postgres import LISTENER_NAME, POOL_SIZE, PostgresStore
from server.store.postgres_schema import MIGRATIONS
from server.store.records import (
    AI,
    FINISHED,
    GUEST,
    PLAYING,
    RATED,
    UNRATED,
    WAITING,
    PlayerRecord,
    QueuedRecord,
    SeatRecord,
    TimeControl,
)

pytestmark = pytest.mark.postgres

ROUNDS = 30  # races run this many times: each has two outcomes that PostgreSQL's scheduling picks from
WAIT_SECONDS = 10.0  # for a notification, a reconnection or the store's health


@pytest.fixture
async def database(postgres_dsn: str) -> AsyncIterator[Database]:
    opened = Database(postgres_dsn)
    yield opened
    await opened.close()


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    """A lost listening connection is tried again, and an unhealthy store probed, without a pause."""
    monkeypatch.setattr("server.store.postgres.RECONNECT_SECONDS", 0.05)
    monkeypatch.setattr("server.store.postgres.PROBE_SECONDS", 0.05)


async def servers(database: Database, count: int) -> list[PostgresStore]:
    """``count`` stores on the database, as ``count`` servers would hold them."""
    opened = [await database.open() for _ in range(count)]
    stores = [store for store in opened if isinstance(store, PostgresStore)]
    assert len(stores) == count
    return stores


async def race(first: Awaitable[None], second: Awaitable[None], swap: bool) -> list[BaseException | None]:
    """The outcomes of two writes sent together (the second first, if ``swap``): None or an error."""
    sent = (second, first) if swap else (first, second)
    outcomes = list(await asyncio.gather(*sent, return_exceptions=True))
    return outcomes[::-1] if swap else outcomes


def one_won(outcomes: list[BaseException | None]) -> int:
    """Which of two writes succeeded, the other having heard Conflict."""
    assert sorted(type(outcome).__name__ for outcome in outcomes) == ["Conflict", "NoneType"], outcomes
    return outcomes.index(None)


async def until(what: str, condition: Callable[[], bool]) -> None:
    """Wait for ``condition``, polling, for at most WAIT_SECONDS."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_SECONDS
    while not condition():
        if loop.time() > deadline:
            pytest.fail(f"waited {WAIT_SECONDS} s for {what}")
        await asyncio.sleep(0.01)


# --- races -----------------------------------------------------------------------


async def test_servers_racing_for_a_version_store_exactly_one_action(database: Database) -> None:
    a, b = await servers(database, 2)
    await a.create_match(record("m"))
    winners = []
    for version in range(1, ROUNDS + 1):
        outcomes = await race(
            a.append_action("m", version, 0, COIN_TEXT, f"a{version}", False),
            b.append_action("m", version, 1, OFFER_TEXT, f"b{version}", False),
            swap=version % 2 == 0,
        )
        winners.append("ab"[one_won(outcomes)])
    loaded = await a.load_match("m")
    assert loaded is not None
    # One action per version, none missing: the winner's.
    assert [request_id for _, _, request_id in loaded[1]] == [f"{w}{v}" for v, w in enumerate(winners, 1)]
    (listing,) = await b.list_matches(None, 10, None)
    assert listing.version == ROUNDS
    assert a.failure is None and b.failure is None


async def test_a_request_id_is_taken_once_whichever_server_stores_it(database: Database) -> None:
    a, b = await servers(database, 2)
    await a.create_match(record("m"))
    await a.append_action("m", 1, 0, COIN_TEXT, "once", False)
    with pytest.raises(Conflict):
        await b.append_action("m", 2, 1, OFFER_TEXT, "once", False)
    # Racing on two versions with one request id: one of them is stored.
    outcomes = await race(
        a.append_action("m", 2, 1, OFFER_TEXT, "twice", False),
        b.append_action("m", 3, 1, OFFER_TEXT, "twice", False),
        swap=False,
    )
    one_won(outcomes)
    loaded = await b.load_match("m")
    assert loaded is not None and [r for _, _, r in loaded[1]] == ["once", "twice"]


async def test_servers_racing_for_a_seat_seat_one_player(database: Database) -> None:
    a, b = await servers(database, 2)
    for n in range(ROUNDS):
        await a.create_match(record(f"m{n}", players=3))
        outcomes = await race(
            a.save_seat(f"m{n}", SeatRecord(1, None, "ana", f"ana-{n}"), WAITING),
            b.save_seat(f"m{n}", SeatRecord(1, None, "bea", f"bea-{n}"), WAITING),
            swap=n % 2 == 1,
        )
        winner = ("ana", "bea")[one_won(outcomes)]
        loaded = await a.load_match(f"m{n}")
        assert loaded is not None
        assert loaded[0].seats[1] == SeatRecord(1, None, winner, f"{winner}-{n}")
    assert a.failure is None and b.failure is None


async def test_a_seat_taken_while_its_match_is_cancelled_goes_one_way(database: Database) -> None:
    """Taking the last seat and cancelling the match lock the same rows: they wait for each other
    (one then hears Conflict) rather than deadlock, which would cost a second and fail a write."""
    a, b = await servers(database, 2)
    loop = asyncio.get_running_loop()
    started = loop.time()
    for n in range(ROUNDS):
        match_id = f"m{n}"
        await a.create_match(
            replace(record(match_id), seats=[SeatRecord(0, None, "ana", "h"), SeatRecord(1)])
        )
        outcomes = await race(
            a.cancel(match_id),
            b.save_seat(match_id, SeatRecord(1, None, "bea", f"bea-{n}"), PLAYING),
            swap=n % 2 == 1,
        )
        cancelled = one_won(outcomes) == 0
        loaded = await a.load_match(match_id)
        assert loaded is not None
        assert loaded[0].cancelled == cancelled and loaded[0].seats[1].taken != cancelled
    assert await b.count_waiting() == 0
    assert a.failure is None and b.failure is None
    assert loop.time() - started < 10


async def test_servers_racing_to_rate_a_match_rate_it_once(database: Database) -> None:
    a, b = await servers(database, 2)
    ana = PlayerRecord("a" * 32, GUEST, "Ana")
    await a.save_player(ana)
    for n in range(ROUNDS):
        match_id = f"m{n}"
        await a.create_match(record(match_id))
        await a.set_status(match_id, FINISHED)
        played = replace(ana, rated_matches=n + 1, mu=25.0 + n)
        outcomes = await race(
            a.record_rating(match_id, RATED, [played]),
            b.record_rating(match_id, UNRATED, []),
            swap=n % 2 == 1,
        )
        rating = (RATED, UNRATED)[one_won(outcomes)]
        loaded = await b.load_match(match_id)
        assert loaded is not None and loaded[0].rating == rating
    assert await a.finished_unrated() == []


async def test_servers_rating_two_matches_of_one_player_at_once_count_both_or_refuse_one(
    database: Database,
) -> None:
    a, b = await servers(database, 2)
    ana = PlayerRecord("a" * 32, GUEST, "Ana")
    await a.save_player(ana)
    for n in range(ROUNDS):
        for match_id in (f"x{n}", f"y{n}"):
            await a.create_match(record(match_id))
            await a.set_status(match_id, FINISHED)
        # Both read Ana after n rated matches; each rates its match from that reading.
        played = replace(ana, rated_matches=n + 1, mu=25.0 + n)
        outcomes = await race(
            a.record_rating(f"x{n}", RATED, [played]),
            b.record_rating(f"y{n}", RATED, [played]),
            swap=n % 2 == 1,
        )
        loser = f"{'yx'[one_won(outcomes)]}{n}"
        assert (await b.players([ana.player_id]))[ana.player_id].rated_matches == n + 1
        assert await a.finished_unrated() == [loser]  # to be rated again from the new reading
        await a.record_rating(loser, UNRATED, [])


async def test_servers_grouping_one_player_into_two_matches_claim_it_once(database: Database) -> None:
    a, b = await servers(database, 2)
    ana, bea, ceu = "a" * 32, "b" * 32, "c" * 32
    for n in range(ROUNDS):
        for player in (ana, bea, ceu):
            await a.enqueue(QueuedRecord(player, "p", 25.0, 2, False, 1000 + n), 1000 + n)
        claims = [a.claim_queued([ana, bea], 2000, 1000), b.claim_queued([bea, ceu], 2000, 1000)]
        if n % 2:
            claims.reverse()
        assert sorted(await asyncio.gather(*claims)) == [False, True]
        for player in (ana, bea, ceu):
            await b.dequeue(player, 1000 + n)


async def test_an_agent_heard_through_one_server_is_known_to_the_others(database: Database) -> None:
    a, b = await servers(database, 2)
    await a.save_agent("agent-1", ["easy", "hard"], 3, 1000)
    await a.save_agent("agent-2", ["easy"], 1, 500)
    await a.save_agent("agent-1", ["easy", "hard"], 2, 2000)  # its next heartbeat
    assert await b.live_agents(1000) == [AgentRecord("agent-1", ["easy", "hard"], 2, 2000)]
    assert {agent.agent_id for agent in await b.live_agents(0)} == {"agent-1", "agent-2"}


async def test_servers_asking_for_a_new_secret_together_get_the_same(database: Database) -> None:
    stores = await servers(database, 3)
    names = ["guest", "tokens", "other"]
    secrets = await asyncio.gather(*(store.secret(name) for name in names for store in stores))
    by_name = [set(secrets[n * len(stores) : (n + 1) * len(stores)]) for n in range(len(names))]
    assert all(len(made) == 1 for made in by_name)
    assert len(set.union(*by_name)) == len(names)


async def test_servers_opening_a_new_database_together_migrate_it_once(
    database: Database, postgres_dsn: str
) -> None:
    await asyncio.gather(*(database.open() for _ in range(5)))
    connection = await asyncpg.connect(postgres_dsn)
    try:
        versions = await connection.fetch("SELECT version FROM schema_migrations ORDER BY version")
        assert [row[0] for row in versions] == list(range(1, len(MIGRATIONS) + 1))
    finally:
        await connection.close()
    stores = await servers(database, 1)  # and a later one finds nothing to do
    await stores[0].create_match(record("m"))


# --- news from the other servers -------------------------------------------------


class Follower:
    """What a store's ``follow`` told: the matches changed, and how often some may have been missed."""

    def __init__(self) -> None:
        self.changed: list[str] = []
        self.missed = 0

    async def follow(self, store: PostgresStore) -> Follower:
        await store.follow(self.changed.append, self.miss)
        return self

    def miss(self) -> None:
        self.missed += 1


async def test_a_change_reaches_the_other_servers_and_not_its_own(database: Database) -> None:
    a, b, c = await servers(database, 3)
    heard_by_a, heard_by_b = await Follower().follow(a), await Follower().follow(b)
    await a.create_match(taken("played"))
    await a.create_match(record("joined", players=3))
    await a.create_match(record("cancelled"))
    await a.append_action("played", 1, 0, COIN_TEXT, "r1", False)
    await a.save_seat("joined", SeatRecord(0, None, "ana", "h"), WAITING)
    await a.update_seats("played", [replace(taken("played").seats[1], played_by=AI)])
    await a.cancel("cancelled")
    await a.release_seat("joined", 0)
    expected = ["played", "joined", "played", "cancelled", "joined"]  # in the order committed
    await until("b to hear a's changes", lambda: heard_by_b.changed == expected)
    # Notifications reach each listener in the order committed: once a has heard c's write,
    # it would have heard its own before.
    await c.create_match(record("barrier"))
    await c.set_status("barrier", WAITING)
    await until("a to hear c's change", lambda: heard_by_a.changed != [])
    assert heard_by_a.changed == ["barrier"]
    await until("b to hear c's change", lambda: heard_by_b.changed == [*expected, "barrier"])
    assert heard_by_a.missed == heard_by_b.missed == 0


async def test_a_lost_listening_connection_is_made_again_and_says_so(
    database: Database, postgres_dsn: str, quick: None
) -> None:
    a, b = await servers(database, 2)
    heard = await Follower().follow(b)
    admin = await asyncpg.connect(postgres_dsn)
    try:
        (pid,) = await listeners(admin)
        assert await admin.fetchval("SELECT pg_terminate_backend($1)", pid)
        await until("b to listen again", lambda: heard.missed == 1)
        assert await listeners(admin) not in ([], [pid])
    finally:
        await admin.close()
    await a.create_match(record("m"))
    await a.append_action("m", 1, 0, COIN_TEXT, "r1", False)
    await until("b to hear a's change", lambda: heard.changed == ["m"])
    await until("b to hear its heartbeat again", lambda: b.failure is None)


async def test_a_silent_listening_connection_is_made_again_and_the_store_unhealthy_until_it_hears(
    database: Database, postgres_dsn: str, quick: None
) -> None:
    a, b = await servers(database, 2)
    reports: list[str | None] = []
    b.on_health = reports.append
    heard = await Follower().follow(b)
    await a.create_match(record("m"))
    admin = await asyncpg.connect(postgres_dsn)
    try:
        (pid,) = await listeners(admin)
        os.kill(pid, signal.SIGSTOP)  # its connection stays open, and carries nothing
        try:
            await until("b to find its listener silent", lambda: b.failure is not None)
            await until("b to listen again", lambda: heard.missed == 1)
            await until("b to hear its heartbeat again", lambda: b.failure is None)
        finally:
            os.kill(pid, signal.SIGCONT)
    finally:
        await admin.close()
    assert reports == [reports[0], None] and "hear" in (reports[0] or "")
    await a.append_action("m", 1, 0, COIN_TEXT, "r1", False)
    await until("b to hear a's change", lambda: heard.changed == ["m"])


async def listeners(admin: Any) -> list[int]:
    """The database's processes serving the stores' listening connections (admin: a connection)."""
    rows = await admin.fetch(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1",
        LISTENER_NAME,
    )
    return [row[0] for row in rows]


# --- a database that stops -------------------------------------------------------


async def test_a_stopped_database_fails_calls_and_the_store_heals_once_it_is_back(
    own_postgres: PostgresServer, quick: None
) -> None:
    dsn = own_postgres.create_database("mercado")
    database = Database(dsn)
    try:
        reports: list[str | None] = []
        a = await PostgresStore.open(dsn, on_health=reports.append)
        database.opened.append(a)
        b, late = await servers(database, 2)
        heard_by_b = await Follower().follow(b)
        await a.create_match(record("m"))

        await asyncio.to_thread(own_postgres.stop, "fast")
        heard_by_late = await Follower().follow(late)  # returns at once: the server starts anyway
        calls: list[Callable[[], Awaitable[object]]] = [
            lambda: a.append_action("m", 1, 0, COIN_TEXT, "lost", False),
            lambda: a.create_match(record("n")),
            lambda: a.load_match("m"),
            lambda: a.list_matches(None, 10, None),
        ]
        for call in calls:
            with pytest.raises(StoreUnavailable) as refused:
                await call()
            reason = refused.value.reason
            assert reason.startswith("storage is unavailable") and "\n" not in reason, reason
            assert not any(word in reason for word in ("SELECT", "INSERT", "UPDATE", "FROM")), reason
        assert a.failure is not None and reports == [a.failure]
        with pytest.raises(StoreUnavailable) as refused:
            await PostgresStore.open(dsn)
        assert "\n" not in refused.value.reason

        await asyncio.to_thread(own_postgres.start)
        await until("a's probe to find the database again", lambda: a.failure is None)
        assert reports == [reports[0], None]
        # Both listeners say that they may have missed changes, and hear the next ones.
        await until("b to listen again", lambda: heard_by_b.missed == 1)
        await until("late to listen", lambda: heard_by_late.missed == 1)
        await a.append_action("m", 1, 0, COIN_TEXT, "kept", False)
        loaded = await late.load_match("m")
        assert loaded is not None and loaded[1] == [(0, COIN, "kept")]
        await until("b and late to hear a", lambda: heard_by_b.changed == heard_by_late.changed == ["m"])
    finally:
        await database.close()


# --- a crowd --------------------------------------------------------------------


@pytest.fixture
def patient(monkeypatch: pytest.MonkeyPatch) -> None:
    """Statements held up by a test's lock run long before the database counts as failing."""
    monkeypatch.setattr("server.store.postgres.STATEMENT_SECONDS", 120.0)


WAITING_FOR_LOCKS = (
    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
)


@contextlib.asynccontextmanager
async def every_connection_held(store: PostgresStore, location: str, match_id: str) -> AsyncIterator[None]:
    """A new match ``match_id`` whose writes hold each of the store's pooled connections, waiting for
    its row, locked in another connection's transaction, until the block ends; then every one of
    them is stored."""
    await store.create_match(record(match_id))
    locker = await asyncpg.connect(location)
    try:
        transaction = locker.transaction()
        await transaction.start()
        await locker.execute("SELECT 1 FROM matches WHERE match_id = $1 FOR UPDATE", match_id)
        writes = [asyncio.create_task(store.set_status(match_id, PLAYING)) for _ in range(POOL_SIZE)]
        # Counted from a connection outside any transaction: within one, the activity seen stays as it was.
        watcher = await asyncpg.connect(store.dsn)
        try:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + WAIT_SECONDS
            while await watcher.fetchval(WAITING_FOR_LOCKS) < POOL_SIZE:
                if loop.time() > deadline:
                    pytest.fail(f"waited {WAIT_SECONDS} s for {POOL_SIZE} writes to wait for the row")
                await asyncio.sleep(0.05)
        finally:
            await watcher.close()
        yield
        await transaction.rollback()
        await asyncio.gather(*writes)
    finally:
        await locker.close()


async def test_a_call_finding_every_connection_in_use_waits_its_turn_then_is_refused_busy_not_failed(
    database: Database, patient: None
) -> None:
    reports: list[str | None] = []
    store = await PostgresStore.open(database.location, on_health=reports.append)
    database.opened.append(store)
    async with every_connection_held(store, database.location, "m"):
        with pytest.raises(StoreBusy) as refused:
            await store.load_match("m")
        assert refused.value.retry_after >= 1 and refused.value.reason.startswith("storage is busy")
        assert store.failure is None and reports == []  # a crowd is no failure of the database
    loaded = await store.load_match("m")  # every write that had its turn is stored
    assert loaded is not None and loaded[0].seats == record("m").seats
    assert store.failure is None and reports == []


async def test_calls_beyond_the_waiting_line_are_refused_at_once(
    database: Database, patient: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("server.store.postgres.WAITING_MOST", 3)
    (store,) = await servers(database, 1)
    async with every_connection_held(store, database.location, "m"):
        waiting = [asyncio.create_task(store.load_match("m")) for _ in range(3)]
        await until("three calls to wait for a connection", lambda: store.waiting == 3)

        with pytest.raises(StoreBusy, match="too many calls are waiting"):
            await store.load_match("m")
        assert not any(call.done() for call in waiting)  # the line waits on
    await asyncio.gather(*waiting)
    assert store.waiting == 0 and store.failure is None


# --- what a shared store knows more --------------------------------------------


async def test_matches_in_play_moved_lately_are_left_to_their_server(database: Database) -> None:
    (store,) = await servers(database, 1)
    await store.create_match(taken("idle", created_ms=1000, clock=TimeControl()))
    await store.create_match(taken("moving", created_ms=1000, clock=TimeControl()))
    await store.append_action("moving", 1, 0, COIN_TEXT, "r1", False)
    now_ms = int(time.time() * 1000)  # the database's clock: the server runs on this machine
    assert sorted(await store.playing_to_watch()) == ["idle", "moving"]
    assert await store.playing_to_watch(unmoved_since_ms=now_ms - 60_000) == ["idle"]
    assert sorted(await store.playing_to_watch(unmoved_since_ms=now_ms + 60_000)) == ["idle", "moving"]


async def test_listings_claims_and_lookups_walk_their_indexes(database: Database, postgres_dsn: str) -> None:
    """On a few thousand matches (most finished, as in a long history), each query searches its index
    rather than scanning a table, and the listings walk theirs in order rather than sorting."""
    await servers(database, 1)  # the schema
    connection = await asyncpg.connect(postgres_dsn)
    try:
        await connection.execute(FILL)
        # Each query, the index it searches, and whether it walks it in the order asked (no sort).
        plans = {
            # Listings: newest first; by status, a next page; a player's games (few, sorted).
            "SELECT match_id FROM matches m ORDER BY created_ms DESC, match_id DESC LIMIT 20": (
                "matches_by_age",
                True,
            ),
            "SELECT match_id FROM matches m WHERE status = 'waiting' AND (created_ms, match_id) < (4000, 'x')"
            " ORDER BY created_ms DESC, match_id DESC LIMIT 20": ("matches_by_status", True),
            "SELECT match_id FROM matches m WHERE match_id IN"
            " (SELECT match_id FROM seats WHERE player_id = 'p7')"
            " ORDER BY created_ms DESC, match_id DESC LIMIT 20": ("seats_by_player", False),
            "SELECT count(*) FROM matches WHERE status = 'waiting'": ("matches_by_status", False),
            "SELECT match_id FROM matches WHERE rating IS NULL AND status = 'finished'": (
                "matches_to_rate",
                False,
            ),
            # A bot's claim (among the open bot seats of its levels, few, sorted); a seat's token.
            "SELECT match_id, seat FROM seats WHERE bot_level = ANY('{easy,hard}'::text[])"
            " AND token_hash IS NULL AND played_by = 'owner' ORDER BY created LIMIT 1": (
                "open_bot_seats",
                False,
            ),
            "SELECT match_id, seat FROM seats WHERE token_hash = 't7-1'": ("seats_by_token", False),
            # A game's leaderboard, its next page.
            "SELECT r.player_id, p.kind FROM ratings r JOIN players p ON p.player_id = r.player_id"
            " WHERE r.game = 'oregano' AND r.rated_matches > 0 AND (r.rating < 30 OR (r.rating = 30"
            " AND r.player_id > 'p1')) ORDER BY r.rating DESC, r.player_id LIMIT 20": ("leaderboard", True),
        }
        for query, (index, in_order) in plans.items():
            plan = "\n".join(row[0] for row in await connection.fetch(f"EXPLAIN {query}"))
            assert re.search(
                rf"(Index|Index Only) Scan( Backward)? using {index} |Index Scan on {index} ", plan
            ), plan
            assert "Seq Scan" not in plan, plan
            assert not in_order or "Sort" not in plan, plan
    finally:
        await connection.close()


# 5,000 matches of two seats: of every 50, one waits (with an open easy seat every other time), one is
# in play and the others are finished; 3,000 players, two in three rated in each game.
FILL = """
INSERT INTO matches (match_id, game, options, seed, created_ms, status, salt, seed_chosen, hot_seat, unrated,
                     rating)
    SELECT 'm' || n, 'mercado', '{"players": 2}', '1', 1000 + n,
           CASE n % 50 WHEN 0 THEN 'waiting' WHEN 1 THEN 'playing' ELSE 'finished' END,
           '\\x00'::bytea, false, false, false, CASE WHEN n % 50 > 2 THEN 'rated' END
    FROM generate_series(1, 5000) n;
INSERT INTO seats (match_id, seat, bot_level, display_name, token_hash, played_by, reserve_ms, player_id,
                   ai_turns)
    SELECT 'm' || n, s, CASE WHEN s = 1 AND n % 100 = 0 THEN 'easy' END, '',
           CASE WHEN s = 1 AND n % 50 = 0 THEN NULL ELSE 't' || n || '-' || s END,
           'owner', 0, 'p' || (2 * n + s) % 3000, 0
    FROM generate_series(1, 5000) n, generate_series(0, 1) s;
INSERT INTO players (player_id, kind, display_name, created_ms)
    SELECT 'p' || n, 'guest', 'P', 0 FROM generate_series(0, 2999) n;
INSERT INTO ratings (player_id, game, mu, sigma, rating, rated_matches, wins)
    SELECT 'p' || n, game, 25, 8, (n * 7919 % 4000) / 100.0, n % 3, 0
    FROM generate_series(0, 2999) n, unnest(ARRAY['mercado', 'oregano', 'leilao']) game;
ANALYZE;
"""
