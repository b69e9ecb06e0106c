"""The game state: small integers and short lists, cheap to copy.

Market cards are indices of :data:`components.CARD_NAMES`; bid cards are their
numbers 1-20. A seat's sealed choice leaves its hand when submitted and reaches
its played pile at the reveal, so hand + sealed + played is always its 20 cards.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from .components import HAND_SIZE, MAX_PLAYERS, MIN_PLAYERS, STALLS_PER_PLAYER
from .errors import InvalidOptions

# phase
BID, TIEBREAK, PICK, FINISHED = "bid", "tiebreak", "pick", "finished"
PHASES = (BID, TIEBREAK, PICK, FINISHED)
# roles of a played card
MAIN, EXTRA, REBID = "main", "extra", "rebid"
ROLES = (MAIN, EXTRA, REBID)

CardPenalty = Literal["face", "one"]
SetBonus = Literal["per_set", "once"]
LeftoverStalls = Literal["cycle", "discard"]

OPTION_VALUES: dict[str, tuple[Any, ...]] = {
    "players": tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1)),
    "card_penalty": ("face", "one"),
    "set_bonus": ("per_set", "once"),
    "leftover_stalls": ("cycle", "discard"),
}
# Research variants (RULES.md, "Research variants"): positions and views may hold them, but a match
# may not (``from_json`` refuses them unless asked for a research variant).
RESEARCH_OPTION_VALUES: dict[str, tuple[Any, ...]] = {
    "hand": tuple(range(1, HAND_SIZE + 1)),
}


@dataclass(frozen=True)
class Options:
    """The match options of RULES.md ("Options"), and its research variants ("Research variants")."""

    players: int = 2
    card_penalty: CardPenalty = "face"
    set_bonus: SetBonus = "per_set"
    leftover_stalls: LeftoverStalls = "cycle"
    hand: int = HAND_SIZE  # research: each hand holds the bid cards 1..hand

    def __post_init__(self) -> None:
        for name, allowed in {**OPTION_VALUES, **RESEARCH_OPTION_VALUES}.items():
            value = getattr(self, name)
            if type(value) is not type(allowed[0]) or value not in allowed:
                shown = ", ".join(repr(v) if isinstance(v, str) else str(v) for v in allowed)
                raise InvalidOptions(f"option {name} must be one of {shown}")

    @classmethod
    def from_json(cls, data: Mapping[str, Any], research: bool = False) -> Options:
        """Options from JSON; ``players`` is required, the rest default. A research variant's
        options are refused unless ``research`` (a position or a view may hold them, a match not)."""
        if not isinstance(data, Mapping):
            raise InvalidOptions("options must be an object")
        for key in data:
            if key not in OPTION_VALUES and not (research and key in RESEARCH_OPTION_VALUES):
                raise InvalidOptions(f"unknown option {key!r}")
        if "players" not in data:
            raise InvalidOptions("option players is required")
        return cls(**dict(data))

    def to_json(self) -> dict[str, Any]:
        """The options as JSON; a research option only where it differs from the rules."""
        data: dict[str, Any] = {
            "players": self.players,
            "card_penalty": self.card_penalty,
            "set_bonus": self.set_bonus,
            "leftover_stalls": self.leftover_stalls,
        }
        if self.hand != HAND_SIZE:
            data["hand"] = self.hand
        return data

    @property
    def display_size(self) -> int:
        return STALLS_PER_PLAYER * self.players

    @property
    def bid_cards(self) -> tuple[int, ...]:
        """The numbers of a hand at the start."""
        return tuple(range(1, self.hand + 1))


class Slot(NamedTuple):
    """A place in a round's ranking: a main or extra bid of one seat."""

    seat: int
    role: str  # MAIN or EXTRA
    card: int


class Played(NamedTuple):
    """A card in a played pile: its number, role, whether a tie voided it, and its round."""

    card: int
    role: str  # MAIN, EXTRA or REBID
    void: bool
    round: int


class Sealed(NamedTuple):
    """A submitted, not yet revealed choice: a bid (card, extra or None) or a re-bid (card, None)."""

    card: int
    extra: int | None


class LeilaoState:
    """A complete position, hidden parts included. Mutated by :mod:`rules`."""

    __slots__ = (
        "options",
        "players",
        "start_player",
        "round",
        "phase",
        "deck",
        "display",
        "removed",
        "stalls",
        "hands",
        "played",
        "sealed",
        "ranking",
        "pick_sequence",
        "picks_made",
    )

    def __init__(self, options: Options) -> None:
        n = options.players
        self.options = options
        self.players = n
        self.start_player = 0
        self.round = 0
        self.phase = BID
        self.deck: list[int] = []  # top first
        self.display: list[int] = []  # in the order dealt
        self.removed: list[int] = []  # leftover stalls out of the game (discard)
        self.stalls: list[list[int]] = [[] for _ in range(n)]  # in the order taken
        self.hands: list[list[int]] = [[] for _ in range(n)]  # sorted
        self.played: list[list[Played]] = [[] for _ in range(n)]  # in the order played
        self.sealed: list[Sealed | None] = [None] * n  # the current step's submissions
        # The round's ranking once bids are revealed: groups in rank order; a group of two or
        # more slots is a tie not yet broken. None before the reveal.
        self.ranking: list[list[Slot]] | None = None
        self.pick_sequence: list[int] | None = None  # seats, once the ranking is complete
        self.picks_made = 0

    def clone(self) -> LeilaoState:
        """An independent copy (immutable parts shared)."""
        c = LeilaoState.__new__(LeilaoState)
        c.options = self.options
        c.players = self.players
        c.start_player = self.start_player
        c.round = self.round
        c.phase = self.phase
        c.deck = self.deck[:]
        c.display = self.display[:]
        c.removed = self.removed[:]
        c.stalls = [s[:] for s in self.stalls]
        c.hands = [h[:] for h in self.hands]
        c.played = [p[:] for p in self.played]
        c.sealed = self.sealed[:]
        c.ranking = None if self.ranking is None else [g[:] for g in self.ranking]
        c.pick_sequence = None if self.pick_sequence is None else self.pick_sequence[:]
        c.picks_made = self.picks_made
        return c

    def priority(self, seat: int) -> int:
        """Place of ``seat`` in the priority order (0: the start player)."""
        return (seat - self.start_player) % self.players

    def priority_order(self) -> list[int]:
        return [(self.start_player + i) % self.players for i in range(self.players)]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LeilaoState):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in LeilaoState.__slots__)

    __hash__ = None  # type: ignore[assignment]
