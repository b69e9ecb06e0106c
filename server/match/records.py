"""What the match layer keeps about a match, and what it persists."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from server.engine import Action, Event, GameState, Options

BOT_LEVELS = ("easy", "medium", "hard")
DEFAULT_BOT_LEVEL = "medium"


@dataclass
class SeatRecord:
    """One seat: open to anyone, or reserved for a bot of some level."""

    seat: int
    bot_level: str | None = None  # None: an open seat
    display_name: str = ""
    token_hash: str | None = None  # set once the seat is taken

    @property
    def taken(self) -> bool:
        return self.token_hash is not None


@dataclass
class MatchRecord:
    """A match's identity and set-up: everything needed, with its actions, to rebuild it."""

    match_id: str
    options: Options
    seed: int
    created_ms: int
    seats: list[SeatRecord]
    game: str = "mercado"


@dataclass(frozen=True)
class ActionRecord:
    """One accepted action, as persisted before it is acknowledged."""

    version: int
    seat: int
    action: Action
    request_id: str
    events: list[Event]


@dataclass(eq=False)
class Update:
    """One change of a match, published to every stream: an accepted action, or a change of seats.

    ``state`` is a snapshot after the change that nobody mutates. ``rendered``
    lets a transport cache what it builds per viewer, so each viewer's form is
    built once however many streams watch.
    """

    version: int
    state: GameState
    record: ActionRecord | None = None  # None: seats changed
    rendered: dict[Any, Any] = field(default_factory=dict)
