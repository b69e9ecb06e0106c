"""Matchmaking: group queued players of close ratings, widening the window the longer they wait.

``group`` is the pure part (no clock of its own, no I/O): which queued players
make a match now, human or with bots. ``Matchmaker`` runs it every TICK_SECONDS
over the live queue, creates each match, seats its players and tells them.
A player leaves the queue the moment its group is formed, so no player is ever
put into two matches; one whose match could not be made (no agent for its bots)
goes back in with its waiting time kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field

from server.engine import Options
from server.match import MatchService, Seated
from server.match.errors import MatchError, SeatTaken

TICK_SECONDS = 0.25
QUEUED_EVERY_SECONDS = 1.0  # how often a queued player hears that it still waits
WINDOW_START = 2.0  # in rating (mu): how far apart players may be at first...
WINDOW_GROWTH = 1.0  # ...widened by this per second of waiting...
WINDOW_MAX = 60.0  # ...up to anyone
log = logging.getLogger("mercado.matchmaking")


def window(waited_seconds: float) -> float:
    """How far apart (in rating mean) a player waiting this long may be from the others of its match."""
    return min(WINDOW_MAX, WINDOW_START + WINDOW_GROWTH * max(0.0, waited_seconds))


@dataclass(eq=False)
class Seeker:
    """A queued player."""

    player_id: str
    display_name: str
    rating: float  # its rating mean
    players: int  # the match size it asks for
    allow_ai: bool
    since: float  # when it queued, in the matchmaker's clock (seconds)
    found: asyncio.Future[Seated] | None = None

    def window(self, now: float) -> float:
        return window(now - self.since)


@dataclass(frozen=True)
class Group:
    """A match to make: its queued players and the bot levels of its other seats."""

    seekers: list[Seeker]
    bots: list[str] = field(default_factory=list)

    @property
    def spread(self) -> float:
        ratings = [s.rating for s in self.seekers]
        return max(ratings) - min(ratings)


def group(
    queue: Sequence[Seeker], now: float, ai_wait: float, bot_ratings: Mapping[str, float]
) -> list[Group]:
    """The matches to make now from ``queue``: the longest-waiting first, each of players whose ratings
    are all within every member's window; a player who allows AI and has waited ``ai_wait`` seconds
    is matched with those close to it and bots of ratings closest to theirs."""
    groups: list[Group] = []
    taken: set[int] = set()
    for size in sorted({s.players for s in queue}):
        free = sorted((s for s in queue if s.players == size), key=lambda s: s.rating)
        for seeker in sorted(free, key=lambda s: s.since):
            if id(seeker) in taken:
                continue
            chosen = _closest_group(free, free.index(seeker), size, now)
            if chosen is None and seeker.allow_ai and now - seeker.since >= ai_wait and bot_ratings:
                chosen = _with_bots(free, seeker, size, now, bot_ratings)
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
    """The queue of one server, and the task that makes its matches."""

    def __init__(
        self,
        service: MatchService,
        bot_ratings: Callable[[], Awaitable[Mapping[str, float]]],
        ai_wait: float = 15.0,
    ) -> None:
        self.service = service
        self.bot_ratings = bot_ratings  # the bot levels' rating means, as they stand
        self.ai_wait = ai_wait
        self.queue: dict[str, Seeker] = {}  # by player
        self.sizes: Counter[int] = Counter()  # queued players by the match size they ask for
        self.seating: set[str] = set()  # players whose match is being made
        self.ticker: asyncio.Task[None] | None = None
        self.making: set[asyncio.Task[None]] = set()

    def queued(self, players: int) -> int:
        return self.sizes[players]

    def _enqueue(self, seeker: Seeker) -> None:
        self.queue[seeker.player_id] = seeker
        self.sizes[seeker.players] += 1

    def _dequeue(self, seeker: Seeker) -> None:
        del self.queue[seeker.player_id]
        self.sizes[seeker.players] -= 1

    async def find(
        self, player_id: str, display_name: str, rating: float, players: int, allow_ai: bool
    ) -> AsyncIterator[Seeker | Seated]:
        """Queue the player: the seeker now and then while it waits, then its seat. Leaving the
        iteration early leaves the queue."""
        if player_id in self.queue or player_id in self.seating:
            raise SeatTaken("you are in the matchmaking queue already (close your other FindMatch first)")
        loop = asyncio.get_running_loop()
        seeker = Seeker(player_id, display_name, rating, players, allow_ai, loop.time(), loop.create_future())
        self._enqueue(seeker)
        if self.ticker is None or self.ticker.done():
            self.ticker = loop.create_task(self._tick())
        try:
            assert seeker.found is not None
            while True:
                yield seeker
                with contextlib.suppress(TimeoutError):
                    seated = await asyncio.wait_for(asyncio.shield(seeker.found), QUEUED_EVERY_SECONDS)
                    break
            yield seated
        finally:
            if self.queue.get(player_id) is seeker:
                self._dequeue(seeker)

    async def close(self) -> None:
        """Stop grouping; let the matches being made be made."""
        if self.ticker is not None:
            self.ticker.cancel()
            await asyncio.gather(self.ticker, return_exceptions=True)
        await asyncio.gather(*self.making, return_exceptions=True)

    async def _tick(self) -> None:
        """While anyone is queued: group, and make each group's match."""
        loop = asyncio.get_running_loop()
        while self.queue:
            now = loop.time()
            overdue = any(s.allow_ai and now - s.since >= self.ai_wait for s in self.queue.values())
            bot_ratings = await self.bot_ratings() if overdue else {}
            for found in group(list(self.queue.values()), loop.time(), self.ai_wait, bot_ratings):
                if any(self.queue.get(s.player_id) is not s for s in found.seekers):
                    continue  # someone left the queue while the ratings were read
                for seeker in found.seekers:
                    self._dequeue(seeker)
                    self.seating.add(seeker.player_id)
                task = loop.create_task(self._make(found))
                self.making.add(task)
                task.add_done_callback(self.making.discard)
            await asyncio.sleep(TICK_SECONDS)

    async def _make(self, found: Group) -> None:
        """Create the group's match and seat its players; back to the queue if it cannot be made."""
        people = found.seekers
        try:
            match = await self.service.create_match(
                Options(players=len(people) + len(found.bots)),
                [None] * len(people) + list(found.bots),
                player_id=people[0].player_id,
            )
        except MatchError as error:
            log.info("matchmaking could not make a match", extra={"reason": str(error)})
            for seeker in people:
                self.seating.discard(seeker.player_id)
                if (
                    seeker.found is not None
                    and not seeker.found.done()
                    and seeker.player_id not in self.queue
                ):
                    self._enqueue(seeker)  # still waiting: it keeps its place
            if not self.ticker or self.ticker.done():
                self.ticker = asyncio.get_running_loop().create_task(self._tick())
            return
        # Every player is seated before any hears: each MatchFound shows the match with all of them.
        outcomes: list[Seated | MatchError] = []
        for number, seeker in enumerate(people):
            try:
                outcomes.append(
                    await self.service.join(match.match_id, seeker.display_name, number, seeker.player_id)
                )
            except MatchError as error:
                outcomes.append(error)
        for seeker, outcome in zip(people, outcomes, strict=True):
            self.seating.discard(seeker.player_id)
            if seeker.found is None or seeker.found.done():
                continue
            if isinstance(outcome, MatchError):
                seeker.found.set_exception(outcome)
            else:
                seeker.found.set_result(outcome)
        log.info(
            "match made", extra={"match_id": match.match_id, "players": len(people), "bots": len(found.bots)}
        )
