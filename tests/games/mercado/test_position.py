"""Positions and actions as JSON (POSITION.md): loading, validation, writing, parsing."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from positions import doc_example

from server.games.mercado import (
    ALL_ACTIONS,
    N_ACTIONS,
    InvalidAction,
    InvalidPosition,
    Options,
    RulesError,
    action_by_id,
    action_from_json,
    apply,
    legal_actions,
    new_game,
    parse_action,
    position,
    why_illegal,
)

# The example position of POSITION.md, as documented.
EXAMPLE = doc_example()

# The example actions of POSITION.md, verbatim.
EXAMPLE_ACTIONS = [
    {"type": "redraw_hand"},
    {"type": "open_stand", "good": "fish", "square": "c3"},
    {"type": "refresh_offer"},
    {"type": "take_offer", "good": "meat"},
    {"type": "bring_customer", "level": 3, "goods": ["fish", "meat"], "entrance": "top-c"},
    {"type": "open_restaurant", "restaurant": "pub", "square": "d2"},
    {"type": "take_coin"},
]

REQUIRED_FIELDS = [
    "options",
    "status",
    "current_player",
    "phase",
    "coins",
    "wooden_stands",
    "stand_hands",
    "restaurant_hands",
    "market",
    "entrances",
    "offer",
    "bag",
    "display",
    "decks",
]


def example() -> dict[str, Any]:
    return copy.deepcopy(EXAMPLE)


def normalised(data: dict[str, Any]) -> dict[str, Any]:
    return position.to_json(position.from_json(data))


# --- loading and writing ----------------------------------------------------------------


def test_example_position_loads() -> None:
    state = position.from_json(example())
    assert state.current_player == 0
    assert not state.is_terminal
    assert state.options == Options(players=2, money="hidden", face_down_counts_as_available=True)
    # The loaded position means what it says: c3 holds a stand, d2 a face-up restaurant,
    # b1 a face-down one that a stand may still go on.
    assert "c3" in (why_illegal(state, action_from_json(EXAMPLE_ACTIONS[1])) or "")
    pub_d2 = action_from_json({"type": "open_stand", "good": "fish", "square": "d2"})
    assert "d2" in (why_illegal(state, pub_d2) or "")
    assert (
        why_illegal(state, action_from_json({"type": "open_stand", "good": "fish", "square": "b1"})) is None
    )


def test_example_position_round_trips_exactly() -> None:
    data = example()
    written = position.to_json(position.from_json(data))
    assert written == EXAMPLE
    assert data == EXAMPLE, "loading must not modify its input"
    # Through JSON text too.
    assert position.to_json(position.from_json(json.loads(json.dumps(written)))) == EXAMPLE


def test_writing_is_idempotent_after_normalising() -> None:
    data = example()
    data["entrances"]["top-c"]["goods"] = ["meat", "fish"]  # any order on input
    data["display"]["1"] = [["meat", "fish"]]
    del data["display"]["4"]  # a missing level is an empty one
    for key in set(EXAMPLE) - set(REQUIRED_FIELDS):  # every optional field
        del data[key]
    once = normalised(data)
    assert once["entrances"]["top-c"] == {"level": 2, "goods": ["fish", "meat"]}
    assert once["display"] == {"1": [["fish", "meat"]], "2": [], "3": [["meat", "grapes"]], "4": []}
    assert once["format"] == "mercado-position/1"
    assert once["redrawn_this_turn"] is False
    assert once["consecutive_coins"] == 0
    assert once["final_turns_left"] is None
    assert once["result"] is None
    assert normalised(once) == once


def test_written_position_has_exactly_the_documented_fields() -> None:
    written = position.to_json(new_game(Options(players=3), seed=4))
    assert set(written) == set(EXAMPLE)
    assert set(written["options"]) == set(EXAMPLE["options"])
    assert set(written["display"]) == set(written["decks"]) == {"1", "2", "3", "4"}


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("money", ["public", "hidden"])
def test_new_game_round_trips(players: int, money: str) -> None:
    state = new_game(Options(players=players, money=money), seed=99)  # type: ignore[arg-type]
    data = position.to_json(state)
    assert position.from_json(data) == state
    assert position.to_json(position.from_json(json.loads(json.dumps(data)))) == data


def test_finished_position_round_trips() -> None:
    data = example()
    data.update(status="finished", coins=[3, 0], restaurant_hands=[["pub"], []])
    data["result"] = {"scores": [2, 0], "stands_on_market": [1, 0], "ranks": [1, 2]}
    state = position.from_json(data)
    assert state.is_terminal
    assert legal_actions(state) == []
    assert normalised(data) == data


def test_final_round_position_round_trips() -> None:
    data = example()
    data.update(options={"players": 3, "money": "public", "face_down_counts_as_available": False})
    data.update(coins=[1, 2, 3], wooden_stands=[7, 8, 8], stand_hands=[[], ["fish"], []])
    data.update(restaurant_hands=[[], [], ["pub"]], status="final_round", final_turns_left=2)
    assert normalised(data) == data


def test_position_need_not_account_for_every_component() -> None:
    data = example()
    data.update(bag=[], offer=["fish"], decks={"1": [], "2": [], "3": [], "4": []}, market={})
    data.update(display={"1": [], "2": [], "3": [], "4": []}, entrances={}, wooden_stands=[1, 0])
    data.update(stand_hands=[["fish"], []])
    state = position.from_json(data)
    assert normalised(data) == data
    legal = legal_actions(state)
    assert legal
    for action in legal:
        apply(state.clone(), action)
    # An empty offer, with nothing anywhere.
    data.update(offer=[], stand_hands=[[], []], wooden_stands=[0, 0])
    state = position.from_json(data)
    assert [a.to_json() for a in legal_actions(state)] == [{"type": "take_coin"}]


def test_take_offer_phase_with_an_offer_loads() -> None:
    data = example()
    data["phase"] = "take_offer"
    state = position.from_json(data)
    assert {a.type for a in legal_actions(state)} == {"take_offer"}
    assert normalised(data) == data


# --- validation ------------------------------------------------------------------------

Mutation = Callable[[dict[str, Any]], None]


def setter(*path: Any, value: Any) -> Mutation:
    def mutate(data: dict[str, Any]) -> None:
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return mutate


def players_3_arrays(data: dict[str, Any]) -> None:
    data["options"]["players"] = 3  # every per-player array still has two entries


def final_round_without_turns(data: dict[str, Any]) -> None:
    data["status"] = "final_round"


def final_round_too_many_turns(data: dict[str, Any]) -> None:
    data["status"] = "final_round"
    data["final_turns_left"] = 2  # two players: at most one turn remains


def finished_in_take_offer(data: dict[str, Any]) -> None:
    data["status"] = "finished"
    data["phase"] = "take_offer"


INVALID: list[tuple[str, Mutation, list[str]]] = [
    # unknown names
    ("unknown good in hand", setter("stand_hands", 0, 1, value="bread"), ["stand_hands[0]", "bread"]),
    ("unknown good in offer", setter("offer", 2, value="olives"), ["offer", "olives"]),
    ("unknown good in bag", setter("bag", 0, value="olives"), ["bag", "olives"]),
    ("unknown good on stand", setter("market", "c3", "stand", value="olives"), ["market.c3", "olives"]),
    ("unknown face-up restaurant", setter("market", "d2", "restaurant", value="cafe"), ["market.d2", "cafe"]),
    (
        "unknown face-down restaurant",
        setter("market", "b1", "face_down", value="cafe"),
        ["market.b1", "cafe"],
    ),
    ("face-down without identity", setter("market", "b1", "face_down", value=True), ["market.b1"]),
    (
        "unknown restaurant in hand",
        setter("restaurant_hands", 1, value=["cafe"]),
        ["restaurant_hands[1]", "cafe"],
    ),
    ("unknown square", setter("market", "f6", value={"restaurant": "pub"}), ["market", "f6"]),
    (
        "unknown entrance",
        setter("entrances", "top-f", value={"level": 1, "goods": ["fish", "meat"]}),
        ["top-f"],
    ),
    (
        "unknown entrance good",
        setter("entrances", "top-c", "goods", value=["fish", "bread"]),
        ["top-c", "bread"],
    ),
    ("unknown display good", setter("display", "1", 0, value=["fish", "bread"]), ["display.1", "bread"]),
    ("unknown deck good", setter("decks", "4", 0, value=["bread", "fish"]), ["decks.4", "bread"]),
    ("unknown status", setter("status", value="paused"), ["status"]),
    ("unknown phase", setter("phase", value="bring"), ["phase"]),
    # one thing per square
    (
        "stand and restaurant",
        setter("market", "c3", value={"stand": "fish", "owner": 0, "restaurant": "pub"}),
        ["market.c3"],
    ),
    (
        "restaurant and face-down",
        setter("market", "d2", value={"restaurant": "pub", "face_down": "pub"}),
        ["d2"],
    ),
    ("stand without owner", setter("market", "c3", value={"stand": "fish"}), ["market.c3"]),
    ("empty square entry", setter("market", "c3", value={}), ["market.c3"]),
    ("entrance with extra key", setter("entrances", "top-c", "owner", value=0), ["entrances.top-c"]),
    # seats
    ("owner too high", setter("market", "c3", "owner", value=2), ["market.c3.owner"]),
    ("owner negative", setter("market", "c3", "owner", value=-1), ["market.c3.owner"]),
    ("current player too high", setter("current_player", value=2), ["current_player"]),
    ("current player negative", setter("current_player", value=-1), ["current_player"]),
    ("current player not a number", setter("current_player", value="0"), ["current_player"]),
    # hands and display sizes
    (
        "four tiles in hand",
        setter("stand_hands", 1, value=["fish", "fish", "meat", "meat"]),
        ["stand_hands[1]"],
    ),
    ("four tiles in offer", setter("offer", value=["fish", "fish", "meat", "meat"]), ["offer"]),
    (
        "four tiles in a display level",
        setter(
            "display",
            "2",
            value=[["fish", "meat"], ["fish", "grapes"], ["meat", "grapes"], ["fish", "tomatoes"]],
        ),
        ["display.2"],
    ),
    # negative counts
    ("negative coins", setter("coins", 1, value=-1), ["coins[1]"]),
    ("negative wooden stands", setter("wooden_stands", 0, value=-2), ["wooden_stands[0]"]),
    ("negative consecutive coins", setter("consecutive_coins", value=-1), ["consecutive_coins"]),
    ("negative rng", setter("rng", value=-5), ["rng"]),
    ("coins not integers", setter("coins", value=[1.5, 1]), ["coins[0]"]),
    ("coins boolean", setter("coins", value=[True, 1]), ["coins[0]"]),
    # format and fields
    ("wrong format", setter("format", value="mercado-position/2"), ["format"]),
    ("unknown top-level field", setter("colour", value="blue"), ["colour"]),
    ("redrawn not a boolean", setter("redrawn_this_turn", value="no"), ["redrawn_this_turn"]),
    ("refreshed not a boolean", setter("refreshed_this_turn", value=1), ["refreshed_this_turn"]),
    ("refreshed in phase main", setter("refreshed_this_turn", value=True), ["refreshed_this_turn"]),
    # per-player arrays
    ("coins too short", setter("coins", value=[1]), ["coins"]),
    ("wooden stands too long", setter("wooden_stands", value=[8, 8, 8]), ["wooden_stands"]),
    ("stand hands too long", setter("stand_hands", value=[[], [], []]), ["stand_hands"]),
    ("restaurant hands too short", setter("restaurant_hands", value=[[]]), ["restaurant_hands"]),
    ("arrays for two, options for three", players_3_arrays, ["coins"]),
    # options
    ("five players", setter("options", "players", value=5), ["players"]),
    ("one player", setter("options", "players", value=1), ["players"]),
    ("players as text", setter("options", "players", value="2"), ["players"]),
    ("secret money", setter("options", "money", value="secret"), ["money"]),
    (
        "face-down option not a boolean",
        setter("options", "face_down_counts_as_available", value=1),
        ["face_down"],
    ),
    ("unknown option", setter("options", "speed", value="fast"), ["speed"]),
    ("options not an object", setter("options", value=[2]), ["options"]),
    # customer tiles
    (
        "entrance wants one good twice",
        setter("entrances", "top-c", "goods", value=["fish", "fish"]),
        ["top-c"],
    ),
    ("entrance wants one good", setter("entrances", "top-c", "goods", value=["fish"]), ["top-c"]),
    (
        "entrance wants three goods",
        setter("entrances", "top-c", "goods", value=["fish", "meat", "grapes"]),
        ["top-c"],
    ),
    ("display tile wants one good twice", setter("display", "3", 0, value=["meat", "meat"]), ["display.3"]),
    ("deck tile wants one good twice", setter("decks", "1", 0, value=["fish", "fish"]), ["decks.1"]),
    ("entrance level 0", setter("entrances", "top-c", "level", value=0), ["top-c", "level"]),
    ("entrance level 5", setter("entrances", "top-c", "level", value=5), ["top-c", "level"]),
    ("display level 5", setter("display", "5", value=[["fish", "meat"]]), ["display", "5"]),
    ("deck level 0", setter("decks", "0", value=[]), ["decks", "0"]),
    # progress
    ("take_offer with empty offer", lambda d: d.update(phase="take_offer", offer=[]), ["take_offer"]),
    ("final turns in playing position", setter("final_turns_left", value=1), ["final_turns_left"]),
    ("final round without final turns", final_round_without_turns, ["final_turns_left"]),
    ("final round with too many final turns", final_round_too_many_turns, ["final_turns_left"]),
    ("result in playing position", setter("result", value={"scores": [1, 1]}), ["result"]),
    ("finished in take_offer phase", finished_in_take_offer, ["phase"]),
]


@pytest.mark.parametrize(("mutate", "names"), [pytest.param(m, n, id=i) for i, m, n in INVALID])
def test_invalid_position_is_rejected_naming_the_field(mutate: Mutation, names: list[str]) -> None:
    data = example()
    mutate(data)
    with pytest.raises(InvalidPosition) as caught:
        position.from_json(data)
    reason = caught.value.reason
    assert str(caught.value) == reason
    assert "\n" not in reason
    for name in names:
        assert name in reason, f"{reason!r} does not name {name!r}"


@pytest.mark.parametrize("field", REQUIRED_FIELDS)
def test_missing_required_field_is_rejected(field: str) -> None:
    data = example()
    del data[field]
    with pytest.raises(InvalidPosition, match=field):
        position.from_json(data)


@pytest.mark.parametrize("data", [[], "position", 3, None])
def test_position_that_is_not_an_object_is_rejected(data: Any) -> None:
    with pytest.raises(InvalidPosition, match="position"):
        position.from_json(data)


def test_invalid_position_error_is_a_rules_error() -> None:
    assert issubclass(InvalidPosition, RulesError)
    assert issubclass(InvalidPosition, ValueError)


# --- actions ---------------------------------------------------------------------------


def test_example_actions_parse_and_write_back() -> None:
    for data in EXAMPLE_ACTIONS:
        action = action_from_json(data)
        assert action.to_json() == data
        assert action.type == data["type"]


def test_all_actions_have_stable_unique_ids() -> None:
    assert len(ALL_ACTIONS) == N_ACTIONS
    assert [a.id for a in ALL_ACTIONS] == list(range(N_ACTIONS))
    assert all(action_by_id(a.id) is a for a in ALL_ACTIONS)
    assert len({str(a) for a in ALL_ACTIONS}) == N_ACTIONS
    with pytest.raises(InvalidAction):
        action_by_id(N_ACTIONS)
    with pytest.raises(InvalidAction):
        action_by_id(-1)


def test_str_round_trips_through_parse_action_for_every_action() -> None:
    for action in ALL_ACTIONS:
        assert parse_action(str(action)) is action, str(action)


def test_to_json_round_trips_through_action_from_json_for_every_action() -> None:
    for action in ALL_ACTIONS:
        data = action.to_json()
        assert action_from_json(data) is action, data
        assert action_from_json(json.loads(json.dumps(data))) is action
        assert data["type"] == action.type


def test_customer_goods_may_come_in_any_order() -> None:
    forward = action_from_json(
        {"type": "bring_customer", "level": 1, "goods": ["fish", "meat"], "entrance": "left-2"}
    )
    backward = action_from_json(
        {"type": "bring_customer", "level": 1, "goods": ["meat", "fish"], "entrance": "left-2"}
    )
    assert forward is backward
    assert backward.to_json()["goods"] == ["fish", "meat"]


INVALID_ACTIONS: list[tuple[str, Any]] = [
    ("not an object", ["take_coin"]),
    ("text", "take_coin"),
    ("no type", {"good": "fish"}),
    ("unknown type", {"type": "steal"}),
    ("type not text", {"type": 3}),
    ("type is a list", {"type": ["take_coin"]}),
    ("extra field on take_coin", {"type": "take_coin", "good": "fish"}),
    ("extra field on open_stand", {"type": "open_stand", "good": "fish", "square": "c3", "owner": 0}),
    ("missing square", {"type": "open_stand", "good": "fish"}),
    ("missing good", {"type": "take_offer"}),
    ("unknown good", {"type": "take_offer", "good": "bread"}),
    ("good not text", {"type": "take_offer", "good": ["fish"]}),
    ("unknown square", {"type": "open_stand", "good": "fish", "square": "f6"}),
    ("unknown restaurant", {"type": "open_restaurant", "restaurant": "cafe", "square": "c3"}),
    (
        "unknown entrance",
        {"type": "bring_customer", "level": 1, "goods": ["fish", "meat"], "entrance": "top-f"},
    ),
    ("level 0", {"type": "bring_customer", "level": 0, "goods": ["fish", "meat"], "entrance": "top-a"}),
    ("level 5", {"type": "bring_customer", "level": 5, "goods": ["fish", "meat"], "entrance": "top-a"}),
    ("level text", {"type": "bring_customer", "level": "1", "goods": ["fish", "meat"], "entrance": "top-a"}),
    (
        "level boolean",
        {"type": "bring_customer", "level": True, "goods": ["fish", "meat"], "entrance": "top-a"},
    ),
    (
        "same good twice",
        {"type": "bring_customer", "level": 1, "goods": ["fish", "fish"], "entrance": "top-a"},
    ),
    ("one good", {"type": "bring_customer", "level": 1, "goods": ["fish"], "entrance": "top-a"}),
    ("goods not a list", {"type": "bring_customer", "level": 1, "goods": "fish+meat", "entrance": "top-a"}),
    (
        "unknown customer good",
        {"type": "bring_customer", "level": 1, "goods": ["fish", "x"], "entrance": "top-a"},
    ),
    (
        "customer good a list",
        {"type": "bring_customer", "level": 1, "goods": [["fish"], "meat"], "entrance": "top-a"},
    ),
    ("missing entrance", {"type": "bring_customer", "level": 1, "goods": ["fish", "meat"]}),
]


@pytest.mark.parametrize("data", [pytest.param(d, id=i) for i, d in INVALID_ACTIONS])
def test_malformed_action_json_is_rejected(data: Any) -> None:
    with pytest.raises(InvalidAction) as caught:
        action_from_json(data)
    assert caught.value.reason and "\n" not in caught.value.reason


@pytest.mark.parametrize(
    "text",
    [
        "",
        "steal",
        "take_coin now",
        "take_offer",
        "take_offer fish meat",
        "open_stand fish",
        "open_stand fish z9",
        "open_restaurant cafe c3",
        "bring_customer one fish+meat top-a",
        "bring_customer 1 fish top-a",
        "bring_customer 1 fish+fish top-a",
        "bring_customer 1 fish+meat",
    ],
)
def test_malformed_action_text_is_rejected(text: str) -> None:
    with pytest.raises(InvalidAction):
        parse_action(text)
