"""The SQLite store: what it writes is what it loads, and a written action survives a killed process."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from positions import ROOT

from server.engine import Options, parse_action
from server.match.records import MatchRecord, SeatRecord
from server.store.sqlite import SqliteStore

COIN, OFFER = parse_action("take_coin"), parse_action("refresh_offer")


def record(match_id: str, created_ms: int = 1000, players: int = 2, **options: object) -> MatchRecord:
    return MatchRecord(
        match_id=match_id,
        options=Options(players=players, **options),  # type: ignore[arg-type]
        seed=12345,
        created_ms=created_ms,
        seats=[SeatRecord(n) for n in range(players)],
    )


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "mercado.db"


def test_matches_and_seats_load_as_written(path: Path) -> None:
    store = SqliteStore(path)
    written = [
        MatchRecord(
            "b",
            Options(players=4, money="public", face_down_counts_as_available=False),
            2**64 - 1,  # the largest seed a client may send
            2000,
            [SeatRecord(0, None, "ada", "h0"), SeatRecord(1, "easy"), SeatRecord(2, "hard"), SeatRecord(3)],
        ),
        MatchRecord("a", Options(players=3), 0, 2000, [SeatRecord(n) for n in range(3)]),
        MatchRecord("c", Options(), 7, 1000, [SeatRecord(0), SeatRecord(1, "medium")]),
    ]
    for match in written:
        store.create_match(match)
    store.close()
    loaded = list(SqliteStore(path).load_matches())
    # Oldest first, then by id; no actions yet.
    assert [m for m, _ in loaded] == [written[2], written[1], written[0]]
    assert all(actions == [] for _, actions in loaded)


def test_a_saved_seat_replaces_the_open_one(path: Path) -> None:
    store = SqliteStore(path)
    store.create_match(record("m"))
    store.save_seat("m", SeatRecord(1, None, "bob", "hash-of-bob"))
    store.save_seat("m", SeatRecord(0, "hard", "agent", "hash-of-agent"))
    ((match, _),) = store.load_matches()
    assert match.seats == [
        SeatRecord(0, "hard", "agent", "hash-of-agent"),
        SeatRecord(1, None, "bob", "hash-of-bob"),
    ]


def test_a_duplicate_match_is_refused(path: Path) -> None:
    store = SqliteStore(path)
    store.create_match(record("m"))
    with pytest.raises(sqlite3.IntegrityError):
        store.create_match(record("m", players=3))
    ((match, _),) = store.load_matches()
    assert match.options.players == 2
    assert len(match.seats) == 2


async def test_actions_load_in_version_order_per_match(path: Path) -> None:
    store = SqliteStore(path)
    store.create_match(record("m"))
    store.create_match(record("n", created_ms=2000))
    await store.append_action("m", 1, 0, COIN, "m1")
    await store.append_action("n", 1, 1, OFFER, "n1")
    await store.append_action("m", 2, 1, OFFER, "m2")
    loaded = {m.match_id: actions for m, actions in store.load_matches()}
    assert loaded == {"m": [(0, COIN, "m1"), (1, OFFER, "m2")], "n": [(1, OFFER, "n1")]}


async def test_concurrent_appends_are_all_committed(path: Path) -> None:
    store = SqliteStore(path)
    ids = [f"m{n}" for n in range(20)]
    for match_id in ids:
        store.create_match(record(match_id))
    # Many matches writing at once: group commits, every caller resumed once its action is in.
    await asyncio.gather(
        *(store.append_action(m, v, v % 2, COIN, f"{m}-{v}") for v in range(1, 6) for m in ids)
    )
    store.close()
    loaded = dict((m.match_id, actions) for m, actions in SqliteStore(path).load_matches())
    assert loaded == {m: [(v % 2, COIN, f"{m}-{v}") for v in range(1, 6)] for m in ids}


@pytest.mark.parametrize(
    ("match_id", "version", "request_id"),
    [("m", 1, "other"), ("m", 2, "first"), ("unknown", 1, "x")],
    ids=["version taken", "request id taken", "no such match"],
)
async def test_a_bad_append_raises_and_the_store_goes_on(
    path: Path, match_id: str, version: int, request_id: str
) -> None:
    store = SqliteStore(path)
    store.create_match(record("m"))
    await store.append_action("m", 1, 0, COIN, "first")
    with pytest.raises(sqlite3.IntegrityError):
        await asyncio.wait_for(store.append_action(match_id, version, 0, OFFER, request_id), 5)
    await asyncio.wait_for(store.append_action("m", 2, 1, OFFER, "second"), 5)
    ((_, actions),) = store.load_matches()
    assert actions == [(0, COIN, "first"), (1, OFFER, "second")]


async def test_a_cancelled_append_does_not_stop_later_writes(path: Path) -> None:
    store = SqliteStore(path)
    store.create_match(record("m"))
    gone = asyncio.ensure_future(store.append_action("m", 1, 0, COIN, "gone"))
    await asyncio.sleep(0)
    gone.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await gone
    # The write itself may or may not have happened; later ones must.
    await asyncio.sleep(0.05)
    ((_, before),) = store.load_matches()
    version = len(before) + 1
    await asyncio.wait_for(store.append_action("m", version, 1, OFFER, "next"), 5)
    ((_, actions),) = store.load_matches()
    assert actions[-1] == (1, OFFER, "next")


def test_the_file_is_in_wal_mode_with_foreign_keys(path: Path) -> None:
    store = SqliteStore(path)
    assert store.db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert store.db.execute("PRAGMA foreign_keys").fetchone() == (1,)
    store.close()
    assert SqliteStore(path).db.execute("PRAGMA journal_mode").fetchone() == ("wal",)


async def test_checkpoints_keep_the_wal_from_growing(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer never checkpoints on its own; the checkpointer does, and then the WAL starts over."""
    monkeypatch.setattr("server.store.sqlite.CHECKPOINT_SECONDS", 0.0)
    store = SqliteStore(path)
    assert store.db.execute("PRAGMA wal_autocheckpoint").fetchone() == (0,)
    checkpointer = store.checkpointer
    assert checkpointer is not None
    wal = path.with_name(path.name + "-wal")
    ids = [f"m{n}" for n in range(50)]
    for match_id in ids:
        store.create_match(record(match_id))
    sizes = []
    for version in range(1, 41):
        # A commit per version, each touching pages all over the file, as 50 live matches do.
        await asyncio.gather(*(store.append_action(m, version, 0, COIN, f"r{version}") for m in ids))
        if checkpointer.running:
            checkpointer.running.result(timeout=5)
        sizes.append(wal.stat().st_size)
    # Without checkpoints the WAL would hold every commit's pages: several MB by now.
    assert max(sizes[20:]) <= max(sizes[:20])
    assert max(sizes) < 2_000_000
    store.close()
    loaded = dict((m.match_id, actions) for m, actions in SqliteStore(path).load_matches())
    assert all(loaded[m] == [(0, COIN, f"r{v}") for v in range(1, 41)] for m in ids)


async def test_an_in_memory_store_works() -> None:
    store = SqliteStore(":memory:")
    store.create_match(record("m"))
    await store.append_action("m", 1, 0, COIN, "r")
    ((match, actions),) = store.load_matches()
    assert match.match_id == "m" and actions == [(0, COIN, "r")]
    store.close()


def test_an_acknowledged_action_survives_a_killed_process(path: Path) -> None:
    """Once append_action has returned, SIGKILL right after loses nothing."""
    script = textwrap.dedent(
        f"""
        import asyncio, os, signal
        from server.engine import Options, parse_action
        from server.match.records import MatchRecord, SeatRecord
        from server.store.sqlite import SqliteStore

        async def main():
            store = SqliteStore({str(path)!r})
            store.create_match(MatchRecord("m", Options(), 1, 1000, [SeatRecord(0), SeatRecord(1)]))
            store.save_seat("m", SeatRecord(0, None, "ada", "hash"))
            coin = parse_action("take_coin")
            for version in range(1, 31):
                await store.append_action("m", version, version % 2, coin, f"r{{version}}")
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
    ((match, actions),) = SqliteStore(path).load_matches()
    assert match.seats[0] == SeatRecord(0, None, "ada", "hash")
    assert [(s, r) for s, _, r in actions] == [(v % 2, f"r{v}") for v in range(1, 31)]
