"""What every store does alike, SQLite's and PostgreSQL's: what it writes is what it reads (here and in a
store opened again on the same database), it refuses the writes that contradict what is stored, and
it finds, lists and rates matches and players the same way.

Each test runs once per backend (``[sqlite]``, ``[postgres]``); the PostgreSQL runs are marked
``postgres`` and use a fresh database of their own on the session's server."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from server.games.mercado import Options, parse_action
from server.games.registry import game_named
from server.store import Conflict, Store, postgres_schema, schema
from server.store.encoding import action_text
from server.store.postgres import PostgresStore, is_postgres
from server.store.records import (
    AI,
    BOT,
    CANCELLED,
    CLOSED,
    FINISHED,
    FORFEITED,
    GUEST,
    LEFT,
    OWNER,
    PLAYING,
    RATED,
    UNRATED,
    WAITING,
    MatchRecord,
    PlayerRecord,
    QueuedRecord,
    SeatRecord,
    TimeControl,
)
from server.store.sqlite import SqliteStore

COIN, OFFER = parse_action("take_coin"), parse_action("refresh_offer")
# As the service stores them.
COIN_TEXT, OFFER_TEXT = action_text("mercado", COIN), action_text("mercado", OFFER)
ANA, BEA = "a" * 32, "b" * 32


def record(
    match_id: str, created_ms: int = 1000, players: int = 2, bots: int = 0, **options: object
) -> MatchRecord:
    """A new match whose first ``bots`` seats are reserved for easy bots, the others open."""
    return MatchRecord(
        match_id=match_id,
        options=Options(players=players, **options),  # type: ignore[arg-type]
        seed=12345,
        created_ms=created_ms,
        seats=[SeatRecord(n, "easy" if n < bots else None) for n in range(players)],
        salt=b"s" * 32,
    )


def oregano(match_id: str, seats: list[SeatRecord]) -> MatchRecord:
    """A new match of Oregano with these seats."""
    options = game_named("oregano").options({"players": len(seats)})
    return replace(record(match_id), game="oregano", options=options, seats=seats)


def taken(match_id: str, created_ms: int = 1000, clock: TimeControl | None = None) -> MatchRecord:
    """A match of two seats, both taken at its creation: in play from the start."""
    seats = [SeatRecord(n, None, f"p{n}", f"{match_id}-{n}", reserve_ms=60_000) for n in range(2)]
    return replace(record(match_id, created_ms), seats=seats, clock=clock)


@contextlib.contextmanager
def first_migrations(module: Any, count: int) -> Iterator[None]:
    """Within it, a schema module (``schema``, ``postgres_schema``) knows its first ``count``
    migrations only, as a server of that time did."""
    every = module.MIGRATIONS
    module.MIGRATIONS = every[:count]
    try:
        yield
    finally:
        module.MIGRATIONS = every


class Database:
    """A test's own database in one backend, and the stores opened on it (closed at the end)."""

    def __init__(self, location: str) -> None:
        self.location = location  # a SQLite file, or a PostgreSQL DSN
        self.backend = "postgres" if is_postgres(location) else "sqlite"
        self.opened: list[Store] = []

    async def open(self) -> Store:
        """A new store on the database."""
        store: Store
        if is_postgres(self.location):
            store = await PostgresStore.open(self.location)
        else:
            store = SqliteStore(self.location)
        self.opened.append(store)
        return store

    async def reopen(self, store: Store) -> Store:
        """Close ``store`` and open another on the same database: it reads only what was stored."""
        self.opened.remove(store)
        store.close()
        return await self.open()

    async def at_version(self, version: int, sql: str) -> None:
        """Bring the new database to the schema of the backend's first ``version`` migrations only, as
        a server of that time left it, and run ``sql`` on it."""
        if self.backend == "sqlite":
            db = sqlite3.connect(self.location, isolation_level=None)
            with first_migrations(schema, version):
                schema.migrate(db)
            db.executescript(sql)
            db.close()
        else:
            connection = await asyncpg.connect(self.location)
            try:
                with first_migrations(postgres_schema, version):
                    await postgres_schema.migrate(connection)
                await connection.execute(sql)
            finally:
                await connection.close()

    async def close(self) -> None:
        opened, self.opened = self.opened, []
        for store in opened:
            store.close()
        # A closed PostgreSQL store's listener and prober end on their next turn: let them.
        tasks = [
            task
            for store in opened
            if isinstance(store, PostgresStore)
            for task in (store.listener, store.prober)
            if task is not None
        ]
        await asyncio.gather(*tasks, return_exceptions=True)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where the test's database is: a SQLite file, or a fresh PostgreSQL database."""
    if request.param == "postgres":
        dsn: str = request.getfixturevalue("postgres_dsn")
        return dsn
    return str(tmp_path / "mercado.db")


@pytest.fixture
async def database(location: str) -> AsyncIterator[Database]:
    opened = Database(location)
    yield opened
    await opened.close()


@pytest.fixture
async def store(database: Database) -> Store:
    return await database.open()


async def seats_of(store: Store, match_id: str) -> list[SeatRecord]:
    loaded = await store.load_match(match_id)
    assert loaded is not None
    return loaded[0].seats


async def status_of(store: Store, match_id: str) -> str:
    (listing,) = [m for m in await store.list_matches(None, 100, None) if m.record.match_id == match_id]
    return listing.status


# --- matches, seats and actions ------------------------------------------------


async def test_a_new_store_is_healthy_and_says_whether_others_write_to_it(
    database: Database, store: Store
) -> None:
    assert store.failure is None
    assert store.shared == (database.backend == "postgres")
    assert await store.unclassified() == []
    assert await store.count_waiting() == 0


async def test_matches_and_seats_load_as_written(database: Database, store: Store) -> None:
    written = [
        MatchRecord(
            "b",
            Options(players=4, money="public", face_down_counts_as_available=False),
            2**64 - 1,  # the largest seed a client may send
            2000,
            [SeatRecord(0, None, "ada", "h0"), SeatRecord(1, "easy"), SeatRecord(2, "hard"), SeatRecord(3)],
            salt=bytes(range(32)),
            seed_chosen=True,
        ),
        MatchRecord("a", Options(players=3), 0, 2000, [SeatRecord(n) for n in range(3)]),
        MatchRecord(
            "c",
            Options(players=2),
            7,
            3000,
            [
                SeatRecord(0, None, "ana", "h1", OWNER, 90_000, ANA),
                SeatRecord(1, None, "bea", "h2", AI, 1_500, BEA, ai_turns=3),
            ],
            salt=b"\x00" * 32,
            clock=TimeControl(30, 90, FORFEITED, "hard"),
            hot_seat=True,
            unrated=True,
        ),
    ]
    for match in written:
        await store.create_match(match)

    async def check(store: Store) -> None:
        for match in written:
            assert await store.load_match(match.match_id) == (match, [])
        assert await store.load_match("d") is None
        statuses = {m.record.match_id: m.status for m in await store.list_matches(None, 10, None)}
        assert statuses == {"a": WAITING, "b": WAITING, "c": PLAYING}  # every seat of c was taken

    await check(store)
    await check(await database.reopen(store))


async def test_a_taken_seat_is_saved_once(store: Store) -> None:
    await store.create_match(record("m", bots=1))
    await store.save_seat("m", SeatRecord(1, None, "bob", "hash-of-bob"), WAITING)
    with pytest.raises(Conflict):
        await store.save_seat("m", SeatRecord(1, None, "eve", "hash-of-eve"), WAITING)
    with pytest.raises(Conflict):
        await store.save_seat("unknown", SeatRecord(1, None, "eve", "hash-of-eve"), WAITING)
    await store.save_seat("m", SeatRecord(0, "easy", "agent", "hash-of-agent"), PLAYING)
    assert await seats_of(store, "m") == [
        SeatRecord(0, "easy", "agent", "hash-of-agent"),
        SeatRecord(1, None, "bob", "hash-of-bob"),
    ]
    assert [m.status for m in await store.list_matches(None, 10, None)] == [PLAYING]
    assert store.failure is None


async def test_a_duplicate_match_is_a_conflict(store: Store) -> None:
    await store.create_match(record("m"))
    with pytest.raises(Conflict):
        await store.create_match(record("m", players=3))
    loaded = await store.load_match("m")
    assert loaded is not None and loaded[0].options.players == 2 and len(loaded[0].seats) == 2


async def test_actions_load_in_version_order_per_match(store: Store) -> None:
    await store.create_match(record("m"))
    await store.create_match(record("n", created_ms=2000))
    await store.append_action("m", 1, 0, COIN_TEXT, "m1", False)
    await store.append_action("n", 1, 1, OFFER_TEXT, "n1", False)
    await store.append_action("m", 2, 1, OFFER_TEXT, "m2", True)
    assert await store.load_match("m") == (record("m"), [(0, COIN, "m1"), (1, OFFER, "m2")])
    assert await store.load_match("n") == (record("n", created_ms=2000), [(1, OFFER, "n1")])
    listed = {m.record.match_id: (m.status, m.version) for m in await store.list_matches(None, 10, None)}
    assert listed == {"m": (FINISHED, 2), "n": (WAITING, 1)}


async def test_the_actions_after_a_version_load_alone(store: Store) -> None:
    await store.create_match(record("m"))
    for version in range(1, 6):
        await store.append_action("m", version, version % 2, COIN_TEXT, f"r{version}", False)
    assert await store.load_match("m", after=3) == (record("m"), [(0, COIN, "r4"), (1, COIN, "r5")])
    assert await store.load_match("m", after=5) == (record("m"), [])
    assert await store.load_match("m", after=0) == await store.load_match("m")
    assert await store.load_match("unknown", after=1) is None


async def test_concurrent_writes_are_all_committed(database: Database, store: Store) -> None:
    ids = [f"m{n}" for n in range(20)]
    # Many matches writing at once: every caller resumes once its write is in.
    await asyncio.gather(*(store.create_match(record(m)) for m in ids))
    await asyncio.gather(
        *(store.append_action(m, v, v % 2, COIN_TEXT, f"{m}-{v}", False) for v in range(1, 6) for m in ids)
    )
    again = await database.reopen(store)
    for m in ids:
        assert await again.load_match(m) == (record(m), [(v % 2, COIN, f"{m}-{v}") for v in range(1, 6)])


@pytest.mark.parametrize(
    ("match_id", "version", "request_id"),
    [("m", 1, "other"), ("m", 2, "first"), ("unknown", 1, "x")],
    ids=["version taken", "request id taken", "no such match"],
)
async def test_a_conflicting_write_is_refused_and_a_concurrent_one_goes_in(
    store: Store, match_id: str, version: int, request_id: str
) -> None:
    await store.create_match(record("m"))
    await store.create_match(record("n"))
    await store.append_action("m", 1, 0, COIN_TEXT, "first", False)
    # At once (in SQLite, in one group commit): the bad write and a good one.
    bad = store.append_action(match_id, version, 0, OFFER_TEXT, request_id, False)
    good = store.append_action("n", 1, 1, OFFER_TEXT, "fine", False)
    outcomes = await asyncio.wait_for(asyncio.gather(bad, good, return_exceptions=True), 5)
    assert isinstance(outcomes[0], Conflict) and outcomes[1] is None, outcomes
    assert store.failure is None  # a refusal is no storage failure
    await store.append_action("m", 2, 1, OFFER_TEXT, "second", False)
    assert await store.load_match("m") == (record("m"), [(0, COIN, "first"), (1, OFFER, "second")])
    assert await store.load_match("n") == (record("n"), [(1, OFFER, "fine")])


async def test_an_action_changing_a_seat_the_match_lacks_is_refused_whole(store: Store) -> None:
    await store.create_match(taken("m"))
    ghost = SeatRecord(5, played_by=AI, reserve_ms=1)
    with pytest.raises(Conflict):
        await store.append_action("m", 1, 0, COIN_TEXT, "r1", True, seats=[taken("m").seats[0], ghost])
    assert await store.load_match("m") == (taken("m"), [])
    assert await status_of(store, "m") == PLAYING
    assert store.failure is None


async def test_a_cancelled_write_does_not_stop_later_writes(store: Store) -> None:
    await store.create_match(record("m"))
    gone = asyncio.ensure_future(store.append_action("m", 1, 0, COIN_TEXT, "gone", False))
    await asyncio.sleep(0)
    gone.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await gone
    # The write itself may or may not have happened; later ones must.
    await asyncio.sleep(0.05)
    loaded = await store.load_match("m")
    assert loaded is not None
    version = len(loaded[1]) + 1
    await asyncio.wait_for(store.append_action("m", version, 1, OFFER_TEXT, "next", False), 5)
    loaded = await store.load_match("m")
    assert loaded is not None and loaded[1][-1] == (1, OFFER, "next")


# --- the life of seats -----------------------------------------------------------


async def test_a_waiting_match_is_cancelled_once_and_its_open_seats_closed(store: Store) -> None:
    await store.create_match(record("m", players=3, bots=1))
    await store.save_seat("m", SeatRecord(1, None, "ana", "h1"), WAITING)
    await store.create_match(taken("p"))
    assert await store.open_bot_seats() == {"easy": 1}
    await store.cancel("m")
    loaded = await store.load_match("m")
    assert loaded is not None and loaded[0].cancelled
    assert loaded[0].seats == [
        SeatRecord(0, "easy", played_by=CLOSED),
        SeatRecord(1, None, "ana", "h1"),
        SeatRecord(2, played_by=CLOSED),
    ]
    assert await status_of(store, "m") == CANCELLED
    for match_id in ("m", "p", "unknown"):  # cancelled already; in play; never stored
        with pytest.raises(Conflict):
            await store.cancel(match_id)
    assert await store.count_waiting() == 0
    assert await store.open_bot_seats() == {}
    assert await store.find_bot_seat(["easy"]) is None
    with pytest.raises(Conflict):  # a closed seat is taken by nobody
        await store.save_seat("m", SeatRecord(2, None, "bea", "h2"), PLAYING)


async def test_a_released_seat_is_open_again(store: Store) -> None:
    await store.create_match(record("m", players=3))
    await store.save_seat("m", SeatRecord(0, None, "ana", "h0", reserve_ms=5000, player_id=ANA), WAITING)
    assert await store.seat_of_token("h0") == ("m", 0)
    await store.release_seat("m", 0)
    assert (await seats_of(store, "m"))[0] == SeatRecord(0)
    assert await store.seat_of_token("h0") is None
    assert [m.record.match_id for m in await store.list_matches(None, 10, None, ANA)] == []
    for seat in (0, 1, 7):  # open already; never taken; no such seat
        with pytest.raises(Conflict):
            await store.release_seat("m", seat)
    await store.save_seat("m", SeatRecord(0, None, "bea", "h1"), WAITING)
    assert (await seats_of(store, "m"))[0] == SeatRecord(0, None, "bea", "h1")


async def test_a_join_request_takes_one_seat_of_a_match_until_it_is_released(
    database: Database, store: Store
) -> None:
    await store.create_match(record("m", players=3))
    await store.create_match(record("n"))
    joined = SeatRecord(0, None, "ana", "h0", request_hash="r")
    await store.save_seat("m", joined, WAITING)
    with pytest.raises(Conflict):  # one seat per request in a match...
        await store.save_seat("m", SeatRecord(1, None, "ana", "h1", request_hash="r"), WAITING)
    await store.save_seat("n", replace(joined, token_hash="h2"), WAITING)  # ...whatever other matches hold
    store = await database.reopen(store)
    assert (await seats_of(store, "m"))[0] == joined
    await store.release_seat("m", 0)
    assert (await seats_of(store, "m"))[0] == SeatRecord(0)
    await store.save_seat("m", SeatRecord(1, None, "ana", "h1", request_hash="r"), WAITING)


async def test_seats_are_updated_with_who_plays_them_and_their_reserves(store: Store) -> None:
    await store.create_match(taken("m", clock=TimeControl()))
    first, second = taken("m").seats
    await store.update_seats("m", [replace(first, played_by=AI, reserve_ms=0, ai_turns=2)])
    await store.append_action(
        "m",
        1,
        1,
        COIN_TEXT,
        "r1",
        False,
        seats=[replace(second, reserve_ms=42_000), replace(first, played_by=LEFT)],
    )
    assert await seats_of(store, "m") == [
        replace(first, played_by=LEFT),  # the action's seats, as the action left them
        replace(second, reserve_ms=42_000),
    ]
    # A seat the match does not have: nothing of the update is stored.
    with pytest.raises(Conflict):
        await store.update_seats("m", [replace(second, played_by=FORFEITED), SeatRecord(9)])
    with pytest.raises(Conflict):
        await store.update_seats("unknown", [first])
    assert (await seats_of(store, "m"))[1] == replace(second, reserve_ms=42_000)
    assert store.failure is None


async def test_a_seat_change_decided_at_a_version_is_refused_once_the_match_moved_on(store: Store) -> None:
    await store.create_match(taken("m", clock=TimeControl()))
    first, second = taken("m").seats
    await store.update_seats("m", [replace(first, played_by=AI)], version=0)
    await store.append_action("m", 1, 0, COIN_TEXT, "r1", False)
    with pytest.raises(Conflict):
        await store.update_seats("m", [replace(second, played_by=AI)], version=0)
    await store.update_seats("m", [replace(second, played_by=FORFEITED)], version=1)
    assert await seats_of(store, "m") == [replace(first, played_by=AI), replace(second, played_by=FORFEITED)]


async def test_a_matchs_stamp_counts_its_actions_and_its_other_changes(
    database: Database, store: Store
) -> None:
    await store.create_match(record("m", players=3))
    await store.create_match(record("c"))
    assert await store.stamp("m") == (0, 0)
    assert await store.stamp("unknown") is None
    await store.save_seat("m", SeatRecord(0, None, "ana", "h0"), WAITING)
    await store.save_seat("m", SeatRecord(1, None, "bea", "h1"), WAITING)
    await store.release_seat("m", 1)
    for seat in (1, 2):
        await store.save_seat("m", SeatRecord(seat, None, f"p{seat}", f"h{seat}"), PLAYING)
    assert await store.stamp("m") == (0, 5)
    await store.append_action("m", 1, 0, COIN_TEXT, "r1", False)
    await store.append_action(
        "m", 2, 1, COIN_TEXT, "r2", False, [SeatRecord(1, None, "p1", "h1", reserve_ms=5)]
    )
    assert await store.stamp("m") == (2, 5)  # an action moves the version alone
    await store.update_seats("m", [SeatRecord(2, None, "p2", "h2", played_by=AI)])
    await store.set_status("m", PLAYING)
    await store.cancel("c")
    assert await store.stamp("m") == (2, 7) and await store.stamp("c") == (0, 1)
    # A match loads with its count of changes.
    store = await database.reopen(store)
    loaded = await store.load_match("m")
    assert loaded is not None and loaded[0].changes == 7


async def test_matches_to_expire_and_to_watch_are_found(store: Store) -> None:
    await store.create_match(record("old", created_ms=1000))
    await store.create_match(record("bots", created_ms=3000, bots=1))
    await store.create_match(record("claimed", created_ms=1500, bots=1))
    await store.save_seat("claimed", SeatRecord(0, "easy", "agent", "h"), WAITING)
    await store.create_match(taken("owners"))  # no clock, every seat its owner's: nothing to watch
    await store.create_match(taken("clocked", clock=TimeControl()))
    await store.create_match(taken("ai"))
    await store.update_seats("ai", [replace(taken("ai").seats[1], played_by=AI)])
    await store.create_match(taken("over", clock=TimeControl()))
    await store.set_status("over", FINISHED)

    assert await store.count_waiting() == 3
    assert await store.open_bot_seats() == {"easy": 1}
    assert sorted(await store.waiting_since(2000, False)) == ["claimed", "old"]
    assert sorted(await store.waiting_since(4000, False)) == ["bots", "claimed", "old"]
    assert await store.waiting_since(2000, True) == []
    assert await store.waiting_since(4000, True) == ["bots"]
    assert sorted(await store.playing_to_watch()) == ["ai", "clocked"]
    assert sorted(m.record.match_id for m in await store.list_matches(FINISHED, 10, None)) == ["over"]


# --- finding matches -------------------------------------------------------------


async def test_listing_is_newest_first_filtered_and_paged(store: Store) -> None:
    for n in range(6):
        await store.create_match(record(f"m{n}", created_ms=1000 + n // 2))  # two per millisecond
    await store.save_seat("m1", SeatRecord(0, None, "a", "h1"), WAITING)
    await store.save_seat("m1", SeatRecord(1, None, "b", "h2"), PLAYING)
    newest = [m.record.match_id for m in await store.list_matches(None, 10, None)]
    assert newest == ["m5", "m4", "m3", "m2", "m1", "m0"]
    assert [m.record.match_id for m in await store.list_matches(PLAYING, 10, None)] == ["m1"]
    assert [m.record.match_id for m in await store.list_matches(WAITING, 2, None)] == ["m5", "m4"]
    after = (1001, "m3")
    assert [m.record.match_id for m in await store.list_matches(None, 10, after)] == ["m2", "m1", "m0"]
    assert [m.record.match_id for m in await store.list_matches(WAITING, 10, after)] == ["m2", "m0"]


async def test_bot_seats_are_found_oldest_first_by_level(store: Store) -> None:
    await store.create_match(record("old", players=3, bots=2))  # two easy seats
    await store.create_match(MatchRecord("new", Options(), 1, 900, [SeatRecord(0, "hard"), SeatRecord(1)]))
    assert await store.find_bot_seat(["easy", "medium", "hard"]) == ("old", 0)  # created first
    assert await store.find_bot_seat(["hard", "easy"]) == ("old", 0)
    assert await store.find_bot_seat(["hard"]) == ("new", 0)
    assert await store.find_bot_seat(["medium"]) is None
    assert await store.open_bot_seats() == {"easy": 2, "hard": 1}
    await store.save_seat("old", SeatRecord(0, "easy", "bot", "h"), WAITING)
    assert await store.find_bot_seat(["easy"]) == ("old", 1)
    assert await store.open_bot_seats() == {"easy": 1, "hard": 1}
    assert await store.seat_of_token("h") == ("old", 0)
    assert await store.seat_of_token("nobody") is None


# --- players and ratings ---------------------------------------------------------


async def test_players_are_saved_renamed_and_read(database: Database, store: Store) -> None:
    await store.save_player(PlayerRecord(ANA, GUEST, "Ana", 5))
    await store.save_player(PlayerRecord(ANA, GUEST, "Ana B.", 9, mu=99))  # a rename keeps the rating
    assert await store.players([ANA, BEA]) == {ANA: PlayerRecord(ANA, GUEST, "Ana B.", 5)}
    assert await store.players([]) == {}
    again = await database.reopen(store)
    assert await again.players([ANA]) == {ANA: PlayerRecord(ANA, GUEST, "Ana B.", 5)}


async def test_bots_are_calibrated_per_game_only_until_they_have_played_it(store: Store) -> None:
    bot = PlayerRecord("bot:hard", BOT, "AI (hard)")
    await store.calibrate([replace(bot, mu=30.0, sigma=2.0), replace(bot, mu=20.0, game="leilao")])
    assert (await store.players(["bot:hard"]))["bot:hard"].mu == 30.0
    assert (await store.players(["bot:hard"], "leilao"))["bot:hard"].mu == 20.0
    await store.create_match(record("m"))
    await store.record_rating("m", RATED, [replace(bot, mu=31.0, sigma=1.9, rated_matches=1)])
    # Played in Mercado: a calibration no longer applies there; in Leilão it still does.
    await store.calibrate([replace(bot, mu=22.0, sigma=2.0), replace(bot, mu=18.0, game="leilao")])
    assert (await store.players(["bot:hard"]))["bot:hard"].mu == 31.0
    assert (await store.players(["bot:hard"], "leilao"))["bot:hard"].mu == 18.0
    assert await store.players(["bot:hard"], "oregano") == {"bot:hard": replace(bot, game="oregano")}


async def test_a_match_is_rated_once_and_the_leaderboard_pages_by_rating(
    database: Database, store: Store
) -> None:
    ana, bea = PlayerRecord(ANA, GUEST, "Ana"), PlayerRecord(BEA, GUEST, "Bea")
    for player in (ana, bea):
        await store.save_player(player)
    seats = [SeatRecord(0, player_id=ANA, token_hash="x"), SeatRecord(1, player_id=BEA, token_hash="y")]
    await store.create_match(replace(record("m"), seats=seats))
    await store.append_action("m", 1, 0, COIN_TEXT, "r1", finished=True)
    assert await store.finished_unrated() == ["m"]
    rated = [
        replace(ana, mu=27.0, sigma=7.0, rated_matches=1, wins=1),
        replace(bea, mu=23.0, sigma=7.0, rated_matches=1),
    ]
    await store.record_rating("m", RATED, rated)
    with pytest.raises(Conflict):
        await store.record_rating("m", UNRATED, [])
    with pytest.raises(Conflict):
        await store.record_rating("unknown", UNRATED, [])
    store = await database.reopen(store)
    assert await store.finished_unrated() == []
    assert await store.players([ANA, BEA]) == {p.player_id: p for p in rated}
    board = await store.leaderboard(1, None)
    assert [p.player_id for p in board] == [ANA]
    after = (board[0].display_rating, board[0].player_id)
    assert [p.player_id for p in await store.leaderboard(5, after)] == [BEA]
    assert await store.leaderboard(5, (rated[1].display_rating, BEA)) == []
    # My games: the matches where the player holds a seat.
    await store.create_match(record("n"))
    listed = await store.list_matches(None, 10, None, ANA)
    assert [(m.record.match_id, m.status, m.record.rating) for m in listed] == [("m", FINISHED, RATED)]
    assert [s.player_id for s in listed[0].record.seats] == [ANA, BEA]


async def test_ratings_are_kept_apart_per_game(database: Database, store: Store) -> None:
    ana, bea = PlayerRecord(ANA, GUEST, "Ana"), PlayerRecord(BEA, GUEST, "Bea")
    for player in (ana, bea):
        await store.save_player(player)
    seats = [SeatRecord(0, player_id=ANA, token_hash="x"), SeatRecord(1, player_id=BEA, token_hash="y")]
    await store.create_match(replace(record("m"), seats=seats))
    for match_id in ("o1", "o2", "o3"):
        await store.create_match(oregano(match_id, seats))
    in_mercado = [
        replace(ana, mu=30.0, sigma=6.0, rated_matches=1, wins=1),
        replace(bea, mu=20.0, sigma=6.0, rated_matches=1),
    ]
    await store.record_rating("m", RATED, in_mercado)
    # Bea wins in Oregano: the first rated match of each there, whatever they played in Mercado.
    in_oregano = [
        replace(ana, mu=22.0, sigma=7.0, rated_matches=1, game="oregano"),
        replace(bea, mu=28.0, sigma=7.0, rated_matches=1, wins=1, game="oregano"),
    ]
    await store.record_rating("o1", RATED, in_oregano)
    # Another match rated from the same (default) Oregano ratings: refused whole, Mercado's no help.
    with pytest.raises(Conflict):
        await store.record_rating("o2", RATED, [replace(p, mu=40.0) for p in in_oregano])
    loaded = await store.load_match("o2")
    assert loaded is not None and loaded[0].rating is None

    store = await database.reopen(store)
    assert await store.players([ANA, BEA]) == {p.player_id: p for p in in_mercado}
    assert await store.players([ANA, BEA], "oregano") == {p.player_id: p for p in in_oregano}
    assert await store.players([ANA], "leilao") == {ANA: replace(ana, game="leilao")}  # the default
    assert await store.leaderboard(5, None) == in_mercado
    assert await store.leaderboard(5, None, "oregano") == in_oregano[::-1]
    after = (in_oregano[1].display_rating, BEA)
    assert await store.leaderboard(5, after, "oregano") == [in_oregano[0]]
    assert await store.leaderboard(5, None, "leilao") == []
    # The next Oregano match goes on from the Oregano ratings; Mercado's stay.
    again = [replace(p, mu=p.mu + 1, rated_matches=2) for p in in_oregano]
    await store.record_rating("o3", RATED, again)
    assert await store.players([ANA, BEA], "oregano") == {p.player_id: p for p in again}
    assert await store.players([ANA, BEA]) == {p.player_id: p for p in in_mercado}


# The migrations before ratings per game, in each backend.
BEFORE_RATINGS_PER_GAME = {"sqlite": 5, "postgres": 1}


async def test_a_database_from_before_ratings_per_game_keeps_them_as_mercados(database: Database) -> None:
    await database.at_version(
        BEFORE_RATINGS_PER_GAME[database.backend],
        "INSERT INTO players (player_id, kind, display_name, created_ms, mu, sigma, rating, rated_matches,"
        f" wins) VALUES ('{ANA}', 'guest', 'Ana', 5, 30.0, 6.0, 12.0, 3, 2),"
        f" ('{BEA}', 'guest', 'Bea', 6, 26.0, 7.0, 5.0, 1, 0),"
        " ('bot:hard', 'bot', 'AI (hard)', 7, 31.0, 1.5, 26.5, 0, 0)",
    )
    store = await database.open()
    ana = PlayerRecord(ANA, GUEST, "Ana", 5, 30.0, 6.0, 3, 2)
    bea = PlayerRecord(BEA, GUEST, "Bea", 6, 26.0, 7.0, 1, 0)
    bot = PlayerRecord("bot:hard", BOT, "AI (hard)", 7, 31.0, 1.5)
    assert await store.players([ANA, BEA, bot.player_id]) == {p.player_id: p for p in (ana, bea, bot)}
    assert await store.players([ANA], "oregano") == {ANA: PlayerRecord(ANA, GUEST, "Ana", 5, game="oregano")}
    assert await store.leaderboard(5, None) == [ana, bea]
    assert await store.leaderboard(5, None, "oregano") == []
    # They go on from there: renamed, calibrated until played, rated.
    await store.save_player(PlayerRecord(ANA, GUEST, "Ana B."))
    await store.calibrate([replace(bot, mu=20.0)])
    await store.create_match(record("m"))
    await store.record_rating("m", RATED, [replace(ana, rated_matches=4, mu=31.0)])
    assert await store.players([ANA, bot.player_id]) == {
        ANA: replace(ana, display_name="Ana B.", rated_matches=4, mu=31.0),
        bot.player_id: replace(bot, mu=20.0),
    }


async def test_the_servers_secret_is_made_once_and_kept(database: Database, store: Store) -> None:
    secret = await store.secret("guest")
    assert len(secret) == 32
    assert await store.secret("guest") == secret and await store.secret("other") != secret
    again = await database.reopen(store)
    assert await again.secret("guest") == secret


# --- the matchmaking queue and seat tokens ---------------------------------------

CEU = "c" * 32


def seeker(player_id: str, since_ms: int = 1000, players: int = 2, game: str = "mercado") -> QueuedRecord:
    return QueuedRecord(player_id, player_id[:3], 25.0, players, False, since_ms, game=game)


async def test_a_queued_player_is_kept_while_seen_and_dropped_once_stale(store: Store) -> None:
    await store.enqueue(seeker(ANA, 1000), 0)
    await store.enqueue(seeker(BEA, 1000, players=3), 0)
    assert await store.queued([], 1000, 0) == [seeker(ANA, 1000), seeker(BEA, 1000, players=3)]
    # Only Ana's server says she still waits: Bea, not seen since 1000, goes when 1000 is stale.
    await store.queued([ANA], 5000, 0)
    assert await store.queued([], 6000, 2000) == [seeker(ANA, 1000)]


async def test_each_queued_player_keeps_the_game_it_asks_for(database: Database, store: Store) -> None:
    await store.enqueue(seeker(ANA, game="leilao"), 0)
    await store.enqueue(seeker(BEA), 0)
    await store.enqueue(seeker(CEU, players=3, game="oregano"), 0)
    store = await database.reopen(store)
    queued = [seeker(ANA, game="leilao"), seeker(BEA), seeker(CEU, players=3, game="oregano")]
    assert sorted(await store.queued([], 1000, 0), key=lambda q: q.player_id) == queued
    # Queued again once its entry went stale, for another game: the new entry's game.
    await store.enqueue(seeker(ANA, 3000, game="oregano"), 2000)
    assert [q.game for q in await store.queued([], 3000, 0) if q.player_id == ANA] == ["oregano"]


# The migrations before queues per game, in each backend.
BEFORE_QUEUES_PER_GAME = {"sqlite": 6, "postgres": 2}


async def test_a_database_from_before_queues_per_game_keeps_its_queued_players_for_mercado(
    database: Database,
) -> None:
    await database.at_version(
        BEFORE_QUEUES_PER_GAME[database.backend],
        "INSERT INTO queue (player_id, display_name, rating, players, allow_ai, since_ms, seen_ms)"
        f" VALUES ('{ANA}', 'aaa', 25.0, 2, false, 1000, 1000)",
    )
    store = await database.open()
    assert await store.queued([], 1000, 0) == [seeker(ANA)]


async def test_a_player_queued_and_seen_lately_is_not_queued_twice(store: Store) -> None:
    await store.enqueue(seeker(ANA, 1000), 0)
    with pytest.raises(Conflict):
        await store.enqueue(seeker(ANA, 2000, players=4), 500)
    assert await store.queued([], 2000, 0) == [seeker(ANA, 1000)]
    # Its entry is stale (its server stopped saying it waits): a new one takes its place.
    await store.enqueue(seeker(ANA, 3000, players=4), 2000)
    assert await store.queued([], 3000, 0) == [seeker(ANA, 3000, players=4)]


async def test_leaving_the_queue_takes_out_only_the_entry_it_made(store: Store) -> None:
    await store.enqueue(seeker(ANA, 1000), 0)
    await store.enqueue(seeker(ANA, 3000), 2000)  # queued again elsewhere after its entry went stale
    await store.dequeue(ANA, 1000)  # the first stream ends late
    assert [q.since_ms for q in await store.queued([], 3000, 0)] == [3000]
    await store.dequeue(ANA, 3000)
    assert await store.queued([], 3000, 0) == []


async def test_players_are_claimed_all_together_or_not_at_all(store: Store) -> None:
    for player in (ANA, BEA, CEU):
        await store.enqueue(seeker(player), 0)
    assert await store.claim_queued([ANA, BEA], 2000, 1000)
    assert not await store.claim_queued([BEA, CEU], 2000, 1000)  # Bea is claimed: Ceu is left free
    assert await store.claim_queued([CEU], 2000, 1000)
    # A claim its server never completed lapses; one undone is free at once.
    assert not await store.claim_queued([ANA], 9000, 2000)
    assert await store.claim_queued([ANA, BEA], 9000, 3000)
    await store.unclaim_queued([CEU])
    assert await store.claim_queued([CEU], 9000, 8000)


async def test_a_matched_player_is_told_its_match_and_is_claimed_no_more(store: Store) -> None:
    for player in (ANA, BEA):
        await store.enqueue(seeker(player), 0)
    assert await store.claim_queued([ANA, BEA], 2000, 1000)
    await store.matched({ANA: ("m", 0), BEA: ("m", 1)})
    queued = {q.player_id: (q.match_id, q.seat) for q in await store.queued([], 2000, 0)}
    assert queued == {ANA: ("m", 0), BEA: ("m", 1)}
    assert not await store.claim_queued([ANA], 99_000, 98_000)


async def test_a_seat_token_is_reissued_only_for_the_seats_player(store: Store) -> None:
    seats = [SeatRecord(n, None, f"p{n}", f"old-{n}", player_id=p) for n, p in enumerate((ANA, BEA))]
    await store.create_match(replace(record("m"), seats=seats))
    await store.reissue_token("m", 1, BEA, "new-1")
    assert await store.seat_of_token("new-1") == ("m", 1)
    assert await store.seat_of_token("old-1") is None
    with pytest.raises(Conflict):
        await store.reissue_token("m", 0, BEA, "stolen")
    assert await store.seat_of_token("old-0") == ("m", 0)
    assert await store.seat_of_token("stolen") is None
