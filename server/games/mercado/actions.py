"""Actions: small immutable values, interned so that legal-move generation allocates nothing.

Every possible action exists exactly once (about a thousand of them); the
tables below map indices to those objects, so equality is identity and every
action has a stable integer ``id``. The JSON form is the one of POSITION.md and
the text form (``str(action)``) round-trips through :func:`parse_action`.
"""

from __future__ import annotations

from typing import Any, Final

from .components import GOODS, RESTAURANTS
from .errors import InvalidAction
from .geometry import (
    CUSTOMER_GOODS,
    CUSTOMER_LEVEL,
    ENTRANCE_INDEX,
    ENTRANCE_NAMES,
    GOOD_INDEX,
    N_CUSTOMER_KINDS,
    N_ENTRANCES,
    N_GOODS,
    N_RESTAURANTS,
    N_SQUARES,
    RESTAURANT_INDEX,
    SQUARE_INDEX,
    SQUARE_NAMES,
    customer_kind,
)

# Action kinds.
REDRAW_HAND: Final = 0
OPEN_STAND: Final = 1
REFRESH_OFFER: Final = 2
TAKE_OFFER: Final = 3
BRING_CUSTOMER: Final = 4
OPEN_RESTAURANT: Final = 5
TAKE_COIN: Final = 6
KIND_NAMES: Final = (
    "redraw_hand",
    "open_stand",
    "refresh_offer",
    "take_offer",
    "bring_customer",
    "open_restaurant",
    "take_coin",
)
KIND_INDEX: Final = {name: k for k, name in enumerate(KIND_NAMES)}


class Action:
    """One action. Never construct directly: use the tables or the parsers."""

    __slots__ = ("id", "kind", "good", "square", "customer", "entrance", "restaurant")

    def __init__(
        self,
        id: int,
        kind: int,
        good: int = -1,
        square: int = -1,
        customer: int = -1,
        entrance: int = -1,
        restaurant: int = -1,
    ) -> None:
        self.id = id
        self.kind = kind
        self.good = good
        self.square = square
        self.customer = customer
        self.entrance = entrance
        self.restaurant = restaurant

    @property
    def type(self) -> str:
        return KIND_NAMES[self.kind]

    def to_json(self) -> dict[str, Any]:
        """The action as in POSITION.md."""
        out: dict[str, Any] = {"type": KIND_NAMES[self.kind]}
        if self.kind == BRING_CUSTOMER:
            out["level"] = CUSTOMER_LEVEL[self.customer]
            out["goods"] = [GOODS[g] for g in CUSTOMER_GOODS[self.customer]]
            out["entrance"] = ENTRANCE_NAMES[self.entrance]
        if self.good >= 0:
            out["good"] = GOODS[self.good]
        if self.restaurant >= 0:
            out["restaurant"] = RESTAURANTS[self.restaurant]
        if self.square >= 0:
            out["square"] = SQUARE_NAMES[self.square]
        return out

    def __str__(self) -> str:
        parts = [KIND_NAMES[self.kind]]
        if self.kind == BRING_CUSTOMER:
            goods = "+".join(GOODS[g] for g in CUSTOMER_GOODS[self.customer])
            parts += [str(CUSTOMER_LEVEL[self.customer]), goods, ENTRANCE_NAMES[self.entrance]]
        if self.good >= 0:
            parts.append(GOODS[self.good])
        if self.restaurant >= 0:
            parts.append(RESTAURANTS[self.restaurant])
        if self.square >= 0:
            parts.append(SQUARE_NAMES[self.square])
        return " ".join(parts)

    def __repr__(self) -> str:
        return f"Action({self})"

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickling (for worker processes) must return the interned object.
        return (action_by_id, (self.id,))


ALL_ACTIONS: Final[list[Action]] = []


def _new(kind: int, **fields: int) -> Action:
    action = Action(len(ALL_ACTIONS), kind, **fields)
    ALL_ACTIONS.append(action)
    return action


REDRAW_HAND_ACTION: Final = _new(REDRAW_HAND)
REFRESH_OFFER_ACTION: Final = _new(REFRESH_OFFER)
TAKE_COIN_ACTION: Final = _new(TAKE_COIN)
TAKE_OFFER_ACTIONS: Final[tuple[Action, ...]] = tuple(_new(TAKE_OFFER, good=g) for g in range(N_GOODS))
# OPEN_STAND_ACTIONS[good][square]
OPEN_STAND_ACTIONS: Final[tuple[tuple[Action, ...], ...]] = tuple(
    tuple(_new(OPEN_STAND, good=g, square=s) for s in range(N_SQUARES)) for g in range(N_GOODS)
)
# OPEN_RESTAURANT_ACTIONS[restaurant][square]
OPEN_RESTAURANT_ACTIONS: Final[tuple[tuple[Action, ...], ...]] = tuple(
    tuple(_new(OPEN_RESTAURANT, restaurant=k, square=s) for s in range(N_SQUARES))
    for k in range(N_RESTAURANTS)
)
# BRING_CUSTOMER_ACTIONS[customer kind][entrance]
BRING_CUSTOMER_ACTIONS: Final[tuple[tuple[Action, ...], ...]] = tuple(
    tuple(_new(BRING_CUSTOMER, customer=c, entrance=e) for e in range(N_ENTRANCES))
    for c in range(N_CUSTOMER_KINDS)
)
N_ACTIONS: Final = len(ALL_ACTIONS)


def action_by_id(action_id: int) -> Action:
    """The action with this stable integer id."""
    if not 0 <= action_id < N_ACTIONS:
        raise InvalidAction(f"no action has id {action_id}")
    return ALL_ACTIONS[action_id]


def _field(data: dict[str, Any], key: str, table: dict[str, int]) -> int:
    value = data.get(key)
    if not isinstance(value, str):
        raise InvalidAction(f"{data.get('type')} needs a string field '{key}'")
    if value not in table:
        raise InvalidAction(f"unknown {key} {value!r}")
    return table[value]


def _customer(level: Any, goods: Any) -> int:
    if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 4:
        raise InvalidAction("bring_customer needs a 'level' from 1 to 4")
    if not isinstance(goods, list) or len(goods) != 2:
        raise InvalidAction("bring_customer needs 'goods', a list of two goods")
    for good in goods:
        if not isinstance(good, str) or good not in GOOD_INDEX:
            raise InvalidAction(f"unknown good {good!r}")
    a, b = GOOD_INDEX[goods[0]], GOOD_INDEX[goods[1]]
    if a == b:
        raise InvalidAction("a customer tile wants two different goods")
    return customer_kind(level, (a, b))


_EXPECTED_KEYS: Final = {
    REDRAW_HAND: {"type"},
    REFRESH_OFFER: {"type"},
    TAKE_COIN: {"type"},
    TAKE_OFFER: {"type", "good"},
    OPEN_STAND: {"type", "good", "square"},
    OPEN_RESTAURANT: {"type", "restaurant", "square"},
    BRING_CUSTOMER: {"type", "level", "goods", "entrance"},
}


def action_from_json(data: Any) -> Action:
    """Parse a POSITION.md action object; raises InvalidAction naming what is wrong."""
    if not isinstance(data, dict):
        raise InvalidAction("an action must be a JSON object")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in KIND_INDEX:
        raise InvalidAction(f"unknown action type {kind!r}")
    k = KIND_INDEX[kind]
    extra = set(data) - _EXPECTED_KEYS[k]
    if extra:
        raise InvalidAction(f"{kind} has unexpected field {sorted(extra)[0]!r}")
    if k == REDRAW_HAND:
        return REDRAW_HAND_ACTION
    if k == REFRESH_OFFER:
        return REFRESH_OFFER_ACTION
    if k == TAKE_COIN:
        return TAKE_COIN_ACTION
    if k == TAKE_OFFER:
        return TAKE_OFFER_ACTIONS[_field(data, "good", GOOD_INDEX)]
    if k == OPEN_STAND:
        return OPEN_STAND_ACTIONS[_field(data, "good", GOOD_INDEX)][_field(data, "square", SQUARE_INDEX)]
    if k == OPEN_RESTAURANT:
        restaurant = _field(data, "restaurant", RESTAURANT_INDEX)
        return OPEN_RESTAURANT_ACTIONS[restaurant][_field(data, "square", SQUARE_INDEX)]
    customer = _customer(data.get("level"), data.get("goods"))
    return BRING_CUSTOMER_ACTIONS[customer][_field(data, "entrance", ENTRANCE_INDEX)]


def parse_action(text: str) -> Action:
    """Parse the text form produced by ``str(action)``."""
    words = text.split()
    if not words or words[0] not in KIND_INDEX:
        raise InvalidAction(f"unknown action {text!r}")
    kind = words[0]
    data: dict[str, Any] = {"type": kind}
    try:
        if kind == "take_offer":
            (data["good"],) = words[1:]
        elif kind == "open_stand":
            data["good"], data["square"] = words[1:]
        elif kind == "open_restaurant":
            data["restaurant"], data["square"] = words[1:]
        elif kind == "bring_customer":
            level, goods, data["entrance"] = words[1:]
            data["level"] = int(level)
            data["goods"] = goods.split("+")
        elif len(words) > 1:
            raise ValueError
    except ValueError:
        raise InvalidAction(f"malformed action {text!r}") from None
    return action_from_json(data)
