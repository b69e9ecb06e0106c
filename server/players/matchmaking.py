"""Matchmaking: group queued players of one game and close ratings, widening the window the longer
they wait.

``group`` is the pure part (no clock of its own, no I/O): which queued players
make a match now, human or with bots. ``Matchmaker`` runs it every TICK_SECONDS
over the queue (shared by every server through the store), creates each match,
seats its players and tells them. A group's players are claimed in the store
before its match is made, so no player is ever put into two matches, whichever
servers group at once; one whose match could not be made (no agent for its
bots) goes back in with its waiting time kept. The match counts against the caps
of each of its players and their networks, as if each had created it; a player
it would take past one is refused, and the others go back in.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from server.games.registry import game_named
from server.match import MatchService, Seated
from server.match.clocks import now_ms
from server.match.errors import MatchError, SeatTaken, ShuttingDown, Throttled
from server.match.holdings import holders, player_client
from server.store import Conflict, QueuedRecord

TICK_SECONDS = 0.25
STALE_MS = 5_000  # a queued player its server has not mentioned for this long is gone
CLAIM_MS = 30_000  # a claim whose match was not made in this long (its server stopped) lapses
QUEUED_EVERY_SECONDS = 1.0  # how often a queued player hears that it still waits
WINDOW_START = 2.0  # in rating (mu): how far apart players may be at first...
WINDOW_GROWTH = 1.0  # ...widened by this per second of waiting...
WINDOW_MAX = 60.0  # ...up to anyone
SHUTTING_DOWN = "the server is shutting down; queue again"
log = logging.getLogger("mercado.matchmaking")


def window(waited_seconds: float) -> float:
    """How far apart (in rating mean) a player waiting this long may be from the others of its match."""
    return min(WINDOW_MAX, WINDOW_START + WINDOW_GROWTH * max(0.0, waited_seconds))


@dataclass(eq=False)
class Seeker:
    """A queued player."""

    player_id: str
    display_name: str
    rating: float  # its rating mean in its game
    players: int  # the match size it asks for
    allow_ai: bool
    since: float  # when it queued, in the matchmaker's clock (seconds)
    game: str = "mercado"  # the game it asks for
    found: asyncio.Future[Seated] | None = None
    # The client and network its FindMatch came from (``Clients.key``), whose caps its match counts
    # against; known to the server that holds its stream.
    client: str = ""
    network: str = ""

    def window(self, now: float) -> float:
        return window(now - self.since)


@dataclass(frozen=True)
class Group:
    """A match to make: its queued players and the bot levels of its other seats."""

    seekers: list[Seeker]
    bots: list[str] = field(default_factory=list)

    @property
    def game(self) -> str:
        return self.seekers[0].game

    @property
    def spread(self) -> float:
        ratings = [s.rating for s in self.seekers]
        return max(ratings) - min(ratings)


def group(
    queue: Sequence[Seeker], now: float, ai_wait: float, bot_ratings: Mapping[str, Mapping[str, float]]
) -> list[Group]:
    """The matches to make now from ``queue``, each of players of one game and match size: the
    longest-waiting first, each of players whose ratings are all within every member's window; a
    player who allows AI and has waited ``ai_wait`` seconds is matched with those close to it and
    bots of ratings closest to theirs (``bot_ratings``: by game, each bot level's rating mean)."""
    groups: list[Group] = []
    taken: set[int] = set()
    for game, size in sorted({(s.game, s.players) for s in queue}):
        free = sorted((s for s in queue if (s.game, s.players) == (game, size)), key=lambda s: s.rating)
        bots = bot_ratings.get(game)
        for seeker in sorted(free, key=lambda s: s.since):
            if id(seeker) in taken:
                continue
            chosen = _closest_group(free, free.index(seeker), size, now)
            if chosen is None and seeker.allow_ai and now - seeker.since >= ai_wait and bots:
                chosen = _with_bots(free, seeker, size, now, bots)
            if chosen is not None:
                taken.update(id(s) for s in chosen.seekers)
                free = [s for s in free if id(s) not in taken]
                groups.append(chosen)
    return groups


def _closest_group(pool: list[Seeker], at: int, size: int, now: float) -> Group | None:
    """Of the runs of ``size`` neighbours (by rating) that include ``pool[at]``, the tightest whose
    spread is within every member's window."""
    best: Group | None = None
    for start in range(max(0, at - size + 1), min(at, len(pool) - size) + 1):
        run = Group(pool[start : start + size])
        if run.spread <= min(s.window(now) for s in run.seekers) and (
            best is None or run.spread < best.spread
        ):
            best = run
    return best


def _with_bots(
    pool: list[Seeker], seeker: Seeker, size: int, now: float, bot_ratings: Mapping[str, float]
) -> Group:
    """``seeker`` with those who allow AI and fit everyone's window (closest first), bots for the rest."""
    people = Group([seeker])
    for other in sorted(pool, key=lambda s: abs(s.rating - seeker.rating)):
        if len(people.seekers) == size:
            break
        if other is seeker or not other.allow_ai:
            continue
        larger = Group([*people.seekers, other])
        if larger.spread <= min(s.window(now) for s in larger.seekers):
            people = larger
    mean = sum(s.rating for s in people.seekers) / len(people.seekers)
    level = min(bot_ratings, key=lambda level: abs(bot_ratings[level] - mean))
    return Group(people.seekers, [level] * (size - len(people.seekers)))


class Matchmaker:
    """The queue, which every server shares through the store, and the task that makes matches.

    A server holds the FindMatch streams of its own queued players. While it
    holds any, it says every TICK_SECONDS that they still wait, reads the whole
    queue, groups it, and makes each group's match once the store let it claim
    all its players (a server that claimed them first makes it instead). A
    player whose match another server made is told by its own server, with a
    seat token of its own (the maker's one is never sent). Entries of a server
    that stopped go stale and are dropped; so are claims it never completed.
    """

    def __init__(
        self,
        service: MatchService,
        bot_ratings: Callable[[str], Awaitable[Mapping[str, float]]],
        ai_wait: float = 15.0,
    ) -> None:
        self.service = service
        self.store = service.store
        self.bot_ratings = bot_ratings  # a game's bot levels' rating means, as they stand
        self.ai_wait = ai_wait
        self.waiting: dict[str, Seeker] = {}  # this server's queued players, by player
        self.telling: set[str] = set()  # players being given their seat in another server's match
        # Every server's queued players by game and match size, last read.
        self.sizes: Counter[tuple[str, int]] = Counter()
        self.ticker: asyncio.Task[None] | None = None
        self.tasks: set[asyncio.Task[None]] = set()  # matches being made, players leaving
        self.closing = False

    def queued(self, players: int, game: str = "mercado") -> int:
        """How many players are queued for a match of ``game`` and ``players``."""
        mine = sum((s.game, s.players) == (game, players) for s in self.waiting.values())
        return max(self.sizes[game, players], mine)

    async def find(
        self,
        player_id: str,
        display_name: str,
        rating: float,
        players: int,
        allow_ai: bool,
        game: str = "mercado",
        client: str = "",
        network: str = "",
    ) -> AsyncIterator[Seeker | Seated]:
        """Queue the player for a match of ``game`` (``rating``: its rating mean there): the seeker now
        and then while it waits, then its seat. Its match counts against the caps of ``client`` and
        ``network``, where the call came from. Leaving the iteration early leaves the queue; a match it would
        take past a cap ends it with that refusal."""
        already = SeatTaken("you are in the matchmaking queue already (close your other FindMatch first)")
        if player_id in self.waiting:
            raise already
        loop = asyncio.get_running_loop()
        seeker = Seeker(
            player_id,
            display_name,
            rating,
            players,
            allow_ai,
            loop.time(),
            game,
            loop.create_future(),
            client,
            network,
        )
        since = now_ms()
        # One server alone holds every queued player: an entry it does not hold is a dead process's.
        stale_before = since - STALE_MS if self.store.shared else since + 1
        queued = QueuedRecord(player_id, display_name, rating, players, allow_ai, since, game=game)
        try:
            await self.store.enqueue(queued, stale_before)
        except Conflict:
            raise already from None
        self.waiting[player_id] = seeker
        try:
            if self.closing:  # queued after close(), which ended the streams it found
                raise ShuttingDown(SHUTTING_DOWN)
            if self.ticker is None or self.ticker.done():
                self.ticker = loop.create_task(self._tick())
            assert seeker.found is not None
            while True:
                yield seeker
                with contextlib.suppress(TimeoutError):
                    seated = await asyncio.wait_for(asyncio.shield(seeker.found), QUEUED_EVERY_SECONDS)
                    break
            yield seated
        finally:
            del self.waiting[player_id]
            self._spawn(self.store.dequeue(player_id, since))  # its entry goes, matched or not

    async def close(self) -> None:
        """Stop grouping; let the matches being made be made; end the streams of the players still
        waiting with UNAVAILABLE, so that their clients queue again elsewhere."""
        self.closing = True
        if self.ticker is not None:
            self.ticker.cancel()
            await asyncio.gather(self.ticker, return_exceptions=True)
        await asyncio.gather(*self.tasks, return_exceptions=True)
        for seeker in self.waiting.values():
            if seeker.found is not None and not seeker.found.done():
                seeker.found.set_exception(ShuttingDown(SHUTTING_DOWN))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _tick(self) -> None:
        """While this server holds queued players: tell theirs their matches, group, make matches."""
        while self.waiting:
            try:
                await self._group()
            except Exception:
                log.exception("matchmaking failed; trying again")
            await asyncio.sleep(TICK_SECONDS)

    async def _group(self) -> None:
        loop = asyncio.get_running_loop()
        now, at = now_ms(), loop.time()
        entries = await self.store.queued(list(self.waiting), now, now - STALE_MS)
        free = [e for e in entries if e.match_id is None]
        self.sizes = Counter((e.game, e.players) for e in free)
        for entry in entries:
            seeker = self.waiting.get(entry.player_id)
            if entry.match_id is not None and entry.seat is not None and seeker is not None:
                self._spawn(self._tell(seeker, entry.match_id, entry.seat))
        seekers = [
            Seeker(
                e.player_id,
                e.display_name,
                e.rating,
                e.players,
                e.allow_ai,
                at - (now - e.since_ms) / 1000,
                e.game,
            )
            for e in free
        ]
        overdue = {s.game for s in seekers if s.allow_ai and at - s.since >= self.ai_wait}
        bot_ratings = {game: await self.bot_ratings(game) for game in sorted(overdue)}
        for found in group(seekers, at, self.ai_wait, bot_ratings):
            ids = [s.player_id for s in found.seekers]
            if await self.store.claim_queued(ids, now, now - CLAIM_MS):
                self._spawn(self._make(found))

    def _caller(self, player_id: str) -> tuple[str, str]:
        """The client and network a queued player's match counts against: as its FindMatch came to this
        server; another server's player, as its player alone."""
        mine = self.waiting.get(player_id)
        return (player_client(player_id), "") if mine is None else (mine.client, mine.network)

    def _over_caps(self, found: Group) -> dict[str, Throttled]:
        """The refusals of the group's players whose match would take them (or their networks) past a
        cap, of those this server holds: the others keep their places."""
        refused = {}
        for seeker in found.seekers:
            if seeker.player_id in self.waiting:
                try:
                    self.service.check_caps(holders(*self._caller(seeker.player_id)), len(found.bots))
                except Throttled as error:
                    refused[seeker.player_id] = error
        return refused

    async def _make(self, found: Group) -> None:
        """Create the group's match, counted against every one of its players' caps, and seat its
        players; back to the queue if it cannot be made, but those it would take past a cap, refused."""
        people = found.seekers
        ids = [s.player_id for s in people]
        refused = self._over_caps(found)
        if refused:
            for player_id, error in refused.items():
                told = self.waiting[player_id].found
                if told is not None and not told.done():
                    told.set_exception(error)
            await self.store.unclaim_queued([p for p in ids if p not in refused])
            return
        (client, network), *others = [self._caller(player_id) for player_id in ids]
        try:
            match = await self.service.create_match(
                game_named(found.game).options({"players": len(people) + len(found.bots)}),
                [None] * len(people) + list(found.bots),
                creator=client,
                network=network,
                player_id=people[0].player_id,
                game=found.game,
                also_for=[holders(*other) for other in others],
            )
        except MatchError as error:
            log.info("matchmaking could not make a match", extra={"reason": str(error)})
            await self.store.unclaim_queued(ids)  # they keep their places
            return
        # Every player is seated before any hears: each MatchFound shows the match with all of them.
        seated: dict[str, Seated] = {}
        for number, seeker in enumerate(people):
            try:
                seated[seeker.player_id] = await self.service.join(
                    match.match_id, seeker.display_name, number, seeker.player_id
                )
            except MatchError as error:
                log.warning("a matched player could not be seated", extra={"reason": str(error)})
        for player_id, seat in seated.items():
            mine = self.waiting.get(player_id)
            if mine is not None and mine.found is not None and not mine.found.done():
                mine.found.set_result(seat)
        seats = {player_id: (match.match_id, seat.seat) for player_id, seat in seated.items()}
        await self.store.matched(seats)  # for the players whose streams other servers hold
        log.info(
            "match made",
            extra={
                "match_id": match.match_id,
                "game": found.game,
                "players": len(people),
                "bots": len(found.bots),
            },
        )

    async def _tell(self, seeker: Seeker, match_id: str, seat: int) -> None:
        """Another server made the player's match: its seat, with a token of this server's making."""
        if seeker.found is None or seeker.found.done() or seeker.player_id in self.telling:
            return
        self.telling.add(seeker.player_id)  # one token: a second would undo the first
        try:
            seated = await self.service.reseat(match_id, seat, seeker.player_id)
        except MatchError as error:
            seeker.found.set_exception(error)
            return
        finally:
            self.telling.discard(seeker.player_id)
        if not seeker.found.done():
            seeker.found.set_result(seated)
