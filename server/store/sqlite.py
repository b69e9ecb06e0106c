"""The embedded SQLite store: one file, no other process.

WAL mode with ``synchronous=NORMAL``: a committed transaction survives a
killed process (not a power cut) without a disk flush per action. Actions
are written by one background thread in group commits: every action that
arrives while a commit is running goes into the next one, and each caller
resumes only once its action is committed. The event loop never waits on the
disk.

Checkpoints copy the WAL back into the database file, with disk flushes.
SQLite's default runs them inside the commit that fills the WAL past 1,000
pages, so every action waiting for that commit also waits for the flushes.
Here a second thread, on a connection of its own, checkpoints about once a
second while commits go on. That leaves only what was committed meanwhile, so
the writer then finishes the checkpoint itself with little to copy or flush,
and SQLite can start the WAL over.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from server.engine import ALL_ACTIONS, Action, Options, action_from_json
from server.match.records import MatchRecord, SeatRecord

SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    match_id   TEXT PRIMARY KEY,
    game       TEXT NOT NULL,
    options    TEXT NOT NULL,
    seed       TEXT NOT NULL,
    created_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS seats (
    match_id     TEXT NOT NULL REFERENCES matches(match_id),
    seat         INTEGER NOT NULL,
    bot_level    TEXT,
    display_name TEXT NOT NULL,
    token_hash   TEXT,
    PRIMARY KEY (match_id, seat)
);
CREATE TABLE IF NOT EXISTS actions (
    match_id   TEXT NOT NULL REFERENCES matches(match_id),
    version    INTEGER NOT NULL,
    seat       INTEGER NOT NULL,
    action     TEXT NOT NULL,
    request_id TEXT NOT NULL,
    PRIMARY KEY (match_id, version),
    UNIQUE (match_id, request_id)
);
"""
ActionRow = tuple[str, int, int, str, str]
ACTION_TEXT = [json.dumps(a.to_json()) for a in ALL_ACTIONS]  # as stored, by action id
CHECKPOINT_SECONDS = 1.0  # at most this often, after a commit
log = logging.getLogger("mercado.store")


class SqliteStore:
    """Matches, seats and actions in one SQLite file (or ``:memory:``)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.lock = threading.Lock()  # one user of the connection at a time
        self.writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mercado-sqlite")
        self.pending: list[tuple[ActionRow, asyncio.Future[None]]] = []
        self.flusher: asyncio.Task[None] | None = None
        with self.lock:
            (mode,) = self.db.execute("PRAGMA journal_mode=WAL").fetchone()
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA wal_autocheckpoint=0")  # see the module's docstring
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.executescript(SCHEMA)
        # An in-memory database has no WAL.
        self.checkpointer = Checkpointer(self.path) if mode == "wal" else None

    def create_match(self, match: MatchRecord) -> None:
        options = json.dumps(match.options.to_json())
        with self.lock, self.db:
            self.db.execute("BEGIN")
            self.db.execute(
                "INSERT INTO matches VALUES (?, ?, ?, ?, ?)",
                (match.match_id, match.game, options, str(match.seed), match.created_ms),
            )
            for seat in match.seats:
                self._write_seat(match.match_id, seat)

    def save_seat(self, match_id: str, seat: SeatRecord) -> None:
        with self.lock, self.db:
            self.db.execute("BEGIN")
            self._write_seat(match_id, seat)

    def _write_seat(self, match_id: str, seat: SeatRecord) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO seats VALUES (?, ?, ?, ?, ?)",
            (match_id, seat.seat, seat.bot_level, seat.display_name, seat.token_hash),
        )

    async def append_action(
        self, match_id: str, version: int, seat: int, action: Action, request_id: str
    ) -> None:
        """Return once the action is committed (in the next group commit)."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        self.pending.append(((match_id, version, seat, ACTION_TEXT[action.id], request_id), done))
        if self.flusher is None:
            self.flusher = loop.create_task(self._flush())
        await done

    async def _flush(self) -> None:
        loop = asyncio.get_running_loop()
        while self.pending:
            batch, self.pending = self.pending, []
            try:
                await loop.run_in_executor(self.writer, self._write_actions, [row for row, _ in batch])
            except sqlite3.Error as error:
                for _, done in batch:
                    if not done.done():  # its caller may have gone away
                        done.set_exception(error)
            else:
                for _, done in batch:
                    if not done.done():
                        done.set_result(None)
                if self.checkpointer:
                    self.checkpointer.start_if_due()
        self.flusher = None

    def _write_actions(self, rows: list[ActionRow]) -> None:
        with self.lock, self.db:
            self.db.execute("BEGIN")
            self.db.executemany("INSERT INTO actions VALUES (?, ?, ?, ?, ?)", rows)
        if self.checkpointer and self.checkpointer.done_one:
            # Finish the background checkpoint: copy what was committed while it ran. No commit can
            # come in meanwhile, so the WAL is then copied whole and the next commit starts it over.
            self.checkpointer.done_one = False
            with self.lock:
                self.db.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def load_matches(self) -> Iterator[tuple[MatchRecord, list[tuple[int, Action, str]]]]:
        with self.lock:
            seat_rows = self.db.execute(
                "SELECT match_id, seat, bot_level, display_name, token_hash FROM seats"
                " ORDER BY match_id, seat"
            ).fetchall()
            action_rows = self.db.execute(
                "SELECT match_id, seat, action, request_id FROM actions ORDER BY match_id, version"
            ).fetchall()
            match_rows = self.db.execute(
                "SELECT match_id, game, options, seed, created_ms FROM matches ORDER BY created_ms, match_id"
            ).fetchall()
        seats: dict[str, list[SeatRecord]] = {}
        for match_id, seat, bot_level, name, token_hash in seat_rows:
            seats.setdefault(match_id, []).append(SeatRecord(seat, bot_level, name, token_hash))
        actions: dict[str, list[tuple[int, Action, str]]] = {}
        for match_id, seat, action, request_id in action_rows:
            actions.setdefault(match_id, []).append((seat, action_from_json(json.loads(action)), request_id))
        for match_id, game, options, seed, created_ms in match_rows:
            record = MatchRecord(
                match_id, Options(**json.loads(options)), int(seed), created_ms, seats.get(match_id, []), game
            )
            yield record, actions.get(match_id, [])

    def close(self) -> None:
        """Finish the writes in progress and close the file."""
        self.writer.shutdown(wait=True)
        if self.checkpointer:
            self.checkpointer.close()
        with self.lock:
            self.db.close()


class Checkpointer:
    """Passive checkpoints of one database's WAL, in a thread and on a connection of their own."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mercado-sqlite-checkpoint")
        self.db: sqlite3.Connection | None = None  # opened by the first checkpoint
        self.running: Future[None] | None = None
        self.last = time.monotonic()
        self.done_one = False  # a checkpoint finished since the writer last finished one

    def start_if_due(self) -> None:
        if (self.running and not self.running.done()) or time.monotonic() - self.last < CHECKPOINT_SECONDS:
            return
        self.last = time.monotonic()
        self.running = self.thread.submit(self._checkpoint)

    def _checkpoint(self) -> None:
        try:
            if self.db is None:
                self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA wal_checkpoint(PASSIVE)")
            self.done_one = True
        except sqlite3.Error as error:
            # Nothing is lost: the actions stay in the WAL until a later checkpoint.
            log.warning("checkpoint failed", extra={"error": str(error)})

    def close(self) -> None:
        self.thread.shutdown(wait=True)
        if self.db is not None:
            self.db.close()
