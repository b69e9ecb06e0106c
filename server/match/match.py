"""A match in memory: its record, current state, actions, lock, streams and clock."""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from server.games.interface import Event
from server.games.registry import AnyGame, game_named
from server.store import StoredAction

from .inputs import by_stand_in
from .records import (
    AI_PLAYED,
    CANCELLED,
    FINISHED,
    FORFEITED,
    OWNER,
    PLAYING,
    WAITING,
    ActionRecord,
    MatchRecord,
    Update,
    ranked_last,
)


class Inbox:
    """What one stream has yet to send of its match: updates in order, None for its end. A node holds
    one per player, so it is lighter than an ``asyncio.Queue`` (no deques, lock or event of its own):
    a list, and a future only while the stream waits."""

    __slots__ = ("items", "waiter")

    def __init__(self) -> None:
        self.items: list[Update | None] = []
        self.waiter: asyncio.Future[None] | None = None

    def put(self, item: Update | None) -> None:
        self.items.append(item)
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    async def get(self) -> Update | None:
        while not self.items:
            self.waiter = asyncio.get_running_loop().create_future()
            try:
                await self.waiter
            finally:
                self.waiter = None
        return self.items.pop(0)


@dataclass(eq=False)
class Match:
    """A match in memory: its record, current state and the actions that led to it.

    Only the current state is kept. An earlier version's state, which only a
    stream resuming from far back or a late retry asks for, is rebuilt by
    replaying the actions from the seed: the engine is deterministic, and this
    keeps a match to under a kilobyte per action rather than a state each.
    """

    record: MatchRecord
    state: Any  # its game's state
    actions: list[ActionRecord] = field(default_factory=list)  # actions[v - 1] made version v
    current: Update | None = None  # the last action's update, with what was rendered from it
    by_request: dict[str, ActionRecord] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    watchers: set[Inbox] = field(default_factory=set)
    pins: int = 0  # calls using it across an await: it stays in memory meanwhile
    turn_started_ms: int = 0  # when the current turn's clock started (Unix ms)
    timer: asyncio.TimerHandle | None = None  # the current turn's timeout
    stand_in: asyncio.Task[None] | None = None  # the AI choosing a move for the seat it plays
    clock_failures: int = 0  # timeouts or stand-in moves in a row that failed: the next waits longer
    # Whose share of the stand-in's time the match uses: its creator's network (or the creator, from
    # a trusted network; matchmaking's: its longest-waiting player's); when not known (a trusted
    # caller's, or loaded from the store), a share of its own, never one that such matches share.
    creator: str = ""
    _snapshot: Update | None = None
    # The API's serialized summary of the match but for what changes with every action, with the
    # seats, status and rating it was built from (``server.rpc.convert.summary_bytes``).
    summary_built: tuple[Any, bytes] | None = None
    rules: AnyGame = field(init=False)

    def __post_init__(self) -> None:
        self.rules = game_named(self.record.game)
        self.creator = self.creator or self.record.match_id

    @property
    def match_id(self) -> str:
        return self.record.match_id

    @property
    def version(self) -> int:
        return len(self.actions)

    @property
    def status(self) -> str:
        if self.rules.is_over(self.state):
            return FINISHED
        if self.record.cancelled:
            return CANCELLED
        # Asked several times per action, so the seats are read only before the first: an action
        # needs every seat taken, and a taken seat stays taken (leaving hands it to the AI).
        if self.actions or all(seat.taken for seat in self.record.seats):
            return PLAYING
        return WAITING

    @property
    def in_use(self) -> bool:
        busy = self.timer is not None or self.stand_in is not None
        return busy or bool(self.watchers) or self.pins > 0 or self.lock.locked()

    def to_move(self) -> frozenset[int]:
        """The seats that must act now (several in a simultaneous step); none unless playing."""
        return self.rules.to_move(self.state) if self.status == PLAYING else frozenset()

    def ai_to_move(self) -> list[int]:
        """The seats to move that the AI plays for their owner (its time ran out, it left or forfeited)."""
        return sorted(seat for seat in self.to_move() if self.record.seats[seat].played_by in AI_PLAYED)

    def agent_seats(self) -> list[int]:
        """The bot seats an agent plays."""
        return [
            s.seat for s in self.record.seats if s.bot_level is not None and s.taken and s.played_by == OWNER
        ]

    def deadline_ms(self, seat: int | None = None) -> int | None:
        """When ``seat``'s time runs out (Unix ms): with a clock, for a human owner to move. With no
        seat named, the earliest deadline of the seats to move."""
        deadlines = self.deadlines_ms()
        return min(deadlines.values(), default=None) if seat is None else deadlines.get(seat)

    def deadlines_ms(self) -> dict[int, int]:
        """Each seat's deadline, of the seats to move that have one: the human owners, with a clock."""
        clock = self.record.clock
        if clock is None or not clock.turn_seconds:
            return {}
        deadlines = {}
        for seat in self.to_move():
            record = self.record.seats[seat]
            if record.bot_level is None and record.played_by not in AI_PLAYED:
                deadlines[seat] = self.turn_started_ms + clock.turn_seconds * 1000 + record.reserve_ms
        return deadlines

    def ranks(self) -> list[int]:
        """Once finished: each seat's rank, 1-based with ties shared, forfeited seats last."""
        outcome = self.rules.outcome(self.state)
        return [] if outcome is None else ranked_last(list(outcome.ranks), self.forfeited())

    def forfeited(self) -> set[int]:
        return {s.seat for s in self.record.seats if s.played_by == FORFEITED}

    def turns(self) -> list[int]:
        """How many actions each seat made."""
        counts = [0] * len(self.record.seats)
        for action in self.actions:
            counts[action.seat] += 1
        return counts

    def own_turns(self) -> list[int]:
        """How many actions each seat made itself: its owner's (or agent's), not the AI's standing in."""
        counts = [0] * len(self.record.seats)
        for action in self.actions:
            if not by_stand_in(action.request_id):
                counts[action.seat] += 1
        return counts

    def seat_with(self, token_hash: str) -> int | None:
        for seat in self.record.seats:
            if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, token_hash):
                return seat.seat
        return None

    def touch(self) -> None:
        """Seats, clocks or status changed without an action: what was rendered is out of date."""
        self._snapshot = None
        if self.current is not None:
            self.current.rendered.clear()

    def snapshot(self) -> Update:
        """The match as it stands, as an update that carries no action. It shares the state, which
        nothing mutates, and what was rendered of it with the last action's update: each viewer's
        state is the same in both (a stream opening after an action costs no rendering)."""
        if self._snapshot is None or self._snapshot.version != self.version:
            rendered = {} if self.current is None else self.current.rendered
            self._snapshot = Update(self.version, self.state, rendered=rendered)
        return self._snapshot

    def latest(self) -> Update:
        """The current state: the last action's update (with its renderings), or a snapshot before any."""
        return self.current or self.snapshot()

    def updates(self, records: list[ActionRecord]) -> Iterator[Update]:
        """The updates ``records`` (consecutive actions of this match) made, their states replayed."""
        if not records:
            return
        rules = self.rules
        state = rules.new_game(self.record.options, self.record.seed)
        for earlier in self.actions[: records[0].version - 1]:
            rules.apply_unchecked(state, earlier.seat, earlier.action)
        for record in records:
            if self.current is not None and record.version == self.current.version:
                yield self.current
                continue
            state = rules.clone(state)  # each update's state stays as it is
            events = rules.apply(state, record.seat, record.action)
            yield Update(record.version, state, record, events=events)

    def record_action(
        self, seat: int, action: Any, request_id: str, after: Any, events: list[Event]
    ) -> Update:
        """Advance to ``after``, a state nobody mutates from now on (actions apply to copies)."""
        record = ActionRecord(self.version + 1, seat, action, request_id)
        update = Update(record.version, after, record, events=events)
        self.state = after
        self.actions.append(record)
        self.by_request[request_id] = record
        self.current = update
        self._snapshot = None
        return update


def restore(record: MatchRecord, actions: Iterable[StoredAction]) -> Match:
    """A match as its stored actions left it, replayed from its seed."""
    rules = game_named(record.game)
    state = rules.new_game(record.options, record.seed)
    match = Match(record, state)
    # Only the last update outlives the restore, so one state is advanced in place, and only the last
    # action's events are made (Match.updates makes an earlier one's again when a stream asks for it).
    stored = list(actions)
    for number, (seat, action, request_id) in enumerate(stored, start=1):
        if number < len(stored):
            rules.apply_unchecked(state, seat, action)
            events = []
        else:
            events = rules.apply(state, seat, action)
        match.record_action(seat, action, request_id, state, events)
    return match
