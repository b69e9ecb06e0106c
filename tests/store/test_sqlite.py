"""The SQLite store: what it writes is what it reads, writes survive a killed process, and it refuses
what it cannot make durable."""

from __future__ import annotations

import asyncio
import contextlib
import re
import signal
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from positions import ROOT

from server.engine import Options, parse_action
from server.store import Conflict, StoreLocked, StoreUnavailable
from server.store.records import FINISHED, PLAYING, WAITING, MatchRecord, SeatRecord
from server.store.schema import MIGRATIONS
from server.store.sqlite import SqliteStore

COIN, OFFER = parse_action("take_coin"), parse_action("refresh_offer")


def record(
    match_id: str, created_ms: int = 1000, players: int = 2, bots: int = 0, **options: object
) -> MatchRecord:
    return MatchRecord(
        match_id=match_id,
        options=Options(players=players, **options),  # type: ignore[arg-type]
        seed=12345,
        created_ms=created_ms,
        seats=[SeatRecord(n, "easy" if n < bots else None) for n in range(players)],
        salt=b"s" * 32,
    )


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "mercado.db"


@pytest.fixture
async def store(path: Path) -> AsyncIterator[SqliteStore]:
    opened = SqliteStore(path)
    yield opened
    opened.close()


async def test_matches_and_seats_load_as_written(path: Path) -> None:
    store = SqliteStore(path)
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
    ]
    for match in written:
        await store.create_match(match)
    store.close()
    again = SqliteStore(path)
    for match in written:
        assert await again.load_match(match.match_id) == (match, [])
    assert await again.load_match("c") is None
    again.close()


async def test_a_taken_seat_is_saved_once(store: SqliteStore) -> None:
    await store.create_match(record("m", bots=1))
    await store.save_seat("m", SeatRecord(1, None, "bob", "hash-of-bob"), WAITING)
    with pytest.raises(Conflict):
        await store.save_seat("m", SeatRecord(1, None, "eve", "hash-of-eve"), WAITING)
    await store.save_seat("m", SeatRecord(0, "easy", "agent", "hash-of-agent"), PLAYING)
    loaded = await store.load_match("m")
    assert loaded is not None
    assert loaded[0].seats == [
        SeatRecord(0, "easy", "agent", "hash-of-agent"),
        SeatRecord(1, None, "bob", "hash-of-bob"),
    ]
    assert [m.status for m in await store.list_matches(None, 10, None)] == [PLAYING]


async def test_a_duplicate_match_is_a_conflict(store: SqliteStore) -> None:
    await store.create_match(record("m"))
    with pytest.raises(Conflict):
        await store.create_match(record("m", players=3))
    loaded = await store.load_match("m")
    assert loaded is not None and loaded[0].options.players == 2 and len(loaded[0].seats) == 2


async def test_actions_load_in_version_order_per_match(store: SqliteStore) -> None:
    await store.create_match(record("m"))
    await store.create_match(record("n", created_ms=2000))
    await store.append_action("m", 1, 0, COIN, "m1", False)
    await store.append_action("n", 1, 1, OFFER, "n1", False)
    await store.append_action("m", 2, 1, OFFER, "m2", True)
    assert await store.load_match("m") == (record("m"), [(0, COIN, "m1"), (1, OFFER, "m2")])
    assert await store.load_match("n") == (record("n", created_ms=2000), [(1, OFFER, "n1")])
    listed = {m.record.match_id: (m.status, m.version) for m in await store.list_matches(None, 10, None)}
    assert listed == {"m": (FINISHED, 2), "n": (WAITING, 1)}


async def test_concurrent_writes_are_all_committed(path: Path) -> None:
    store = SqliteStore(path)
    ids = [f"m{n}" for n in range(20)]
    # Many matches writing at once: group commits, every caller resumed once its write is in.
    await asyncio.gather(*(store.create_match(record(m)) for m in ids))
    await asyncio.gather(
        *(store.append_action(m, v, v % 2, COIN, f"{m}-{v}", False) for v in range(1, 6) for m in ids)
    )
    store.close()
    again = SqliteStore(path)
    for m in ids:
        assert await again.load_match(m) == (record(m), [(v % 2, COIN, f"{m}-{v}") for v in range(1, 6)])
    again.close()


@pytest.mark.parametrize(
    ("match_id", "version", "request_id"),
    [("m", 1, "other"), ("m", 2, "first"), ("unknown", 1, "x")],
    ids=["version taken", "request id taken", "no such match"],
)
async def test_a_conflicting_write_is_refused_and_the_others_of_its_commit_go_in(
    store: SqliteStore, match_id: str, version: int, request_id: str
) -> None:
    await store.create_match(record("m"))
    await store.create_match(record("n"))
    await store.append_action("m", 1, 0, COIN, "first", False)
    # In one group commit: the bad write and a good one.
    bad = store.append_action(match_id, version, 0, OFFER, request_id, False)
    good = store.append_action("n", 1, 1, OFFER, "fine", False)
    outcomes = await asyncio.wait_for(asyncio.gather(bad, good, return_exceptions=True), 5)
    assert isinstance(outcomes[0], Conflict) and outcomes[1] is None
    await store.append_action("m", 2, 1, OFFER, "second", False)
    assert await store.load_match("m") == (record("m"), [(0, COIN, "first"), (1, OFFER, "second")])
    assert await store.load_match("n") == (record("n"), [(1, OFFER, "fine")])


async def test_a_cancelled_write_does_not_stop_later_writes(store: SqliteStore) -> None:
    await store.create_match(record("m"))
    gone = asyncio.ensure_future(store.append_action("m", 1, 0, COIN, "gone", False))
    await asyncio.sleep(0)
    gone.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await gone
    # The write itself may or may not have happened; later ones must.
    await asyncio.sleep(0.05)
    loaded = await store.load_match("m")
    assert loaded is not None
    version = len(loaded[1]) + 1
    await asyncio.wait_for(store.append_action("m", version, 1, OFFER, "next", False), 5)
    loaded = await store.load_match("m")
    assert loaded is not None and loaded[1][-1] == (1, OFFER, "next")


async def test_listing_is_newest_first_filtered_and_paged(store: SqliteStore) -> None:
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


async def test_bot_seats_are_found_oldest_first_by_level(store: SqliteStore) -> None:
    await store.create_match(record("old", players=3, bots=2))  # two easy seats
    await store.create_match(MatchRecord("new", Options(), 1, 900, [SeatRecord(0, "hard"), SeatRecord(1)]))
    assert await store.find_bot_seat(["easy", "medium", "hard"]) == ("old", 0)  # created first
    assert await store.find_bot_seat(["hard"]) == ("new", 0)
    assert await store.find_bot_seat(["medium"]) is None
    await store.save_seat("old", SeatRecord(0, "easy", "bot", "h"), WAITING)
    assert await store.find_bot_seat(["easy"]) == ("old", 1)
    assert await store.seat_of_token("h") == ("old", 0)
    assert await store.seat_of_token("nobody") is None


def test_no_query_scans_every_match(path: Path) -> None:
    """Listings, claims and token lookups search indexes, so their cost does not grow with the matches."""
    store = SqliteStore(path)
    queries = {
        "SELECT match_id FROM matches WHERE status = 'waiting' AND (created_ms, match_id) < (1, 'x')"
        " ORDER BY created_ms DESC, match_id DESC LIMIT 20": "matches_by_status",
        "SELECT match_id FROM matches ORDER BY created_ms DESC, match_id DESC LIMIT 20": "matches_by_age",
        "SELECT rowid FROM seats WHERE bot_level = 'easy' AND token_hash IS NULL AND played_by = 'owner'"
        " ORDER BY rowid LIMIT 1": ("open_bot_seats"),
        "SELECT match_id FROM seats WHERE token_hash = 'h'": "seats_by_token",
        "SELECT count(*) FROM matches WHERE status = 'waiting'": "matches_by_status",
        "SELECT player_id FROM players WHERE rated_matches > 0 AND (rating < 1 OR (rating = 1 AND"
        " player_id > 'x')) ORDER BY rating DESC, player_id LIMIT 20": "leaderboard",
        "SELECT match_id FROM seats WHERE player_id = 'p'": "seats_by_player",
    }
    for query, index in queries.items():
        plan = " ".join(row[-1] for row in store.db.execute(f"EXPLAIN QUERY PLAN {query}"))
        # The named index, walked in order (a LIMIT stops it early), never the table or a sort.
        assert f"INDEX {index}" in plan and "TEMP B-TREE" not in plan, plan
        assert not re.search(r"SCAN \w+$|SCAN \w+ (?!USING)", plan), plan
    store.close()


def test_a_second_store_on_the_same_file_is_refused(path: Path) -> None:
    first = SqliteStore(path)
    with pytest.raises(StoreLocked):
        SqliteStore(path)
    with pytest.raises(StoreLocked):
        SqliteStore(path.parent / "." / path.name)  # however the path is written
    first.close()
    SqliteStore(path).close()  # free again once the first is closed


async def test_a_removed_file_makes_writes_fail_and_the_store_unhealthy(path: Path) -> None:
    reports: list[str | None] = []
    store = SqliteStore(path, on_health=reports.append)
    await store.create_match(record("m"))
    assert store.failure is None
    for suffix in ("", "-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)
    with pytest.raises(StoreUnavailable, match="removed") as caught:
        await store.append_action("m", 1, 0, COIN, "lost", False)
    assert "SELECT" not in caught.value.reason and "INSERT" not in caught.value.reason
    assert store.failure is not None and reports == [store.failure]
    with pytest.raises(StoreUnavailable):
        await store.create_match(record("n"))
    store.close()


def test_the_file_is_in_wal_mode_with_foreign_keys_and_the_newest_schema(path: Path) -> None:
    store = SqliteStore(path)
    assert store.db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert store.db.execute("PRAGMA foreign_keys").fetchone() == (1,)
    assert store.db.execute("PRAGMA user_version").fetchone() == (len(MIGRATIONS),)
    store.close()
    again = SqliteStore(path)
    assert again.db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    again.close()


async def test_a_database_of_the_first_schema_is_migrated(path: Path) -> None:
    """A file written before statuses, salts and indexes existed keeps every match and action."""
    db = sqlite3.connect(path)
    db.executescript(MIGRATIONS[0])
    db.execute("INSERT INTO matches VALUES ('w', 'mercado', ?, '5', 1000)", ('{"players": 2}',))
    db.execute("INSERT INTO matches VALUES ('p', 'mercado', ?, '6', 2000)", ('{"players": 2}',))
    db.executemany(
        "INSERT INTO seats VALUES (?, ?, ?, ?, ?)",
        [
            ("w", 0, None, "ada", "h1"),
            ("w", 1, "easy", "", None),
            ("p", 0, None, "a", "h2"),
            ("p", 1, None, "b", "h3"),
        ],
    )
    db.execute("""INSERT INTO actions VALUES ('p', 1, 0, '{"type": "take_coin"}', 'r1')""")
    db.commit()
    db.close()
    store = SqliteStore(path)
    assert await store.unclassified() == ["p"]  # all seats taken: playing or finished, only a replay tells
    assert await store.find_bot_seat(["easy"]) == ("w", 1)
    loaded = await store.load_match("p")
    assert loaded is not None and loaded[1] == [(0, COIN, "r1")] and loaded[0].salt == b""
    await store.set_status("p", PLAYING)
    assert await store.unclassified() == []
    assert await store.count_waiting() == 1
    store.close()


async def test_the_wal_stays_small_under_a_flood_of_new_matches(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Creations alone (no action) used to grow the WAL without end; now checkpoints keep up."""
    monkeypatch.setattr("server.store.wal.CHECKPOINT_SECONDS", 0.05)
    monkeypatch.setattr("server.store.wal.IDLE_SECONDS", 0.2)
    store = SqliteStore(path)
    wal = path.with_name(path.name + "-wal")
    largest = 0
    for batch in range(100):
        await asyncio.gather(*(store.create_match(record(f"m{batch}-{n}", players=4)) for n in range(50)))
        largest = max(largest, wal.stat().st_size)
    # 5,000 matches of four seats: without checkpoints, several MB of WAL by now.
    assert largest < 6 << 20
    idle_deadline = asyncio.get_running_loop().time() + 5
    while wal.stat().st_size > 0 and asyncio.get_running_loop().time() < idle_deadline:
        await asyncio.sleep(0.05)
    assert wal.stat().st_size == 0  # emptied once idle
    assert await store.count_waiting() == 5000
    store.close()


async def test_an_in_memory_store_works() -> None:
    store = SqliteStore(":memory:")
    await store.create_match(record("m"))
    await store.append_action("m", 1, 0, COIN, "r", False)
    assert await store.load_match("m") == (record("m"), [(0, COIN, "r")])
    store.close()


def test_an_acknowledged_action_survives_a_killed_process(path: Path) -> None:
    """Once append_action has returned, SIGKILL right after loses nothing."""
    script = textwrap.dedent(
        f"""
        import asyncio, os, signal
        from server.engine import Options, parse_action
        from server.store.records import MatchRecord, SeatRecord
        from server.store.sqlite import SqliteStore

        async def main():
            store = SqliteStore({str(path)!r})
            await store.create_match(MatchRecord("m", Options(), 1, 1000, [SeatRecord(0), SeatRecord(1)]))
            await store.save_seat("m", SeatRecord(0, None, "ada", "hash"), "waiting")
            coin = parse_action("take_coin")
            for version in range(1, 31):
                await store.append_action("m", version, version % 2, coin, f"r{{version}}", False)
            print("acknowledged", flush=True)
            os.kill(os.getpid(), signal.SIGKILL)

        asyncio.run(main())
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert done.stdout.strip() == "acknowledged"

    async def check() -> None:
        store = SqliteStore(path)
        loaded = await store.load_match("m")
        assert loaded is not None
        match, actions = loaded
        assert match.seats[0] == SeatRecord(0, None, "ada", "hash")
        assert [(s, r) for s, _, r in actions] == [(v % 2, f"r{v}") for v in range(1, 31)]
        store.close()

    asyncio.run(check())
