"""What only the SQLite store does: it holds its file alone, in WAL mode, migrates files of older
schemas, refuses writes to a file that was removed, runs in memory, keeps what it acknowledged when
its process is killed, and searches indexes. What every store does alike is in
test_store_conformance.py."""

from __future__ import annotations

import asyncio
import re
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from positions import ROOT
from test_store_conformance import COIN, COIN_TEXT, record

from server.store import StoreLocked, StoreUnavailable
from server.store.records import PLAYING, SeatRecord
from server.store.schema import MIGRATIONS
from server.store.sqlite import SqliteStore


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "mercado.db"


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
        "SELECT r.player_id, p.kind FROM ratings r JOIN players p ON p.player_id = r.player_id"
        " WHERE r.game = 'oregano' AND r.rated_matches > 0 AND (r.rating < 1 OR (r.rating = 1 AND"
        " r.player_id > 'x')) ORDER BY r.rating DESC, r.player_id LIMIT 20": "leaderboard",
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
        await store.append_action("m", 1, 0, COIN_TEXT, "lost", False)
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
    await store.append_action("m", 1, 0, COIN_TEXT, "r", False)
    assert await store.load_match("m") == (record("m"), [(0, COIN, "r")])
    store.close()


def test_an_acknowledged_action_survives_a_killed_process(path: Path) -> None:
    """Once append_action has returned, SIGKILL right after loses nothing."""
    script = textwrap.dedent(
        f"""
        import asyncio, os, signal
        from server.games.mercado import Options, parse_action
        from server.store.encoding import action_text
        from server.store.records import MatchRecord, SeatRecord
        from server.store.sqlite import SqliteStore

        async def main():
            store = SqliteStore({str(path)!r})
            await store.create_match(MatchRecord("m", Options(), 1, 1000, [SeatRecord(0), SeatRecord(1)]))
            await store.save_seat("m", SeatRecord(0, None, "ada", "hash"), "waiting")
            coin_text = action_text("mercado", parse_action("take_coin"))
            for version in range(1, 31):
                await store.append_action("m", version, version % 2, coin_text, f"r{{version}}", False)
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
