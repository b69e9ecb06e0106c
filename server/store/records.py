"""What the store persists of a match: its set-up and seats (its actions are engine actions)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# A match's status: some seats open, every seat taken and the game on, the game over, or
# given up before every seat was taken.
WAITING, PLAYING, FINISHED, CANCELLED = "waiting", "playing", "finished", "cancelled"
# Who plays a taken seat: its owner; the AI, since the owner's time ran out (the owner may take it
# back); the AI, since the owner left; the AI, for a seat that forfeited (ranked last).
OWNER, AI, LEFT, FORFEITED = "owner", "ai", "left", "forfeited"
CLOSED = "closed"  # an open seat of a cancelled match: nobody will take it
AI_PLAYED = (AI, LEFT, FORFEITED)
# What becomes of a seat whose time runs out, or whose player leaves.
ON_TIMEOUT = (AI, FORFEITED)
DEFAULT_FALLBACK_LEVEL = "easy"  # the AI that plays such a seat, unless the match names another
# Whether a finished match counted for the ratings (None on a match: not decided yet).
RATED, UNRATED = "rated", "unrated"
# Who a player is: an account the server issued, a frontend's user (a JWT), or a bot level.
GUEST, EXTERNAL, BOT = "guest", "external", "bot"
# OpenSkill's defaults: a new player's skill mean and uncertainty.
DEFAULT_MU = 25.0
DEFAULT_SIGMA = DEFAULT_MU / 3


def bot_player_id(level: str) -> str:
    """The player a bot level is on the ladder."""
    return f"bot:{level}"


@dataclass(frozen=True)
class TimeControl:
    """How long each human seat may take: a time per turn, and a reserve a slower turn draws on."""

    turn_seconds: int = 60
    reserve_seconds: int = 180
    on_timeout: str = AI  # AI or FORFEITED
    fallback_level: str = DEFAULT_FALLBACK_LEVEL  # the AI that plays a seat that ran out or left

    @property
    def reserve_ms(self) -> int:
        return self.reserve_seconds * 1000

    def to_json(self) -> dict[str, object]:
        return {
            "turn_seconds": self.turn_seconds,
            "reserve_seconds": self.reserve_seconds,
            "on_timeout": self.on_timeout,
            "fallback_level": self.fallback_level,
        }


@dataclass(frozen=True)
class SeatRecord:
    """One seat: open to anyone, or reserved for a bot of some level. Changed by replacing it."""

    seat: int
    bot_level: str | None = None  # None: an open seat
    display_name: str = ""
    token_hash: str | None = None  # set once the seat is taken
    played_by: str = OWNER  # OWNER, AI, LEFT, FORFEITED, or CLOSED (never taken)
    reserve_ms: int = 0  # with a clock: the reserve left
    player_id: str | None = None  # the player it is bound to; None: open, or anonymous play
    ai_turns: int = 0  # turns the AI played for it after its time ran out
    request_hash: str | None = None  # the hash of the request id of the join that took it, if any

    @property
    def taken(self) -> bool:
        return self.token_hash is not None


@dataclass
class MatchRecord:
    """A match's identity and set-up: everything needed, with its actions, to rebuild it."""

    match_id: str
    options: Mapping[str, Any]  # the game's full options (its rules' options()), players included
    seed: int
    created_ms: int
    seats: list[SeatRecord]
    game: str = "mercado"
    # The seed's commitment is SHA-256 over salt and seed (mercado_client.fairness); matches
    # stored before commitments existed have no salt.
    salt: bytes = b""
    seed_chosen: bool = False  # chosen by the creator, not drawn by the server
    clock: TimeControl | None = None  # None: no clock
    cancelled: bool = False
    hot_seat: bool = False  # one player may hold several seats
    unrated: bool = False  # created as never rated
    rating: str | None = None  # once finished: RATED or UNRATED; None until decided
    # How often its seats or status changed without an action, as stored: with its version, what a
    # server compares to tell whether the match it holds is current.
    changes: int = 0


@dataclass
class PlayerRecord:
    """A player and its rating in one game (OpenSkill's Plackett-Luce: a mean and an uncertainty)."""

    player_id: str
    kind: str  # GUEST, EXTERNAL or BOT
    display_name: str
    created_ms: int = 0
    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA
    rated_matches: int = 0
    wins: int = 0
    game: str = "mercado"  # the game the rating is of

    @property
    def display_rating(self) -> float:
        """The conservative estimate the leaderboard ranks by: mu - 3 sigma (0 for a new player)."""
        return self.mu - 3 * self.sigma


@dataclass
class QueuedRecord:
    """A player in the matchmaking queue, through whichever server its FindMatch stream is on."""

    player_id: str
    display_name: str
    rating: float  # its rating mean
    players: int  # the match size it asks for
    allow_ai: bool
    since_ms: int  # when it queued (Unix ms)
    match_id: str | None = None  # once its match is made...
    seat: int | None = None  # ...and its seat in it
    game: str = "mercado"  # the game it asks for
