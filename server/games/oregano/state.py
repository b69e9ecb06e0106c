"""The options and the game state: plain lists and dicts, cheap to copy."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from server.games.interface import Outcome

from .components import (
    BONUSES,
    MAX_PLAYERS,
    MIN_PLAYERS,
    RESOURCES,
    SHOP_IDS,
)
from .errors import InvalidOptions

# phases: who must decide what
START_SHOP = "start_shop"  # set-up: choose a merchant and its cell
KEEP_STRATEGY = "keep_strategy"  # keep one of the drawn strategy cards
DECLARE = "declare"  # declare the turn's two action kinds
ACTION = "action"  # perform (or skip) the declared action at ``step``
CASINO = "casino"  # go to the casino or not
OVER = "over"
PHASES = (START_SHOP, KEEP_STRATEGY, DECLARE, ACTION, CASINO, OVER)

# status
PLAYING, FINAL_ROUND, FINISHED = "playing", "final_round", "finished"
STATUSES = (PLAYING, FINAL_ROUND, FINISHED)

SPECIAL_LIMITS = ("one_total", "one_per_kind")
STRATEGY_VISIBILITY = ("hidden", "open")
END_TIMINGS = ("round", "turn")

MAX_ROUNDS = 30  # the most rounds a match may be set to last, and the latest the stock trigger may start

OPTION_DEFAULTS: dict[str, Any] = {
    "players": 2,
    "special_limit": "one_total",
    "same_action_twice": False,
    "strategy_draw": 2,
    "strategy_cards": "hidden",
    "end_timing": "round",
    "stock_end_from_round": 12,
    "round_limit": 20,
}


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class Options:
    """The options of RULES.md ("Options"), checked."""

    players: int = 2
    special_limit: str = "one_total"
    same_action_twice: bool = False
    strategy_draw: int = 2
    strategy_cards: str = "hidden"
    end_timing: str = "round"
    stock_end_from_round: int = 12
    round_limit: int = 20

    def __post_init__(self) -> None:
        if not _is_int(self.players) or not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise InvalidOptions("options.players must be 2, 3 or 4")
        if self.special_limit not in SPECIAL_LIMITS:
            raise InvalidOptions("options.special_limit must be 'one_total' or 'one_per_kind'")
        if not isinstance(self.same_action_twice, bool):
            raise InvalidOptions("options.same_action_twice must be true or false")
        if not _is_int(self.strategy_draw) or self.strategy_draw not in (2, 3):
            raise InvalidOptions("options.strategy_draw must be 2 or 3")
        if self.strategy_cards not in STRATEGY_VISIBILITY:
            raise InvalidOptions("options.strategy_cards must be 'hidden' or 'open'")
        if self.end_timing not in END_TIMINGS:
            raise InvalidOptions("options.end_timing must be 'round' or 'turn'")
        for name in ("stock_end_from_round", "round_limit"):
            value = getattr(self, name)
            if not _is_int(value) or not 1 <= value <= MAX_ROUNDS:
                raise InvalidOptions(f"options.{name} must be an integer from 1 to {MAX_ROUNDS}")

    @classmethod
    def from_json(cls, data: object) -> Options:
        if not isinstance(data, dict):
            raise InvalidOptions("options must be an object")
        unknown = sorted(set(data) - set(OPTION_DEFAULTS))
        if unknown:
            raise InvalidOptions(f"unknown option {unknown[0]!r}")
        if "players" not in data:
            raise InvalidOptions("options.players is required")
        return cls(**{**OPTION_DEFAULTS, **data})

    def to_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in OPTION_DEFAULTS}

    @property
    def strategies_open(self) -> bool:
        return self.strategy_cards == "open"


def empty_record() -> dict[str, Any]:
    """What a seat did since it took its strategy card: all public facts, the goals' progress."""
    return {"built": [], "sold": 0, "acquired": 0, "levelled": [], "taken": []}


@dataclass
class Shop:
    """A shop token: its kind and an identity that it keeps when moved, sold or acquired."""

    id: int
    kind: str


@dataclass
class BoulevardEntry:
    id: int
    kind: str
    level: int
    seller: int


@dataclass
class OreganoState:
    """A complete position, hidden parts included. Mutated by :mod:`rules`."""

    options: Options
    status: str = PLAYING
    phase: str = START_SHOP
    first_player: int = 0
    current: int = 0
    round: int = 0  # 0 during set-up, then 1, 2, ...
    gold: list[int] = field(default_factory=list)
    resources: list[dict[str, int]] = field(default_factory=list)
    areas: list[dict[str, Shop]] = field(default_factory=list)  # cell -> shop
    boulevard: list[BoulevardEntry] = field(default_factory=list)
    stock: dict[str, int] = field(default_factory=dict)
    supply: dict[str, int] = field(default_factory=dict)
    strategy_deck: list[str] = field(default_factory=list)  # first element is drawn next
    strategies: list[str | None] = field(default_factory=list)
    drawn: list[list[str]] = field(default_factory=list)  # cards drawn and not yet chosen from
    records: list[dict[str, Any]] = field(default_factory=list)
    bonus_available: list[str] = field(default_factory=lambda: list(BONUSES))
    bonuses: list[list[str]] = field(default_factory=list)
    declared: list[str] | None = None
    step: int = 0  # how many of the declared actions are done
    next_shop_id: int = 0
    end_triggered: bool = False
    rng: int = 0
    result: Outcome | None = None

    @property
    def players(self) -> int:
        return self.options.players

    @classmethod
    def empty(cls, options: Options) -> OreganoState:
        n = options.players
        return cls(
            options=options,
            gold=[0] * n,
            resources=[dict.fromkeys(RESOURCES, 0) for _ in range(n)],
            areas=[{} for _ in range(n)],
            stock=dict.fromkeys(SHOP_IDS, 0),
            supply=dict.fromkeys(RESOURCES, 0),
            strategies=[None] * n,
            drawn=[[] for _ in range(n)],
            records=[empty_record() for _ in range(n)],
            bonuses=[[] for _ in range(n)],
        )

    def shallow_copy(self) -> OreganoState:
        """A copy sharing every part with this position, to be read or have its top-level fields set
        (about a quarter of ``dataclasses.replace``'s time: the search makes one at every declaration)."""
        copy = object.__new__(OreganoState)
        copy.__dict__.update(self.__dict__)
        return copy

    def clone(self) -> OreganoState:
        return OreganoState(
            options=self.options,
            status=self.status,
            phase=self.phase,
            first_player=self.first_player,
            current=self.current,
            round=self.round,
            gold=self.gold[:],
            resources=[dict(r) for r in self.resources],
            areas=[{cell: Shop(s.id, s.kind) for cell, s in area.items()} for area in self.areas],
            boulevard=[BoulevardEntry(e.id, e.kind, e.level, e.seller) for e in self.boulevard],
            stock=dict(self.stock),
            supply=dict(self.supply),
            strategy_deck=self.strategy_deck[:],
            strategies=self.strategies[:],
            drawn=[d[:] for d in self.drawn],
            records=[
                {k: (v[:] if isinstance(v, list) else v) for k, v in record.items()}
                for record in self.records
            ],
            bonus_available=self.bonus_available[:],
            bonuses=[b[:] for b in self.bonuses],
            declared=self.declared[:] if self.declared is not None else None,
            step=self.step,
            next_shop_id=self.next_shop_id,
            end_triggered=self.end_triggered,
            rng=self.rng,
            result=self.result,
        )
