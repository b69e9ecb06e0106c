"""Turn clocks and the AI that plays for absent players.

A match with a time control gives each human seat ``turn_seconds`` per turn and a
reserve that a slower turn draws on; when several seats choose at once, each has
its own clock. When a seat's time runs out, it is played by the AI from then on
(or forfeits, as the match says); so are seats whose players left, and bot seats
whose agent went silent for a while (``Limits.bot_turn_seconds``). In a match whose
people may take days over a turn (no clock, or a long one), the agents playing
its bot seats are let go once the humans to move have been quiet for
``Limits.agent_wait_seconds``, so that an agent serves the matches in play: the
stand-in plays those seats from then on. The AI that stands in plays a bot seat
at the seat's level, any other at the match's fallback level; it sees only that
seat's view, like any bot, and its move goes through the same checks as a
player's. Its searches are seeded afresh for each move from the system's secure
source, and never sent; at a sealed step its choice is drawn from what they found
(``ai.ismcts.played``): who knows the view and the code foresees it only by chance.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable, Coroutine
from dataclasses import replace
from typing import Any

from ai.workers import search_pool
from server.store import StoreUnavailable

from .fair_pool import FairPool
from .match import Match
from .records import DEFAULT_FALLBACK_LEVEL, OWNER, PLAYING, SeatRecord, TimeControl

log = logging.getLogger("mercado.clock")
EARLY_MS = 50  # a timer may wake this much before a deadline by the wall clock: it counts as reached
# A timeout or a stand-in's move that could not be carried out (the store failed) is tried again after
# the first delay, doubled at each failure in a row up to the last.
RETRY_SECONDS = (0.5, 4.0)


def now_ms() -> int:
    return int(time.time() * 1000)


def starting_reserve_ms(clock: TimeControl | None) -> int:
    """A seat's reserve before its first turn."""
    return clock.reserve_ms if clock else 0


def charged(match: Match, seat: int, at_ms: int) -> SeatRecord:
    """``seat`` once its turn ends at ``at_ms``: what it took beyond its turn's time off its reserve."""
    clock = match.record.clock
    record = match.record.seats[seat]
    if clock is None or not clock.turn_seconds or record.bot_level is not None:
        return record
    over = at_ms - match.turn_started_ms - clock.turn_seconds * 1000
    if over <= 0 or not record.reserve_ms:  # most turns: the record as it is
        return record
    return replace(record, reserve_ms=max(0, record.reserve_ms - over))


class Timekeeper:
    """Arms each match's clock for its current turn, and has the AI move for seats it plays.

    ``timed_out(match, version)`` is called when a seat to move at ``version`` may have run out of
    time, or its agents waited long enough; ``play(match, version, seat, action)`` applies the
    stand-in's move for ``seat``, if the match is still there.
    """

    def __init__(
        self,
        timed_out: Callable[[Match, int], Coroutine[Any, Any, None]],
        play: Callable[[Match, int, int, Any], Coroutine[Any, Any, None]],
        bot_turn_seconds: float,
        agent_wait_seconds: float,
    ) -> None:
        self.timed_out = timed_out
        self.play = play
        self.bot_turn_ms = int(bot_turn_seconds * 1000)
        self.agent_wait_ms = int(agent_wait_seconds * 1000)
        # One worker process, its turns shared between the matches' creators (Match.creator): a creator
        # with many matches the AI plays slowly cannot hold back another's.
        self.pool = FairPool(lambda: search_pool(1), workers=1)
        self.tasks: set[asyncio.Task[None]] = set()

    def arm(self, match: Match) -> None:
        """Set the clocks (and the stand-in) for the seats to move; disarm them if none is due."""
        self.disarm(match)
        if match.status != PLAYING:
            return
        played_by_ai = match.ai_to_move()
        if played_by_ai:
            stand_in = self._stand_in(match, match.version, played_by_ai[0])
            match.stand_in = asyncio.get_running_loop().create_task(stand_in)
        self._set_timer(match)

    def rearm(self, match: Match) -> None:
        """``arm``, but a stand-in already choosing a move goes on (only the timer is set again): after
        the match was read again, or a retry found nothing due yet."""
        if match.stand_in is None:
            self.arm(match)
            return
        if match.timer is not None:
            match.timer.cancel()
            match.timer = None
        self._set_timer(match)

    def _set_timer(self, match: Match) -> None:
        bots = [self.bot_deadline_ms(match, seat) for seat in match.to_move()]
        deadlines = [*match.deadlines_ms().values(), *bots, self.agents_deadline_ms(match)]
        due = [deadline for deadline in deadlines if deadline is not None]
        if due:
            delay = max(0.0, (min(due) - now_ms()) / 1000)
            match.timer = asyncio.get_running_loop().call_later(delay, self._expire, match, match.version)

    def bot_deadline_ms(self, match: Match, seat: int) -> int | None:
        """When the stand-in takes over ``seat``, to move, if it is a bot seat whose agent has not moved."""
        record = match.record.seats[seat]
        if record.bot_level is None or record.played_by != OWNER:
            return None
        return match.turn_started_ms + self.bot_turn_ms

    def bot_is_late(self, match: Match, seat: int, at_ms: int) -> bool:
        deadline = self.bot_deadline_ms(match, seat)
        return deadline is not None and deadline <= at_ms

    def agents_deadline_ms(self, match: Match) -> int | None:
        """While only seats of people are to move: when the agents playing the match's bot seats are let
        go (with a clock shorter than that, the people's time runs out first)."""
        if not match.agent_seats():  # most matches: decided here
            return None
        to_move = [match.record.seats[seat] for seat in match.to_move()]
        if not to_move or any(seat.bot_level is not None or seat.played_by != OWNER for seat in to_move):
            return None
        return match.turn_started_ms + self.agent_wait_ms

    def agents_waited(self, match: Match, at_ms: int) -> bool:
        deadline = self.agents_deadline_ms(match)
        return deadline is not None and deadline <= at_ms

    def disarm(self, match: Match) -> None:
        if match.timer is not None:
            match.timer.cancel()
            match.timer = None
        if match.stand_in is not None:
            match.stand_in.cancel()
            match.stand_in = None

    def _expire(self, match: Match, version: int) -> None:
        match.timer = None
        task = asyncio.get_running_loop().create_task(self._time_out(match, version))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _time_out(self, match: Match, version: int) -> None:
        """Carry out what the clock of ``version`` decides; if that cannot be done now, try again later."""
        try:
            await self.timed_out(match, version)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            _log_failure("a timeout could not be carried out; trying again", match, error)
            self._retry(match, version)
        else:
            match.clock_failures = 0

    def _retry(self, match: Match, version: int) -> None:
        """Look at the clock of ``version`` again after a delay that grows with each failure in a row:
        the timeout (or stand-in) that failed is carried out once the store is back, or found moot."""
        first, most = RETRY_SECONDS
        delay = min(most, first * 2**match.clock_failures)
        match.clock_failures += 1
        if match.timer is not None:
            match.timer.cancel()
        match.timer = asyncio.get_running_loop().call_later(delay, self._expire, match, version)

    async def _stand_in(self, match: Match, version: int, seat: int) -> None:
        """Choose and play the move of ``seat``, which the AI plays (at ``version``)."""
        try:
            action = await self._search(match, version, seat)
            match.stand_in = None
            await self.play(match, version, seat, action)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            _log_failure("the stand-in could not move; trying again", match, error)
            self._retry(match, version)
        else:
            match.clock_failures = 0
        finally:
            if match.stand_in is asyncio.current_task():
                match.stand_in = None

    async def _search(self, match: Match, version: int, seat: int) -> Any:
        """The AI's move for ``seat``; if the search fails (its worker process died, say), the first legal
        action, so that the match goes on."""
        view = match.rules.view(match.state, seat)
        # Drawn afresh and never sent: a rival who knows the view and the code cannot rerun the search.
        seed = secrets.randbits(63)
        level = stand_in_level(match, seat)
        try:
            chosen = await self.pool.run(match.creator, _decide, match.record.game, view, level, seed)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception(
                "the stand-in's search failed: it plays a legal action", extra={"match_id": match.match_id}
            )
            return match.rules.legal_actions(match.state, seat)[0]
        return match.rules.action_from_json(chosen)

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        self.pool.close()


def _log_failure(message: str, match: Match, error: Exception) -> None:
    """A store's failure in one line (it says so itself); anything else with its traceback."""
    if isinstance(error, StoreUnavailable):
        log.warning(message, extra={"match_id": match.match_id, "error": error.reason})
    else:
        log.error(message, exc_info=error, extra={"match_id": match.match_id})


def stand_in_level(match: Match, seat: int) -> str:
    """The AI that plays ``seat`` for its owner: a bot seat's own level, else the match's fallback."""
    bot_level = match.record.seats[seat].bot_level
    if bot_level is not None:
        return bot_level
    clock = match.record.clock
    return clock.fallback_level if clock else DEFAULT_FALLBACK_LEVEL


def _decide(game: str, view: dict[str, Any], level: str, seed: int) -> dict[str, Any]:
    """In the worker process: the AI's move as JSON (imported there, so the server starts without the AI)."""
    from ai.levels import decide_json

    return decide_json(game, view, level, seed)
