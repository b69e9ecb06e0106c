"""The PostgreSQL store: one database that any number of servers share.

Every write is one transaction, committed before it returns (PostgreSQL's own
group commit batches the flushes of concurrent writers). The database orders
each match's actions: an action is stored only at a version nobody took yet,
and a request id only once per match (unique keys), so two servers racing on
one match store exactly one action and the other hears Conflict.

Each write that changes a match tells every server of it with ``NOTIFY``
(payload: the writing server, the match id and the version), inside its
transaction, so a notification is sent exactly when the change commits. A
server listens on a connection of its own (``follow``), and sends itself a
heartbeat through it every second: a connection that is lost, or that has not
carried a heartbeat for a few seconds (its database process stopped, say), is
made again, and its owner told that notifications may have been missed, who
then reads again every match it holds. Until a heartbeat is heard again the
store reports itself unhealthy: the server cannot vouch that it hears the others.

A lost connection, a database that restarts or refuses connections: calls
fail with StoreUnavailable (nothing is acknowledged), the store reports itself
unhealthy and probes with a small write until one succeeds.

A crowd is not a failure: calls take their turn for the pool's connections, in
the order they came, and one that waits too long, or finds too many waiting
already, is refused with StoreBusy before anything is sent (the caller may try
again shortly), while the store stays healthy for every other call.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeAlias, TypeVar

import asyncpg

from . import AgentRecord, Conflict, MatchListing, StoreBusy, StoredAction, StoreUnavailable
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
)
from .postgres_schema import migrate
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

Db: TypeAlias = Any  # an asyncpg connection (asyncpg has no type hints)
T = TypeVar("T")
CHANNEL = "mercado_matches"  # where servers tell each other of changed matches
POOL_SIZE = 16  # connections per server
ACQUIRE_SECONDS = 5.0  # a call waits its turn for a free connection this long, then is refused (busy)
WAITING_MOST = 256 * POOL_SIZE  # calls waiting for a connection at most: one more is refused at once
BUSY_RETRY_SECONDS = 1.0  # what a call refused for a busy store is told to wait before trying again
BUSY_LOG_SECONDS = 10.0  # between two warnings that calls were refused for a busy store
STATEMENT_SECONDS = 10.0  # a statement runs this long at most, then the database counts as failing
CONNECT_SECONDS = 5.0
PROBE_SECONDS = 1.0  # how often an unhealthy store tries a write
RECONNECT_SECONDS = 1.0  # how often a lost listening connection is tried again
HEARTBEAT_SECONDS = 1.0  # how often a server notifies itself through its listening connection
SILENT_SECONDS = 5.0  # a listening connection that carried no heartbeat this long is made again
LISTENER_NAME = "mercado-listener"  # the listening connection's application_name (pg_stat_activity)
# What a driver raises when the database cannot be reached, answers no more, or refuses for now.
UNREACHABLE: tuple[type[BaseException], ...] = (
    OSError,
    TimeoutError,
    asyncpg.InterfaceError,
    asyncpg.PostgresConnectionError,
    asyncpg.exceptions.OperatorInterventionError,
    asyncpg.exceptions.InsufficientResourcesError,
    # A pooled connection the database is closing (it sent its last error, e.g. at shutdown), handed
    # out before the driver saw it close: its next statement is refused before anything is sent.
    asyncpg.InternalClientError,
)
log = logging.getLogger("mercado.store")


class _RowMissing(Exception):
    """A statement that had to change one row changed none."""


# What a write that contradicts the stored data raises: a match id, version or request id taken, a
# match that is not there, a row that had to change and did not. Its caller hears Conflict.
REFUSED: tuple[type[BaseException], ...] = (
    asyncpg.UniqueViolationError,
    asyncpg.ForeignKeyViolationError,
    _RowMissing,
)
# What the database aborts a transaction with when concurrent ones cannot all go on (a deadlock, a
# serialization failure): nothing of it was written, and it is tried again.
RETRIED = asyncpg.exceptions.TransactionRollbackError
WRITE_ATTEMPTS = 3


def is_postgres(db: str) -> bool:
    """Whether ``--db`` names a PostgreSQL database rather than a SQLite file."""
    return db.startswith(("postgresql://", "postgres://"))


def _unavailable(error: BaseException) -> StoreUnavailable:
    if isinstance(error, UNREACHABLE):
        return StoreUnavailable("storage is unavailable: the database cannot be reached")
    return StoreUnavailable("storage is unavailable: the database failed")


class _PooledConnection(asyncpg.Connection):  # type: ignore[misc]
    """A connection given back to the pool as it is, without asyncpg's reset statement (a round trip
    per call): the store leaves no session state on it (no SET, LISTEN or session-level lock), and
    an unfinished transaction is still rolled back."""

    def get_reset_query(self) -> str:
        return ""


class PostgresStore:
    """Matches, seats, actions and players in a PostgreSQL database shared by every server."""

    shared = True  # other servers write to it too

    def __init__(self, pool: Any, dsn: str, on_health: Callable[[str | None], None] | None = None) -> None:
        self.pool = pool
        self.dsn = dsn
        self.node = uuid.uuid4().hex[:12]  # this server, in the notifications it sends
        self.on_health = on_health
        self.on_commit: Callable[[float], None] | None = None  # told each write's seconds
        self._failure: str | None = None  # why writes fail
        self._deaf: str | None = None  # why the other servers' news may go unheard
        self.heard_at = 0.0  # when the listening connection last carried a heartbeat (monotonic)
        self.prober: asyncio.Task[None] | None = None
        self.listener: asyncio.Task[None] | None = None
        # A call's turn for a pooled connection: the pool's own wait cannot tell a call that waits
        # for a free connection from one that waits for a connection being made to the database.
        self.turns = asyncio.Semaphore(POOL_SIZE)
        self.waiting = 0  # calls waiting for their turn
        self.busy_refusals = 0  # since the last warning of a busy store
        self.busy_logged_at = -BUSY_LOG_SECONDS

    @classmethod
    async def open(cls, dsn: str, on_health: Callable[[str | None], None] | None = None) -> PostgresStore:
        """Connect to the database at ``dsn`` and bring its schema up to date."""
        pool = None
        try:
            pool = await asyncpg.create_pool(
                dsn,
                connection_class=_PooledConnection,
                min_size=1,
                max_size=POOL_SIZE,
                timeout=CONNECT_SECONDS,
                command_timeout=STATEMENT_SECONDS,
            )
            async with pool.acquire() as db:
                await migrate(db)
        except (*UNREACHABLE, asyncpg.PostgresError, ValueError) as error:
            # A wrong address, password or database name, or a database that cannot be reached.
            if pool is not None:
                pool.terminate()
            first_line = (str(error) or type(error).__name__).splitlines()[0]
            raise StoreUnavailable(
                f"storage is unavailable: cannot use the database ({first_line})"
            ) from None
        return cls(pool, dsn, on_health)

    @property
    def failure(self) -> str | None:
        return self._failure or self._deaf

    # --- writes --------------------------------------------------------------

    async def create_match(self, match: MatchRecord) -> None:
        status = WAITING if any(not s.taken for s in match.seats) else PLAYING
        seats = [seat_values(s) for s in match.seats]

        # One statement, so one round trip: the match, then its seats (their key checked at its end).
        async def write(db: Db) -> None:
            await db.execute(
                "WITH match AS (INSERT INTO matches (match_id, game, options, seed, created_ms, status, salt,"
                f" seed_chosen, clock, hot_seat, unrated) VALUES ({_marks(11)}))"
                f" INSERT INTO seats (match_id, {SEAT_COLUMNS}) SELECT $1, * FROM unnest($12::int[],"
                " $13::text[], $14::text[], $15::text[], $16::text[], $17::bigint[], $18::text[], $19::int[],"
                " $20::text[])",
                match.match_id,
                match.game,
                options_text(match.options),
                str(match.seed),
                match.created_ms,
                status,
                match.salt,
                match.seed_chosen,
                clock_text(match.clock),
                match.hot_seat,
                match.unrated,
                *(list(column) for column in zip(*seats, strict=True)),
            )

        await self._write(write, one_statement=True)

    async def save_seat(self, match_id: str, seat: SeatRecord, status: str) -> None:
        # One statement, so one round trip: the seat, if still open, then (the seat locked first, as
        # cancel locks them) the match's status and count of changes, and the news; none of it if the
        # seat was not open.
        async def write(db: Db) -> None:
            news = await db.fetch(
                "WITH seat AS (UPDATE seats SET display_name = $1, token_hash = $2, played_by = $3,"
                " reserve_ms = $4, player_id = $5, request_hash = $6 WHERE match_id = $7 AND seat = $8"
                " AND token_hash IS NULL AND played_by = 'owner' RETURNING 1),"
                " match AS (UPDATE matches SET status = $9, changes = changes + 1 WHERE match_id = $7"
                " AND EXISTS (SELECT 1 FROM seat) RETURNING 1)"
                " SELECT pg_notify($10, $11) FROM match",
                seat.display_name,
                seat.token_hash,
                seat.played_by,
                seat.reserve_ms,
                seat.player_id,
                seat.request_hash,
                match_id,
                seat.seat,
                status,
                CHANNEL,
                self._news(match_id),
            )
            if len(news) != 1:
                raise _RowMissing

        await self._write(write, one_statement=True)

    async def release_seat(self, match_id: str, seat: int) -> None:
        async def write(db: Db) -> None:
            await _one_row(
                db,
                "UPDATE seats SET display_name = '', token_hash = NULL, played_by = $1, reserve_ms = 0,"
                " player_id = NULL, request_hash = NULL WHERE match_id = $2 AND seat = $3"
                " AND token_hash IS NOT NULL",
                OWNER,
                match_id,
                seat,
            )
            await self._notify(db, match_id)

        await self._write(write)

    async def update_seats(self, match_id: str, seats: list[SeatRecord], version: int | None = None) -> None:
        async def write(db: Db) -> None:
            if version is not None:
                # An action being stored holds a key share of the match's row: this waits for it to
                # commit, and one stored from now on waits for this. The next statement, which reads
                # anew, then sees every action committed before.
                await db.execute("SELECT 1 FROM matches WHERE match_id = $1 FOR UPDATE", match_id)
            updated = await db.fetchval(
                _SEAT_UPDATES + " SELECT count(*) FROM updated",
                match_id,
                *_columns(seats),
                version,
            )
            if updated != len(seats):
                raise _RowMissing
            await self._notify(db, match_id)

        await self._write(write)

    async def append_action(
        self,
        match_id: str,
        version: int,
        seat: int,
        action: str,
        request_id: str,
        finished: bool,
        seats: list[SeatRecord] | None = None,
    ) -> None:
        changed = seats or []

        # One statement, so one round trip: the action, the seats it changed, the status and the news.
        async def write(db: Db) -> None:
            updated = await db.fetchval(
                _SEAT_UPDATES
                + ", action AS (INSERT INTO actions (match_id, version, seat, action, request_id)"
                " VALUES ($1, $7, $8, $9, $10)),"
                " status AS (UPDATE matches SET status = $11 WHERE match_id = $1 AND $12)"
                " SELECT (SELECT count(*) FROM updated), pg_notify($13, $14)",
                match_id,
                *_columns(changed),
                None,  # the seats change with the action, at the version it takes
                version,
                seat,
                action,
                request_id,
                FINISHED,
                finished,
                CHANNEL,
                self._news(match_id, version),
            )
            if updated != len(changed):  # a seat the match does not have: nothing is stored
                raise _RowMissing

        # Without seats to change there is nothing to check after the statement, which then needs no
        # transaction around it; with seats, one that is missing rolls the whole back.
        await self._write(write, one_statement=not changed)

    async def set_status(self, match_id: str, status: str) -> None:
        async def write(db: Db) -> None:
            await db.execute("UPDATE matches SET status = $1 WHERE match_id = $2", status, match_id)
            await self._notify(db, match_id)

        await self._write(write)

    async def cancel(self, match_id: str) -> None:
        async def write(db: Db) -> None:
            # The seats before the match, the order in which save_seat locks them: a seat taken while
            # the match is cancelled waits for the other write instead of deadlocking with it. A
            # match that no longer waits rolls the closed seats back.
            await db.execute(
                "UPDATE seats SET played_by = $1 WHERE match_id = $2 AND token_hash IS NULL", CLOSED, match_id
            )
            await _one_row(
                db,
                "UPDATE matches SET status = $1 WHERE match_id = $2 AND status = $3",
                CANCELLED,
                match_id,
                WAITING,
            )
            await self._notify(db, match_id)

        await self._write(write)

    async def save_player(self, player: PlayerRecord) -> None:
        async def write(db: Db) -> None:
            await db.execute(SAVE_PLAYER.format(_marks(4)), *new_player_row(player))

        await self._write(write, one_statement=True)

    async def calibrate(self, players: list[PlayerRecord]) -> None:
        async def write(db: Db) -> None:
            saved = {p.player_id: p for p in players}.values()
            await db.executemany(SAVE_PLAYER.format(_marks(4)), [new_player_row(p) for p in saved])
            await db.executemany(CALIBRATE.format(_marks(7)), [rating_row(p) for p in players])

        await self._write(write)

    async def record_rating(self, match_id: str, rating: str, players: list[PlayerRecord]) -> None:
        async def write(db: Db) -> None:
            await _one_row(
                db, "UPDATE matches SET rating = $1 WHERE match_id = $2 AND rating IS NULL", rating, match_id
            )
            for p in players:
                await _one_row(db, RECORD_RATING.format(_marks(7)), *rating_row(p))

        await self._write(write)

    async def _write(self, write: Callable[[Db], Awaitable[None]], one_statement: bool = False) -> None:
        """Run ``write`` in a transaction of its own; return once it is committed. A write of
        ``one_statement`` is a transaction by itself: it saves the round trips of BEGIN and COMMIT."""
        started = time.perf_counter()
        for attempt in range(1, WRITE_ATTEMPTS + 1):
            try:
                async with self._connection(retry=attempt < WRITE_ATTEMPTS) as db:
                    if one_statement:
                        await write(db)
                    else:
                        async with db.transaction():
                            await write(db)
                break
            except REFUSED:
                raise Conflict("the match changed meanwhile") from None
            except RETRIED:
                log.info("a write gave way to a concurrent one; trying it again")
        self._set_failure(None)
        if self.on_commit:
            self.on_commit(time.perf_counter() - started)

    def _news(self, match_id: str, version: int | None = None) -> str:
        return f"{self.node} {match_id} {'' if version is None else version}"

    async def _notify(self, db: Db, match_id: str) -> None:
        """Count a change of ``match_id``'s seats or status, and tell every server of it once this
        transaction commits."""
        await db.execute(
            "WITH counted AS (UPDATE matches SET changes = changes + 1 WHERE match_id = $2)"
            " SELECT pg_notify($1, $3)",
            CHANNEL,
            match_id,
            self._news(match_id),
        )

    # --- reads ---------------------------------------------------------------

    async def _read(self, query: Callable[[Db], Awaitable[T]]) -> T:
        async with self._connection() as db:
            return await query(db)

    async def load_match(
        self, match_id: str, after: int = 0
    ) -> tuple[MatchRecord, list[StoredAction]] | None:
        async def query(db: Db) -> tuple[MatchRecord, list[StoredAction]] | None:
            # One statement: one snapshot of the match, its seats and its actions.
            row = await db.fetchrow(
                f"{_MATCH_SELECT}, ARRAY(SELECT ROW(seat, action, request_id) FROM actions a"
                " WHERE a.match_id = m.match_id AND version > $2 ORDER BY version)"
                " FROM matches m WHERE match_id = $1",
                match_id,
                after,
            )
            if row is None:
                return None
            record, _, _ = _listing(row)
            game = record.game
            return record, [(seat, action_of(game, text), request_id) for seat, text, request_id in row[-1]]

        return await self._read(query)

    async def stamp(self, match_id: str) -> tuple[int, int] | None:
        async def query(db: Db) -> tuple[int, int] | None:
            row = await db.fetchrow(_STAMP, match_id)
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
            params.append(player_id)
            where.append(f"match_id IN (SELECT match_id FROM seats WHERE player_id = ${len(params)})")
        if status is not None:
            params.append(status)
            where.append(f"status = ${len(params)}")
        if game is not None:
            params.append(game)
            where.append(f"game = ${len(params)}")
        if after is not None:
            params += after
            where.append(f"(created_ms, match_id) < (${len(params) - 1}, ${len(params)})")
        params.append(limit)
        clause = ("WHERE " + " AND ".join(where) if where else "") + (
            f" ORDER BY created_ms DESC, match_id DESC LIMIT ${len(params)}"
        )

        async def query(db: Db) -> list[MatchListing]:
            rows = await db.fetch(f"{_MATCH_SELECT}, {_VERSION} FROM matches m {clause}", *params)
            return [MatchListing(record, status, version) for record, status, version in map(_listing, rows)]

        return await self._read(query)

    async def find_bot_seat(self, levels: list[str]) -> tuple[str, int] | None:
        async def query(db: Db) -> tuple[str, int] | None:
            row = await db.fetchrow(
                "SELECT match_id, seat FROM seats WHERE bot_level = ANY($1::text[]) AND token_hash IS NULL"
                " AND played_by = $2 ORDER BY created LIMIT 1",
                levels,
                OWNER,
            )
            return None if row is None else (row[0], row[1])

        return await self._read(query)

    async def seat_of_token(self, token_hash: str) -> tuple[str, int] | None:
        async def query(db: Db) -> tuple[str, int] | None:
            row = await db.fetchrow("SELECT match_id, seat FROM seats WHERE token_hash = $1", token_hash)
            return None if row is None else (row[0], row[1])

        return await self._read(query)

    async def count_waiting(self) -> int:
        return int(await self._fetchval("SELECT count(*) FROM matches WHERE status = $1", WAITING))

    async def open_bot_seats(self) -> dict[str, int]:
        async def query(db: Db) -> dict[str, int]:
            rows = await db.fetch(
                "SELECT bot_level, count(*) FROM seats WHERE bot_level IS NOT NULL AND token_hash IS NULL"
                " AND played_by = $1 GROUP BY bot_level",
                OWNER,
            )
            return {level: int(count) for level, count in rows}

        return await self._read(query)

    async def waiting_since(self, before_ms: int, bot_seats_only: bool) -> list[str]:
        if bot_seats_only:
            return await self._column(
                "SELECT DISTINCT s.match_id FROM seats s JOIN matches m USING (match_id)"
                " WHERE s.bot_level IS NOT NULL AND s.token_hash IS NULL AND s.played_by = $1"
                " AND m.created_ms < $2",
                OWNER,
                before_ms,
            )
        return await self._column(
            "SELECT match_id FROM matches WHERE status = $1 AND created_ms < $2", WAITING, before_ms
        )

    async def playing_to_watch(self, unmoved_since_ms: int | None = None) -> list[str]:
        return await self._column(
            "SELECT match_id FROM matches m WHERE status = $1 AND (clock IS NOT NULL OR EXISTS"
            " (SELECT 1 FROM seats s WHERE s.match_id = m.match_id AND s.played_by != $2))"
            " AND ($3::bigint IS NULL OR coalesce((SELECT max(stored_ms) FROM actions a"
            " WHERE a.match_id = m.match_id), m.created_ms) < $3)",
            PLAYING,
            OWNER,
            unmoved_since_ms,
        )

    async def unclassified(self) -> list[str]:
        return []  # every match has had a status since this schema's first version

    async def players(self, player_ids: list[str], game: str = "mercado") -> dict[str, PlayerRecord]:
        async def query(db: Db) -> dict[str, PlayerRecord]:
            rows = await db.fetch(
                f"SELECT {PLAYER_COLUMNS} FROM players p LEFT JOIN ratings r"
                " ON r.player_id = p.player_id AND r.game = $1 WHERE p.player_id = ANY($2::text[])",
                game,
                player_ids,
            )
            return {row[0]: player_record(row, game) for row in rows}

        return await self._read(query)

    async def token_generation(self, player_id: str) -> int | None:
        async def query(db: Db) -> int | None:
            found = await db.fetchval("SELECT token_generation FROM players WHERE player_id = $1", player_id)
            return None if found is None else int(found)

        return await self._read(query)

    async def rotate_token(self, player_id: str, generation: int) -> None:
        async def write(db: Db) -> None:
            await _one_row(
                db,
                "UPDATE players SET token_generation = $1 WHERE player_id = $2 AND token_generation = $3",
                generation + 1,
                player_id,
                generation,
            )

        await self._write(write)

    async def leaderboard(
        self, limit: int, after: tuple[float, str] | None, game: str = "mercado"
    ) -> list[PlayerRecord]:
        where = "r.game = $2 AND r.rated_matches > 0"
        params: list[object] = [limit, game]
        if after is not None:
            where += " AND (r.rating < $3 OR (r.rating = $3 AND r.player_id > $4))"
            params += after

        async def query(db: Db) -> list[PlayerRecord]:
            rows = await db.fetch(
                f"SELECT {PLAYER_COLUMNS} FROM ratings r JOIN players p ON p.player_id = r.player_id"
                f" WHERE {where} ORDER BY r.rating DESC, r.player_id LIMIT $1",
                *params,
            )
            return [player_record(row, game) for row in rows]

        return await self._read(query)

    async def finished_unrated(self) -> list[str]:
        return await self._column(
            "SELECT match_id FROM matches WHERE rating IS NULL AND status = $1", FINISHED
        )

    async def secret(self, name: str) -> bytes:
        key = f"secret:{name}"

        async def write(db: Db) -> None:
            # Servers starting together may race here: the first secret stored is everyone's.
            await db.execute(
                "INSERT INTO meta VALUES ($1, $2) ON CONFLICT (key) DO NOTHING", key, secrets.token_hex(32)
            )

        await self._write(write)
        return bytes.fromhex(await self._fetchval("SELECT value FROM meta WHERE key = $1", key))

    async def enqueue(self, seeker: QueuedRecord, stale_before_ms: int) -> None:
        async def write(db: Db) -> None:
            sql = ENQUEUE.format(_marks(8), "$9")
            await _one_row(db, sql, *enqueue_values(seeker), stale_before_ms)

        await self._write(write)

    async def dequeue(self, player_id: str, since_ms: int) -> None:
        async def write(db: Db) -> None:
            await db.execute("DELETE FROM queue WHERE player_id = $1 AND since_ms = $2", player_id, since_ms)

        await self._write(write)

    async def queued(self, seen: list[str], now_ms: int, stale_before_ms: int) -> list[QueuedRecord]:
        async def write(db: Db) -> None:
            await db.execute("UPDATE queue SET seen_ms = $1 WHERE player_id = ANY($2::text[])", now_ms, seen)
            await db.execute("DELETE FROM queue WHERE seen_ms < $1", stale_before_ms)

        await self._write(write)

        async def query(db: Db) -> list[QueuedRecord]:
            return [queued_record(row) for row in await db.fetch(f"SELECT {QUEUED_COLUMNS} FROM queue")]

        return await self._read(query)

    async def claim_queued(self, player_ids: list[str], now_ms: int, claimed_before_ms: int) -> bool:
        async def write(db: Db) -> None:
            claimed = await db.execute(
                "UPDATE queue SET claimed_ms = $1 WHERE player_id = ANY($2::text[]) AND match_id IS NULL"
                " AND claimed_ms < $3",
                now_ms,
                player_ids,
                claimed_before_ms,
            )
            if claimed != f"UPDATE {len(player_ids)}":
                raise _RowMissing  # rolls the claims back

        try:
            await self._write(write)
        except Conflict:
            return False
        return True

    async def unclaim_queued(self, player_ids: list[str]) -> None:
        async def write(db: Db) -> None:
            await db.execute("UPDATE queue SET claimed_ms = 0 WHERE player_id = ANY($1::text[])", player_ids)

        await self._write(write)

    async def matched(self, seats: dict[str, tuple[str, int]]) -> None:
        async def write(db: Db) -> None:
            await db.executemany(
                "UPDATE queue SET match_id = $1, seat = $2 WHERE player_id = $3",
                [(match_id, seat, player_id) for player_id, (match_id, seat) in seats.items()],
            )

        await self._write(write)

    async def reissue_token(self, match_id: str, seat: int, player_id: str, token_hash: str) -> None:
        async def write(db: Db) -> None:
            await _one_row(
                db,
                "UPDATE seats SET token_hash = $1 WHERE match_id = $2 AND seat = $3 AND player_id = $4",
                token_hash,
                match_id,
                seat,
                player_id,
            )
            await self._notify(db, match_id)

        await self._write(write)

    async def save_agent(self, agent_id: str, levels: list[str], free_slots: int, seen_ms: int) -> None:
        async def write(db: Db) -> None:
            await db.execute(
                "INSERT INTO agents VALUES ($1, $2, $3, $4) ON CONFLICT (agent_id) DO UPDATE SET"
                " levels = excluded.levels, free_slots = excluded.free_slots, seen_ms = excluded.seen_ms",
                agent_id,
                levels,
                free_slots,
                seen_ms,
            )

        await self._write(write)

    async def live_agents(self, since_ms: int) -> list[AgentRecord]:
        async def query(db: Db) -> list[AgentRecord]:
            rows = await db.fetch("SELECT * FROM agents WHERE seen_ms >= $1", since_ms)
            return [AgentRecord(row[0], list(row[1]), row[2], row[3]) for row in rows]

        return await self._read(query)

    async def _fetchval(self, sql: str, *params: object) -> Any:
        async def query(db: Db) -> Any:
            return await db.fetchval(sql, *params)

        return await self._read(query)

    async def _column(self, sql: str, *params: object) -> list[str]:
        async def query(db: Db) -> list[str]:
            return [row[0] for row in await db.fetch(sql, *params)]

        return await self._read(query)

    # --- connections and health ----------------------------------------------

    @contextlib.asynccontextmanager
    async def _connection(self, retry: bool = False) -> AsyncIterator[Db]:
        """A pooled connection, in turn (``_turn``); the database's unavailability as StoreUnavailable.
        A refused write goes through as it is, and so does an aborted one when the caller will
        ``retry`` it."""
        await self._turn()
        try:
            async with self.pool.acquire(timeout=ACQUIRE_SECONDS) as db:
                yield db
        except REFUSED:
            raise
        except (*UNREACHABLE, asyncpg.PostgresError) as error:
            if retry and isinstance(error, RETRIED):
                raise
            log.error("storage failure", extra={"error": str(error) or type(error).__name__})
            failure = _unavailable(error)
            self._set_failure(failure.reason)
            raise failure from None
        finally:
            self.turns.release()

    async def _turn(self) -> None:
        """Wait for one of the pool's connections to be free for this call (each released with
        ``turns.release()``), in the order the calls came; refused (``_busy``) if WAITING_MOST calls
        wait already, or if none is free within ACQUIRE_SECONDS."""
        if not self.turns.locked():  # a connection is free and nobody waits for one
            await self.turns.acquire()
            return
        if self.waiting >= WAITING_MOST:
            raise self._busy("too many calls are waiting for the database")
        self.waiting += 1
        try:
            await asyncio.wait_for(self.turns.acquire(), ACQUIRE_SECONDS)
        except TimeoutError:
            raise self._busy("every database connection stayed in use") from None
        finally:
            self.waiting -= 1

    def _busy(self, why: str) -> StoreUnavailable:
        """StoreBusy for a call refused its turn; StoreUnavailable while the database fails (the
        connections are held by statements it does not answer: no crowd's doing)."""
        if self._failure is not None:
            return StoreUnavailable(self._failure)
        self.busy_refusals += 1
        now = time.monotonic()
        if now - self.busy_logged_at >= BUSY_LOG_SECONDS:
            log.warning(
                "storage busy: calls refused, to be tried again",
                extra={"refused": self.busy_refusals, "why": why, "waiting": self.waiting},
            )
            self.busy_logged_at, self.busy_refusals = now, 0
        return StoreBusy(f"storage is busy: {why}; try again shortly", BUSY_RETRY_SECONDS)

    def _set_failure(self, reason: str | None) -> None:
        if reason == self._failure:
            return
        before = self.failure
        self._failure = reason
        if reason is None:
            log.warning("storage works again")
        elif self.prober is None:
            self.prober = asyncio.get_running_loop().create_task(self._probe())
        self._report(before)

    def _set_deaf(self, reason: str | None) -> None:
        if reason == self._deaf:
            return
        before = self.failure
        self._deaf = reason
        if reason is None:
            log.warning("hearing other servers again")
        self._report(before)

    def _report(self, before: str | None) -> None:
        if self.failure != before and self.on_health:
            self.on_health(self.failure)

    async def _probe(self) -> None:
        """While the store fails, try a small write every PROBE_SECONDS: healthy again once one succeeds."""

        async def write(db: Db) -> None:
            await db.execute(
                "INSERT INTO meta VALUES ('probe', now()::text)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value"
            )

        try:
            while self._failure is not None:
                await asyncio.sleep(PROBE_SECONDS)
                with contextlib.suppress(StoreUnavailable):
                    await self._write(write)
        finally:
            self.prober = None

    # --- news from the other servers -----------------------------------------

    async def follow(self, changed: Callable[[str], None], missed: Callable[[], None]) -> None:
        """From now on, call ``changed(match_id)`` for each change another server commits, and
        ``missed()`` after a lost connection, when some may have gone by unheard (once per store)."""
        assert self.listener is None, "a store follows the other servers once"
        listening = asyncio.Event()
        self.listener = asyncio.get_running_loop().create_task(self._listen(changed, missed, listening))
        await listening.wait()

    async def _listen(
        self, changed: Callable[[str], None], missed: Callable[[], None], listening: asyncio.Event
    ) -> None:
        def heard(_db: Any, _pid: int, _channel: str, payload: str) -> None:
            node, _, rest = payload.partition(" ")
            if node != self.node:
                changed(rest.rpartition(" ")[0])  # the match id, without the version

        def beat(*_: object) -> None:
            self.heard_at = time.monotonic()
            self._set_deaf(None)

        while True:
            lost = asyncio.Event()
            try:
                db = await asyncpg.connect(
                    self.dsn,
                    timeout=CONNECT_SECONDS,
                    command_timeout=SILENT_SECONDS,
                    server_settings={"application_name": LISTENER_NAME},
                )
            except (*UNREACHABLE, asyncpg.PostgresError) as error:
                # The server starts anyway: its calls say whether the database is unavailable.
                listening.set()
                log.warning("cannot listen to other servers yet", extra={"error": str(error)})
                self._set_deaf("cannot hear the other servers: the database cannot be reached")
                await asyncio.sleep(RECONNECT_SECONDS)
                continue
            try:
                db.add_termination_listener(functools.partial(_set, lost))
                await db.add_listener(CHANNEL, heard)
                await db.add_listener(self._beats, beat)
                # Once follow has returned (listening, or not reached at first), changes may have
                # gone by unheard until now.
                if listening.is_set():
                    log.warning("listening to other servers again")
                    missed()
                listening.set()
                await self._keep_hearing(db, lost)
                log.warning("lost the connection that listens to other servers; reconnecting")
            except (*UNREACHABLE, asyncpg.PostgresError) as error:
                log.warning(
                    "the connection that listens to other servers failed or fell silent; reconnecting",
                    extra={"error": str(error) or type(error).__name__},
                )
            finally:
                db.terminate()
            self._set_deaf("cannot hear the other servers: listening again")
            await asyncio.sleep(RECONNECT_SECONDS)

    async def _keep_hearing(self, db: Db, lost: asyncio.Event) -> None:
        """Send a heartbeat through the listening connection every HEARTBEAT_SECONDS until it is lost;
        TimeoutError once none has come back for SILENT_SECONDS (its statements time out as soon)."""
        self.heard_at = time.monotonic()
        while not lost.is_set():
            await db.execute("SELECT pg_notify($1, '')", self._beats)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(lost.wait(), HEARTBEAT_SECONDS)
            if time.monotonic() - self.heard_at > SILENT_SECONDS:
                raise TimeoutError("no heartbeat came back")

    @property
    def _beats(self) -> str:
        """The channel of this server's heartbeats, which it alone listens to."""
        return f"{CHANNEL}_{self.node}"

    # --- closing -------------------------------------------------------------

    def close(self) -> None:
        """Close every connection (the server has stopped its calls by now)."""
        for task in (self.listener, self.prober):
            if task is not None:
                task.cancel()
        self.pool.terminate()


_MATCH_SELECT = (
    "SELECT "
    + ", ".join(f"m.{column}" for column in MATCH_COLUMNS.split(", "))
    + f", ARRAY(SELECT ROW({SEAT_COLUMNS}) FROM seats s WHERE s.match_id = m.match_id ORDER BY seat)"
)
_VERSION = "coalesce((SELECT max(version) FROM actions a WHERE a.match_id = m.match_id), 0)"
_STAMP = f"SELECT {_VERSION}, changes FROM matches m WHERE match_id = $1"  # two lookups of one key each
# A statement's first part: set who plays these seats and their reserves, from arrays $2 to $5, unless
# the match has an action after version $6 (none: whatever its version).
_SEAT_UPDATES = (
    "WITH updated AS (UPDATE seats s SET played_by = u.played_by, reserve_ms = u.reserve_ms,"
    " ai_turns = u.ai_turns FROM unnest($2::int[], $3::text[], $4::bigint[], $5::int[])"
    " AS u(seat, played_by, reserve_ms, ai_turns) WHERE s.match_id = $1 AND s.seat = u.seat"
    " AND ($6::int IS NULL OR NOT EXISTS (SELECT 1 FROM actions a WHERE a.match_id = $1 AND a.version > $6))"
    " RETURNING 1)"
)


def _columns(seats: list[SeatRecord]) -> tuple[list[Any], ...]:
    return (
        [s.seat for s in seats],
        [s.played_by for s in seats],
        [s.reserve_ms for s in seats],
        [s.ai_turns for s in seats],
    )


def _listing(row: Sequence[Any]) -> tuple[MatchRecord, str, int]:
    """A row of _MATCH_SELECT and one more column: the match, its status, and that column."""
    seats = [SeatRecord(*seat) for seat in row[len(MATCH_COLUMNS.split(", "))]]
    record, status = match_record(row[: len(MATCH_COLUMNS.split(", "))], seats)
    return record, status or PLAYING, row[-1]


def _marks(count: int) -> str:
    """A statement's first ``count`` parameters."""
    return ", ".join(f"${n}" for n in range(1, count + 1))


def _set(event: asyncio.Event, *_: object) -> None:
    event.set()


async def _one_row(db: Db, sql: str, *params: object) -> None:
    """Run ``sql``, which must change exactly one row (else the write is a Conflict)."""
    status: str = await db.execute(sql, *params)  # "UPDATE 1", "INSERT 0 1"
    if not status.endswith(" 1"):
        raise _RowMissing
