"""The match authority: seats, tokens, versions, persistence and fan-out, without any transport."""

from .errors import MatchError
from .records import BOT_LEVELS, DEFAULT_BOT_LEVEL, ActionRecord, MatchRecord, SeatRecord, Update
from .service import FINISHED, PLAYING, WAITING, Match, MatchService, Seated

__all__ = [
    "BOT_LEVELS",
    "DEFAULT_BOT_LEVEL",
    "FINISHED",
    "PLAYING",
    "WAITING",
    "ActionRecord",
    "Match",
    "MatchError",
    "MatchRecord",
    "MatchService",
    "SeatRecord",
    "Seated",
    "Update",
]
