"""RULES.md "Actions for a program" as JSON and text; positions as JSON, validated on load."""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_oregano_support import position, through_setup

from server.games.oregano import RULES, InvalidAction, InvalidPosition
from server.games.oregano import actions as A

# Every example of RULES.md's "Actions for a program", exactly as written there.
RULES_EXAMPLES: list[dict[str, Any]] = [
    {"type": "choose_start_shop", "shop": "lumber_merchant", "cell": "1a"},
    {"type": "keep_strategy", "card": "chain_store"},
    {"type": "declare", "first": "resource", "second": "attract"},
    {"type": "build", "shop": "cafe", "cell": "1b"},
    {"type": "level_up", "from": "1c", "to": "2c"},
    {"type": "take_resources", "owner": 1, "cell": "1a"},
    {"type": "sell", "cell": "2a"},
    {"type": "acquire", "shop": "restaurant", "level": 1, "seller": 0, "cell": "1d"},
    {"type": "skip"},
    {"type": "casino", "go": True},
    {"type": "casino", "go": False},
]


@pytest.mark.parametrize("data", RULES_EXAMPLES, ids=lambda d: str(d["type"]))
def test_action_json_and_text_round_trip(data: dict[str, Any]) -> None:
    action = RULES.action_from_json(data)
    assert RULES.action_to_json(action) == data
    text = RULES.action_text(action)
    assert RULES.parse_action(text) == action
    assert hash(action) == hash(RULES.action_from_json(json.loads(json.dumps(data))))


def test_action_texts_are_short_and_stable() -> None:
    assert [RULES.action_text(RULES.action_from_json(d)) for d in RULES_EXAMPLES] == [
        "choose_start_shop lumber_merchant 1a",
        "keep_strategy chain_store",
        "declare resource attract",
        "build cafe 1b",
        "level_up 1c 2c",
        "take_resources 1 1a",
        "sell 2a",
        "acquire restaurant 1 0 1d",
        "skip",
        "casino go",
        "casino stay",
    ]


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ("skip", "must be an object"),
        ({"type": "fly"}, "unknown action type"),
        ({"type": "sell"}, "needs 'cell'"),
        ({"type": "sell", "cell": "5a"}, "unknown cell"),
        ({"type": "sell", "cell": "1a", "shop": "cafe"}, "no field 'shop'"),
        ({"type": "build", "shop": "bakery", "cell": "1a"}, "unknown shop"),
        ({"type": "keep_strategy", "card": "luck"}, "unknown strategy card"),
        ({"type": "declare", "first": "rest", "second": "sell"}, "unknown action kind"),
        ({"type": "take_resources", "owner": True, "cell": "1a"}, "owner must be an integer"),
        ({"type": "take_resources", "owner": 4, "cell": "1a"}, "out of range"),
        ({"type": "acquire", "shop": "cafe", "level": 5, "seller": 0, "cell": "1a"}, "out of range"),
        ({"type": "casino", "go": 1}, "true or false"),
    ],
)
def test_bad_action_json_refused(data: Any, reason: str) -> None:
    with pytest.raises(InvalidAction, match=reason):
        RULES.action_from_json(data)


@pytest.mark.parametrize(
    "text", ["", "sell", "sell 1a 1b", "casino maybe", "take_resources x 1a", "take_resources 01 1a", "jump"]
)
def test_bad_action_text_refused(text: str) -> None:
    with pytest.raises(ValueError):
        RULES.parse_action(text)


def test_position_round_trip() -> None:
    state = through_setup(3, 4)
    data = RULES.position_to_json(state)
    assert data["format"] == "oregano-position/1"
    again = RULES.position_from_json(json.loads(json.dumps(data)))
    assert RULES.position_to_json(again) == data


def _broken(change: Any) -> dict[str, Any]:
    data = RULES.position_to_json(position(areas=[{"1a": "cafe"}, {}], boulevard=[("cafe", 2, 1)]))
    change(data)
    return data


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda d: d.update(format="mercado-position/1"), "format"),
        (lambda d: d.pop("rng"), "rng is missing"),
        (lambda d: d.update(extra=1), "unknown field 'extra'"),
        (lambda d: d["options"].update(players=7), "options.players"),
        (lambda d: d.update(gold=[1]), "gold must have 2 entries"),
        (lambda d: d.update(gold=[1, -1]), r"gold\[1\]"),
        (lambda d: d["areas"][0].update({"5a": {"shop": "cafe", "id": 9}}), "unknown '5a'"),
        (lambda d: d["areas"][0].update({"1b": {"shop": "cafe", "id": 0}}), "used twice"),
        (
            lambda d: d["areas"][1].update({"2a": {"shop": "casino", "id": 1}}),
            "special shop stands in column 1",
        ),
        (lambda d: d["boulevard"][0].update(seller=2), "seller"),
        (lambda d: d["stock"].pop("cafe"), "stock must have exactly"),
        (lambda d: d.update(phase="dance"), "phase"),
        (lambda d: d.update(phase="action"), "declared must be set"),
        (lambda d: d.update(strategies=["chain_store", None]), "every player holds a card"),
        (lambda d: d["records"][0].update(acquired=2), "goal is already met"),
        (lambda d: d.update(bonuses=[["first_row"], []]), "two places"),
        (
            lambda d: d.update(result={"scores": [0, 0], "ranks": [1, 1], "tie_breaks": []}),
            "result must be null",
        ),
        (lambda d: d.update(status="finished"), "finished"),
        (lambda d: d.update(drawn=[["chain_store"], []]), r"drawn\[0\] must be empty"),
        (lambda d: d.update(round=0), "round must be 0"),
    ],
)
def test_invalid_positions_refused(change: Any, reason: str) -> None:
    with pytest.raises(InvalidPosition, match=reason):
        RULES.position_from_json(_broken(change))


def test_invalid_position_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="position must be an object"):
        RULES.position_from_json([])


def test_finished_position_result_must_match() -> None:
    state = position(phase="action", declared=["sell", "attract"], step=1, round=20, current=1)
    RULES.apply(state, 1, A.skip())
    data = RULES.position_to_json(state)
    assert RULES.position_to_json(RULES.position_from_json(data)) == data
    data["result"]["scores"] = [99, 0]
    with pytest.raises(InvalidPosition, match="result does not match"):
        RULES.position_from_json(data)
