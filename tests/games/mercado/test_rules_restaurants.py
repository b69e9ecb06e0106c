"""RULES.md, "3. Open a restaurant", with its Decision on face-down squares."""

from __future__ import annotations

from typing import Any

import pytest
from positions import (
    act,
    assert_illegal,
    customer,
    filled_market,
    keys,
    legal_keys,
    legal_of_type,
    load,
    stand,
)

from server.games.mercado import apply, position


def test_open_restaurant_on_an_empty_square_gains_one_coin() -> None:
    state = load(coins=[3, 3], restaurant_hands=[["pub", "pizzeria"], ["sushi_bar"]], consecutive_coins=1)
    events = apply(state, act("open_restaurant", restaurant="pub", square="b2"))
    data = position.to_json(state)
    assert data["coins"] == [4, 3]
    assert data["restaurant_hands"] == [["pizzeria"], ["sushi_bar"]]
    assert data["market"] == {"b2": {"restaurant": "pub"}}
    assert (data["current_player"], data["phase"], data["consecutive_coins"]) == (1, "main", 0)
    assert not [e for e in events if e["type"] == "income"]


def test_open_restaurant_on_a_face_down_square_takes_that_one_into_hand() -> None:
    # Decision (BGA pages): the face-down restaurant goes to the placer's hand, face up.
    state = load(
        coins=[0, 0],
        restaurant_hands=[["pub"], []],
        market={"c3": {"face_down": "pizzeria"}},
    )
    events = apply(state, act("open_restaurant", restaurant="pub", square="c3"))
    data = position.to_json(state)
    assert data["market"] == {"c3": {"restaurant": "pub"}}
    assert data["restaurant_hands"] == [["pizzeria"], []]
    assert data["coins"] == [1, 0]
    assert {"type": "restaurant_taken", "player": 0, "square": "c3", "restaurant": "pizzeria"} in events


def test_face_down_square_is_a_legal_restaurant_target() -> None:
    market = filled_market({"a1", "e5"}, a1={"face_down": "wine_bar"})
    state = load(restaurant_hands=[["tea_house"], []], market=market)
    assert legal_of_type(state, "open_restaurant") == keys(
        act("open_restaurant", restaurant="tea_house", square="a1"),
        act("open_restaurant", restaurant="tea_house", square="e5"),
    )


@pytest.mark.parametrize(
    "occupant,reason",
    [
        ({"stand": "fish", "owner": 0}, "c3 already holds a stand"),
        ({"stand": "fish", "owner": 1}, "c3 already holds a stand"),
        ({"restaurant": "wine_bar"}, "c3 already holds a face-up restaurant"),
    ],
)
def test_open_restaurant_not_on_a_stand_or_face_up_restaurant(occupant: dict[str, Any], reason: str) -> None:
    state = load(restaurant_hands=[["pub"], []], market={"c3": occupant})
    assert_illegal(state, act("open_restaurant", restaurant="pub", square="c3"), reason)


def test_open_restaurant_needs_that_restaurant_in_hand() -> None:
    state = load(restaurant_hands=[["pub"], ["pizzeria"]])
    assert_illegal(
        state,
        act("open_restaurant", restaurant="pizzeria", square="c3"),
        "no pizzeria in your restaurant hand",
    )


def test_no_restaurant_in_hand_gives_no_restaurant_action() -> None:
    state = load(restaurant_hands=[[], ["pub"]], wooden_stands=[0, 8])
    assert legal_keys(state) == [*keys(act("take_coin"))]


def test_restaurant_changes_no_income_already_paid_but_improves_later_income() -> None:
    # c3 fish (seat 1) has already been paid by the customer at top-c.
    market = {"c3": stand("fish", 1), "c1": stand("meat", 0), "c5": stand("grapes", 1)}
    state = load(
        coins=[2, 7],
        restaurant_hands=[["sushi_bar"], []],
        market=market,
        entrances={"top-c": customer(3, "fish", "meat")},
        display={"3": [["fish", "grapes"]]},
    )
    events = apply(state, act("open_restaurant", restaurant="sushi_bar", square="c2"))
    assert state.coins == [3, 7]
    assert not [e for e in events if e["type"] == "income"]
    # Seat 1's next customer for c3 pays the improved value: level 3 x (1 + sushi bar) = 6.
    assert state.current_player == 1
    apply(state, act("bring_customer", level=3, goods=["fish", "grapes"], entrance="bottom-c"))
    assert state.coins == [3, 7 + 6 + 3]  # c3 fish 3x2, c5 grapes 3x1


def test_identical_restaurant_tiles_give_one_action_each() -> None:
    state = load(
        restaurant_hands=[["pizzeria", "pub", "pizzeria"], []],
        market=filled_market({"b2", "d4"}),
        wooden_stands=[0, 8],
    )
    expected = keys(
        act("open_restaurant", restaurant="pizzeria", square="b2"),
        act("open_restaurant", restaurant="pizzeria", square="d4"),
        act("open_restaurant", restaurant="pub", square="b2"),
        act("open_restaurant", restaurant="pub", square="d4"),
        act("take_coin"),
    )
    listed = legal_keys(state)
    assert len(listed) == len(expected)
    assert set(listed) == expected


def test_opening_a_second_identical_restaurant_keeps_the_other() -> None:
    state = load(restaurant_hands=[["pizzeria", "pizzeria"], []])
    apply(state, act("open_restaurant", restaurant="pizzeria", square="a1"))
    assert position.to_json(state)["restaurant_hands"] == [["pizzeria"], []]
