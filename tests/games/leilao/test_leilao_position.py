"""Positions and actions as JSON: writing, loading with validation, and action texts."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from leilao_helpers import bid, game, rebid

from server.games.leilao import RULES, Bid, InvalidAction, InvalidPosition, Pick, Rebid
from server.games.leilao.components import CARD_INDEX


def tiebreak_position() -> dict[str, Any]:
    state = game(3, start=2)
    bid(state, 0, 7, 2)
    bid(state, 1, 7)
    bid(state, 2, 12)
    rebid(state, 1, 5)
    return RULES.position_to_json(state)


def test_a_position_holds_everything_including_sealed_choices_and_the_deck() -> None:
    state = game(2, ("red-17", "blue-12", "yellow-9", "green-5"))
    bid(state, 1, 11, 4)
    data = RULES.position_to_json(state)
    assert data["format"] == "leilao-position/1"
    assert data["sealed"] == [None, {"card": 11, "extra": 4}]
    assert data["pending"] == [0]
    assert data["display"] == ["red-17", "blue-12", "yellow-9", "green-5"]
    assert len(data["deck"]) == 76
    assert RULES.position_from_json(data) == state


def test_positions_round_trip_in_every_phase() -> None:
    data = tiebreak_position()
    assert RULES.position_to_json(RULES.position_from_json(data)) == data
    state = RULES.position_from_json(data)
    rebid(state, 0, 1)
    data = RULES.position_to_json(state)
    assert data["phase"] == "pick"
    assert RULES.position_to_json(RULES.position_from_json(data)) == data


def test_a_minimal_position_loads_without_the_optional_fields() -> None:
    data = RULES.position_to_json(game(2))
    for key in ("format", "pending", "removed", "sealed", "fees", "ranking", "pick_sequence", "result"):
        del data[key]
    assert RULES.position_to_json(RULES.position_from_json(data)) == RULES.position_to_json(game(2))


def mutate(data: dict[str, Any], path: list[Any], value: Any) -> dict[str, Any]:
    changed = copy.deepcopy(data)
    target = changed
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return changed


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (["format"], "mercado-position/1", "format"),
        (["colour"], 1, "unknown field 'colour'"),
        (["deck"], KeyError, "missing field 'deck'"),
        (["options", "players"], 5, "options: option players"),
        (["start_player"], 3, "start_player must be 0..2"),
        (["round"], 0, "round must be >= 1"),
        (["phase"], "auction", "phase must be one of"),
        (["deck", 0], "purple-3", "deck[0] is not a market card"),
        (["deck", 0], "red-21", "deck[0] is not a market card"),
        (["hands", 2, 0], 0, "hands[2][0] must be 1..20"),
        (["hands", 2], [2, 1], "hands[2] must be increasing"),
        (["hands"], [[], []], "hands must have 3 entries"),
        (["played", 0, 0, "role"], "bonus", "played[0][0].role"),
        (["played", 0, 0, "void"], 1, "played[0][0].void"),
        (["sealed", 1], None, "seat 1: hand, sealed choice and played pile"),
        (["sealed", 1], {"card": 5, "extra": 3}, "sealed[1] has an unknown field 'extra'"),
        (["sealed", 2], {"card": 1}, "seat 2: hand, sealed choice and played pile"),
        (["fees"], [0, 0, 0], "fees must be [5, 0, 0]"),
        (["pending"], [0, 1], "pending must be [0]"),
        (["ranking", 0, 0, "card"], 11, "ranking must hold exactly the main and extra bids"),
        (["ranking", 0, 0, "card"], 1, "the ranking must go from the highest card down"),
        (["ranking"], None, "ranking is required in the tiebreak phase"),
        (["result"], {"scores": [0, 0, 0]}, "result must be null"),
        (["picks_made"], 1, "pick_sequence and picks_made belong to the pick phase"),
    ],
)
def test_invalid_positions_are_refused_with_the_first_problem(
    path: list[Any], value: Any, message: str
) -> None:
    data = mutate(tiebreak_position(), path, value)
    with pytest.raises(InvalidPosition) as error:
        RULES.position_from_json(data)
    assert message in str(error.value)
    assert isinstance(error.value, ValueError)


def test_only_members_of_the_tie_group_may_hold_a_sealed_rebid() -> None:
    data = tiebreak_position()
    data["sealed"][2] = {"card": 1}
    data["hands"][2].remove(1)
    with pytest.raises(InvalidPosition, match=r"sealed\[2\]: seat 2 does not re-bid"):
        RULES.position_from_json(data)


def test_a_market_card_may_appear_only_once() -> None:
    data = tiebreak_position()
    data["stalls"][0] = [data["deck"][5]]
    with pytest.raises(InvalidPosition, match="appears twice"):
        RULES.position_from_json(data)


def test_a_pick_position_must_have_the_derived_pick_sequence() -> None:
    state = game(2)
    bid(state, 0, 3)
    bid(state, 1, 8)
    data = RULES.position_to_json(state)
    with pytest.raises(InvalidPosition, match=r"pick_sequence must be \[1, 0, 1, 0\]"):
        RULES.position_from_json(mutate(data, ["pick_sequence"], [0, 1, 0, 1]))
    with pytest.raises(InvalidPosition, match="display must hold 4 stalls after 0 picks"):
        RULES.position_from_json(mutate(data, ["display"], data["display"][:3]))


def test_a_finished_position_must_have_a_reason_to_be_finished() -> None:
    data = RULES.position_to_json(game(2))
    data.update(phase="finished", display=[], pending=[])
    with pytest.raises(InvalidPosition, match="cannot be finished"):
        RULES.position_from_json(data)


def test_not_a_position_at_all() -> None:
    for data in (None, [], "x", 3):
        with pytest.raises(InvalidPosition):
            RULES.position_from_json(data)


# Actions for a program: JSON and texts.
@pytest.mark.parametrize(
    ("action", "data", "text"),
    [
        (Bid(11, 4), {"type": "bid", "card": 11, "extra": 4}, "bid 11+4"),
        (Bid(11, None), {"type": "bid", "card": 11, "extra": None}, "bid 11"),
        (Rebid(3), {"type": "rebid", "card": 3}, "rebid 3"),
        (Pick(CARD_INDEX["red-17"]), {"type": "pick", "stall": "red-17"}, "pick red-17"),
    ],
)
def test_actions_as_json_and_text(action: Bid | Rebid | Pick, data: dict[str, Any], text: str) -> None:
    assert RULES.action_to_json(action) == data
    assert RULES.action_from_json(data) == action
    assert RULES.action_text(action) == text
    assert RULES.parse_action(text) == action


def test_extra_may_be_absent() -> None:
    assert RULES.action_from_json({"type": "bid", "card": 11}) == Bid(11, None)


@pytest.mark.parametrize(
    "data",
    [
        None,
        {"type": "pass"},
        {"type": "bid"},
        {"type": "bid", "card": 0},
        {"type": "bid", "card": 21},
        {"type": "bid", "card": True},
        {"type": "bid", "card": "5"},
        {"type": "bid", "card": 5, "extra": 5},
        {"type": "rebid", "card": 3, "extra": 4},
        {"type": "pick", "stall": "red-0"},
        {"type": "pick"},
    ],
)
def test_malformed_actions_are_refused(data: Any) -> None:
    with pytest.raises(InvalidAction):
        RULES.action_from_json(data)


@pytest.mark.parametrize("text", ["", "bid", "bid 5+5", "bid 05", "bid 5+", "rebid x", "pick red", "take 3"])
def test_malformed_texts_are_refused(text: str) -> None:
    with pytest.raises(InvalidAction):
        RULES.parse_action(text)
