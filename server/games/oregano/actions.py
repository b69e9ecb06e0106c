"""Actions: one immutable value per decision, as JSON (RULES.md "Actions for a program") and as text.

Text forms, one per type (fields separated by single spaces)::

    choose_start_shop lumber_merchant 1a     keep_strategy chain_store
    declare resource attract                 build cafe 1b
    level_up 1c 2c                           take_resources 1 1a
    sell 2a                                  acquire restaurant 1 0 1d
    skip                                     casino go | casino stay
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from .components import ACTION_KINDS, CELLS, MAX_LEVEL, MAX_PLAYERS, SHOP_IDS, STRATEGIES
from .errors import InvalidAction

CHOOSE_START_SHOP = "choose_start_shop"
KEEP_STRATEGY = "keep_strategy"
DECLARE = "declare"
BUILD = "build"
LEVEL_UP = "level_up"
TAKE_RESOURCES = "take_resources"
SELL = "sell"
ACQUIRE = "acquire"
SKIP = "skip"
CASINO = "casino"

# The JSON fields of each type, in their text order; "from"/"to" are stored as source/target.
FIELDS: dict[str, tuple[str, ...]] = {
    CHOOSE_START_SHOP: ("shop", "cell"),
    KEEP_STRATEGY: ("card",),
    DECLARE: ("first", "second"),
    BUILD: ("shop", "cell"),
    LEVEL_UP: ("from", "to"),
    TAKE_RESOURCES: ("owner", "cell"),
    SELL: ("cell",),
    ACQUIRE: ("shop", "level", "seller", "cell"),
    SKIP: (),
    CASINO: ("go",),
}
# The operations each declared kind allows (skip is always allowed).
OPERATIONS: dict[str, tuple[str, ...]] = {
    "attract": (BUILD, LEVEL_UP),
    "resource": (TAKE_RESOURCES,),
    "sell": (SELL,),
    "acquire": (ACQUIRE,),
}
_ATTR = {"from": "source", "to": "target"}
_INT_FIELDS = {"owner", "level", "seller"}


@dataclass(frozen=True, slots=True)
class OreganoAction:
    """One decision; only the fields of its ``type`` are set."""

    type: str
    shop: str | None = None
    cell: str | None = None
    card: str | None = None
    first: str | None = None
    second: str | None = None
    source: str | None = None
    target: str | None = None
    owner: int | None = None
    level: int | None = None
    seller: int | None = None
    go: bool | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type}
        for name in FIELDS[self.type]:
            data[name] = getattr(self, _ATTR.get(name, name))
        return data

    def text(self) -> str:
        words = [self.type]
        for name in FIELDS[self.type]:
            value = getattr(self, _ATTR.get(name, name))
            if name == "go":
                words.append("go" if value else "stay")
            else:
                words.append(str(value))
        return " ".join(words)


# The constructors hand out one shared value per action (legal-move generation makes many, and the
# search looks them up by hash): every field set is drawn from a few components, so the caches stay small.


@functools.cache
def choose_start_shop(shop: str, cell: str) -> OreganoAction:
    return OreganoAction(CHOOSE_START_SHOP, shop=shop, cell=cell)


@functools.cache
def keep_strategy(card: str) -> OreganoAction:
    return OreganoAction(KEEP_STRATEGY, card=card)


@functools.cache
def declare(first: str, second: str) -> OreganoAction:
    return OreganoAction(DECLARE, first=first, second=second)


@functools.cache
def build(shop: str, cell: str) -> OreganoAction:
    return OreganoAction(BUILD, shop=shop, cell=cell)


@functools.cache
def level_up(source: str, target: str) -> OreganoAction:
    return OreganoAction(LEVEL_UP, source=source, target=target)


@functools.cache
def take_resources(owner: int, cell: str) -> OreganoAction:
    return OreganoAction(TAKE_RESOURCES, owner=owner, cell=cell)


@functools.cache
def sell(cell: str) -> OreganoAction:
    return OreganoAction(SELL, cell=cell)


@functools.cache
def acquire(shop: str, level: int, seller: int, cell: str) -> OreganoAction:
    return OreganoAction(ACQUIRE, shop=shop, level=level, seller=seller, cell=cell)


SKIP_ACTION = OreganoAction(SKIP)


def skip() -> OreganoAction:
    return SKIP_ACTION


@functools.cache
def casino(go: bool) -> OreganoAction:
    return OreganoAction(CASINO, go=go)


def _check_value(name: str, value: Any) -> None:
    """Each field's domain, so a well-formed action names only known things."""
    if name in ("shop",) and value not in SHOP_IDS:
        raise InvalidAction(f"unknown shop {value!r}")
    if name in ("cell", "from", "to") and value not in CELLS:
        raise InvalidAction(f"unknown cell {value!r}")
    if name == "card" and value not in STRATEGIES:
        raise InvalidAction(f"unknown strategy card {value!r}")
    if name in ("first", "second") and value not in ACTION_KINDS:
        raise InvalidAction(f"unknown action kind {value!r}")
    if name in _INT_FIELDS:
        if not isinstance(value, int) or isinstance(value, bool):
            raise InvalidAction(f"{name} must be an integer")
        high = MAX_LEVEL if name == "level" else MAX_PLAYERS - 1
        low = 1 if name == "level" else 0
        if not low <= value <= high:
            raise InvalidAction(f"{name} {value} is out of range")
    if name == "go" and not isinstance(value, bool):
        raise InvalidAction("go must be true or false")


def action_from_json(data: Any) -> OreganoAction:
    """An action from its JSON form (``InvalidAction`` if it is not one)."""
    if not isinstance(data, dict):
        raise InvalidAction("an action must be an object")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in FIELDS:
        raise InvalidAction(f"unknown action type {kind!r}")
    names = FIELDS[kind]
    extra = sorted(set(data) - {"type", *names})
    if extra:
        raise InvalidAction(f"{kind} has no field {extra[0]!r}")
    values: dict[str, Any] = {}
    for name in names:
        if name not in data:
            raise InvalidAction(f"{kind} needs {name!r}")
        _check_value(name, data[name])
        values[_ATTR.get(name, name)] = data[name]
    if kind == SKIP:
        return SKIP_ACTION
    return OreganoAction(kind, **values)


def parse_action(text: str) -> OreganoAction:
    """An action from its text form (``InvalidAction`` if it is not one)."""
    if not isinstance(text, str):
        raise InvalidAction("an action text must be a string")
    words = text.split(" ")
    kind = words[0]
    if kind not in FIELDS:
        raise InvalidAction(f"unknown action type {kind!r}")
    names = FIELDS[kind]
    if len(words) != len(names) + 1:
        raise InvalidAction(f"{kind} takes {len(names)} field(s)")
    data: dict[str, Any] = {"type": kind}
    for name, word in zip(names, words[1:], strict=True):
        if name in _INT_FIELDS:
            if not word.isdigit():
                raise InvalidAction(f"{name} must be an integer")
            data[name] = int(word)
        elif name == "go":
            if word not in ("go", "stay"):
                raise InvalidAction("casino takes 'go' or 'stay'")
            data[name] = word == "go"
        else:
            data[name] = word
    action = action_from_json(data)
    if action.text() != text:
        raise InvalidAction(f"{text!r} is not written as {action.text()!r}")
    return action
