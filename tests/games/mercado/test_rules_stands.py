"""RULES.md, "1. Open a stand" and "Earning money": cost, place-then-pay, income, stand value."""

from __future__ import annotations

from typing import Any

import pytest
from positions import (
    GOODS,
    act,
    assert_illegal,
    customer,
    filled_market,
    is_legal,
    keys,
    legal_keys,
    legal_of_type,
    load,
    play,
    stand,
    stands,
)

from server.games.mercado import apply, position, stand_cost, stand_income, stand_value
from server.games.mercado.geometry import GOOD_INDEX, SQUARE_INDEX

# --- cost ----------------------------------------------------------------------

COST_CASES = {
    # name: (market, cost of a stand on c3)
    "empty lines": ({}, 1),
    "3 in the column, 2 in the row": (
        {**stands(0, "fish", "c1", "c5"), **stands(1, "meat", "c2", "a3", "e3")},
        4,
    ),
    "4 in the row, 2 in the column": (
        {**stands(0, "grapes", "a3", "b3"), **stands(1, "grapes", "d3", "e3", "c1", "c5")},
        5,
    ),
    "only the other player's stands": (stands(1, "meat", "c1", "c2", "a3"), 3),
    "restaurants do not count": (
        {
            "c2": {"restaurant": "pub"},
            "c4": {"restaurant": "sushi_bar"},
            "b3": {"face_down": "pizzeria"},
            "d3": {"face_down": "wine_bar"},
            "e3": {"restaurant": "tea_house"},
            "c1": stand("fish", 1),
        },
        2,
    ),
    "stands elsewhere do not count": (stands(1, "fish", "a1", "b2", "d4", "e5", "b4"), 1),
}


@pytest.mark.parametrize("market,cost", COST_CASES.values(), ids=COST_CASES.keys())
def test_stand_cost_is_one_plus_larger_line_count(market: dict[str, Any], cost: int) -> None:
    state = load(market=market, coins=[cost, 0])
    assert stand_cost(state, SQUARE_INDEX["c3"]) == cost
    events = apply(state, act("open_stand", good="fish", square="c3"))
    assert state.coins == [0, 0]
    assert {"type": "stand_opened", "player": 0, "good": "fish", "square": "c3", "cost": cost} in events


@pytest.mark.parametrize("market,cost", COST_CASES.values(), ids=COST_CASES.keys())
def test_stand_one_coin_short_of_cost_is_illegal(market: dict[str, Any], cost: int) -> None:
    state = load(market=market, coins=[cost - 1, 0])
    assert_illegal(state, act("open_stand", good="fish", square="c3"), f"costs {cost}")


# --- place, then pay -----------------------------------------------------------


def place_then_pay_position(coins: int) -> dict[str, Any]:
    # Row 3 holds 2 stands, so c3 costs 3; a level 2 fish customer waits at left-3.
    return {
        "coins": [coins, 0],
        "market": stands(1, "meat", "a3", "b3"),
        "entrances": {"left-3": customer(2, "fish", "meat")},
    }


def test_place_then_pay_income_covers_the_shortfall() -> None:
    state = load(**place_then_pay_position(coins=1))
    action = act("open_stand", good="fish", square="c3")
    assert is_legal(state, action)
    events = apply(state, action)
    assert state.coins == [0, 0]  # 1 + 2 - 3
    assert {"type": "income", "player": 0, "amount": 2} in events


def test_place_then_pay_one_short_is_illegal() -> None:
    state = load(**place_then_pay_position(coins=0))
    assert_illegal(state, act("open_stand", good="fish", square="c3"), "costs 3", "have 0", "earn 2")


def test_place_then_pay_income_is_that_of_the_good_placed() -> None:
    # Flowers earn nothing from the fish+meat customer: 1 coin cannot pay 3.
    state = load(**place_then_pay_position(coins=1))
    assert_illegal(state, act("open_stand", good="flowers", square="c3"), "costs 3")
    assert is_legal(state, act("open_stand", good="fish", square="c3"))


def test_coins_after_opening_are_coins_plus_income_minus_cost() -> None:
    state = load(
        coins=[5, 2],
        market=stands(1, "meat", "a3", "b3"),
        entrances={"left-3": customer(3, "fish", "meat"), "top-c": customer(4, "fish", "flowers")},
    )
    apply(state, act("open_stand", good="fish", square="c3"))
    assert state.coins == [5 + 7 - 3, 2]


def test_legal_open_stand_squares_follow_place_then_pay() -> None:
    # Only c3 and e3 are open. Both cost 5 (four stands in their column), but a waiting
    # fish customer at bottom-e (column e, not c3's lines) pays 4 on e3. With 1 coin only
    # fish on e3 is legal.
    market = filled_market({"c3", "e3"})
    state = load(
        coins=[1, 0],
        market=market,
        stand_hands=[["fish", "meat"], []],
        entrances={"bottom-e": customer(4, "fish", "flowers")},
    )
    assert stand_cost(state, SQUARE_INDEX["c3"]) == 5
    assert stand_cost(state, SQUARE_INDEX["e3"]) == 5
    assert legal_of_type(state, "open_stand") == keys(act("open_stand", good="fish", square="e3"))


# --- income when opening -------------------------------------------------------

OPENING_ENTRANCES = {
    "top-c": customer(2, "fish", "meat"),  # wants fish: 2
    "bottom-c": customer(1, "flowers", "grapes"),  # does not want fish
    "left-3": customer(3, "fish", "grapes"),  # wants fish: 3
    "right-3": customer(1, "fish", "tomatoes"),  # wants fish: 1
    "top-b": customer(4, "fish", "flowers"),  # another line
    "left-2": customer(3, "fish", "meat"),  # another line
}


def test_opening_income_counts_wanting_customers_at_the_four_entrances() -> None:
    state = load(coins=[0, 3], market={"b3": stand("fish", 1)}, entrances=OPENING_ENTRANCES)
    assert stand_income(state, GOOD_INDEX["fish"], SQUARE_INDEX["c3"]) == 6
    events = apply(state, act("open_stand", good="fish", square="c3"))
    # cost 2 (b3 in the row); only the opener is paid, not the owner of b3
    assert state.coins == [0 + 6 - 2, 3]
    assert [e for e in events if e["type"] == "income"] == [{"type": "income", "player": 0, "amount": 6}]


def test_opening_income_is_multiplied_by_the_stand_value() -> None:
    market = {"c2": {"restaurant": "sushi_bar"}, "d3": {"restaurant": "tea_house"}}
    state = load(coins=[0, 0], market=market, entrances=OPENING_ENTRANCES)
    apply(state, act("open_stand", good="fish", square="c3"))
    assert state.coins == [0 + 6 * 2 - 1, 0]


def test_opening_income_only_from_entrances_wanting_the_good() -> None:
    state = load(coins=[0, 0], entrances=OPENING_ENTRANCES)
    apply(state, act("open_stand", good="flowers", square="c3"))
    assert state.coins == [0 + 1 - 1, 0]  # only bottom-c wants flowers


def test_opening_with_no_wanting_customer_earns_nothing() -> None:
    # Customers wait at three of c3's entrances, none of them wanting tomatoes.
    entrances = {e: OPENING_ENTRANCES[e] for e in ("top-c", "bottom-c", "left-3", "top-b")}
    state = load(coins=[2, 0], entrances=entrances)
    assert stand_income(state, GOOD_INDEX["tomatoes"], SQUARE_INDEX["c3"]) == 0
    events = apply(state, act("open_stand", good="tomatoes", square="c3"))
    assert state.coins == [1, 0]
    assert not [e for e in events if e["type"] == "income"]


# --- stand value ---------------------------------------------------------------

VALUE_CASES = {
    # name: (restaurant squares around the fish stand on c3, value)
    "no restaurant": ({}, 1),
    "improving above": ({"c2": {"restaurant": "sushi_bar"}}, 2),
    "improving below": ({"c4": {"restaurant": "sushi_bar"}}, 2),
    "improving left": ({"b3": {"restaurant": "sushi_bar"}}, 2),
    "pub right": ({"d3": {"restaurant": "pub"}}, 2),
    "diagonal improving ignored": ({"b2": {"restaurant": "sushi_bar"}, "d4": {"restaurant": "pub"}}, 1),
    "two squares away ignored": ({"c1": {"restaurant": "sushi_bar"}, "c5": {"restaurant": "pub"}}, 1),
    "face-down ignored": ({"c2": {"face_down": "sushi_bar"}, "c4": {"face_down": "pub"}}, 1),
    "other good ignored": ({"c2": {"restaurant": "tea_house"}, "c4": {"restaurant": "wine_bar"}}, 1),
    "two improving": ({"c2": {"restaurant": "sushi_bar"}, "c4": {"restaurant": "sushi_bar"}}, 3),
    "improving and pub": ({"c2": {"restaurant": "sushi_bar"}, "d3": {"restaurant": "pub"}}, 3),
    "four improving": (
        {
            "c2": {"restaurant": "sushi_bar"},
            "c4": {"restaurant": "pub"},
            "b3": {"restaurant": "sushi_bar"},
            "d3": {"restaurant": "pub"},
        },
        5,
    ),
}


@pytest.mark.parametrize("restaurants,value", VALUE_CASES.values(), ids=VALUE_CASES.keys())
def test_stand_value_from_orthogonal_face_up_improving_restaurants(
    restaurants: dict[str, Any], value: int
) -> None:
    # Row 3 holds 3 stands; a level 3 fish+meat customer at left-3 pays the fish stand 3 x value.
    market = {**restaurants, "c3": stand("fish", 0), **stands(1, "flowers", "a3", "e3")}
    state = load(coins=[0, 0], market=market, display={"3": [["fish", "meat"]]})
    assert stand_value(state, GOOD_INDEX["fish"], SQUARE_INDEX["c3"]) == value
    apply(state, act("bring_customer", level=3, goods=["fish", "meat"], entrance="left-3"))
    assert state.coins == [3 * value, 0]


@pytest.mark.parametrize("good", GOODS)
def test_pub_improves_every_good(good: str) -> None:
    pair = ["fish", "flowers"] if good == "fish" else ["fish", good]
    state = load(
        coins=[0, 0],
        stand_hands=[[good], []],
        market={"c2": {"restaurant": "pub"}},
        entrances={"left-3": customer(2, *pair)},
    )
    assert stand_value(state, GOOD_INDEX[good], SQUARE_INDEX["c3"]) == 2
    apply(state, act("open_stand", good=good, square="c3"))
    assert state.coins == [2 * 2 - 1, 0]


@pytest.mark.parametrize(
    "kind,good",
    [
        ("sushi_bar", "fish"),
        ("tea_house", "flowers"),
        ("pizzeria", "tomatoes"),
        ("burger_bar", "meat"),
        ("wine_bar", "grapes"),
    ],
)
def test_each_restaurant_improves_its_own_good_only(kind: str, good: str) -> None:
    state = load(market={"c2": {"restaurant": kind}})
    for other in GOODS:
        expected = 2 if other == good else 1
        assert stand_value(state, GOOD_INDEX[other], SQUARE_INDEX["c3"]) == expected, other


# --- the tile, the wooden stand, the square -----------------------------------


def test_opening_a_stand_moves_tile_and_wooden_stand_to_the_market() -> None:
    state = load(coins=[3, 1], stand_hands=[["fish", "fish", "meat"], ["grapes"]], consecutive_coins=1)
    apply(state, act("open_stand", good="fish", square="b2"))
    data = position.to_json(state)
    assert data["stand_hands"] == [["fish", "meat"], ["grapes"]]
    assert data["wooden_stands"] == [7, 8]
    assert data["market"] == {"b2": {"stand": "fish", "owner": 0}}
    assert data["coins"] == [2, 1]
    assert data["consecutive_coins"] == 0
    # the turn continues with taking from the offer
    assert (data["current_player"], data["phase"]) == (0, "take_offer")


def test_opening_on_a_face_down_restaurant_takes_it_face_up() -> None:
    state = load(
        coins=[1, 1],
        market={"c3": {"face_down": "pizzeria"}, "c2": {"face_down": "sushi_bar"}},
        restaurant_hands=[["pub"], []],
    )
    events = apply(state, act("open_stand", good="fish", square="c3"))
    data = position.to_json(state)
    assert data["restaurant_hands"] == [["pub", "pizzeria"], []]
    assert data["market"] == {"c3": {"stand": "fish", "owner": 0}, "c2": {"face_down": "sushi_bar"}}
    assert data["coins"] == [0, 1]  # the face-down tile is not a stand: cost 1
    assert {"type": "restaurant_taken", "player": 0, "square": "c3", "restaurant": "pizzeria"} in events


@pytest.mark.parametrize(
    "occupant,reason",
    [
        ({"stand": "meat", "owner": 1}, "already holds a stand"),
        ({"stand": "fish", "owner": 0}, "already holds a stand"),
        ({"restaurant": "pizzeria"}, "already holds a face-up restaurant"),
    ],
)
def test_cannot_open_a_stand_on_a_stand_or_face_up_restaurant(occupant: dict[str, Any], reason: str) -> None:
    state = load(coins=[9, 9], market={"c3": occupant})
    assert_illegal(state, act("open_stand", good="fish", square="c3"), "c3", reason)


def test_no_wooden_stand_left_cannot_open_a_stand() -> None:
    state = load(coins=[9, 9], wooden_stands=[0, 8])
    assert_illegal(state, act("open_stand", good="fish", square="a1"), "no wooden stand")
    assert legal_keys(state) == [*keys(act("take_coin"))]


def test_last_wooden_stand_can_be_used() -> None:
    state = load(coins=[9, 9], wooden_stands=[1, 8])
    apply(state, act("open_stand", good="fish", square="a1"))
    assert state.wooden_stands == [0, 8]


def test_empty_hand_cannot_open_a_stand() -> None:
    state = load(coins=[9, 9], stand_hands=[[], ["fish"]])
    assert_illegal(state, act("open_stand", good="fish", square="a1"), "no fish tile")
    assert legal_keys(state) == [*keys(act("take_coin"))]


def test_cannot_open_a_good_not_in_hand() -> None:
    state = load(coins=[9, 9], stand_hands=[["fish", "meat"], ["grapes"]])
    assert_illegal(state, act("open_stand", good="grapes", square="a1"), "no grapes tile")


def test_identical_hand_tiles_give_one_action_per_good_and_square() -> None:
    state = load(
        coins=[9, 0],
        stand_hands=[["fish", "fish", "meat"], []],
        market=filled_market({"a1", "e5"}),
    )
    expected = keys(
        act("open_stand", good="fish", square="a1"),
        act("open_stand", good="fish", square="e5"),
        act("open_stand", good="meat", square="a1"),
        act("open_stand", good="meat", square="e5"),
        act("take_coin"),
    )
    listed = legal_keys(state)
    assert len(listed) == len(set(listed))
    assert set(listed) == expected


def test_open_stand_then_take_offer_completes_the_turn() -> None:
    state = load(coins=[3, 1])
    play(state, act("open_stand", good="fish", square="b2"), act("take_offer", good="meat"))
    assert (state.current_player, position.to_json(state)["phase"]) == (1, "main")
