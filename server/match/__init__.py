"""The match authority: seats, tokens, versions, persistence and fan-out, without any transport."""

from .errors import MatchError
from .match import Match
from .records import (
    AI,
    AI_PLAYED,
    BOT_LEVELS,
    CANCELLED,
    DEFAULT_BOT_LEVEL,
    FINISHED,
    FORFEITED,
    LEFT,
    OWNER,
    PLAYING,
    WAITING,
    ActionRecord,
    MatchRecord,
    SeatRecord,
    TimeControl,
    Update,
)
from .service import Limits, MatchService, Policy, Seated, Stream

__all__ = [
    "AI",
    "AI_PLAYED",
    "BOT_LEVELS",
    "CANCELLED",
    "DEFAULT_BOT_LEVEL",
    "FINISHED",
    "FORFEITED",
    "LEFT",
    "OWNER",
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
    "TimeControl",
    "Update",
]
