"""The authority over matches: seats, tokens, versions, one action at a time, persist then publish.

Independent of the transport and the storage (as boardgame.io's master is):
the RPC layer calls it, a :class:`~server.store.Store` is handed to it.
Every refusal raises a :class:`~server.match.errors.MatchError` and changes
nothing.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
import uuid
from collections.abc import AsyncIterator, Coroutine, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from server.engine import Action, Event, GameState, Options, apply, apply_unchecked, new_game, why_illegal
from server.store import Store

from .errors import (
    InvalidRequest,
    NoSeatLeft,
    NotAllowedNow,
    NotFound,
    PermissionDenied,
    SeatTaken,
    ShuttingDown,
    StaleVersion,
    Unauthenticated,
)
from .records import BOT_LEVELS, ActionRecord, MatchRecord, SeatRecord, Update

T = TypeVar("T")
WAITING, PLAYING, FINISHED = "waiting", "playing", "finished"
MAX_NAME_LENGTH = 40
MAX_REQUEST_ID_LENGTH = 128


def hash_token(token: str) -> str:
    """Tokens are stored only as hashes."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(eq=False)
class Match:
    """A live match: its record, current state and the actions that led to it.

    Only the current state is kept. An earlier version's state, which only a
    stream resuming from far back or a late retry asks for, is rebuilt by
    replaying the actions from the seed: the engine is deterministic, and this
    keeps a match to under a kilobyte per action rather than a state each.
    """

    record: MatchRecord
    state: GameState
    actions: list[ActionRecord] = field(default_factory=list)  # actions[v - 1] made version v
    current: Update | None = None  # the last action's update, with what was rendered from it
    by_request: dict[str, ActionRecord] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    watchers: set[asyncio.Queue[Update | None]] = field(default_factory=set)

    @property
    def match_id(self) -> str:
        return self.record.match_id

    @property
    def version(self) -> int:
        return len(self.actions)

    @property
    def status(self) -> str:
        if self.state.is_terminal:
            return FINISHED
        return PLAYING if all(seat.taken for seat in self.record.seats) else WAITING

    def snapshot(self) -> Update:
        """The current state as an update that carries no action."""
        return Update(self.version, self.state.clone())

    def latest(self) -> Update:
        """The current state: the last action's update (with its renderings), or a snapshot before any."""
        return self.current or self.snapshot()

    def updates(self, records: list[ActionRecord]) -> Iterator[Update]:
        """The updates ``records`` (consecutive actions of this match) made, their states replayed."""
        if not records:
            return
        state = new_game(self.record.options, self.record.seed)
        for earlier in self.actions[: records[0].version - 1]:
            apply_unchecked(state, earlier.action)
        for record in records:
            if self.current is not None and record.version == self.current.version:
                yield self.current
                continue
            state = state.clone()  # each update's state stays as it is
            apply_unchecked(state, record.action)
            yield Update(record.version, state, record)


@dataclass(frozen=True)
class Seated:
    """A seat taken: the secret token is returned once and never stored."""

    match: Match
    seat: int
    token: str


class MatchService:
    """All matches of one server."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.matches: dict[str, Match] = {}
        self.tokens: dict[str, tuple[str, int]] = {}  # token hash -> (match id, seat)
        self.closing = False
        for record, actions in store.load_matches():
            self._restore(record, actions)

    # --- set-up --------------------------------------------------------------

    def _restore(self, record: MatchRecord, actions: Iterable[tuple[int, Action, str]]) -> None:
        state = new_game(record.options, record.seed)
        match = Match(record, state)
        # Only the last update outlives the restore, so one state is advanced in place.
        for seat, action, request_id in actions:
            self._record(match, seat, action, request_id, state, apply(state, action))
        self._index(match)

    def _index(self, match: Match) -> None:
        self.matches[match.match_id] = match
        for seat in match.record.seats:
            if seat.token_hash:
                self.tokens[seat.token_hash] = (match.match_id, seat.seat)

    def create_match(self, options: Options, seats: list[str | None], seed: int | None = None) -> Match:
        """A new match; ``seats`` holds, per seat, None (open) or a bot level."""
        if len(seats) > options.players:
            raise InvalidRequest(f"{len(seats)} seat specs for {options.players} players")
        levels = seats + [None] * (options.players - len(seats))
        for level in levels:
            if level is not None and level not in BOT_LEVELS:
                raise InvalidRequest(f"unknown bot level {level!r}")
        if seed is None:
            seed = secrets.randbits(63)
        record = MatchRecord(
            match_id=uuid.uuid4().hex,
            options=options,
            seed=seed,
            created_ms=int(time.time() * 1000),
            seats=[SeatRecord(seat, level) for seat, level in enumerate(levels)],
        )
        match = Match(record, new_game(options, seed))
        self.store.create_match(record)
        self._index(match)
        return match

    # --- seats ---------------------------------------------------------------

    def get(self, match_id: str) -> Match:
        match = self.matches.get(match_id)
        if match is None:
            raise NotFound(f"no match {match_id!r}")
        return match

    def join(self, match_id: str, display_name: str, seat: int | None = None) -> Seated:
        """Take an open seat (the first one when ``seat`` is None)."""
        match = self.get(match_id)
        name = _check_name(display_name)
        seats = match.record.seats
        if seat is None:
            free = [s for s in seats if s.bot_level is None and not s.taken]
            if not free:
                raise NoSeatLeft(f"match {match_id} has no open seat left")
            chosen = free[0]
        else:
            if not 0 <= seat < len(seats):
                raise NotFound(f"match {match_id} has no seat {seat}")
            chosen = seats[seat]
            if chosen.bot_level is not None:
                raise PermissionDenied(f"seat {seat} is reserved for a bot")
            if chosen.taken:
                raise SeatTaken(f"seat {seat} is already taken")
        return self._take(match, chosen, name)

    def claim_bot_seat(self, levels: list[str], agent_name: str) -> Seated:
        """Take the oldest untaken seat reserved for a bot of one of ``levels`` (any when empty)."""
        name = _check_name(agent_name or "bot")
        for level in levels:
            if level not in BOT_LEVELS:
                raise InvalidRequest(f"unknown bot level {level!r}")
        for match in sorted(self.matches.values(), key=lambda m: m.record.created_ms):
            if match.status == FINISHED:
                continue
            for seat in match.record.seats:
                if seat.bot_level is not None and not seat.taken and (not levels or seat.bot_level in levels):
                    return self._take(match, seat, name)
        raise NoSeatLeft("no bot seat is waiting")

    def _take(self, match: Match, seat: SeatRecord, name: str) -> Seated:
        token = secrets.token_urlsafe(32)
        taken = SeatRecord(seat.seat, seat.bot_level, name, hash_token(token))
        self.store.save_seat(match.match_id, taken)
        match.record.seats[seat.seat] = taken
        self.tokens[taken.token_hash or ""] = (match.match_id, seat.seat)
        self._publish(match, match.snapshot())
        return Seated(match, seat.seat, token)

    def seat_of(self, match: Match, token: str | None) -> int | None:
        """The caller's seat in this match, or None for a spectator (no token, unknown or another match's)."""
        if not token:
            return None
        found = self.tokens.get(hash_token(token))
        return found[1] if found and found[0] == match.match_id else None

    def _acting_seat(self, match: Match, token: str | None) -> int:
        if not token:
            raise Unauthenticated("a seat token is required: send 'authorization: Bearer <token>'")
        found = self.tokens.get(hash_token(token))
        if found is None:
            raise Unauthenticated("unknown seat token")
        if found[0] != match.match_id:
            raise PermissionDenied("this seat token is for another match")
        return found[1]

    # --- listing -------------------------------------------------------------

    def list_matches(self, status: str | None, limit: int, after: tuple[int, str] | None) -> list[Match]:
        """Newest first; ``after`` is the (created_ms, match_id) of the last match of the previous page."""
        ordered = sorted(self.matches.values(), key=lambda m: (m.record.created_ms, m.match_id), reverse=True)
        out: list[Match] = []
        for match in ordered:
            if after is not None and (match.record.created_ms, match.match_id) >= after:
                continue
            if status is None or match.status == status:
                out.append(match)
                if len(out) == limit:
                    break
        return out

    # --- acting --------------------------------------------------------------

    async def submit(
        self, match_id: str, token: str | None, expected_version: int, request_id: str, action: Action
    ) -> tuple[int, Update]:
        """Apply the caller's action exactly once; returns (seat, the update it made)."""
        match = self.get(match_id)
        seat = self._acting_seat(match, token)
        if not request_id or len(request_id) > MAX_REQUEST_ID_LENGTH:
            raise InvalidRequest(f"request_id must be 1 to {MAX_REQUEST_ID_LENGTH} characters")
        async with match.lock:
            earlier = match.by_request.get(request_id)
            if earlier is not None:
                if earlier.action is not action:
                    raise InvalidRequest("request_id was already used for a different action")
                if earlier.seat != seat:
                    raise InvalidRequest("request_id was already used by another seat")
                return seat, next(match.updates([earlier]))
            status = match.status
            if status != PLAYING:
                raise NotAllowedNow(f"the match is {status}")
            if expected_version != match.version:
                raise StaleVersion(f"the match is at version {match.version}, not {expected_version}")
            if match.state.current_player != seat:
                raise NotAllowedNow(f"it is seat {match.state.current_player}'s turn")
            reason = why_illegal(match.state, action)
            if reason is not None:
                raise NotAllowedNow(reason)
            after = match.state.clone()
            events: list[Event] = []
            apply_unchecked(after, action, events)  # checked just above
            # Accepted: persist, record and publish it even if the caller goes away meanwhile
            # (a cancelled call), or the store would be ahead of the match.
            update = await _uncancelled(self._accept(match, seat, action, request_id, after, events))
        return seat, update

    async def _accept(
        self, match: Match, seat: int, action: Action, request_id: str, after: GameState, events: list[Event]
    ) -> Update:
        # Persist first: once the write returns, the action survives a crash.
        await self.store.append_action(match.match_id, match.version + 1, seat, action, request_id)
        update = self._record(match, seat, action, request_id, after, events)
        self._publish(match, update)
        return update

    def _record(
        self, match: Match, seat: int, action: Action, request_id: str, after: GameState, events: list[Event]
    ) -> Update:
        """Advance the match to ``after``, a state nobody mutates from now on (actions apply to copies)."""
        record = ActionRecord(match.version + 1, seat, action, request_id, events)
        update = Update(record.version, after, record)
        match.state = after
        match.actions.append(record)
        match.by_request[request_id] = record
        match.current = update
        return update

    # --- streaming -----------------------------------------------------------

    def _publish(self, match: Match, update: Update) -> None:
        for queue in match.watchers:
            queue.put_nowait(update)
        if match.state.is_terminal:
            for queue in match.watchers:
                queue.put_nowait(None)

    async def follow(self, match_id: str, after_version: int) -> AsyncIterator[Update]:
        """Every update after ``after_version`` exactly once, in order, then live ones until the end."""
        match = self.get(match_id)
        if after_version > match.version:
            raise InvalidRequest(
                f"after_version {after_version} is ahead of the match (version {match.version})"
            )
        queue: asyncio.Queue[Update | None] = asyncio.Queue()
        # No await between reading the backlog and registering: nothing can slip in between.
        backlog: Iterable[Update] = match.updates(match.actions[after_version:])
        if match.status == WAITING:
            # The start of a waiting match is a seat change, which no version marks: show where it stands.
            backlog = [match.snapshot()]
        finished = match.state.is_terminal
        match.watchers.add(queue)
        try:
            for update in backlog:
                yield update
            if finished:
                return
            while (live := await queue.get()) is not None:
                yield live
            if self.closing:
                raise ShuttingDown("the server is shutting down; reconnect and resume from your last version")
        finally:
            match.watchers.discard(queue)

    def close_streams(self) -> None:
        """End every open stream with UNAVAILABLE, so clients reconnect rather than take it for the end."""
        self.closing = True
        for match in self.matches.values():
            for queue in match.watchers:
                queue.put_nowait(None)


async def _uncancelled(work: Coroutine[Any, Any, T]) -> T:
    """Run ``work`` to its end even if the caller is cancelled meanwhile; then pass the cancellation on."""
    task = asyncio.ensure_future(work)
    cancelled = False
    while True:
        try:
            result = await asyncio.shield(task)
            break
        except asyncio.CancelledError:
            if task.done():
                raise
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError
    return result


def _check_name(name: str) -> str:
    name = name.strip()
    if not 1 <= len(name) <= MAX_NAME_LENGTH:
        raise InvalidRequest(f"display name must be 1 to {MAX_NAME_LENGTH} characters")
    return name
