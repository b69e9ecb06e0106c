"""The embedded SQLite store: one file, held by one server process.

WAL mode with ``synchronous=NORMAL``: a committed transaction survives a
killed process (not a power cut) without a disk flush per write. Every write
(a new match, a seat taken, an action) goes to one background thread, which
commits them in groups: every write that arrives while a commit is running
goes into the next one, and each caller resumes only once its write is
committed. Reads run in a second thread on a connection of their own. The
event loop never waits on the disk.

The server holds an exclusive lock on the file for its lifetime, so a second
server on the same file exits at start instead of handing out the same seats.
After every commit the writer checks that the file it wrote is still the one
at the path: a write to a file that was deleted meanwhile is not durable, so
it is refused like a failed write (StoreUnavailable), and the store reports
itself unhealthy until a write succeeds again.

Checkpoints (wal.py) keep the WAL small under any mix of writes.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import itertools
import logging
import os
import secrets
import sqlite3
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from . import AgentRecord, Conflict, MatchListing, StoredAction, StoreLocked, StoreUnavailable
from .encoding import (
    CALIBRATE,
    ENQUEUE,
    MATCH_COLUMNS,
    PLAYER_COLUMNS,
    QUEUED_COLUMNS,
    RECORD_RATING,
    SAVE_PLAYER,
    SEAT_COLUMNS,
    action_of,
    clock_text,
    enqueue_values,
    match_record,
    new_player_row,
    options_text,
    player_record,
    queued_record,
    rating_row,
    seat_values,
    seats_by_match,
)
from .records import (
    CANCELLED,
    CLOSED,
    FINISHED,
    OWNER,
    PLAYING,
    WAITING,
    MatchRecord,
    PlayerRecord,
    QueuedRecord,
    SeatRecord,
)
from .schema import migrate
from .wal import Checkpointer

T = TypeVar("T")
BUSY_TIMEOUT_MS = 10_000  # how long a connection waits for another's lock (an idle checkpoint's)
PROBE_SECONDS = 1.0  # how often an unhealthy store tries a write
log = logging.getLogger("mercado.store")


@dataclass(frozen=True)
class Op:
    """One statement of a write; ``one_row`` when it must change exactly one row (else a Conflict)."""

    sql: str
    params: tuple[Any, ...]
    one_row: bool = False


class _RowMissing(Exception):
    """An Op that had to change one row changed none."""


def failure_reason(error: sqlite3.Error) -> str:
    """One line for the caller, without SQL: what kind of storage failure this is."""
    code = getattr(error, "sqlite_errorcode", None)
    base = code & 0xFF if isinstance(code, int) else None
    reasons = {
        sqlite3.SQLITE_FULL: "the disk is full",
        sqlite3.SQLITE_IOERR: "a disk write failed",
        sqlite3.SQLITE_READONLY: "the database cannot be written",
        sqlite3.SQLITE_CORRUPT: "the database file is damaged",
        sqlite3.SQLITE_CANTOPEN: "the database file cannot be opened",
        sqlite3.SQLITE_NOTADB: "the database file is damaged",
        sqlite3.SQLITE_BUSY: "the database is busy",
    }
    return f"storage is unavailable: {reasons.get(base or -1, 'the database failed')}"


def _connect(path: str) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    return db


def _lock(path: str) -> int:
    """An exclusive lock on the database file for as long as the returned descriptor is open."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise StoreLocked(f"{path} is in use by another mercado server") from None
    return fd


class SqliteStore:
    """Matches, seats and actions in one SQLite file (or ``:memory:``, for tests and benchmarks)."""

    shared = False  # held by this server alone

    def __init__(self, path: str | Path, on_health: Callable[[str | None], None] | None = None) -> None:
        self.path = str(path)
        in_memory = self.path == ":memory:"
        self._lock_fd = None if in_memory else _lock(self.path)
        self._identity = None if self._lock_fd is None else _file_id(os.fstat(self._lock_fd))
        try:
            self.db = _connect(self.path)  # the writer's connection
            (mode,) = self.db.execute("PRAGMA journal_mode=WAL").fetchone()
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA foreign_keys=ON")
            migrate(self.db)
        except BaseException:
            self._unlock()
            raise
        self.writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mercado-sqlite")
        # An in-memory database exists only on its one connection: reads then share the writer.
        self.reader = self.writer if in_memory else ThreadPoolExecutor(1, "mercado-sqlite-read")
        self.read_db = self.db
        if not in_memory:
            self.read_db = _connect(self.path)
            self.read_db.execute("PRAGMA query_only=ON")
        self.wal = Checkpointer(self.path, self.db, _connect) if mode == "wal" else None
        self.pending: list[tuple[list[Op], asyncio.Future[None]]] = []
        self.flusher: asyncio.Task[None] | None = None
        self.prober: asyncio.Task[None] | None = None
        self._failure: str | None = None
        self.on_health = on_health
        self.on_commit: Callable[[float], None] | None = None  # told each group commit's seconds

    @property
    def failure(self) -> str | None:
        return self._failure

    # --- writes --------------------------------------------------------------

    async def create_match(self, match: MatchRecord) -> None:
        status = WAITING if any(not s.taken for s in match.seats) else PLAYING
        ops = [
            Op(
                "INSERT INTO matches (match_id, game, options, seed, created_ms, status, salt, seed_chosen,"
                " clock, hot_seat, unrated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    match.match_id,
                    match.game,
                    options_text(match.options),
                    str(match.seed),
                    match.created_ms,
                    status,
                    match.salt,
                    int(match.seed_chosen),
                    clock_text(match.clock),
                    int(match.hot_seat),
                    int(match.unrated),
                ),
            )
        ]
        ops += [
            Op(
                f"INSERT INTO seats (match_id, {SEAT_COLUMNS}) VALUES ({_marks(10)})",
                (match.match_id, *seat_values(s)),
            )
            for s in match.seats
        ]
        await self._write(ops)

    async def save_seat(self, match_id: str, seat: SeatRecord, status: str) -> None:
        """Take a seat that was open; ``status`` is the match's status once it is taken."""
        await self._write(
            [
                Op(
                    "UPDATE seats SET display_name = ?, token_hash = ?, played_by = ?, reserve_ms = ?,"
                    " player_id = ?, request_hash = ?"
                    " WHERE match_id = ? AND seat = ? AND token_hash IS NULL AND played_by = 'owner'",
                    (
                        seat.display_name,
                        seat.token_hash,
                        seat.played_by,
                        seat.reserve_ms,
                        seat.player_id,
                        seat.request_hash,
                        match_id,
                        seat.seat,
                    ),
                    one_row=True,
                ),
                Op("UPDATE matches SET status = ? WHERE match_id = ?", (status, match_id), one_row=True),
                _counted(match_id),
            ]
        )

    async def release_seat(self, match_id: str, seat: int) -> None:
        """Open a taken seat of a waiting match again (its player left before the start)."""
        await self._write(
            [
                Op(
                    "UPDATE seats SET display_name = '', token_hash = NULL, played_by = ?, reserve_ms = 0,"
                    " player_id = NULL, request_hash = NULL"
                    " WHERE match_id = ? AND seat = ? AND token_hash IS NOT NULL",
                    (OWNER, match_id, seat),
                    one_row=True,
                ),
                _counted(match_id),
            ]
        )

    async def update_seats(self, match_id: str, seats: list[SeatRecord], version: int | None = None) -> None:
        """Who plays these taken seats and their reserves (a timeout, a player who left or came back);
        with ``version``, only while the match has no action after it."""
        await self._write([*_seat_updates(match_id, seats, version), _counted(match_id)])

    def append_action(
        self,
        match_id: str,
        version: int,
        seat: int,
        action: str,
        request_id: str,
        finished: bool,
        seats: list[SeatRecord] | None = None,
    ) -> asyncio.Future[None]:
        ops = [
            Op(
                "INSERT INTO actions VALUES (?, ?, ?, ?, ?)",
                (match_id, version, seat, action, request_id),
            )
        ]
        ops += _seat_updates(match_id, seats or [])
        if finished:
            ops.append(Op("UPDATE matches SET status = ? WHERE match_id = ?", (FINISHED, match_id)))
        return self._scheduled(ops)  # a future, not a coroutine: the server awaits it in no task of its own

    async def set_status(self, match_id: str, status: str) -> None:
        await self._write(
            [Op("UPDATE matches SET status = ? WHERE match_id = ?", (status, match_id)), _counted(match_id)]
        )

    async def cancel(self, match_id: str) -> None:
        """Cancel a waiting match: its open seats are closed with it."""
        await self._write(
            [
                Op(
                    "UPDATE matches SET status = ? WHERE match_id = ? AND status = ?",
                    (CANCELLED, match_id, WAITING),
                    one_row=True,
                ),
                Op(
                    "UPDATE seats SET played_by = ? WHERE match_id = ? AND token_hash IS NULL",
                    (CLOSED, match_id),
                ),
                _counted(match_id),
            ]
        )

    # --- players ---------------------------------------------------------------

    async def save_player(self, player: PlayerRecord) -> None:
        """Add a player, or rename one already stored (its ratings stay)."""
        await self._write([Op(SAVE_PLAYER.format(_marks(4)), new_player_row(player))])

    async def calibrate(self, players: list[PlayerRecord]) -> None:
        """Add these players (bots), and set their ratings in their games where they have played no
        rated match yet."""
        saved = {p.player_id: p for p in players}.values()
        ops = [Op(SAVE_PLAYER.format(_marks(4)), new_player_row(p)) for p in saved]
        await self._write(ops + [Op(CALIBRATE.format(_marks(7)), rating_row(p)) for p in players])

    async def record_rating(self, match_id: str, rating: str, players: list[PlayerRecord]) -> None:
        """Whether a finished match counted (Conflict if already decided) and its players' new ratings."""
        ops = [
            Op(
                "UPDATE matches SET rating = ? WHERE match_id = ? AND rating IS NULL",
                (rating, match_id),
                one_row=True,
            )
        ]
        ops += [Op(RECORD_RATING.format(_marks(7)), rating_row(p), one_row=True) for p in players]
        await self._write(ops)

    # --- the matchmaking queue ---------------------------------------------------

    async def enqueue(self, seeker: QueuedRecord, stale_before_ms: int) -> None:
        sql = ENQUEUE.format(_marks(8), "?")
        await self._write([Op(sql, (*enqueue_values(seeker), stale_before_ms), one_row=True)])

    async def dequeue(self, player_id: str, since_ms: int) -> None:
        await self._write(
            [Op("DELETE FROM queue WHERE player_id = ? AND since_ms = ?", (player_id, since_ms))]
        )

    async def queued(self, seen: list[str], now_ms: int, stale_before_ms: int) -> list[QueuedRecord]:
        ops = [Op("UPDATE queue SET seen_ms = ? WHERE player_id = ?", (now_ms, p)) for p in seen]
        await self._write([*ops, Op("DELETE FROM queue WHERE seen_ms < ?", (stale_before_ms,))])

        def query(db: sqlite3.Connection) -> list[QueuedRecord]:
            return [queued_record(row) for row in db.execute(f"SELECT {QUEUED_COLUMNS} FROM queue")]

        return await self._read(query)

    async def claim_queued(self, player_ids: list[str], now_ms: int, claimed_before_ms: int) -> bool:
        sql = "UPDATE queue SET claimed_ms = ? WHERE player_id = ? AND match_id IS NULL AND claimed_ms < ?"
        try:
            await self._write([Op(sql, (now_ms, p, claimed_before_ms), one_row=True) for p in player_ids])
        except Conflict:
            return False
        return True

    async def unclaim_queued(self, player_ids: list[str]) -> None:
        await self._write(
            [Op("UPDATE queue SET claimed_ms = 0 WHERE player_id = ?", (p,)) for p in player_ids]
        )

    async def matched(self, seats: dict[str, tuple[str, int]]) -> None:
        sql = "UPDATE queue SET match_id = ?, seat = ? WHERE player_id = ?"
        await self._write([Op(sql, (match_id, seat, p)) for p, (match_id, seat) in seats.items()])

    async def reissue_token(self, match_id: str, seat: int, player_id: str, token_hash: str) -> None:
        sql = "UPDATE seats SET token_hash = ? WHERE match_id = ? AND seat = ? AND player_id = ?"
        await self._write(
            [Op(sql, (token_hash, match_id, seat, player_id), one_row=True), _counted(match_id)]
        )

    async def _write(self, ops: list[Op]) -> None:
        await self._scheduled(ops)

    def _scheduled(self, ops: list[Op]) -> asyncio.Future[None]:
        """Done once ``ops`` are committed (in the next group commit), as one transaction of their own."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        self.pending.append((ops, done))
        if self.flusher is None:
            self.flusher = loop.create_task(self._flush())
        return done

    async def _flush(self) -> None:
        loop = asyncio.get_running_loop()
        while self.pending:
            batch, self.pending = self.pending, []
            try:
                outcomes = await loop.run_in_executor(self.writer, self._commit, [ops for ops, _ in batch])
            except StoreUnavailable as error:
                outcomes = [error] * len(batch)
                self._set_failure(error.reason)
            except Exception:
                # A bug, not the disk: its callers must still hear, or they would wait forever.
                log.exception("storage write failed")
                outcomes = [StoreUnavailable("storage is unavailable: internal error")] * len(batch)
            else:
                self._set_failure(None)
            for (_, done), outcome in zip(batch, outcomes, strict=True):
                if done.done():  # its caller went away
                    continue
                if outcome is None:
                    done.set_result(None)
                else:
                    done.set_exception(outcome)
        self.flusher = None

    def _commit(self, batch: list[list[Op]]) -> Sequence[Exception | None]:
        """Commit every write of ``batch`` (in the writer thread); per write, None or its Conflict."""
        started = time.perf_counter()
        try:
            try:
                self._transaction(lambda: self._run_all(batch))
                outcomes: list[Exception | None] = [None] * len(batch)
            except (sqlite3.IntegrityError, _RowMissing):
                # Rare: one write conflicts. Commit the others, each in a savepoint of its own.
                outcomes = self._transaction(lambda: [self._isolated(ops) for ops in batch])
        except sqlite3.Error as error:
            log.error("storage failure", extra={"error": str(error)})
            raise StoreUnavailable(failure_reason(error)) from None
        self._check_file()
        if self.on_commit:
            self.on_commit(time.perf_counter() - started)
        if self.wal:
            self.wal.after_commit()
        return outcomes

    def _transaction(self, work: Callable[[], T]) -> T:
        self.db.execute("BEGIN")
        try:
            result = work()
            self.db.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")
            raise
        return result

    def _run_all(self, batch: list[list[Op]]) -> None:
        self._run([op for ops in batch for op in ops])

    def _run(self, ops: list[Op]) -> None:
        # Runs of one statement (a group commit's actions) go to SQLite at once.
        for (sql, one_row), group in itertools.groupby(ops, key=lambda op: (op.sql, op.one_row)):
            rows = list(group)
            if one_row or len(rows) == 1:
                for op in rows:
                    cursor = self.db.execute(op.sql, op.params)
                    if op.one_row and cursor.rowcount != 1:
                        raise _RowMissing
            else:
                self.db.executemany(sql, [op.params for op in rows])

    def _isolated(self, ops: list[Op]) -> Exception | None:
        self.db.execute("SAVEPOINT write")
        try:
            self._run(ops)
        except (sqlite3.IntegrityError, _RowMissing):
            self.db.execute("ROLLBACK TO write")
            self.db.execute("RELEASE write")
            return Conflict("the match changed meanwhile")
        self.db.execute("RELEASE write")
        return None

    def _check_file(self) -> None:
        """Refuse a commit to a database file that is no longer the one at the path (deleted, replaced)."""
        if self._lock_fd is None:
            return
        try:
            same = _file_id(os.stat(self.path)) == self._identity and os.fstat(self._lock_fd).st_nlink > 0
        except OSError:
            same = False
        if not same:
            log.error("storage failure", extra={"error": f"{self.path} was removed or replaced"})
            raise StoreUnavailable("storage is unavailable: the database file was removed")
        if self.wal and not self.wal.file_intact():
            log.error("storage failure", extra={"error": f"{self.path}-wal was removed or replaced"})
            raise StoreUnavailable("storage is unavailable: the database file was removed")

    def _set_failure(self, reason: str | None) -> None:
        if reason == self._failure:
            return
        self._failure = reason
        if reason is None:
            log.warning("storage works again")
        elif self.prober is None:
            self.prober = asyncio.get_running_loop().create_task(self._probe())
        if self.on_health:
            self.on_health(reason)

    async def _probe(self) -> None:
        """While the store fails, try a small write every PROBE_SECONDS: healthy again once one succeeds."""
        try:
            while self._failure is not None:
                await asyncio.sleep(PROBE_SECONDS)
                with contextlib.suppress(StoreUnavailable):
                    await self._write(
                        [Op("INSERT OR REPLACE INTO meta VALUES ('probe', datetime('now'))", ())]
                    )
        finally:
            self.prober = None

    # --- reads ---------------------------------------------------------------

    async def _read(self, query: Callable[[sqlite3.Connection], T]) -> T:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self.reader, query, self.read_db)
        except sqlite3.Error as error:
            log.error("storage failure", extra={"error": str(error)})
            raise StoreUnavailable(failure_reason(error)) from None

    async def follow(self, changed: Callable[[str], None], missed: Callable[[], None]) -> None:
        """Nothing to follow: no other server writes to this file."""

    async def save_agent(self, agent_id: str, levels: list[str], free_slots: int, seen_ms: int) -> None:
        """Nothing to share: this server alone hears the agents."""

    async def live_agents(self, since_ms: int) -> list[AgentRecord]:
        return []

    async def load_match(
        self, match_id: str, after: int = 0
    ) -> tuple[MatchRecord, list[StoredAction]] | None:
        def query(db: sqlite3.Connection) -> tuple[MatchRecord, list[StoredAction]] | None:
            db.execute("BEGIN")  # one snapshot for the three reads
            try:
                records = _records(db, "WHERE match_id = ?", (match_id,))
                rows = db.execute(
                    "SELECT seat, action, request_id FROM actions WHERE match_id = ? AND version > ?"
                    " ORDER BY version",
                    (match_id, after),
                ).fetchall()
            finally:
                db.execute("COMMIT")
            if not records:
                return None
            record = records[0][0]
            game = record.game
            return record, [(seat, action_of(game, text), request_id) for seat, text, request_id in rows]

        return await self._read(query)

    async def stamp(self, match_id: str) -> tuple[int, int] | None:
        def query(db: sqlite3.Connection) -> tuple[int, int] | None:
            row = db.execute(
                "SELECT coalesce((SELECT max(version) FROM actions WHERE match_id = ?), 0), changes"
                " FROM matches WHERE match_id = ?",
                (match_id, match_id),
            ).fetchone()
            return None if row is None else (row[0], row[1])

        return await self._read(query)

    async def list_matches(
        self,
        status: str | None,
        limit: int,
        after: tuple[int, str] | None,
        player_id: str | None = None,
        game: str | None = None,
    ) -> list[MatchListing]:
        where: list[str] = []
        params: list[object] = []
        if player_id is not None:
            where.append("match_id IN (SELECT match_id FROM seats WHERE player_id = ?)")
            params.append(player_id)
        if status is not None:
            where.append("status = ?")
            params.append(status)
        if game is not None:
            where.append("game = ?")
            params.append(game)
        if after is not None:
            where.append("(created_ms, match_id) < (?, ?)")
            params += after
        clause = ("WHERE " + " AND ".join(where) if where else "") + (
            " ORDER BY created_ms DESC, match_id DESC LIMIT ?"
        )

        def query(db: sqlite3.Connection) -> list[MatchListing]:
            db.execute("BEGIN")
            try:
                found = _records(db, clause, (*params, limit))
            finally:
                db.execute("COMMIT")
            # Every status is known once the service has classified the matches of older schemas.
            return [MatchListing(record, known or PLAYING, version) for record, known, version in found]

        return await self._read(query)

    async def find_bot_seat(self, levels: list[str]) -> tuple[str, int] | None:
        def query(db: sqlite3.Connection) -> tuple[str, int] | None:
            oldest: tuple[int, str, int] | None = None
            for level in levels:
                row = db.execute(
                    "SELECT rowid, match_id, seat FROM seats WHERE bot_level = ? AND token_hash IS NULL"
                    " AND played_by = ? ORDER BY rowid LIMIT 1",
                    (level, OWNER),
                ).fetchone()
                if row is not None and (oldest is None or row[0] < oldest[0]):
                    oldest = row
            return None if oldest is None else (oldest[1], oldest[2])

        return await self._read(query)

    async def seat_of_token(self, token_hash: str) -> tuple[str, int] | None:
        def query(db: sqlite3.Connection) -> tuple[str, int] | None:
            row = db.execute(
                "SELECT match_id, seat FROM seats WHERE token_hash = ?", (token_hash,)
            ).fetchone()
            return None if row is None else (row[0], row[1])

        return await self._read(query)

    async def count_waiting(self) -> int:
        def query(db: sqlite3.Connection) -> int:
            (count,) = db.execute("SELECT count(*) FROM matches WHERE status = ?", (WAITING,)).fetchone()
            return int(count)

        return await self._read(query)

    async def open_bot_seats(self) -> dict[str, int]:
        """How many bot seats of each level wait for an agent."""

        def query(db: sqlite3.Connection) -> dict[str, int]:
            rows = db.execute(
                "SELECT bot_level, count(*) FROM seats WHERE bot_level IS NOT NULL AND token_hash IS NULL"
                " AND played_by = ? GROUP BY bot_level",
                (OWNER,),
            )
            return {level: int(count) for level, count in rows}

        return await self._read(query)

    async def waiting_since(self, before_ms: int, bot_seats_only: bool) -> list[str]:
        """Waiting matches created before ``before_ms`` (only those with an open bot seat, if asked)."""

        def query(db: sqlite3.Connection) -> list[str]:
            if bot_seats_only:
                rows = db.execute(
                    "SELECT DISTINCT s.match_id FROM seats s JOIN matches m USING (match_id)"
                    " WHERE s.bot_level IS NOT NULL AND s.token_hash IS NULL AND s.played_by = ?"
                    " AND m.created_ms < ?",
                    (OWNER, before_ms),
                )
            else:
                rows = db.execute(
                    "SELECT match_id FROM matches WHERE status = ? AND created_ms < ?", (WAITING, before_ms)
                )
            return [row[0] for row in rows]

        return await self._read(query)

    async def playing_to_watch(self, unmoved_since_ms: int | None = None) -> list[str]:
        """Matches in play whose clocks run or whose seats the AI plays: watched from the server's start
        (all of them: this server holds every one)."""

        def query(db: sqlite3.Connection) -> list[str]:
            rows = db.execute(
                "SELECT match_id FROM matches m WHERE status = ? AND (clock IS NOT NULL OR EXISTS"
                " (SELECT 1 FROM seats s WHERE s.match_id = m.match_id AND s.played_by != ?))",
                (PLAYING, OWNER),
            )
            return [row[0] for row in rows]

        return await self._read(query)

    async def players(self, player_ids: list[str], game: str = "mercado") -> dict[str, PlayerRecord]:
        def query(db: sqlite3.Connection) -> dict[str, PlayerRecord]:
            marks = ", ".join("?" * len(player_ids))
            rows = db.execute(
                f"SELECT {PLAYER_COLUMNS} FROM players p LEFT JOIN ratings r"
                f" ON r.player_id = p.player_id AND r.game = ? WHERE p.player_id IN ({marks})",
                (game, *player_ids),
            )
            return {row[0]: player_record(row, game) for row in rows}

        return await self._read(query)

    async def leaderboard(
        self, limit: int, after: tuple[float, str] | None, game: str = "mercado"
    ) -> list[PlayerRecord]:
        """Players with a rated match of ``game``, best display rating first; ``after``: the last of
        the previous page."""

        def query(db: sqlite3.Connection) -> list[PlayerRecord]:
            where = "r.game = ? AND r.rated_matches > 0"
            params: tuple[object, ...] = (game,)
            if after is not None:
                where += " AND (r.rating < ? OR (r.rating = ? AND r.player_id > ?))"
                params += (after[0], after[0], after[1])
            rows = db.execute(
                f"SELECT {PLAYER_COLUMNS} FROM ratings r JOIN players p ON p.player_id = r.player_id"
                f" WHERE {where} ORDER BY r.rating DESC, r.player_id LIMIT ?",
                (*params, limit),
            )
            return [player_record(row, game) for row in rows]

        return await self._read(query)

    async def secret(self, name: str) -> bytes:
        key = f"secret:{name}"

        def query(db: sqlite3.Connection) -> str | None:
            row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
            return None if row is None else str(row[0])

        stored = await self._read(query)
        if stored is None:
            # Two servers cannot race here (one holds the file); the IGNORE keeps a secret once made.
            await self._write([Op("INSERT OR IGNORE INTO meta VALUES (?, ?)", (key, secrets.token_hex(32)))])
            stored = await self._read(query)
        assert stored is not None
        return bytes.fromhex(stored)

    async def finished_unrated(self) -> list[str]:
        """Finished matches whose rating was not decided yet (the server stopped in between)."""

        def query(db: sqlite3.Connection) -> list[str]:
            rows = db.execute("SELECT match_id FROM matches WHERE rating IS NULL AND status = ?", (FINISHED,))
            return [row[0] for row in rows]

        return await self._read(query)

    async def unclassified(self) -> list[str]:
        def query(db: sqlite3.Connection) -> list[str]:
            return [row[0] for row in db.execute("SELECT match_id FROM matches WHERE status IS NULL")]

        return await self._read(query)

    # --- closing -------------------------------------------------------------

    def close(self) -> None:
        """Finish the writes in progress and close the file."""
        self.writer.shutdown(wait=True)
        self.reader.shutdown(wait=True)
        if self.wal:
            self.wal.close()
        if self.read_db is not self.db:
            self.read_db.close()
        self.db.close()
        self._unlock()

    def _unlock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # after every connection: closing it releases the lock
            self._lock_fd = None


def _file_id(stat: os.stat_result) -> tuple[int, int]:
    return stat.st_dev, stat.st_ino


def _records(
    db: sqlite3.Connection, clause: str, params: tuple[Any, ...]
) -> list[tuple[MatchRecord, str | None, int]]:
    """Matches selected by ``clause``, each with its seats, status and version."""
    rows = db.execute(
        f"SELECT {MATCH_COLUMNS},"
        " coalesce((SELECT max(version) FROM actions a WHERE a.match_id = m.match_id), 0)"
        f" FROM matches m {clause}",
        params,
    ).fetchall()
    if not rows:
        return []
    marks = ", ".join("?" * len(rows))
    seats = seats_by_match(
        db.execute(
            f"SELECT match_id, {SEAT_COLUMNS} FROM seats WHERE match_id IN ({marks}) ORDER BY match_id, seat",
            [row[0] for row in rows],
        )
    )
    return [(*match_record(row[:-1], seats.get(row[0], [])), row[-1]) for row in rows]


def _marks(count: int) -> str:
    """A statement's ``count`` parameters."""
    return ", ".join("?" * count)


def _counted(match_id: str) -> Op:
    """A change of the match's seats or status without an action, counted."""
    return Op("UPDATE matches SET changes = changes + 1 WHERE match_id = ?", (match_id,))


def _seat_updates(match_id: str, seats: list[SeatRecord], version: int | None = None) -> list[Op]:
    """Who plays ``seats`` and their reserves: unless the match has an action after ``version``, if given."""
    return [
        Op(
            "UPDATE seats SET played_by = ?, reserve_ms = ?, ai_turns = ? WHERE match_id = ? AND seat = ?"
            " AND (? IS NULL OR NOT EXISTS (SELECT 1 FROM actions WHERE match_id = ? AND version > ?))",
            (seat.played_by, seat.reserve_ms, seat.ai_turns, match_id, seat.seat, version, match_id, version),
            one_row=True,
        )
        for seat in seats
    ]
