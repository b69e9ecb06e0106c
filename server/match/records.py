"""What the match layer keeps about a match; what it persists is the store's (server.store.records)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from server.games.interface import Event
from server.store.records import (
    AI,
    AI_PLAYED,
    CANCELLED,
    DEFAULT_FALLBACK_LEVEL,
    FINISHED,
    FORFEITED,
    LEFT,
    OWNER,
    PLAYING,
    WAITING,
    MatchRecord,
    SeatRecord,
    TimeControl,
)

__all__ = [
    "AI",
    "AI_PLAYED",
    "BOT_LEVELS",
    "CANCELLED",
    "DEFAULT_BOT_LEVEL",
    "DEFAULT_FALLBACK_LEVEL",
    "FINISHED",
    "FORFEITED",
    "LEFT",
    "OWNER",
    "PLAYING",
    "WAITING",
    "ActionRecord",
    "MatchRecord",
    "SeatRecord",
    "TimeControl",
    "Update",
    "ranked_last",
]

BOT_LEVELS = ("easy", "medium", "hard", "expert")
DEFAULT_BOT_LEVEL = "medium"


def ranked_last(ranks: list[int], out: set[int]) -> list[int]:
    """``ranks`` (1-based, ties shared) with the seats ``out`` moved behind all others, tied last."""
    kept = [rank for seat, rank in enumerate(ranks) if seat not in out]
    last = len(kept) + 1
    return [last if seat in out else 1 + sum(k < rank for k in kept) for seat, rank in enumerate(ranks)]


@dataclass(frozen=True, slots=True)
class ActionRecord:
    """One accepted action, as persisted before it is acknowledged. A match keeps every one of them,
    without its events: those of an earlier action are made again by replaying it, when a stream
    resuming from far back asks for it."""

    version: int
    seat: int
    action: Any  # its game's action
    request_id: str


@dataclass(eq=False)
class Update:
    """One change of a match, published to every stream: an accepted action, or a change of seats.

    ``state`` is a snapshot after the change that nobody mutates. ``rendered``
    lets a transport cache what it builds per viewer, so each viewer's form is
    built once however many streams watch.
    """

    version: int
    state: Any  # its game's state
    record: ActionRecord | None = None  # None: seats changed
    rendered: dict[Any, Any] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)  # the action's, as the rules recorded them
