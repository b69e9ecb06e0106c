"""Storage of matches behind one interface: SQLite (embedded, one server) or PostgreSQL (shared by
any number of servers)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from .records import MatchRecord, PlayerRecord, QueuedRecord, SeatRecord

# One stored action: (seat, action, request id), in version order; the action is its game's.
StoredAction = tuple[int, Any, str]


class StoreError(Exception):
    """A storage refusal or failure; ``reason`` is one line for the caller, with no SQL in it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class StoreUnavailable(StoreError):
    """The storage cannot make a write durable now (disk full, file removed, I/O error)."""


class StoreBusy(StoreUnavailable):
    """The storage has no room for the call now: more calls wait for the database than it is given
    connections for, in time. Nothing was done; the call may be repeated after ``retry_after`` seconds.
    A busy store is not a failing one: it stays healthy."""

    def __init__(self, reason: str, retry_after: float) -> None:
        super().__init__(reason)
        self.retry_after = retry_after


class Conflict(StoreError):
    """The write contradicts what is stored: the version or request id is taken, the seat taken."""


class StoreLocked(StoreError):
    """Another server holds the database."""


@dataclass(frozen=True)
class AgentRecord:
    """An AI agent's last heartbeat: the levels it plays (none: all), its free seats, when (Unix ms)."""

    agent_id: str
    levels: list[str]
    free_slots: int
    seen_ms: int


@dataclass(frozen=True)
class MatchListing:
    """What a listing shows of a match without loading it: its record, status and version."""

    record: MatchRecord
    status: str
    version: int


class Store(Protocol):
    """Durable storage of matches. Every write has returned only once it survives a killed process;
    a failure raises StoreUnavailable (nothing is then acknowledged) and the store reports itself
    unhealthy until a write succeeds again; a store too busy to take a call now refuses it with
    StoreBusy, and stays healthy."""

    # Whether other servers write to it too: then what a server holds in memory may fall behind.
    shared: bool
    on_commit: Callable[[float], None] | None  # told each write's seconds (metrics)

    @property
    def failure(self) -> str | None:
        """Why the store cannot write now; None while it is healthy."""
        ...

    async def follow(self, changed: Callable[[str], None], missed: Callable[[], None]) -> None:
        """From now on, call ``changed(match_id)`` for each change another server commits, and
        ``missed()`` whenever some may have gone by unheard (a shared store only)."""
        ...

    async def create_match(self, match: MatchRecord) -> None: ...

    async def save_seat(self, match_id: str, seat: SeatRecord, status: str) -> None:
        """Take a seat that was open; ``status`` is the match's status once it is taken."""
        ...

    async def release_seat(self, match_id: str, seat: int) -> None:
        """Open a taken seat of a waiting match again."""
        ...

    async def update_seats(self, match_id: str, seats: list[SeatRecord], version: int | None = None) -> None:
        """Who plays these taken seats, and their reserves. With ``version`` (the version a clock decided
        it at), only while the match has no later action: Conflict once it has moved on."""
        ...

    def append_action(
        self,
        match_id: str,
        version: int,
        seat: int,
        action: str,
        request_id: str,
        finished: bool,
        seats: list[SeatRecord] | None = None,
    ) -> Awaitable[None]:
        """Add version ``version`` of a match, its action as stored (``encoding.action_text``): Conflict
        when it or the request id is taken; with the seats it changed (the mover's reserve)."""
        ...

    async def set_status(self, match_id: str, status: str) -> None: ...

    async def cancel(self, match_id: str) -> None:
        """Cancel a waiting match (Conflict when it no longer waits)."""
        ...

    async def load_match(
        self, match_id: str, after: int = 0
    ) -> tuple[MatchRecord, list[StoredAction]] | None:
        """The match as stored now, with its actions after version ``after``."""
        ...

    async def stamp(self, match_id: str) -> tuple[int, int] | None:
        """The match's version and how often its seats or status changed without an action, as stored
        now (None if there is no such match): whether a match held in memory is current, in one lookup
        of its key in each table."""
        ...

    async def list_matches(
        self,
        status: str | None,
        limit: int,
        after: tuple[int, str] | None,
        player_id: str | None = None,
        game: str | None = None,
    ) -> list[MatchListing]:
        """Newest first (only those where ``player_id`` holds a seat, and only ``game``'s, if given);
        ``after`` is the (created_ms, match_id) of the last match of the previous page."""
        ...

    async def find_bot_seat(self, levels: list[str]) -> tuple[str, int] | None:
        """The oldest open seat reserved for a bot of one of ``levels``, as (match id, seat)."""
        ...

    async def seat_of_token(self, token_hash: str) -> tuple[str, int] | None: ...

    async def count_waiting(self) -> int: ...

    async def open_bot_seats(self) -> dict[str, int]:
        """Bot seats waiting for an agent, by level."""
        ...

    async def waiting_since(self, before_ms: int, bot_seats_only: bool) -> list[str]:
        """Waiting matches created before ``before_ms`` (only those with an open bot seat, if asked)."""
        ...

    async def playing_to_watch(self, unmoved_since_ms: int | None = None) -> list[str]:
        """Matches in play whose clocks run or whose seats the AI plays; with ``unmoved_since_ms``,
        a shared store gives only those with no action stored since (a store of one server: all)."""
        ...

    async def unclassified(self) -> list[str]:
        """Matches stored before statuses were, whose status is not known without replaying them."""
        ...

    # Players and ratings.

    async def save_player(self, player: PlayerRecord) -> None:
        """Add a player, or rename one already stored (its ratings stay)."""
        ...

    async def token_generation(self, player_id: str) -> int | None:
        """The generation of a player's guest tokens (one of an earlier generation is revoked);
        None when there is no such player."""
        ...

    async def rotate_token(self, player_id: str, generation: int) -> None:
        """Move a player's token generation on from ``generation`` (Conflict if it is no longer that)."""
        ...

    async def calibrate(self, players: list[PlayerRecord]) -> None:
        """Add these players (bots), and set each one's rating in its game (``PlayerRecord.game``)
        where it has played no rated match of that game yet."""
        ...

    async def record_rating(self, match_id: str, rating: str, players: list[PlayerRecord]) -> None:
        """Whether a finished match counted and its players' new ratings in their game, each one
        match further on than the rating it was computed from (Conflict if the match was decided
        already, or another match of that game of one of its players was rated meanwhile)."""
        ...

    async def players(self, player_ids: list[str], game: str = "mercado") -> dict[str, PlayerRecord]:
        """The players stored of these, with their ratings in ``game`` (the default where none)."""
        ...

    async def leaderboard(
        self, limit: int, after: tuple[float, str] | None, game: str = "mercado"
    ) -> list[PlayerRecord]:
        """Players with a rated match of ``game``, best display rating there first; ``after``: the
        (display rating, player id) of the last of the previous page."""
        ...

    async def finished_unrated(self) -> list[str]:
        """Finished matches whose rating was not decided yet."""
        ...

    # The matchmaking queue, which every server groups from (a player's stream is on one of them).

    async def enqueue(self, seeker: QueuedRecord, stale_before_ms: int) -> None:
        """Queue a player (Conflict when it is queued already and was seen since ``stale_before_ms``)."""
        ...

    async def dequeue(self, player_id: str, since_ms: int) -> None:
        """Take the player out of the queue (its entry of ``since_ms``: not one made since)."""
        ...

    async def queued(self, seen: list[str], now_ms: int, stale_before_ms: int) -> list[QueuedRecord]:
        """Mark the players ``seen`` (those whose streams this server holds) as seen at ``now_ms``, and
        return every queued player seen since ``stale_before_ms``."""
        ...

    async def claim_queued(self, player_ids: list[str], now_ms: int, claimed_before_ms: int) -> bool:
        """Claim these unmatched players for a match this server makes: all of them (True) or, when
        another server claimed one since ``claimed_before_ms``, none."""
        ...

    async def unclaim_queued(self, player_ids: list[str]) -> None:
        """Their match could not be made: they may be grouped again."""
        ...

    async def matched(self, seats: dict[str, tuple[str, int]]) -> None:
        """The match and seat (by player) made for claimed players, for their servers to tell them."""
        ...

    async def reissue_token(self, match_id: str, seat: int, player_id: str, token_hash: str) -> None:
        """A new token for ``player_id``'s seat (Conflict if the seat is not that player's)."""
        ...

    # The AI agents' heartbeats, which every server of a shared store must know of.

    async def save_agent(self, agent_id: str, levels: list[str], free_slots: int, seen_ms: int) -> None:
        """An agent's last heartbeat (a shared store only: one server knows its agents itself)."""
        ...

    async def live_agents(self, since_ms: int) -> list[AgentRecord]:
        """The agents heard from since ``since_ms``, through any server (a shared store only)."""
        ...

    async def secret(self, name: str) -> bytes:
        """A random secret of the server's, made the first time it is asked for, the same ever after."""
        ...

    def close(self) -> None: ...


__all__ = [
    "AgentRecord",
    "Conflict",
    "MatchListing",
    "QueuedRecord",
    "Store",
    "StoreBusy",
    "StoreError",
    "StoreLocked",
    "StoreUnavailable",
    "StoredAction",
]
