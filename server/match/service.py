"""The authority over matches: seats, tokens, versions, one action at a time, persist then publish.

Independent of the transport and the storage (as boardgame.io's master is):
the RPC layer calls it, a :class:`~server.store.Store` is handed to it.
Every refusal raises a :class:`~server.match.errors.MatchError` and changes
nothing.

The store is the record; memory holds a cache of matches (``MatchCache``):
those in use, and the most recently used up to a bound. Any other match is
loaded from the store when it is asked for, so memory and start-up time grow
with the matches in play, not with every match ever played.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import hmac
import secrets
import time
import uuid
from collections.abc import AsyncIterator, Coroutine, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from mercado_client.fairness import SALT_BYTES

from server.engine import Action, Event, GameState, Options, apply, apply_unchecked, new_game, why_illegal
from server.store import Conflict, MatchListing, Store, StoredAction

from .cache import MatchCache
from .errors import (
    InvalidRequest,
    NoSeatLeft,
    NotAllowedNow,
    NotFound,
    PermissionDenied,
    SeatTaken,
    ShuttingDown,
    StaleVersion,
    Throttled,
    Unauthenticated,
)
from .inputs import check_match_id, check_name, check_request_id, check_seat_token
from .records import (
    BOT_LEVELS,
    FINISHED,
    PLAYING,
    WAITING,
    ActionRecord,
    MatchRecord,
    SeatRecord,
    Update,
)

T = TypeVar("T")
CLAIM_ATTEMPTS = 3  # a found bot seat can be gone when its match is loaded (another server took it)
WAITING_RETRY_SECONDS = 60  # the retry-after of a refusal for too many waiting matches


def hash_token(token: str) -> str:
    """Tokens are stored only as hashes."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Limits:
    """What the authority holds at most."""

    waiting: int = 10_000  # waiting matches on the server
    waiting_per_creator: int = 20  # waiting matches created by one client
    cached: int = 1_000  # matches kept in memory besides those in use
    idle_seconds: float = 300.0  # a cached match unused this long leaves memory


@dataclass(frozen=True)
class Policy:
    """What the operator allows."""

    agent_key: str | None = None  # the bearer token of ClaimBotSeat; bot seats need one
    allow_chosen_seeds: bool = False


@dataclass(eq=False)
class Match:
    """A match in memory: its record, current state and the actions that led to it.

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
    pins: int = 0  # calls using it across an await: it stays in memory meanwhile

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

    @property
    def in_use(self) -> bool:
        return bool(self.watchers) or self.pins > 0 or self.lock.locked()

    def seat_with(self, token_hash: str) -> int | None:
        for seat in self.record.seats:
            if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, token_hash):
                return seat.seat
        return None

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

    def record_action(
        self, seat: int, action: Action, request_id: str, after: GameState, events: list[Event]
    ) -> Update:
        """Advance to ``after``, a state nobody mutates from now on (actions apply to copies)."""
        record = ActionRecord(self.version + 1, seat, action, request_id, events)
        update = Update(record.version, after, record)
        self.state = after
        self.actions.append(record)
        self.by_request[request_id] = record
        self.current = update
        return update


def restore(record: MatchRecord, actions: Iterable[StoredAction]) -> Match:
    """A match as its stored actions left it, replayed from its seed."""
    state = new_game(record.options, record.seed)
    match = Match(record, state)
    # Only the last update outlives the restore, so one state is advanced in place.
    for seat, action, request_id in actions:
        match.record_action(seat, action, request_id, state, apply(state, action))
    return match


@dataclass(frozen=True)
class Stream:
    """An open stream of one match for one viewer."""

    match: Match
    seat: int | None  # None: a spectator
    updates: AsyncIterator[Update]


@dataclass(frozen=True)
class Seated:
    """A seat taken: the secret token is returned once and never stored."""

    match: Match
    seat: int
    token: str


class MatchService:
    """All matches of one server."""

    def __init__(self, store: Store, limits: Limits | None = None, policy: Policy | None = None) -> None:
        self.store = store
        self.limits = limits or Limits()
        self.policy = policy or Policy()
        self.cache = MatchCache(self.limits.cached, self.limits.idle_seconds)
        self.loading: dict[str, asyncio.Future[Match]] = {}
        self.claiming = asyncio.Lock()  # one bot-seat claim at a time: no seat is claimed twice
        self.waiting = 0  # waiting matches on the server
        self.creators: dict[str, str] = {}  # waiting match id -> the client that created it
        self.waiting_by: dict[str, int] = {}  # client -> waiting matches it created
        self.closing = False

    async def start(self) -> None:
        """Classify matches stored before statuses were (once), and count the waiting ones."""
        for match_id in await self.store.unclassified():
            stored = await self.store.load_match(match_id)
            if stored is not None:
                await self.store.set_status(match_id, restore(*stored).status)
        self.waiting = await self.store.count_waiting()

    # --- matches in memory ---------------------------------------------------

    async def get(self, match_id: str) -> Match:
        """The match, from memory or else from the store."""
        match = self.cache.get(check_match_id(match_id))
        if match is not None:
            return match
        loading = self.loading.get(match_id)
        if loading is None:
            # One load per match however many ask at once; the first caller going away does not stop it.
            loading = self.loading[match_id] = asyncio.ensure_future(self._load(match_id))
            loading.add_done_callback(functools.partial(self._loaded, match_id))
        return await asyncio.shield(loading)

    def _loaded(self, match_id: str, loading: asyncio.Future[Match]) -> None:
        del self.loading[match_id]
        if not loading.cancelled():
            loading.exception()  # retrieved here too: every caller may have gone away

    async def _load(self, match_id: str) -> Match:
        stored = await self.store.load_match(match_id)
        if stored is None:
            raise NotFound(f"no match {match_id}")
        match = restore(*stored)
        self.cache.add(match)
        return match

    @contextlib.asynccontextmanager
    async def _using(self, match_id: str) -> AsyncIterator[Match]:
        """The match, kept in memory until the block ends."""
        match = await self.get(match_id)
        match.pins += 1
        try:
            yield match
        finally:
            match.pins -= 1

    # --- set-up --------------------------------------------------------------

    async def create_match(
        self, options: Options, seats: list[str | None], seed: int | None = None, creator: str = ""
    ) -> Match:
        """A new match; ``seats`` holds, per seat, None (open) or a bot level. ``creator`` names the
        client, for the cap on the waiting matches one client may hold."""
        if len(seats) > options.players:
            raise InvalidRequest(f"{len(seats)} seat specs for {options.players} players")
        levels = seats + [None] * (options.players - len(seats))
        for level in levels:
            if level is not None and level not in BOT_LEVELS:
                raise InvalidRequest("unknown bot level")
        if any(levels) and self.policy.agent_key is None:
            raise NotAllowedNow("this server plays no bots: it has no agent key (mercado serve --agent-key)")
        if seed is not None and not self.policy.allow_chosen_seeds:
            raise PermissionDenied("this server draws every seed itself (chosen seeds are off)")
        self._check_waiting(creator)
        record = MatchRecord(
            match_id=uuid.uuid4().hex,
            options=options,
            seed=secrets.randbits(63) if seed is None else seed,
            created_ms=int(time.time() * 1000),
            seats=[SeatRecord(seat, level) for seat, level in enumerate(levels)],
            salt=secrets.token_bytes(SALT_BYTES),
            seed_chosen=seed is not None,
        )
        match = Match(record, new_game(options, record.seed))
        # Counted before the write, so that concurrent creations cannot all pass the caps.
        self._waits(match.match_id, creator)
        try:
            await _uncancelled(self.store.create_match(record))
        except Exception:
            self._started(match.match_id)  # never created: it does not count
            raise
        self.cache.add(match)
        return match

    def _waits(self, match_id: str, creator: str) -> None:
        self.waiting += 1
        if creator:
            self.creators[match_id] = creator
            self.waiting_by[creator] = self.waiting_by.get(creator, 0) + 1

    def _check_waiting(self, creator: str) -> None:
        if self.waiting >= self.limits.waiting:
            raise Throttled("the server has too many matches waiting for players", WAITING_RETRY_SECONDS)
        if creator and self.waiting_by.get(creator, 0) >= self.limits.waiting_per_creator:
            raise Throttled(
                f"you have {self.limits.waiting_per_creator} matches waiting for players already",
                WAITING_RETRY_SECONDS,
            )

    def _started(self, match_id: str) -> None:
        """The match no longer waits (or never was): it stops counting toward the caps on waiting matches."""
        self.waiting -= 1
        creator = self.creators.pop(match_id, None)
        if creator is not None:
            left = self.waiting_by[creator] - 1
            if left:
                self.waiting_by[creator] = left
            else:
                del self.waiting_by[creator]

    # --- seats ---------------------------------------------------------------

    async def join(self, match_id: str, display_name: str, seat: int | None = None) -> Seated:
        """Take an open seat (the first one when ``seat`` is None)."""
        name = check_name(display_name)
        async with self._using(match_id) as match, match.lock:
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
            return await self._take(match, chosen, name)

    async def claim_bot_seat(self, levels: list[str], agent_name: str, agent_key: str | None) -> Seated:
        """Take the oldest untaken seat reserved for a bot of one of ``levels`` (any when empty)."""
        expected = self.policy.agent_key
        if expected is None or agent_key is None or not hmac.compare_digest(agent_key, expected):
            raise PermissionDenied("claiming a bot seat takes this server's agent key as the bearer token")
        name = check_name(agent_name or "bot")
        for level in levels:
            if level not in BOT_LEVELS:
                raise InvalidRequest("unknown bot level")
        async with self.claiming:
            for _ in range(CLAIM_ATTEMPTS):
                found = await self.store.find_bot_seat(levels or list(BOT_LEVELS))
                if found is None:
                    break
                match_id, number = found
                async with self._using(match_id) as match, match.lock:
                    seat = match.record.seats[number]
                    if not seat.taken:
                        return await self._take(match, seat, name)
        raise NoSeatLeft("no bot seat is waiting")

    async def _take(self, match: Match, seat: SeatRecord, name: str) -> Seated:
        """Take ``seat`` (under the match's lock): persist, then record and publish it."""
        token = secrets.token_urlsafe(32)
        taken = SeatRecord(seat.seat, seat.bot_level, name, hash_token(token))
        starts = all(s.taken for s in match.record.seats if s.seat != seat.seat)
        try:
            # Once written, recorded: a caller going away meanwhile must not leave memory behind the store.
            await _uncancelled(self.store.save_seat(match.match_id, taken, PLAYING if starts else WAITING))
        except Conflict:
            self.cache.drop(match.match_id)  # the store knows better: load it again next time
            raise SeatTaken(f"seat {seat.seat} is already taken") from None
        match.record.seats[seat.seat] = taken
        if starts:
            self._started(match.match_id)
        self._publish(match, match.snapshot())
        return Seated(match, seat.seat, token)

    async def view(self, match_id: str, token: str | None) -> tuple[Match, int | None]:
        """The match and the caller's seat in it, None for a spectator (no token)."""
        async with self._using(match_id) as match:
            return match, None if token is None else await self._seat_of(match, token)

    async def _seat_of(self, match: Match, token: str) -> int:
        check_seat_token(token)
        token_hash = hash_token(token)
        seat = match.seat_with(token_hash)
        if seat is not None:
            return seat
        if await self.store.seat_of_token(token_hash) is not None:
            raise PermissionDenied("this seat token is for another match")
        raise Unauthenticated("unknown seat token")

    # --- listing -------------------------------------------------------------

    async def list_matches(
        self, status: str | None, limit: int, after: tuple[int, str] | None
    ) -> list[MatchListing]:
        """Newest first; ``after`` is the (created_ms, match_id) of the last match of the previous page."""
        return await self.store.list_matches(status, limit, after)

    # --- acting --------------------------------------------------------------

    async def submit(
        self, match_id: str, token: str | None, expected_version: int, request_id: str, action: Action
    ) -> tuple[Match, int, Update]:
        """Apply the caller's action exactly once; returns (the match, seat, the update it made)."""
        if not token:
            raise Unauthenticated("a seat token is required: send 'authorization: Bearer <token>'")
        check_request_id(request_id)
        async with self._using(match_id) as match:
            seat = await self._seat_of(match, token)
            async with match.lock:
                earlier = match.by_request.get(request_id)
                if earlier is not None:
                    if earlier.action is not action:
                        raise InvalidRequest("request_id was already used for a different action")
                    if earlier.seat != seat:
                        raise InvalidRequest("request_id was already used by another seat")
                    return match, seat, next(match.updates([earlier]))
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
        return match, seat, update

    async def _accept(
        self, match: Match, seat: int, action: Action, request_id: str, after: GameState, events: list[Event]
    ) -> Update:
        # Persist first: once the write returns, the action survives a crash.
        try:
            await self.store.append_action(
                match.match_id, match.version + 1, seat, action, request_id, after.is_terminal
            )
        except Conflict:
            self.cache.drop(match.match_id)  # the store knows better: load it again next time
            raise StaleVersion("the match has moved on; fetch the view and try again") from None
        update = match.record_action(seat, action, request_id, after, events)
        self._publish(match, update)
        return update

    # --- streaming -----------------------------------------------------------

    def _publish(self, match: Match, update: Update) -> None:
        for queue in match.watchers:
            queue.put_nowait(update)
        if match.state.is_terminal:
            for queue in match.watchers:
                queue.put_nowait(None)

    @contextlib.asynccontextmanager
    async def following(self, match_id: str, token: str | None, after_version: int) -> AsyncIterator[Stream]:
        """A stream of the match for the caller's seat (None: a spectator); the match stays in memory
        while the block runs."""
        async with self._using(match_id) as match:
            seat = None if token is None else await self._seat_of(match, token)
            if after_version > match.version:
                raise InvalidRequest(
                    f"after_version {after_version} is ahead of the match (version {match.version})"
                )
            yield Stream(match, seat, self._updates(match, after_version))

    async def _updates(self, match: Match, after_version: int) -> AsyncIterator[Update]:
        """Every update after ``after_version`` exactly once, in order, then live ones until the end."""
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
        for match in self.cache.matches():
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
