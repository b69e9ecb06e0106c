"""The game state: plain lists of small integers, cheap to copy.

Indices are those of :mod:`geometry`; ``-1`` means "nothing". Two derived
tables are kept up to date incrementally because legal-move generation reads
them constantly: stands per line, and for each player the goods of the stands
they own in each line (a bitmask).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from .geometry import N_ENTRANCES, N_LINES, N_SQUARES, SQUARE_COLUMN, SQUARE_ROW
from .options import Options

# status
PLAYING: Final = 0
FINAL_ROUND: Final = 1
FINISHED: Final = 2
STATUS_NAMES: Final = ("playing", "final_round", "finished")
# phase
MAIN: Final = 0
TAKE_OFFER_PHASE: Final = 1
PHASE_NAMES: Final = ("main", "take_offer")


@dataclass(frozen=True)
class Result:
    """Final scores (restaurant penalty included), stands on the market and 1-based ranks."""

    scores: tuple[int, ...]
    stands_on_market: tuple[int, ...]
    ranks: tuple[int, ...]

    def to_json(self) -> dict[str, list[int]]:
        return {
            "scores": list(self.scores),
            "stands_on_market": list(self.stands_on_market),
            "ranks": list(self.ranks),
        }

    def __reduce__(self) -> tuple[Any, ...]:
        # A compiled frozen dataclass unpickles only through its constructor.
        return (Result, (self.scores, self.stands_on_market, self.ranks))


_STATE_FIELDS: Final = (
    "options",
    "players",
    "status",
    "current",
    "phase",
    "redrawn",
    "refreshed",
    "coins",
    "wooden_stands",
    "hands",
    "restaurant_hands",
    "stand_good",
    "stand_owner",
    "restaurant",
    "face_down",
    "entrances",
    "offer",
    "bag",
    "display",
    "decks",
    "consecutive_coins",
    "final_turns_left",
    "rng",
    "result",
    "line_stands",
    "owned_goods",
)


class GameState:
    """A complete position, hidden parts included. Mutated by :func:`rules.apply`."""

    __slots__ = _STATE_FIELDS

    def __init__(self, options: Options, copy_of: GameState | None = None) -> None:
        """A position before set-up, or an independent copy of ``copy_of`` (see :meth:`clone`)."""
        self.options = options
        if copy_of is not None:
            self._copy(copy_of)
            return
        n = options.players
        self.players = n
        self.status = PLAYING
        self.current = 0
        self.phase = MAIN
        self.redrawn = False
        self.refreshed = False  # the stand offer was refreshed this turn (once a turn)
        self.coins = [0] * n
        self.wooden_stands = [0] * n
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.restaurant_hands: list[list[int]] = [[] for _ in range(n)]
        self.stand_good = [-1] * N_SQUARES
        self.stand_owner = [-1] * N_SQUARES
        self.restaurant = [-1] * N_SQUARES  # face-up restaurant kind
        self.face_down = [-1] * N_SQUARES  # face-down restaurant kind
        self.entrances = [-1] * N_ENTRANCES  # customer kind
        self.offer: list[int] = []
        self.bag: list[int] = []
        self.display: list[list[int]] = [[], [], [], []]  # by level - 1
        self.decks: list[list[int]] = [[], [], [], []]
        self.consecutive_coins = 0
        self.final_turns_left: int | None = None
        self.rng = 0
        self.result: Result | None = None
        self.line_stands = [0] * N_LINES
        self.owned_goods: list[list[int]] = [[0] * N_LINES for _ in range(n)]

    def clone(self) -> GameState:
        """An independent copy (immutable parts shared)."""
        # Through the constructor: a compiled class has no way around its __init__.
        return GameState(self.options, self)

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickling (OpenSpiel serializes states so) cannot bypass a compiled class's __init__ either.
        return (_restored, (self.options, tuple(getattr(self, name) for name in _STATE_FIELDS)))

    def _copy(self, other: GameState) -> None:
        self.players = other.players
        self.status = other.status
        self.current = other.current
        self.phase = other.phase
        self.redrawn = other.redrawn
        self.refreshed = other.refreshed
        self.coins = other.coins[:]
        self.wooden_stands = other.wooden_stands[:]
        self.hands = [h[:] for h in other.hands]
        self.restaurant_hands = [h[:] for h in other.restaurant_hands]
        self.stand_good = other.stand_good[:]
        self.stand_owner = other.stand_owner[:]
        self.restaurant = other.restaurant[:]
        self.face_down = other.face_down[:]
        self.entrances = other.entrances[:]
        self.offer = other.offer[:]
        self.bag = other.bag[:]
        self.display = [d[:] for d in other.display]
        self.decks = [d[:] for d in other.decks]
        self.consecutive_coins = other.consecutive_coins
        self.final_turns_left = other.final_turns_left
        self.rng = other.rng
        self.result = other.result
        self.line_stands = other.line_stands[:]
        self.owned_goods = [m[:] for m in other.owned_goods]

    def place_stand(self, square: int, good: int, owner: int) -> None:
        """Put a stand on the market, keeping the derived tables current."""
        self.stand_good[square] = good
        self.stand_owner[square] = owner
        row, column = SQUARE_ROW[square], SQUARE_COLUMN[square]
        self.line_stands[row] += 1
        self.line_stands[column] += 1
        bit = 1 << good
        owned = self.owned_goods[owner]
        owned[row] |= bit
        owned[column] |= bit

    @property
    def current_player(self) -> int:
        return self.current

    @property
    def is_terminal(self) -> bool:
        return self.status == FINISHED

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in _STATE_FIELDS)


def _restored(options: Options, values: tuple[Any, ...]) -> GameState:
    """A pickled state (:meth:`GameState.__reduce__`)."""
    state = GameState(options)
    for name, value in zip(_STATE_FIELDS, values, strict=True):
        setattr(state, name, value)
    return state
