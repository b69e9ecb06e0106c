"""The authority over matches: seats, tokens, versions, clocks, one action at a time, persist then publish.

Independent of the transport and the storage (as boardgame.io's master is):
the RPC layer calls it, a :class:`~server.store.Store` is handed to it.
Every refusal raises a :class:`~server.match.errors.MatchError` and changes
nothing.

The store is the record; memory holds a cache of matches (``MatchCache``):
those in use (a stream, a call, a running clock), and the most recently used
up to a bound. Any other match is loaded from the store when it is asked for,
so memory and start-up time grow with the matches in play, not with every
match ever played.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import hashlib
import hmac
import logging
import secrets
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from mercado_client.fairness import SALT_BYTES

from server.games.interface import Event
from server.games.registry import game_named
from server.store import Conflict, MatchListing, Store
from server.store.encoding import action_text
from server.store.records import bot_name, bot_player_id

from .agents import Agents
from .cache import MatchCache
from .clocks import EARLY_MS, RETRY_SECONDS, Timekeeper, charged, now_ms, starting_reserve_ms
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
from .holdings import Holdings, holders
from .inputs import check_match_id, check_name, check_request_id, check_seat_token, stand_in_request_id
from .match import Inbox, Match, restore
from .records import (
    AI,
    BOT_LEVELS,
    CANCELLED,
    FINISHED,
    FORFEITED,
    LEFT,
    OWNER,
    PLAYING,
    WAITING,
    MatchRecord,
    SeatRecord,
    TimeControl,
    Update,
)

T = TypeVar("T")
SEAT_KEY = "seat-tokens"  # the store's secret that the seat tokens of joins with a request id are made with
CLAIM_ATTEMPTS = 3  # a found bot seat can be gone when its match is loaded (another server took it)
WAITING_RETRY_SECONDS = 60  # the retry-after of a refusal for too many waiting matches
log = logging.getLogger("mercado.match")


def hash_token(token: str) -> str:
    """Tokens are stored only as hashes."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Limits:
    """What the authority holds at most, and how long it waits."""

    waiting: int = 10_000  # waiting matches on the server
    waiting_per_creator: int = 20  # waiting matches created by one client
    waiting_per_network: int = 200  # ...and by every client calling from one network, together
    # Bot seats one client's matches have waiting for an agent or played by one (an agent plays few
    # matches at once), and every client of one network together.
    bot_seats_per_creator: int = 6
    bot_seats_per_network: int = 30
    cached: int = 1_000  # matches kept in memory besides those in use
    idle_seconds: float = 300.0  # a cached match unused this long leaves memory
    waiting_expiry_seconds: float = 1800.0  # a match still waiting for players after this is cancelled
    bot_seat_seconds: float = 60.0  # ...and one whose bot seat no agent took after this
    sweep_seconds: float = 5.0  # how often expired matches are looked for
    # With a shared store: a match in play that no server moved for this long may have lost its
    # server, and is taken up by another (a turn that simply lasts longer is only held twice).
    orphaned_seconds: float = 300.0
    bot_turn_seconds: float = 300.0  # a bot seat whose agent has not moved this long: the stand-in plays it
    # While people are to move (with no clock, or a longer one): after this long the agents playing the
    # match's bot seats are let go (for other matches) and the stand-in plays those seats from then on.
    agent_wait_seconds: float = 900.0


LIVE_PLAY = TimeControl()  # the time control of a match that names none


@dataclass(frozen=True)
class Policy:
    """What the operator allows."""

    agent_key: str | None = None  # the bearer token of ClaimBotSeat; bot seats need one
    allow_chosen_seeds: bool = False
    default_clock: TimeControl | None = LIVE_PLAY  # for a CreateMatch that names none
    allow_anonymous: bool = True  # seats taken without a player (a seat token alone)


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
        self.waiting_by = Holdings(  # waiting matches (by id) each client and network created
            "matches waiting for players",
            self.limits.waiting_per_creator,
            self.limits.waiting_per_network,
            WAITING_RETRY_SECONDS,
        )
        self.open_bot_seats: Counter[str] = Counter()  # by level, in waiting matches
        self.bot_seats_by = Holdings(  # bot seats (match id, seat) waiting for or played by an agent
            "bot seats waiting for or played by an AI agent",
            self.limits.bot_seats_per_creator,
            self.limits.bot_seats_per_network,
            WAITING_RETRY_SECONDS,
        )
        self.agents = Agents()
        self.agent_seats: dict[tuple[str, int], str] = {}  # (match id, seat) -> the agent that plays it
        self.clocks = Timekeeper(
            self._timed_out,
            self._stand_in_moves,
            self.limits.bot_turn_seconds,
            self.limits.agent_wait_seconds,
        )
        self.sweeper: asyncio.Task[None] | None = None
        self.closing = False
        self.on_finished: Callable[[Match], None] | None = None  # told of every match that finishes
        self.behind: set[str] = set()  # cached matches another server changed, to read again
        self.heard_while_loading: set[str] = set()  # ...and matches it changed as they were loaded
        self.seat_key: bytes | None = None  # what the tokens of joins with a request id are made with
        self.catching_up: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        """Classify matches stored before statuses were (once), count the waiting ones and their bot
        seats, start the clocks of the matches in play, and look for expired matches from now on."""
        for match_id in await self.store.unclassified():
            stored = await self.store.load_match(match_id)
            if stored is not None:
                await self.store.set_status(match_id, restore(*stored).status)
        self.waiting = await self.store.count_waiting()
        self.open_bot_seats = Counter(await self.store.open_bot_seats())
        # Matches whose clocks run or whose AI seats must move are in memory from the start (loading
        # arms them; the turn in progress when the server stopped starts again: its downtime is nobody's).
        # Listening first: what other servers change as they load is heard, and read again.
        await self.store.follow(self._changed_elsewhere, self._missed_changes)
        await self._watch_playing()
        self.sweeper = asyncio.get_running_loop().create_task(self._sweep())

    async def close(self) -> None:
        """Stop the clocks and the sweeper (the store is closed by its owner)."""
        if self.sweeper is not None:
            self.sweeper.cancel()
            await asyncio.gather(self.sweeper, return_exceptions=True)
        for task in self.catching_up:
            task.cancel()
        await asyncio.gather(*self.catching_up, return_exceptions=True)
        for match in self.cache.matches():
            self.clocks.disarm(match)
        await self.clocks.close()

    async def _watch_playing(self, unmoved_since_ms: int | None = None) -> None:
        """Hold in memory every match whose clocks run or whose AI seats must move (only those
        unmoved since ``unmoved_since_ms``, if given), so that each finishes even if nobody is
        connected to it."""
        for match_id in await self.store.playing_to_watch(unmoved_since_ms):
            if self.cache.peek(match_id) is None:
                with contextlib.suppress(NotFound):
                    await self.get(match_id)

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

    async def finished(self, match_id: str) -> Match:
        """The match, once finished. With a shared store, a match this server has not seen finish is
        read again first: its client may have seen the end through another server before the news
        reached this one."""
        async with self._using(match_id) as match:
            if match.status != FINISHED:
                await self._lock_and_read_again(match)
            if match.status != FINISHED:
                raise NotAllowedNow("a replay is available once the match has finished")
            return match

    def _loaded(self, match_id: str, loading: asyncio.Future[Match]) -> None:
        del self.loading[match_id]
        if not loading.cancelled():
            loading.exception()  # retrieved here too: every caller may have gone away
        if match_id in self.heard_while_loading:
            # Another server changed it as it loaded: what was read may be from before the change.
            self.heard_while_loading.discard(match_id)
            self._changed_elsewhere(match_id)

    async def _load(self, match_id: str) -> Match:
        stored = await self.store.load_match(match_id)
        if stored is None:
            raise NotFound(f"no match {match_id}")
        match = restore(*stored)
        self.cache.add(match)
        # A turn that waits on a clock or on the AI starts now: its time until then is nobody's.
        match.turn_started_ms = now_ms()
        self.clocks.arm(match)
        return match

    # --- other servers' changes (a shared store) -----------------------------

    def _changed_elsewhere(self, match_id: str) -> None:
        """Another server changed the match: read it again if it is in memory (once per batch of news),
        or once it is, if it is being loaded."""
        if match_id in self.loading:
            self.heard_while_loading.add(match_id)
            return
        if match_id in self.behind or self.cache.peek(match_id) is None:
            return
        self.behind.add(match_id)
        task = asyncio.get_running_loop().create_task(self._catch_up_soon(match_id))
        self.catching_up.add(task)
        task.add_done_callback(self.catching_up.discard)

    def _missed_changes(self) -> None:
        """News of other servers' changes may have been lost: read every match in memory (or being
        loaded) again."""
        for match_id in [*(match.match_id for match in self.cache.matches()), *self.loading]:
            self._changed_elsewhere(match_id)

    async def _catch_up_soon(self, match_id: str) -> None:
        """Read the match again, until that succeeds; then its clocks run from what was read (a timer
        that waits to retry a timeout the store refused is set again)."""
        delay, most = RETRY_SECONDS
        while (match := self.cache.peek(match_id)) is not None:
            try:
                async with match.lock:
                    self.behind.discard(match_id)  # news from now on needs another read
                    await self._catch_up(match)
                    self.clocks.rearm(match)
                return
            except Exception as error:
                if match_id in self.behind:
                    return  # news came meanwhile: the read it asked for runs now
                self.behind.add(match_id)
                log.warning(
                    "reading a match another server changed failed; trying again",
                    extra={"match_id": match_id, "error": str(error)},
                )
            await asyncio.sleep(delay)
            delay = min(most, 2 * delay)
        self.behind.discard(match_id)

    async def _catch_up(self, match: Match) -> None:
        """Bring the match up to what the store holds (under its lock), and publish what changed."""
        stored = await self.store.load_match(match.match_id, after=match.version)
        if stored is None:
            return
        record, actions = stored
        match.record.changes = record.changes
        waited = match.status == WAITING
        for seat, action, request_id in actions:
            after = match.rules.clone(match.state)
            events = match.rules.apply(after, seat, action)
            match.record.seats[seat] = record.seats[seat]
            self._publish(match, match.record_action(seat, action, request_id, after, events))
        if record.seats != match.record.seats or record.cancelled != match.record.cancelled:
            match.record.seats = record.seats
            match.record.cancelled = record.cancelled
            if waited and match.status != WAITING:
                self._no_longer_waits(match)
            self._changed(match)
        elif not actions:
            return
        if actions or (waited and match.status == PLAYING):
            match.turn_started_ms = now_ms()  # a new turn (or the first), as this server learns of it
        if match.status in (FINISHED, CANCELLED):
            self._ended(match)
        self.clocks.arm(match)

    async def _read_again(self, match: Match) -> bool:
        """With a shared store, bring the match up to what the store holds if it holds more (under its
        lock): before an answer that a change acknowledged through another server, not yet heard of
        here, would alter. Whether it did; one lookup when nothing is new."""
        if not self.store.shared:
            return False
        stamp = await self.store.stamp(match.match_id)
        if stamp is None or not _behind(match, stamp):
            return False
        await self._catch_up(match)
        return True

    async def _lock_and_read_again(self, match: Match) -> None:
        """``_read_again`` for a caller not holding the match's lock, which is taken only if the match
        is behind: reads of a current match go on side by side."""
        if not self.store.shared:
            return
        stamp = await self.store.stamp(match.match_id)
        if stamp is not None and _behind(match, stamp):
            async with match.lock:
                if _behind(match, stamp):  # unless another caller read it meanwhile
                    await self._catch_up(match)

    async def _store_change(self, match: Match, write: Awaitable[None]) -> None:
        """Store a change of the match's seats or status that no action makes, to the end even if the
        caller goes away meanwhile, and count it as the store does (``MatchRecord.changes``): the count
        held here falls short of the store's only when the match changed since in a way this server
        has not recorded. So a caller that went away (its cancellation passed on, what follows the
        write not done) leaves it uncounted, and the match is read again before the next answer."""
        _, cancelled = await _to_the_end(write)
        if cancelled:
            raise asyncio.CancelledError
        match.record.changes += 1

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
        self,
        options: Mapping[str, Any],
        seats: list[str | None],
        seed: int | None = None,
        creator: str = "",
        clock: TimeControl | None = None,
        default_clock: bool = True,
        *,
        network: str = "",
        player_id: str | None = None,
        hot_seat: bool = False,
        unrated: bool = False,
        game: str = "mercado",
        also_for: Iterable[tuple[str, ...]] = (),
    ) -> Match:
        """A new match of ``game`` with its full ``options`` (players included); ``seats`` holds, per
        seat, None (open) or a bot level. ``creator`` names the client and ``network`` the network it
        calls from, for the caps on the waiting matches and bot seats each may hold, and whose turns it
        takes with the stand-in; ``also_for`` the keys (``holders``) of others it counts for as well
        (the other players matchmaking put in it). ``player_id`` is the player who creates it, if any.
        ``clock`` None with ``default_clock`` gets the server's default time control; a clock of 0 s
        per turn is none."""
        self._check_player(player_id)
        rules = game_named(game)
        players = int(options["players"])
        if len(seats) > players:
            raise InvalidRequest(f"{len(seats)} seat specs for {players} players")
        levels = seats + [None] * (players - len(seats))
        bots = [level for level in levels if level is not None]
        _check_levels(bots)
        if seed is not None and not self.policy.allow_chosen_seeds:
            raise PermissionDenied("this server draws every seed itself (chosen seeds are off)")
        self._check_bots(bots)
        creators = holders(creator, network)
        charged = tuple(dict.fromkeys([*creators, *(key for keys in also_for for key in keys)]))
        self.check_caps(charged, len(bots))
        if clock is None and default_clock:
            clock = self.policy.default_clock
        if clock is not None and not clock.turn_seconds:
            clock = None
        reserve = starting_reserve_ms(clock)
        record = MatchRecord(
            match_id=uuid.uuid4().hex,
            options=options,
            seed=secrets.randbits(63) if seed is None else seed,
            created_ms=int(time.time() * 1000),
            seats=[SeatRecord(seat, level, reserve_ms=reserve) for seat, level in enumerate(levels)],
            salt=secrets.token_bytes(SALT_BYTES),
            seed_chosen=seed is not None,
            clock=clock,
            game=game,
            hot_seat=hot_seat,
            unrated=unrated,
        )
        match = Match(record, rules.new_game(options, record.seed), creator=creators[-1] if creators else "")
        # Counted before the write, so that concurrent creations cannot all pass the caps.
        self._waits(match, charged)
        self._holds_bot_seats(match, charged)
        try:
            await _uncancelled(self.store.create_match(record))
        except Exception:
            self._no_longer_waits(match)  # never created: it does not count
            self._ended(match)
            raise
        self.cache.add(match)
        return match

    def _check_player(self, player_id: str | None) -> None:
        if player_id is None and not self.policy.allow_anonymous:
            raise Unauthenticated(
                "this server plays with players only: send a player credential as"
                " 'authorization: Bearer <token>' (CreatePlayer makes a guest player)"
            )

    def _check_bots(self, levels: list[str]) -> None:
        """Bot seats only where an agent can take them: a match no agent can take would wait forever."""
        if not levels:
            return
        if self.policy.agent_key is None:
            raise NotAllowedNow("this server plays no bots: it has no agent key (mercado serve --agent-key)")
        free = self.agents.free(levels)
        waiting = sum(self.open_bot_seats[level] for level in set(levels))
        if free < waiting + len(levels):
            raise NotAllowedNow(
                "no AI agent can take this match's bot seats now"
                f" ({free} free agent seats, {waiting} bot seats waiting); try again later"
            )

    def check_caps(self, keys: tuple[str, ...], bots: int = 0) -> None:
        """Throttled if one more waiting match, with ``bots`` bot seats, would take the server or any
        of ``keys`` (``holders``) past a cap."""
        if self.waiting >= self.limits.waiting:
            raise Throttled("the server has too many matches waiting for players", WAITING_RETRY_SECONDS)
        self.waiting_by.check(keys)
        if bots:
            self.bot_seats_by.check(keys, bots)

    def _waits(self, match: Match, creators: tuple[str, ...]) -> None:
        self.waiting += 1
        self.open_bot_seats.update(s.bot_level for s in match.record.seats if s.bot_level and not s.taken)
        self.waiting_by.hold(match.match_id, creators)

    def _no_longer_waits(self, match: Match) -> None:
        """The match started, was cancelled or never was: it stops counting toward the caps."""
        self.waiting -= 1
        self.open_bot_seats.subtract(s.bot_level for s in match.record.seats if s.bot_level and not s.taken)
        self.waiting_by.let_go(match.match_id)

    # --- seats ---------------------------------------------------------------

    async def join(
        self,
        match_id: str,
        display_name: str,
        seat: int | None = None,
        player_id: str | None = None,
        request_id: str = "",
    ) -> Seated:
        """Take an open seat (the first one when ``seat`` is None), for ``player_id`` if given. With a
        ``request_id``, a retry (through any server) returns the seat the first call took, and its token."""
        self._check_player(player_id)
        name = check_name(display_name)
        if request_id:
            check_request_id(request_id)
        async with self._using(match_id) as match, match.lock:
            await self._read_again(match)  # seats may have been taken or given up through another server
            if request_id:
                earlier = await self._joined(match, request_id, seat, name, player_id)
                if earlier is not None:
                    return earlier
            if match.status == CANCELLED:
                raise NotAllowedNow(f"match {match_id} was cancelled")
            seats = match.record.seats
            held = [s.seat for s in seats if player_id is not None and s.player_id == player_id]
            if held and not match.record.hot_seat:
                raise SeatTaken(f"you hold seat {held[0] + 1} of this match already (it is not hot-seat)")
            if seat is None:
                free = [s for s in seats if s.bot_level is None and not s.taken]
                if not free:
                    raise NoSeatLeft(f"match {match_id} has no open seat left")
                chosen = free[0]
            else:
                if not 0 <= seat < len(seats):
                    raise NotFound(f"match {match_id} has no seat {seat + 1} (it has {len(seats)})")
                chosen = seats[seat]
                if chosen.bot_level is not None:
                    raise PermissionDenied("the seat asked for is reserved for a bot")
                if chosen.taken:
                    raise SeatTaken("the seat asked for is already taken")
            return await self._take(match, chosen, name, player_id, request_id)

    async def _joined(
        self, match: Match, request_id: str, seat: int | None, name: str, player_id: str | None
    ) -> Seated | None:
        """The seat a join with ``request_id`` took, if it holds one, as that join returned it; a
        join unlike the first with the same id is refused."""
        request_hash = hash_token(request_id)
        taken = next((s for s in match.record.seats if s.request_hash == request_hash), None)
        if taken is None:
            return None
        if seat not in (None, taken.seat) or (taken.display_name, taken.player_id) != (name, player_id):
            raise InvalidRequest("request_id was already used for a different join")
        return Seated(match, taken.seat, await self._seat_token(match.match_id, request_id))

    async def _seat_token(self, match_id: str, request_id: str) -> str:
        """The token of the seat a join with ``request_id`` takes: the same whenever it is retried,
        through any server (the key is the store's), and nobody's to work out without the request id."""
        if self.seat_key is None:
            self.seat_key = await self.store.secret(SEAT_KEY)
        digest = hmac.new(self.seat_key, f"{match_id}:{request_id}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()  # as secrets.token_urlsafe(32)

    async def claim_bot_seat(
        self, levels: list[str], agent_name: str, agent_key: str | None, agent_id: str = ""
    ) -> Seated:
        """Take the oldest untaken seat reserved for a bot of one of ``levels`` (any when empty);
        ``agent_id`` is the id of the agent's heartbeats. The seat is named after its level's player
        (as on the ladder), whatever the agent's own name."""
        self._check_agent(agent_key)
        check_name(agent_name or "bot")
        _check_levels(levels)
        async with self.claiming:
            for _ in range(CLAIM_ATTEMPTS):
                found = await self.store.find_bot_seat(levels or list(BOT_LEVELS))
                if found is None:
                    break
                match_id, number = found
                async with self._using(match_id) as match, match.lock:
                    seat = match.record.seats[number]
                    if not seat.taken and match.status == WAITING:
                        assert seat.bot_level is not None
                        level = seat.bot_level
                        seated = await self._take(match, seat, bot_name(level), bot_player_id(level))
                        self.agents.claimed(agent_id)
                        self.agent_seats[match_id, number] = agent_id
                        return seated
        raise NoSeatLeft("no bot seat is waiting")

    async def agent_heartbeat(
        self, agent_key: str | None, agent_id: str, levels: list[str], free_slots: int
    ) -> int:
        """An agent says what it plays and how many more seats it can take; the seconds until the next."""
        self._check_agent(agent_key)
        if not 1 <= len(agent_id) <= 64 or not agent_id.isprintable():
            raise InvalidRequest("agent_id must be 1 to 64 printable characters")
        _check_levels(levels)
        self.agents.beat(agent_id, levels, free_slots)
        if self.store.shared:
            await self.store.save_agent(agent_id, levels, free_slots, now_ms())
        return int(self.agents.interval)

    def _holds_bot_seats(self, match: Match, creators: tuple[str, ...]) -> None:
        for seat in match.record.seats:
            if seat.bot_level is not None:
                self.bot_seats_by.hold((match.match_id, seat.seat), creators)

    def _release_agent(self, match_id: str, seat: int) -> None:
        """The seat's agent (if any) is free of it, and it stops counting toward its creator's caps."""
        agent_id = self.agent_seats.pop((match_id, seat), None)
        if agent_id is not None:
            self.agents.released(agent_id)
        self.bot_seats_by.let_go((match_id, seat))

    def _ended(self, match: Match) -> None:
        """The match finished or was cancelled: its agents and bot seats are free."""
        for seat in range(len(match.record.seats)):
            self._release_agent(match.match_id, seat)

    def _check_agent(self, agent_key: str | None) -> None:
        expected = self.policy.agent_key
        if expected is None or agent_key is None or not hmac.compare_digest(agent_key, expected):
            raise PermissionDenied("claiming a bot seat takes this server's agent key as the bearer token")

    async def _take(
        self, match: Match, seat: SeatRecord, name: str, player_id: str | None, request_id: str = ""
    ) -> Seated:
        """Take ``seat`` (under the match's lock) for a join with ``request_id`` if given: persist,
        then record and publish it."""
        token = (
            await self._seat_token(match.match_id, request_id) if request_id else secrets.token_urlsafe(32)
        )
        taken = replace(
            seat,
            display_name=name,
            token_hash=hash_token(token),
            played_by=OWNER,
            player_id=player_id,
            request_hash=hash_token(request_id) if request_id else None,
        )
        starts = all(s.taken for s in match.record.seats if s.seat != seat.seat)
        try:
            # Once written, recorded: a caller going away meanwhile must not leave memory behind the store.
            await self._store_change(
                match, self.store.save_seat(match.match_id, taken, PLAYING if starts else WAITING)
            )
        except Conflict:
            await self._catch_up(match)  # another server took it: this very join, retried there?
            earlier = await self._joined(match, request_id, None, name, player_id) if request_id else None
            if earlier is None:
                raise SeatTaken("the seat asked for is already taken") from None
            return earlier
        if starts:
            self._no_longer_waits(match)
        elif seat.bot_level:
            self.open_bot_seats[seat.bot_level] -= 1
        match.record.seats[seat.seat] = taken
        if starts:
            match.turn_started_ms = now_ms()
            self.clocks.arm(match)
        self._changed(match)
        return Seated(match, seat.seat, token)

    async def reseat(self, match_id: str, seat: int, player_id: str) -> Seated:
        """A new token for the seat ``player_id`` was given by another server (which keeps the first)."""
        async with self._using(match_id) as match, match.lock:
            if match.record.seats[seat].player_id != player_id:
                await self._catch_up(match)
            token = secrets.token_urlsafe(32)
            try:
                await self._store_change(
                    match, self.store.reissue_token(match_id, seat, player_id, hash_token(token))
                )
            except Conflict:
                raise NotFound(f"seat {seat} of match {match_id} is not yours") from None
            match.record.seats[seat] = replace(match.record.seats[seat], token_hash=hash_token(token))
            return Seated(match, seat, token)

    async def view(
        self, match_id: str, token: str | None, player_id: str | None = None
    ) -> tuple[Match, int | None]:
        """The match and the caller's seat in it, None for a spectator (no token, or a player who holds
        no seat in it)."""
        async with self._using(match_id) as match:
            await self._lock_and_read_again(match)  # it shows what any server acknowledged before
            return match, await self._viewer(match, token, player_id)

    async def _viewer(self, match: Match, token: str | None, player_id: str | None) -> int | None:
        if player_id is not None:
            return await self._player_seat(match, player_id)
        return None if token is None else await self._seat_of(match, token)

    async def _seat_of(self, match: Match, token: str | None, player_id: str | None = None) -> int:
        """The seat the caller acts for: by its player, or by its seat token."""
        if player_id is not None:
            seat = await self._player_seat(match, player_id)
            if seat is None:
                raise PermissionDenied(f"you hold no seat in match {match.match_id}")
            return seat
        token = _required(token)
        check_seat_token(token)
        token_hash = hash_token(token)
        seat = match.seat_with(token_hash)
        if seat is not None:
            return seat
        found = await self.store.seat_of_token(token_hash)
        if found is not None and found[0] == match.match_id:
            async with match.lock:  # taken through another server since this one read the match
                await self._catch_up(match)
            seat = match.seat_with(token_hash)
        if seat is not None:
            return seat
        if found is not None:
            raise PermissionDenied("this seat token is for another match")
        raise Unauthenticated("unknown seat token")

    async def _player_seat(self, match: Match, player_id: str) -> int | None:
        """The seat ``player_id`` acts for, reading the match again if it holds none here and another
        server may have seated it."""
        seat = _player_seat(match, player_id)
        if seat is None and match.status == WAITING:
            await self._lock_and_read_again(match)
            seat = _player_seat(match, player_id)
        return seat

    # --- leaving and coming back ---------------------------------------------

    async def leave(self, match_id: str, token: str | None, player_id: str | None = None) -> Match:
        """Give up the caller's seat: open again while the match waits, else to the AI or forfeited."""
        async with self._using(match_id) as match:
            seat = await self._seat_of(match, token, player_id)
            async with match.lock:
                await self._read_again(match)  # the match may have ended through another server
                record = match.record.seats[seat]
                status = match.status
                if status == WAITING:
                    await self._store_change(match, self.store.release_seat(match_id, seat))
                    reserve = starting_reserve_ms(match.record.clock)
                    match.record.seats[seat] = SeatRecord(seat, record.bot_level, reserve_ms=reserve)
                    if record.bot_level:
                        self.open_bot_seats[record.bot_level] += 1
                elif status == PLAYING:
                    if record.played_by in (LEFT, FORFEITED):
                        raise NotAllowedNow("this seat was given up already")
                    clock = match.record.clock
                    forfeits = clock is not None and clock.on_timeout == FORFEITED
                    await self._hand_over(match, seat, FORFEITED if forfeits else LEFT)
                else:
                    raise NotAllowedNow(f"the match is {status}")
                self._changed(match)
        log.info("seat left", extra={"match_id": match_id, "seat": seat})
        return match

    async def reclaim(
        self, match_id: str, token: str | None, player_id: str | None = None
    ) -> tuple[Match, int]:
        """Take back the caller's seat from the AI that plays it since a timeout."""
        async with self._using(match_id) as match:
            seat = await self._seat_of(match, token, player_id)
            async with match.lock:
                await self._read_again(match)  # the caller may have seen its seat time out elsewhere
                record = match.record.seats[seat]
                if record.bot_level is not None:
                    raise NotAllowedNow("a bot seat stays with the server's AI once it plays it")
                if record.played_by != AI:
                    raise NotAllowedNow(
                        "this seat is not played by the AI after a timeout"
                        + (f" (it is {record.played_by})" if record.played_by != OWNER else "")
                    )
                back = replace(record, played_by=OWNER)
                await self._store_change(match, self.store.update_seats(match_id, [back]))
                match.record.seats[seat] = back
                if seat in match.to_move():
                    match.turn_started_ms = now_ms()  # its own turn again, from now
                    self.clocks.arm(match)
                self._changed(match)
        log.info("seat reclaimed", extra={"match_id": match_id, "seat": seat})
        return match, seat

    async def _hand_over(
        self, match: Match, seat: int, played_by: str, decided_at: int | None = None
    ) -> None:
        """The AI plays ``seat`` from now (under the match's lock); if a clock decided it at version
        ``decided_at``, only while the store holds no later action (Conflict)."""
        given = replace(match.record.seats[seat], played_by=played_by, reserve_ms=0)
        await self._store_change(match, self.store.update_seats(match.match_id, [given], decided_at))
        match.record.seats[seat] = given
        self._release_agent(match.match_id, seat)
        if seat in match.to_move():
            self.clocks.arm(match)

    async def _timed_out(self, match: Match, version: int) -> None:
        """Seats to move at ``version`` ran out of time: the AI plays them (or they forfeit)."""
        async with match.lock:
            await self._read_again(match)  # the mover may have moved through another server
            if match.version != version:
                return
            now = now_ms()
            late = [seat for seat, deadline in match.deadlines_ms().items() if deadline <= now + EARLY_MS]
            late += [seat for seat in match.to_move() if self.clocks.bot_is_late(match, seat, now + EARLY_MS)]
            agents_waited = self.clocks.agents_waited(match, now + EARLY_MS)
            if not late and not agents_waited:
                self.clocks.rearm(match)  # woken early: wait for the next deadline
                return
            clock = match.record.clock
            try:
                for seat in sorted(set(late)):
                    is_bot = match.record.seats[seat].bot_level is not None
                    played_by = AI if is_bot or clock is None else clock.on_timeout
                    await self._hand_over(match, seat, played_by, version)
                    log.info("seat timed out", extra={"match_id": match.match_id, "seat": seat})
                if agents_waited:
                    for seat in match.agent_seats():
                        await self._hand_over(match, seat, AI, version)
                        log.info("agent let go", extra={"match_id": match.match_id, "seat": seat})
            except Conflict:
                # The match moved on through another server after this read it: the clock decided on
                # a turn that is over, and the store refused its decision.
                await self._catch_up(match)
            self._changed(match)

    async def _stand_in_moves(self, match: Match, version: int, seat: int, action: Any) -> None:
        """The AI's move for ``seat``, which it plays, if the match is still at ``version``."""
        async with match.lock:
            if match.version != version or seat not in match.ai_to_move():
                return
            with contextlib.suppress(StaleVersion):  # another server's stand-in moved first
                await self._apply(match, seat, action, stand_in_request_id(version + 1), stand_in=True)

    # --- expiry --------------------------------------------------------------

    async def _sweep(self) -> None:
        """Cancel, again and again, matches that waited for players or for an agent too long."""
        while True:
            await asyncio.sleep(self.limits.sweep_seconds)
            try:
                await self.expire()
                if self.store.shared:
                    await self._recount()
            except Exception:
                log.exception("looking for expired matches failed")

    async def _recount(self) -> None:
        """With a shared store: the waiting matches, bot seats and agents of every server, and the matches in
        play that no server moved for longer than a turn can last (their server stopped): this one
        holds them from now on, so that their clocks run and they finish."""
        self.waiting = await self.store.count_waiting()
        self.open_bot_seats = Counter(await self.store.open_bot_seats())
        now = now_ms()
        self.agents.heard(await self.store.live_agents(now - self.agents.silence_ms), now)
        await self._watch_playing(now_ms() - int(self.limits.orphaned_seconds * 1000))

    async def expire(self) -> None:
        now = now_ms()
        expired = await self.store.waiting_since(now - int(self.limits.waiting_expiry_seconds * 1000), False)
        unclaimed = await self.store.waiting_since(now - int(self.limits.bot_seat_seconds * 1000), True)
        for match_id in dict.fromkeys([*expired, *unclaimed]):
            with contextlib.suppress(Conflict, NotFound):
                await self._cancel(match_id)

    async def _cancel(self, match_id: str) -> None:
        async with self._using(match_id) as match, match.lock:
            if match.status != WAITING:
                return
            await self._store_change(match, self.store.cancel(match_id))
            self._no_longer_waits(match)
            self._ended(match)
            match.record.cancelled = True
            self._changed(match)
        log.info("match cancelled", extra={"match_id": match_id})

    # --- listing -------------------------------------------------------------

    async def list_matches(
        self,
        status: str | None,
        limit: int,
        after: tuple[int, str] | None,
        player_id: str | None = None,
        game: str | None = None,
    ) -> list[MatchListing]:
        """Newest first (only ``player_id``'s and ``game``'s, if given); ``after`` is the (created_ms,
        match_id) of the last match of the previous page."""
        return await self.store.list_matches(status, limit, after, player_id, game)

    # --- acting --------------------------------------------------------------

    async def submit(
        self,
        match_id: str,
        token: str | None,
        expected_version: int,
        request_id: str,
        action: Any,
        player_id: str | None = None,
    ) -> tuple[Match, int, Update]:
        """Apply the caller's action exactly once; returns (the match, seat, the update it made)."""
        if player_id is None:
            _required(token)
        check_request_id(request_id)
        async with self._using(match_id) as match:
            seat = await self._seat_of(match, token, player_id)
            async with match.lock:
                if expected_version > match.version:
                    await self._read_again(match)  # the caller saw another server move it on
                read = False
                while True:
                    earlier = _repeated(match, seat, request_id, action)
                    if earlier is not None:
                        return match, seat, earlier
                    try:
                        _check_may_act(match, seat, expected_version)
                    except (NotAllowedNow, StaleVersion):
                        # Refused by the match as held here: unless another server changed it since
                        # (a seat taken back, the match started), which this answer must show.
                        if read or not await self._read_again(match):
                            raise
                        read = True
                        continue
                    version = match.version
                    try:
                        return match, seat, await self._apply(match, seat, action, request_id)
                    except StaleVersion:
                        # Another server stored an action first, read now: this very request retried
                        # there, or another seat's choice in this sealed step, after which this one
                        # may still be current. Checked again, as often as the match moves on.
                        if match.version == version:
                            raise

    async def _apply(
        self, match: Match, seat: int, action: Any, request_id: str, stand_in: bool = False
    ) -> Update:
        """Check ``action`` for ``seat``, a seat to move, then persist, record and publish it (under the
        lock); ``stand_in``: the AI's move for a seat it plays."""
        after = match.rules.clone(match.state)
        try:
            events = match.rules.apply(after, seat, action)
        except ValueError as error:  # illegal now: ``after`` is discarded
            raise NotAllowedNow(str(error)) from None
        return await self._accept(match, seat, action, request_id, after, events, stand_in)

    async def _accept(
        self,
        match: Match,
        seat: int,
        action: Any,
        request_id: str,
        after: Any,
        events: list[Event],
        stand_in: bool,
    ) -> Update:
        at = now_ms()
        mover = charged(match, seat, at)  # its reserve, less what this turn took beyond its time
        if stand_in and mover.played_by == AI and mover.bot_level is None:
            mover = replace(mover, ai_turns=mover.ai_turns + 1)  # a person's turn the AI played
        changed = [mover] if mover != match.record.seats[seat] else []  # untimed seats rarely change
        rules = match.rules
        finished = rules.is_over(after)
        # Persist first: once the write returns, the action survives a crash. Then record and publish
        # it even if the caller went away meanwhile (a cancelled call), or the store would be ahead of
        # the match.
        try:
            _, cancelled = await _to_the_end(
                self.store.append_action(
                    match.match_id,
                    match.version + 1,
                    seat,
                    action_text(match.record.game, action),
                    request_id,
                    finished,
                    changed,
                )
            )
        except Conflict:
            await self._catch_up(match)  # another server moved it on
            raise StaleVersion("the match has moved on; fetch the view and try again") from None
        match.record.seats[seat] = mover
        update = match.record_action(seat, action, request_id, after, events)
        if finished:
            self._ended(match)
        if not rules.sealed(after):  # a new step; others still to choose in this one keep its start
            match.turn_started_ms = at
        self.clocks.arm(match)
        self._publish(match, update)
        if finished and self.on_finished is not None:
            self.on_finished(match)
        if cancelled:
            raise asyncio.CancelledError
        return update

    # --- streaming -----------------------------------------------------------

    def _changed(self, match: Match) -> None:
        """Seats, a clock or the status changed without an action: every stream sees the match anew."""
        match.touch()
        self._publish(match, match.snapshot())

    def _publish(self, match: Match, update: Update) -> None:
        for inbox in match.watchers:
            inbox.put(update)
        if match.status in (FINISHED, CANCELLED):
            for inbox in match.watchers:
                inbox.put(None)

    @contextlib.asynccontextmanager
    async def following(
        self, match_id: str, token: str | None, after_version: int, player_id: str | None = None
    ) -> AsyncIterator[Stream]:
        """A stream of the match for the caller's seat (None: a spectator); the match stays in memory
        while the block runs."""
        async with self._using(match_id) as match:
            await self._lock_and_read_again(match)  # it starts from what any server acknowledged before
            seat = await self._viewer(match, token, player_id)
            if after_version > match.version:
                raise InvalidRequest(
                    f"after_version {after_version} is ahead of the match (version {match.version})"
                )
            yield Stream(match, seat, self._updates(match, after_version))

    async def _updates(self, match: Match, after_version: int) -> AsyncIterator[Update]:
        """The match as it stands, then every update after ``after_version`` exactly once, in order,
        then live ones until the end."""
        inbox = Inbox()
        # No await between reading the backlog and registering: nothing can slip in between.
        backlog = [match.snapshot(), *match.updates(match.actions[after_version:])]
        ended = match.status in (FINISHED, CANCELLED)
        match.watchers.add(inbox)
        if self.closing:
            inbox.put(None)  # opened after close_streams(), which ended the streams it found
        try:
            # Each sent is let go of: the stream lives as long as its player, its backlog need not.
            backlog.reverse()
            while backlog:
                yield backlog.pop()
            if ended:
                return
            while (live := await inbox.get()) is not None:
                yield live
            if self.closing:
                raise ShuttingDown("the server is shutting down; reconnect and resume from your last version")
        finally:
            match.watchers.discard(inbox)

    def close_streams(self) -> None:
        """End every open stream with UNAVAILABLE, so clients reconnect rather than take it for the end."""
        self.closing = True
        for match in self.cache.matches():
            for inbox in match.watchers:
                inbox.put(None)


def _check_levels(levels: Iterable[str]) -> None:
    if any(level not in BOT_LEVELS for level in levels):
        raise InvalidRequest("unknown bot level")


def _repeated(match: Match, seat: int, request_id: str, action: Any) -> Update | None:
    """The update of ``request_id`` if the match has it already (a retry), after checking it is the same."""
    earlier = match.by_request.get(request_id)
    if earlier is None:
        return None
    # The seat first: comparing another seat's action would tell the caller what it chose.
    if earlier.seat != seat:
        raise InvalidRequest("request_id was already used by another seat")
    if earlier.action != action:
        raise InvalidRequest("request_id was already used for a different action")
    return next(match.updates([earlier]))


def _player_seat(match: Match, player_id: str) -> int | None:
    """The seat ``player_id`` acts for: of its seats (several only hot-seat), the first to move, else the
    first."""
    seats = [seat.seat for seat in match.record.seats if seat.player_id == player_id]
    moving = [seat for seat in seats if seat in match.to_move()]
    return next(iter(moving + seats), None)


def _check_may_act(match: Match, seat: int, expected_version: int) -> None:
    """Refuse an action of ``seat`` seen at ``expected_version`` that the match does not take now."""
    status = match.status
    if status != PLAYING:
        raise NotAllowedNow(f"the match is {status}")
    if not _current_for(match, expected_version):
        raise StaleVersion(f"the match is at version {match.version}, not {expected_version}")
    if seat not in match.to_move():
        raise NotAllowedNow(_not_to_move(match, seat))
    record = match.record.seats[seat]
    if record.played_by != OWNER:  # only a person's seat that timed out may be taken back
        reclaimable = record.played_by == AI and record.bot_level is None
        back = "; ReclaimSeat takes it back" if reclaimable else " for the rest of the match"
        raise NotAllowedNow(f"the AI plays this seat ({record.played_by}){back}")


def _behind(match: Match, stamp: tuple[int, int]) -> bool:
    """Whether the store's ``stamp`` of the match (``Store.stamp``) shows what ``match`` lacks."""
    version, changes = stamp
    return version > match.version or changes > match.record.changes


def _current_for(match: Match, expected_version: int) -> bool:
    """Whether a caller who saw ``expected_version`` saw the match as it stands for its choice: the
    current version, or in a simultaneous step any version since the step began (the others' sealed
    choices since then change nothing the caller may see or do)."""
    behind = match.version - expected_version
    return behind == 0 or 0 < behind <= len(match.rules.sealed(match.state))


def _not_to_move(match: Match, seat: int) -> str:
    """Why ``seat``, which is not to move, may not act now."""
    if seat in match.rules.sealed(match.state):
        return "you have already chosen in this step; the others are still choosing"
    return "it is not your turn"


def _required(token: str | None) -> str:
    if not token:
        raise Unauthenticated(
            "a seat token or player credential is required: send 'authorization: Bearer <token>'"
        )
    return token


async def _to_the_end(work: Awaitable[T]) -> tuple[T, bool]:
    """``work`` awaited to its end even if the caller is cancelled meanwhile: its result, and whether
    the caller was cancelled. A store's write that is already a future runs in no task of its own."""
    future = asyncio.ensure_future(work)
    cancelled = False
    while not future.done():
        try:
            await asyncio.shield(future)
        except asyncio.CancelledError:
            cancelled = True  # the caller's (were ``work`` itself cancelled, ``result`` raises it)
    return future.result(), cancelled


async def _uncancelled(work: Awaitable[T]) -> T:
    """Run ``work`` to its end even if the caller is cancelled meanwhile; then pass the cancellation on."""
    result, cancelled = await _to_the_end(work)
    if cancelled:
        raise asyncio.CancelledError
    return result
