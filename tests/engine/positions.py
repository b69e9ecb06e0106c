"""Hand-built positions (POSITION.md format) and small helpers for the rules tests.

``make_position`` returns a minimal valid position dict; keyword arguments
replace top-level fields (``options`` is merged into the defaults). ``load``
turns it into a ``GameState`` through ``position.from_json``, as every rules
test does.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from typing import Any

import pytest

from server.engine import (
    Action,
    Event,
    GameState,
    IllegalAction,
    action_from_json,
    apply,
    legal_actions,
    position,
    why_illegal,
)

GOODS = ("fish", "flowers", "tomatoes", "meat", "grapes")
SQUARES = tuple(c + r for r in "12345" for c in "abcde")
ENTRANCES = (
    *(f"top-{c}" for c in "abcde"),
    *(f"bottom-{c}" for c in "abcde"),
    *(f"left-{r}" for r in "12345"),
    *(f"right-{r}" for r in "12345"),
)


def make_position(players: int = 2, **overrides: Any) -> dict[str, Any]:
    """A valid position: main phase of seat 0, empty market, empty entrances and customer piles."""
    n = players
    data: dict[str, Any] = {
        "format": "mercado-position/1",
        "options": {"players": n, "money": "public", "face_down_counts_as_available": True},
        "status": "playing",
        "current_player": 0,
        "phase": "main",
        "redrawn_this_turn": False,
        "coins": [1] * n,
        "wooden_stands": [8] * n,
        "stand_hands": [["fish", "flowers", "tomatoes"] for _ in range(n)],
        "restaurant_hands": [[] for _ in range(n)],
        "market": {},
        "entrances": {},
        "offer": ["meat", "grapes", "fish"],
        "bag": ["tomatoes", "flowers", "meat", "grapes", "fish", "flowers"],
        "display": {"1": [], "2": [], "3": [], "4": []},
        "decks": {"1": [], "2": [], "3": [], "4": []},
        "consecutive_coins": 0,
        "final_turns_left": None,
        "rng": 12345,
        "result": None,
    }
    overrides = copy.deepcopy(overrides)
    data["options"].update(overrides.pop("options", {}))
    data.update(overrides)
    return data


def load(players: int = 2, **overrides: Any) -> GameState:
    """``make_position`` loaded with ``position.from_json``."""
    return position.from_json(make_position(players, **overrides))


def act(kind: str, **fields: Any) -> Action:
    """An action from its POSITION.md JSON fields."""
    return action_from_json({"type": kind, **fields})


def stand(good: str, owner: int) -> dict[str, Any]:
    return {"stand": good, "owner": owner}


def customer(level: int, *goods: str) -> dict[str, Any]:
    """A customer tile at an entrance (goods given in canonical order)."""
    return {"level": level, "goods": list(goods)}


def stands(owner: int, good: str, *squares: str) -> dict[str, dict[str, Any]]:
    """Market entries: one stand of ``good`` owned by ``owner`` on each square."""
    return {q: stand(good, owner) for q in squares}


def filled_market(open_squares: set[str], **extra: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every square not in ``open_squares`` holds a stand (owners alternate); ``extra`` overrides squares."""
    market = {
        q: stand(GOODS[i % len(GOODS)], i % 2)
        for i, q in enumerate(SQUARES)
        if q not in open_squares and q not in extra
    }
    market.update(extra)
    return market


def key(action: Action | dict[str, Any]) -> str:
    """A canonical string for an action, to compare action lists as sets."""
    data = action.to_json() if isinstance(action, Action) else action
    return json.dumps(data, sort_keys=True)


def legal_keys(state: GameState) -> list[str]:
    return [key(a) for a in legal_actions(state)]


def legal_of_type(state: GameState, kind: str) -> set[str]:
    """The legal actions of one type, as canonical strings; asserts there are no duplicates."""
    actions = [a for a in legal_actions(state) if a.type == kind]
    keys = [key(a) for a in actions]
    assert len(keys) == len(set(keys)), "legal_actions lists an action twice"
    return set(keys)


def keys(*actions: Action) -> set[str]:
    return {key(a) for a in actions}


def is_legal(state: GameState, action: Action) -> bool:
    """Legal per legal_actions, cross-checked against why_illegal."""
    listed = action in legal_actions(state)
    assert listed == (why_illegal(state, action) is None), (
        f"legal_actions and why_illegal disagree on {action}"
    )
    return listed


def play(state: GameState, *actions: Action) -> list[Event]:
    """Apply actions in order (checked); return all their events."""
    events: list[Event] = []
    for action in actions:
        events += apply(state, action)
    return events


def assert_illegal(state: GameState, action: Action, *fragments: str) -> str:
    """The action raises IllegalAction with a one-line reason holding each fragment, and changes nothing."""
    before = position.to_json(state)
    with pytest.raises(IllegalAction) as info:
        apply(state, action)
    reason = info.value.reason
    assert reason and "\n" not in reason
    assert str(info.value) == reason
    for fragment in fragments:
        assert fragment in reason, f"{fragment!r} not in {reason!r}"
    assert position.to_json(state) == before
    assert why_illegal(state, action) == reason
    assert action not in legal_actions(state)
    return reason


def tile_counts(state: GameState) -> Counter[str]:
    """Stand tiles by good over the bag, the offer, every hand and the market."""
    data = position.to_json(state)
    counts: Counter[str] = Counter(data["bag"]) + Counter(data["offer"])
    for hand in data["stand_hands"]:
        counts += Counter(hand)
    counts += Counter(v["stand"] for v in data["market"].values() if "stand" in v)
    return counts
