"""The actions of RULES.md ("Actions for a program"): immutable, hashable, as JSON and as text.

JSON: ``{"type": "bid", "card": 11, "extra": 4}`` (``extra`` null or absent),
``{"type": "rebid", "card": 3}``, ``{"type": "pick", "stall": "red-17"}``.
Text: ``bid 11+4``, ``bid 11``, ``rebid 3``, ``pick red-17``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .components import BID_CARDS, CARD_INDEX, CARD_NAMES
from .errors import InvalidAction


@dataclass(frozen=True, slots=True)
class Bid:
    """A sealed bid: a main card and an optional extra card (numbers 1-20)."""

    card: int
    extra: int | None = None


@dataclass(frozen=True, slots=True)
class Rebid:
    """A sealed re-bid in a tie-break."""

    card: int


@dataclass(frozen=True, slots=True)
class Pick:
    """Take a stall from the display (an index of ``components.CARD_NAMES``)."""

    stall: int


LeilaoAction = Bid | Rebid | Pick

_BID_FIELDS = frozenset({"type", "card", "extra"})
_REBID_FIELDS = frozenset({"type", "card"})
_PICK_FIELDS = frozenset({"type", "stall"})

# Every action exists once: legal-move generation hands out these shared objects.
BIDS: dict[tuple[int, int | None], Bid] = {
    (c, e): Bid(c, e) for c in BID_CARDS for e in (None, *BID_CARDS) if e != c
}
REBIDS: dict[int, Rebid] = {c: Rebid(c) for c in BID_CARDS}
PICKS: tuple[Pick, ...] = tuple(Pick(i) for i in range(len(CARD_NAMES)))


def action_to_json(action: LeilaoAction) -> dict[str, Any]:
    if isinstance(action, Bid):
        return {"type": "bid", "card": action.card, "extra": action.extra}
    if isinstance(action, Rebid):
        return {"type": "rebid", "card": action.card}
    return {"type": "pick", "stall": CARD_NAMES[action.stall]}


def _bid_card(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in BID_CARDS:
        raise InvalidAction(f"{field} must be a bid card number 1-20")
    return int(value)


def _stall(value: Any) -> int:
    if not isinstance(value, str) or value not in CARD_INDEX:
        raise InvalidAction(f"unknown stall {value!r}")
    return CARD_INDEX[value]


def action_from_json(data: Any) -> LeilaoAction:
    """An action from JSON (``InvalidAction`` if it is not one of Leilão's actions)."""
    if not isinstance(data, dict):
        raise InvalidAction("an action must be an object")
    kind = data.get("type")
    if kind == "bid":
        fields = _BID_FIELDS
    elif kind == "rebid":
        fields = _REBID_FIELDS
    elif kind == "pick":
        fields = _PICK_FIELDS
    else:
        raise InvalidAction(f"unknown action type {kind!r}")
    for key in data:
        if key not in fields:
            raise InvalidAction(f"unknown field {key!r} in a {kind} action")
    if kind == "pick":
        if "stall" not in data:
            raise InvalidAction("a pick needs a stall")
        return PICKS[_stall(data["stall"])]
    if "card" not in data:
        raise InvalidAction(f"a {kind} needs a card")
    card = _bid_card(data["card"], "card")
    if kind == "rebid":
        return REBIDS[card]
    extra = data.get("extra")
    if extra is None:
        return BIDS[card, None]
    extra = _bid_card(extra, "extra")
    if extra == card:
        raise InvalidAction("the extra card must differ from the main card")
    return BIDS[card, extra]


def action_text(action: LeilaoAction) -> str:
    if isinstance(action, Bid):
        return f"bid {action.card}" if action.extra is None else f"bid {action.card}+{action.extra}"
    if isinstance(action, Rebid):
        return f"rebid {action.card}"
    return f"pick {CARD_NAMES[action.stall]}"


def _number(text: str, field: str) -> int:
    if not text.isdigit() or text != str(int(text)):
        raise InvalidAction(f"{field} must be a bid card number 1-20")
    return _bid_card(int(text), field)


def parse_action(text: str) -> LeilaoAction:
    """The action written by :func:`action_text`."""
    if not isinstance(text, str):
        raise InvalidAction("an action text must be a string")
    words = text.split(" ")
    if len(words) != 2:
        raise InvalidAction(f"not an action: {text!r}")
    verb, argument = words
    if verb == "pick":
        return PICKS[_stall(argument)]
    if verb == "rebid":
        return REBIDS[_number(argument, "card")]
    if verb == "bid":
        main, plus, extra = argument.partition("+")
        card = _number(main, "card")
        if not plus:
            return BIDS[card, None]
        extra_card = _number(extra, "extra")
        if extra_card == card:
            raise InvalidAction("the extra card must differ from the main card")
        return BIDS[card, extra_card]
    raise InvalidAction(f"not an action: {text!r}")
