"""The game state: plain lists of small integers, cheap to copy.

Indices are those of :mod:`geometry`; ``-1`` means "nothing". Two derived
tables are kept up to date incrementally because legal-move generation reads
them constantly: stands per line, and for each player the goods of the stands
they own in each line (a bitmask).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Final, Literal

from .components import MAX_PLAYERS, MIN_PLAYERS
from .errors import InvalidPosition
from .geometry import N_ENTRANCES, N_LINES, N_SQUARES, SQUARE_COLUMN, SQUARE_ROW

# status
PLAYING: Final = 0
FINAL_ROUND: Final = 1
FINISHED: Final = 2
STATUS_NAMES: Final = ("playing", "final_round", "finished")
# phase
MAIN: Final = 0
TAKE_OFFER_PHASE: Final = 1
PHASE_NAMES: Final = ("main", "take_offer")

Money = Literal["public", "hidden"]


@dataclass(frozen=True)
class Options(Mapping[str, object]):
    """The match options of RULES.md; as a mapping, their JSON form (what every game's options are)."""

    players: int = 2
    money: Money = "hidden"
    face_down_counts_as_available: bool = True

    def __post_init__(self) -> None:
        if isinstance(self.players, bool) or not isinstance(self.players, int):
            raise InvalidPosition("options.players must be 2, 3 or 4")
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise InvalidPosition("options.players must be 2, 3 or 4")
        if self.money not in ("public", "hidden"):
            raise InvalidPosition("options.money must be 'public' or 'hidden'")
        if not isinstance(self.face_down_counts_as_available, bool):
            raise InvalidPosition("options.face_down_counts_as_available must be true or false")

    @property
    def money_hidden(self) -> bool:
        return self.money == "hidden"

    def to_json(self) -> dict[str, object]:
        return {
            "players": self.players,
            "money": self.money,
            "face_down_counts_as_available": self.face_down_counts_as_available,
        }

    def __getitem__(self, key: str) -> object:
        return self.to_json()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(_OPTION_NAMES)

    def __len__(self) -> int:
        return len(_OPTION_NAMES)


_OPTION_NAMES: Final = ("players", "money", "face_down_counts_as_available")


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


class GameState:
    """A complete position, hidden parts included. Mutated by :func:`rules.apply`."""

    __slots__ = (
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

    def __init__(self, options: Options) -> None:
        n = options.players
        self.options = options
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
        c = GameState.__new__(GameState)
        c.options = self.options
        c.players = self.players
        c.status = self.status
        c.current = self.current
        c.phase = self.phase
        c.redrawn = self.redrawn
        c.refreshed = self.refreshed
        c.coins = self.coins[:]
        c.wooden_stands = self.wooden_stands[:]
        c.hands = [h[:] for h in self.hands]
        c.restaurant_hands = [h[:] for h in self.restaurant_hands]
        c.stand_good = self.stand_good[:]
        c.stand_owner = self.stand_owner[:]
        c.restaurant = self.restaurant[:]
        c.face_down = self.face_down[:]
        c.entrances = self.entrances[:]
        c.offer = self.offer[:]
        c.bag = self.bag[:]
        c.display = [d[:] for d in self.display]
        c.decks = [d[:] for d in self.decks]
        c.consecutive_coins = self.consecutive_coins
        c.final_turns_left = self.final_turns_left
        c.rng = self.rng
        c.result = self.result
        c.line_stands = self.line_stands[:]
        c.owned_goods = [m[:] for m in self.owned_goods]
        return c

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
        return all(getattr(self, name) == getattr(other, name) for name in GameState.__slots__)

    __hash__ = None  # type: ignore[assignment]
