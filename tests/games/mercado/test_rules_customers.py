"""RULES.md, "2. Bring customers": the two conditions, income to every owner, display refill."""

from __future__ import annotations

from typing import Any

import pytest
from positions import (
    act,
    assert_illegal,
    customer,
    is_legal,
    keys,
    legal_keys,
    legal_of_type,
    load,
    stand,
    stands,
)

from server.games.mercado import apply, position


def bring(level: int, goods: list[str], entrance: str) -> Any:
    return act("bring_customer", level=level, goods=goods, entrance=entrance)


# Column c: c1 fish (seat 0), c2 meat (seat 1), c4 flowers (seat 1), c5 fish (seat 1, value 2
# from the pub on d5). b2 fish and d4 meat (seat 1) and b1 fish (seat 0) are in other lines.
PAYING_MARKET = {
    "c1": stand("fish", 0),
    "c2": stand("meat", 1),
    "c4": stand("flowers", 1),
    "c5": stand("fish", 1),
    "d5": {"restaurant": "pub"},
    "b2": stand("fish", 1),
    "d4": stand("meat", 1),
    "b1": stand("fish", 0),
}


@pytest.mark.parametrize("entrance", ["top-c", "bottom-c"])
def test_customer_pays_every_wanting_stand_in_the_line_to_its_owner(entrance: str) -> None:
    state = load(coins=[2, 5], market=PAYING_MARKET, display={"3": [["fish", "meat"]]})
    events = apply(state, bring(3, ["fish", "meat"], entrance))
    # seat 0: c1 fish 3x1 = 3; seat 1: c2 meat 3x1 + c5 fish 3x2 = 9 (on seat 0's turn)
    assert state.coins == [5, 14]
    incomes = [e for e in events if e["type"] == "income"]
    assert incomes == [
        {"type": "income", "player": 0, "amount": 3},
        {"type": "income", "player": 1, "amount": 9},
    ]


def test_customer_in_a_row_pays_the_row_only() -> None:
    # Row 1 holds b1 fish and c1 fish (seat 0): a level 2 fish+grapes tile at right-1 pays 2 + 2.
    state = load(coins=[0, 0], market=PAYING_MARKET, display={"2": [["fish", "grapes"]]})
    apply(state, bring(2, ["fish", "grapes"], "right-1"))
    assert state.coins == [4, 0]


def test_customer_is_placed_at_the_entrance_and_leaves_the_display() -> None:
    state = load(market=PAYING_MARKET, display={"3": [["fish", "meat"], ["flowers", "grapes"]]})
    events = apply(state, bring(3, ["fish", "meat"], "top-c"))
    data = position.to_json(state)
    assert data["entrances"] == {"top-c": {"level": 3, "goods": ["fish", "meat"]}}
    assert data["display"]["3"] == [["flowers", "grapes"]]
    assert {
        "type": "customer_brought",
        "player": 0,
        "level": 3,
        "goods": ["fish", "meat"],
        "entrance": "top-c",
    } in events
    assert (data["current_player"], data["phase"], data["consecutive_coins"]) == (1, "main", 0)


def test_customer_that_wants_no_stand_of_a_player_pays_that_player_nothing() -> None:
    market = {"c1": stand("fish", 0), "c2": stand("tomatoes", 1), "c3": stand("grapes", 1)}
    state = load(coins=[0, 0], market=market, display={"1": [["fish", "meat"]]})
    apply(state, bring(1, ["fish", "meat"], "top-c"))
    assert state.coins == [1, 0]


# --- condition 1: stands in the line >= level ---------------------------------


def two_stand_column() -> dict[str, Any]:
    return {
        "market": {"c1": stand("fish", 0), "c2": stand("meat", 1)},
        "display": {"2": [["fish", "meat"]], "3": [["fish", "meat"]]},
        "wooden_stands": [0, 0],
    }


def test_level_equal_to_stands_in_line_is_legal() -> None:
    state = load(**two_stand_column())
    assert is_legal(state, bring(2, ["fish", "meat"], "top-c"))
    assert legal_of_type(state, "bring_customer") == keys(
        bring(2, ["fish", "meat"], "top-c"), bring(2, ["fish", "meat"], "bottom-c")
    )


def test_level_above_stands_in_line_is_illegal() -> None:
    state = load(**two_stand_column())
    assert_illegal(state, bring(3, ["fish", "meat"], "top-c"), "column c has 2 stands", "fewer than 3")


def test_level_1_in_a_line_with_one_stand() -> None:
    state = load(
        market={"a4": stand("grapes", 0)}, display={"1": [["meat", "grapes"]], "2": [["meat", "grapes"]]}
    )
    assert legal_of_type(state, "bring_customer") == keys(
        bring(1, ["meat", "grapes"], "left-4"),
        bring(1, ["meat", "grapes"], "right-4"),
        bring(1, ["meat", "grapes"], "top-a"),
        bring(1, ["meat", "grapes"], "bottom-a"),
    )
    assert_illegal(state, bring(2, ["meat", "grapes"], "left-4"), "row 4 has 1 stands")


def test_level_4_needs_four_stands() -> None:
    market = {**stands(0, "fish", "a2", "b2", "c2"), **stands(1, "fish", "e2")}
    state = load(market=market, display={"4": [["fish", "flowers"]]})
    assert is_legal(state, bring(4, ["fish", "flowers"], "left-2"))
    del market["e2"]
    state = load(market=market, display={"4": [["fish", "flowers"]]})
    assert_illegal(state, bring(4, ["fish", "flowers"], "left-2"), "row 2 has 3 stands")


# --- condition 2: you own a stand of a wanted good in the line ----------------


@pytest.mark.parametrize("own_good", ["fish", "meat"])
def test_own_stand_of_either_wanted_good_allows_the_customer(own_good: str) -> None:
    market = {"c1": stand(own_good, 0), "c2": stand("grapes", 1)}
    state = load(market=market, display={"2": [["fish", "meat"]]})
    assert is_legal(state, bring(2, ["fish", "meat"], "top-c"))


def test_own_stand_of_another_good_in_the_line_does_not_allow_it() -> None:
    market = {"c1": stand("flowers", 0), "c2": stand("meat", 1), "c3": stand("fish", 1)}
    state = load(market=market, display={"1": [["fish", "meat"]]})
    assert_illegal(state, bring(1, ["fish", "meat"], "top-c"), "you own no fish or meat stand in column c")


def test_only_opponent_owning_the_wanted_good_does_not_allow_it() -> None:
    market = {"c1": stand("fish", 1), "c2": stand("meat", 1)}
    state = load(market=market, display={"1": [["fish", "meat"]]})
    assert_illegal(state, bring(1, ["fish", "meat"], "bottom-c"), "you own no fish or meat stand")
    assert legal_of_type(state, "bring_customer") == set()


def test_own_wanted_stand_in_another_line_does_not_allow_it() -> None:
    # b3 fish is seat 0's, but in row 3 and column b; column c holds only seat 1's stands.
    market = {"b3": stand("fish", 0), "c1": stand("fish", 1), "c2": stand("meat", 1)}
    state = load(market=market, display={"1": [["fish", "meat"]]})
    assert_illegal(state, bring(1, ["fish", "meat"], "top-c"), "column c")
    assert is_legal(state, bring(1, ["fish", "meat"], "left-3"))


def test_the_current_player_is_the_one_who_must_own_the_stand() -> None:
    market = {"c1": stand("fish", 1)}
    state = load(market=market, display={"1": [["fish", "meat"]]}, current_player=1, coins=[0, 0])
    apply(state, bring(1, ["fish", "meat"], "top-c"))
    assert state.coins == [0, 1]


# --- the entrance and the display ----------------------------------------------


def test_occupied_entrance_is_refused() -> None:
    market = {"c1": stand("fish", 0)}
    state = load(
        market=market,
        entrances={"top-c": customer(1, "flowers", "grapes")},
        display={"1": [["fish", "meat"]]},
        wooden_stands=[0, 0],
    )
    assert_illegal(state, bring(1, ["fish", "meat"], "top-c"), "top-c already has customers")
    assert legal_of_type(state, "bring_customer") == keys(
        bring(1, ["fish", "meat"], "bottom-c"),
        bring(1, ["fish", "meat"], "left-1"),
        bring(1, ["fish", "meat"], "right-1"),
    )


def test_tile_not_in_display_is_refused() -> None:
    state = load(
        market={"c1": stand("fish", 0)}, display={"1": [["fish", "meat"]], "2": [["fish", "grapes"]]}
    )
    assert_illegal(state, bring(1, ["fish", "grapes"], "top-c"), "no level 1 fish+grapes")


def test_display_is_refilled_from_that_level_deck() -> None:
    level_1 = [["fish", "flowers"], ["tomatoes", "grapes"], ["flowers", "meat"]]
    state = load(
        market={"c1": stand("fish", 0), "c2": stand("meat", 0)},
        display={"1": level_1, "2": [["fish", "meat"], ["flowers", "grapes"], ["tomatoes", "meat"]]},
        decks={"1": [["fish", "tomatoes"]], "2": [["fish", "grapes"], ["meat", "grapes"]]},
    )
    events = apply(state, bring(2, ["fish", "meat"], "top-c"))
    data = position.to_json(state)
    assert sorted(data["display"]["2"]) == sorted(
        [["flowers", "grapes"], ["tomatoes", "meat"], ["fish", "grapes"]]
    )
    assert data["decks"]["2"] == [["meat", "grapes"]]
    assert data["display"]["1"] == level_1
    assert data["decks"]["1"] == [["fish", "tomatoes"]]
    assert {"type": "display_refilled", "level": 2, "goods": ["fish", "grapes"]} in events


def test_display_refills_up_to_three_when_it_was_short() -> None:
    state = load(
        market={"c1": stand("fish", 0)},
        display={"1": [["fish", "meat"], ["flowers", "grapes"]]},
        decks={"1": [["fish", "grapes"], ["meat", "grapes"], ["fish", "tomatoes"]]},
    )
    apply(state, bring(1, ["fish", "meat"], "top-c"))
    data = position.to_json(state)
    assert sorted(data["display"]["1"]) == sorted(
        [["flowers", "grapes"], ["fish", "grapes"], ["meat", "grapes"]]
    )
    assert data["decks"]["1"] == [["fish", "tomatoes"]]


def test_display_shrinks_when_the_deck_is_empty() -> None:
    state = load(market={"c1": stand("fish", 0)}, display={"1": [["fish", "meat"], ["flowers", "grapes"]]})
    apply(state, bring(1, ["fish", "meat"], "top-c"))
    data = position.to_json(state)
    assert data["display"]["1"] == [["flowers", "grapes"]]
    assert data["decks"]["1"] == []


def test_identical_display_tiles_give_one_action_each() -> None:
    state = load(
        market={"a1": stand("fish", 0)},
        display={"1": [["fish", "meat"], ["fish", "meat"], ["fish", "flowers"]]},
        wooden_stands=[0, 0],
    )
    entrances = ["top-a", "bottom-a", "left-1", "right-1"]
    expected = {
        *keys(*(bring(1, ["fish", "meat"], e) for e in entrances)),
        *keys(*(bring(1, ["fish", "flowers"], e) for e in entrances)),
        *keys(act("take_coin")),
    }
    listed = legal_keys(state)
    assert len(listed) == len(expected)
    assert set(listed) == expected
