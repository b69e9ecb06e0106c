"""The match authority: seats, tokens, versions, persistence and fan-out, without any transport."""

from .errors import MatchError
from .records import (
    BOT_LEVELS,
    DEFAULT_BOT_LEVEL,
    FINISHED,
    PLAYING,
    WAITING,
    ActionRecord,
    MatchRecord,
    SeatRecord,
    Update,
)
from .service import Limits, Match, MatchService, Policy, Seated, Stream

__all__ = [
    "BOT_LEVELS",
    "DEFAULT_BOT_LEVEL",
    "FINISHED",
    "PLAYING",
    "WAITING",
    "ActionRecord",
    "Limits",
    "Match",
    "MatchError",
    "MatchRecord",
    "MatchService",
    "Policy",
    "SeatRecord",
    "Seated",
    "Stream",
    "Update",
]
