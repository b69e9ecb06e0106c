"""RULES.md, "A turn": the hand redraw, taking from the offer (and its refresh), taking a coin,
and the handling of illegal actions."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from positions import (
    act,
    assert_illegal,
    customer,
    filled_market,
    keys,
    legal_keys,
    load,
    make_position,
    play,
    stand,
    tile_counts,
)

from server.games.mercado import ALL_ACTIONS, apply, legal_actions, position, why_illegal

# --- the hand redraw -----------------------------------------------------------


def redraw_position(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "stand_hands": [["fish", "fish", "fish"], ["meat", "grapes"]],
        "bag": ["meat", "tomatoes", "grapes", "flowers"],
        "wooden_stands": [0, 8],
    }
    base.update(overrides)
    return base


def test_redraw_is_legal_with_three_identical_and_three_in_bag() -> None:
    state = load(**redraw_position(bag=["meat", "tomatoes", "grapes"]))
    assert legal_keys(state) == [*keys(act("redraw_hand")), *keys(act("take_coin"))]


@pytest.mark.parametrize(
    "overrides,reason",
    [
        ({"bag": ["meat", "tomatoes"]}, "the bag holds fewer than 3 tiles"),
        ({"stand_hands": [["fish", "fish", "meat"], []]}, "not three identical"),
        ({"stand_hands": [["fish", "fish"], []]}, "not three identical"),
        ({"stand_hands": [[], []]}, "not three identical"),
        ({"redrawn_this_turn": True}, "already redrawn"),
    ],
    ids=["bag of 2", "two identical", "two tiles", "empty hand", "already redrawn"],
)
def test_redraw_is_illegal_otherwise(overrides: dict[str, Any], reason: str) -> None:
    state = load(**redraw_position(**overrides))
    assert_illegal(state, act("redraw_hand"), reason)


def test_redraw_draws_three_and_returns_the_old_tiles_to_the_bag() -> None:
    state = load(**redraw_position(consecutive_coins=1, rng=99))
    counts = tile_counts(state)
    events = apply(state, act("redraw_hand"))
    data = position.to_json(state)
    assert data["stand_hands"][0] == ["meat", "tomatoes", "grapes"]
    assert Counter(data["bag"]) == Counter(["flowers", "fish", "fish", "fish"])
    assert tile_counts(state) == counts
    assert events == [
        {
            "type": "hand_redrawn",
            "player": 0,
            "returned": ["fish", "fish", "fish"],
            "drawn": ["meat", "tomatoes", "grapes"],
        }
    ]
    # the turn goes on: same player, main phase, coin run untouched
    assert (data["current_player"], data["phase"], data["redrawn_this_turn"]) == (0, "main", True)
    assert data["consecutive_coins"] == 1
    assert data["status"] == "playing"


def test_redraw_at_most_once_per_turn() -> None:
    state = load(**redraw_position(bag=["meat", "meat", "meat", "fish"]))
    apply(state, act("redraw_hand"))
    assert position.to_json(state)["stand_hands"][0] == ["meat", "meat", "meat"]
    assert_illegal(state, act("redraw_hand"), "already redrawn your hand this turn")


def test_redraw_flag_resets_for_the_next_turn() -> None:
    state = load(
        **redraw_position(
            stand_hands=[["fish", "fish", "fish"], ["meat", "meat", "meat"]],
            bag=["grapes", "tomatoes", "flowers", "grapes", "tomatoes", "flowers"],
        )
    )
    play(state, act("redraw_hand"), act("take_coin"))
    assert (state.current_player, state.redrawn) == (1, False)
    assert act("redraw_hand") in legal_actions(state)


def test_redraw_then_the_turn_action() -> None:
    state = load(**redraw_position(wooden_stands=[8, 8], coins=[1, 1]))
    play(state, act("redraw_hand"), act("open_stand", good="tomatoes", square="a1"))
    data = position.to_json(state)
    assert data["market"] == {"a1": {"stand": "tomatoes", "owner": 0}}
    assert data["stand_hands"][0] == ["meat", "grapes"]
    assert (data["current_player"], data["phase"]) == (0, "take_offer")


def test_redraw_does_not_break_a_coin_run() -> None:
    # 2 players: the fourth coin in a row ends the game, a redraw in between notwithstanding.
    state = load(**redraw_position(consecutive_coins=3))
    play(state, act("redraw_hand"), act("take_coin"))
    assert position.to_json(state)["status"] == "finished"


def test_redraw_not_during_take_offer() -> None:
    state = load(**redraw_position(phase="take_offer"))
    assert_illegal(state, act("redraw_hand"), "first take a tile from the stand offer")


# --- taking from the offer -----------------------------------------------------


def after_opening(**overrides: Any) -> dict[str, Any]:
    """Seat 0 has just opened a stand and must take from the offer."""
    base: dict[str, Any] = {
        "phase": "take_offer",
        "market": {"b2": stand("fish", 0)},
        "stand_hands": [["meat", "grapes"], ["flowers"]],
        "wooden_stands": [7, 8],
        "offer": ["meat", "grapes", "fish"],
        "bag": ["tomatoes", "flowers"],
    }
    base.update(overrides)
    return base


def test_opening_a_stand_leads_to_take_offer() -> None:
    state = load(coins=[1, 1], offer=["meat", "fish", "meat"])
    apply(state, act("open_stand", good="fish", square="b2"))
    assert (state.current_player, position.to_json(state)["phase"]) == (0, "take_offer")
    assert legal_keys(state) == [*keys(act("take_offer", good="fish")), *keys(act("take_offer", good="meat"))]


def test_take_offer_refills_from_the_bag_front_and_ends_the_turn() -> None:
    state = load(**after_opening())
    events = apply(state, act("take_offer", good="grapes"))
    data = position.to_json(state)
    assert Counter(data["stand_hands"][0]) == Counter(["meat", "grapes", "grapes"])
    assert Counter(data["offer"]) == Counter(["meat", "fish", "tomatoes"])
    assert data["bag"] == ["flowers"]
    assert (data["current_player"], data["phase"]) == (1, "main")
    assert {"type": "offer_taken", "player": 0, "good": "grapes"} in events
    assert {"type": "offer_refilled", "good": "tomatoes"} in events


def test_take_offer_with_empty_bag_shrinks_the_offer() -> None:
    state = load(**after_opening(bag=[]))
    apply(state, act("take_offer", good="fish"))
    data = position.to_json(state)
    assert Counter(data["offer"]) == Counter(["meat", "grapes"])
    assert Counter(data["stand_hands"][0]) == Counter(["meat", "grapes", "fish"])
    assert data["current_player"] == 1


def test_empty_offer_ends_the_turn_at_once_with_nothing_taken() -> None:
    state = load(coins=[1, 1], offer=[], bag=["meat"], stand_hands=[["fish", "meat"], ["grapes"]])
    events = apply(state, act("open_stand", good="fish", square="b2"))
    data = position.to_json(state)
    assert data["stand_hands"][0] == ["meat"]
    assert data["bag"] == ["meat"]
    assert (data["current_player"], data["phase"]) == (1, "main")
    assert not [e for e in events if e["type"].startswith("offer")]


def test_take_offer_of_a_good_not_offered_is_illegal() -> None:
    state = load(**after_opening())
    assert_illegal(state, act("take_offer", good="flowers"), "the stand offer has no flowers")


def test_take_offer_only_after_opening_a_stand() -> None:
    state = load()
    assert_illegal(state, act("take_offer", good="meat"), "only after opening a stand")


@pytest.mark.parametrize(
    "action",
    [
        act("take_coin"),
        act("open_stand", good="meat", square="a1"),
        act("open_restaurant", restaurant="pub", square="a1"),
        act("bring_customer", level=1, goods=["fish", "meat"], entrance="top-b"),
    ],
    ids=str,
)
def test_no_other_action_during_take_offer(action: Any) -> None:
    state = load(
        **after_opening(coins=[5, 5], restaurant_hands=[["pub"], []], display={"1": [["fish", "meat"]]})
    )
    assert_illegal(state, action, "you must first take a tile from the stand offer")


def test_identical_offer_tiles_give_one_take_action() -> None:
    state = load(**after_opening(offer=["grapes", "grapes", "meat"]))
    assert legal_keys(state) == [
        *keys(act("take_offer", good="meat")),
        *keys(act("take_offer", good="grapes")),
    ]


# --- the offer refresh ---------------------------------------------------------


def test_refresh_is_offered_when_the_offer_is_three_identical() -> None:
    state = load(**after_opening(offer=["fish", "fish", "fish"], bag=["meat", "grapes", "meat"]))
    assert legal_keys(state) == [*keys(act("refresh_offer")), *keys(act("take_offer", good="fish"))]


def test_refresh_replaces_the_offer_from_the_bag_then_one_is_taken() -> None:
    state = load(
        **after_opening(offer=["fish", "fish", "fish"], bag=["meat", "grapes", "tomatoes", "flowers"], rng=7)
    )
    counts = tile_counts(state)
    events = apply(state, act("refresh_offer"))
    data = position.to_json(state)
    assert data["offer"] == ["meat", "grapes", "tomatoes"]
    assert Counter(data["bag"]) == Counter(["flowers", "fish", "fish", "fish"])
    assert tile_counts(state) == counts
    assert (data["current_player"], data["phase"]) == (0, "take_offer")
    assert events == [
        {
            "type": "offer_refreshed",
            "returned": ["fish", "fish", "fish"],
            "drawn": ["meat", "grapes", "tomatoes"],
        }
    ]
    assert act("take_coin") not in legal_actions(state)
    apply(state, act("take_offer", good="tomatoes"))
    assert (state.current_player, position.to_json(state)["phase"]) == (1, "main")
    assert tile_counts(state) == counts


def test_refresh_is_optional() -> None:
    state = load(**after_opening(offer=["fish", "fish", "fish"], bag=["meat", "grapes", "meat"]))
    apply(state, act("take_offer", good="fish"))
    assert Counter(position.to_json(state)["offer"]) == Counter(["fish", "fish", "meat"])


@pytest.mark.parametrize(
    "offer,bag,reason",
    [
        (["fish", "fish", "fish"], ["meat", "grapes"], "the bag holds fewer than 3 tiles"),
        (["fish", "fish", "meat"], ["meat", "grapes", "tomatoes"], "not three identical"),
        (["fish", "fish"], ["meat", "grapes", "tomatoes"], "not three identical"),
    ],
)
def test_refresh_is_illegal_otherwise(offer: list[str], bag: list[str], reason: str) -> None:
    state = load(**after_opening(offer=offer, bag=bag))
    assert_illegal(state, act("refresh_offer"), reason)


def test_refresh_only_when_taking_from_the_offer() -> None:
    state = load(offer=["fish", "fish", "fish"], bag=["meat", "grapes", "tomatoes"])
    assert_illegal(state, act("refresh_offer"), "only after opening a stand")


def test_the_offer_is_refreshed_once_a_turn() -> None:
    # Three flowers offered and three grapes in the bag: refreshing again and again would swap them for
    # ever, so after one refresh a tile is taken (docs/rules.md).
    state = load(**after_opening(offer=["flowers"] * 3, bag=["grapes"] * 3))
    apply(state, act("refresh_offer"))
    data = position.to_json(state)
    assert (data["offer"], data["bag"]) == (["grapes"] * 3, ["flowers"] * 3)
    assert data["refreshed_this_turn"] is True
    assert legal_keys(state) == [*keys(act("take_offer", good="grapes"))]
    assert_illegal(state, act("refresh_offer"), "already refreshed the stand offer this turn")
    apply(state, act("take_offer", good="grapes"))
    assert (state.current_player, "refreshed_this_turn" in position.to_json(state)) == (1, False)


def test_a_position_after_a_refresh_keeps_it() -> None:
    state = load(**after_opening(offer=["fish"] * 3, bag=["meat"] * 3, refreshed_this_turn=True))
    data = position.to_json(state)
    assert data["refreshed_this_turn"] is True
    assert legal_keys(position.from_json(data)) == [*keys(act("take_offer", good="fish"))]


# --- take a coin ---------------------------------------------------------------


def test_take_coin_gains_one_coin_and_ends_the_turn() -> None:
    state = load(coins=[4, 2], consecutive_coins=1)
    events = apply(state, act("take_coin"))
    data = position.to_json(state)
    assert data["coins"] == [5, 2]
    assert data["consecutive_coins"] == 2
    assert (data["current_player"], data["phase"], data["status"]) == (1, "main", "playing")
    assert events == [{"type": "coin_taken", "player": 0}]


def test_take_coin_is_the_only_action_when_nothing_else_is_possible() -> None:
    state = load(stand_hands=[[], []], coins=[0, 0])
    assert legal_keys(state) == [*keys(act("take_coin"))]


@pytest.mark.parametrize(
    "overrides",
    [
        {"coins": [0, 0]},
        {"coins": [50, 0], "restaurant_hands": [["pub"], []]},
        {"status": "final_round", "final_turns_left": 1},
        {"stand_hands": [["fish", "fish", "fish"], []], "market": filled_market(set())},
    ],
    ids=["no coins", "rich", "final round", "full market"],
)
def test_take_coin_is_always_legal_in_main_phase(overrides: dict[str, Any]) -> None:
    state = load(**overrides)
    assert act("take_coin") in legal_actions(state)
    assert why_illegal(state, act("take_coin")) is None


# --- illegal actions -----------------------------------------------------------


def test_finished_game_has_no_legal_action() -> None:
    state = load(status="finished", coins=[3, 2])
    assert legal_actions(state) == []
    assert_illegal(state, act("take_coin"), "the game is over")


RICH_POSITIONS = {
    "main": make_position(
        coins=[2, 1],
        stand_hands=[["fish", "fish", "fish"], ["meat"]],
        restaurant_hands=[["pub", "pizzeria"], []],
        market={
            "c1": stand("fish", 0),
            "c2": stand("meat", 1),
            "a3": stand("grapes", 1),
            "b3": stand("flowers", 0),
            "d3": {"restaurant": "sushi_bar"},
            "e3": {"face_down": "tea_house"},
        },
        entrances={"top-c": customer(1, "fish", "meat"), "left-3": customer(2, "fish", "grapes")},
        display={
            "1": [["fish", "meat"], ["fish", "meat"]],
            "2": [["flowers", "grapes"]],
            "3": [["fish", "meat"]],
        },
        bag=["meat", "grapes", "tomatoes"],
    ),
    "take_offer": make_position(
        **after_opening(offer=["fish", "fish", "fish"], bag=["meat", "grapes", "meat"])
    ),
}


@pytest.mark.parametrize("data", RICH_POSITIONS.values(), ids=RICH_POSITIONS.keys())
def test_every_action_is_legal_exactly_when_listed(data: dict[str, Any]) -> None:
    state = position.from_json(data)
    listed = legal_actions(state)
    assert len(listed) == len(set(listed))
    for action in ALL_ACTIONS:
        reason = why_illegal(state, action)
        assert (reason is None) == (action in listed), str(action)


@pytest.mark.parametrize("data", RICH_POSITIONS.values(), ids=RICH_POSITIONS.keys())
def test_every_illegal_action_raises_and_leaves_the_state_unchanged(data: dict[str, Any]) -> None:
    state = position.from_json(data)
    listed = set(legal_actions(state))
    illegal = [a for a in ALL_ACTIONS if a not in listed]
    assert illegal
    for action in illegal:
        assert_illegal(state, action)  # which checks the state is unchanged
