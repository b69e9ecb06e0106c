"""Hand-built positions (POSITION.md format) and small helpers for the rules tests.

``make_position`` returns a minimal valid position dict; keyword arguments
replace top-level fields (``options`` is merged into the defaults). ``load``
turns it into a ``GameState`` through ``position.from_json``, as every rules
test does. ``doc_example`` is the documented example position, and ``rules``
runs the ``mercado rules`` command on positions.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from server.games.mercado import (
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

ROOT = Path(__file__).resolve().parents[3]  # the repository

GOODS = ("fish", "flowers", "tomatoes", "meat", "grapes")
RESTAURANT_KINDS = ("sushi_bar", "tea_house", "pizzeria", "burger_bar", "wine_bar", "pub")
SQUARES = tuple(c + r for r in "12345" for c in "abcde")
ENTRANCES = (
    *(f"top-{c}" for c in "abcde"),
    *(f"bottom-{c}" for c in "abcde"),
    *(f"left-{r}" for r in "12345"),
    *(f"right-{r}" for r in "12345"),
)

# RULES.md components: 35 stand tiles, seven of each good; 12 restaurant tiles, two of each kind;
# 35 customer tiles, each (level, two different goods) exactly once: every pair of goods at
# levels 1 to 3, five pairs at level 4. Pairs in canonical order.
STAND_TILES = Counter({good: 7 for good in GOODS})
RESTAURANT_TILES = Counter({kind: 2 for kind in RESTAURANT_KINDS})
PAIRS = [(a, b) for i, a in enumerate(GOODS) for b in GOODS[i + 1 :]]
LEVEL_4_PAIRS = [
    ("fish", "flowers"),
    ("flowers", "tomatoes"),
    ("tomatoes", "meat"),
    ("meat", "grapes"),
    ("fish", "grapes"),
]


def doc_example() -> dict[str, Any]:
    """The example position of POSITION.md (docs/positions.md, its first JSON block), freshly parsed."""
    text = (ROOT / "docs" / "positions.md").read_text(encoding="utf-8")
    block = text.split("```json\n", 1)[1].split("```", 1)[0]
    data: dict[str, Any] = json.loads(block)
    return data


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


def tile_counts(state: GameState | dict[str, Any]) -> Counter[str]:
    """Stand tiles by good over the bag, the offer, every hand and the market (of a state or its JSON)."""
    data = position.to_json(state) if isinstance(state, GameState) else state
    counts: Counter[str] = Counter(data["bag"]) + Counter(data["offer"])
    for hand in data["stand_hands"]:
        counts += Counter(hand)
    counts += Counter(v["stand"] for v in data["market"].values() if "stand" in v)
    return counts


# --- the ``mercado rules`` command --------------------------------------------------------------


def rules(*args: str, stdin: str | bytes | None = None) -> subprocess.CompletedProcess[str]:
    """``mercado rules ARGS`` run as a subprocess (output decoded even when ``stdin`` is bytes)."""
    command = [sys.executable, "-m", "server", "rules", *args]
    if isinstance(stdin, bytes):
        raw = subprocess.run(command, cwd=ROOT, input=stdin, capture_output=True, timeout=60)
        return subprocess.CompletedProcess(
            raw.args, raw.returncode, raw.stdout.decode(errors="replace"), raw.stderr.decode(errors="replace")
        )
    return subprocess.run(command, cwd=ROOT, input=stdin, capture_output=True, text=True, timeout=60)


def single_json(out: subprocess.CompletedProcess[str]) -> Any:
    """The command succeeded, quietly, with one line of JSON: parsed."""
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""
    assert out.stdout.endswith("\n") and out.stdout.count("\n") == 1, "expected one line of JSON"
    return json.loads(out.stdout)
