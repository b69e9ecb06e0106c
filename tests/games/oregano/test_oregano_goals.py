"""RULES.md "Strategy cards" and "Bonus cards"."""

from __future__ import annotations

import pytest
from test_oregano_support import SKIP, acting, of_type, play, position, types

from server.games.oregano import RULES, InvalidAction
from server.games.oregano import actions as A
from server.games.oregano.components import STRATEGIES


def _achieved(events: list[dict[str, object]]) -> bool:
    return bool(of_type(events, "strategy_achieved"))


# chain_store: build two shops of the same kind (attract, not acquire).
def test_chain_store_two_builds_of_one_kind() -> None:
    state = acting(
        "attract",
        second="attract",
        options={"same_action_twice": True},
        strategies=["chain_store", "aggressive_merger"],
        resources=[{"wood": 2}, {}],
    )
    assert not _achieved(play(state, 0, A.build("cafe", "1a")))
    assert _achieved(play(state, 0, A.build("cafe", "1b")))


def test_chain_store_not_two_kinds_nor_acquisitions() -> None:
    state = acting(
        "attract",
        second="attract",
        options={"same_action_twice": True},
        strategies=["chain_store", "aggressive_merger"],
        resources=[{"wood": 1, "stone": 1}, {}],
    )
    play(state, 0, A.build("cafe", "1a"))
    assert not _achieved(play(state, 0, A.build("general_store", "1b")))
    state = acting(
        "acquire",
        strategies=["chain_store", "aggressive_merger"],
        records=[{"built": ["cafe"]}, {}],
        boulevard=[("cafe", 1, 1)],
    )
    assert not _achieved(play(state, 0, A.acquire("cafe", 1, 1, "1a")))


# strategic_retreat: sell twice.
def test_strategic_retreat_two_sales() -> None:
    state = acting(
        "sell",
        strategies=["strategic_retreat", "aggressive_merger"],
        records=[{"sold": 1}, {}],
        areas=[{"1a": "cafe"}, {}],
    )
    assert _achieved(play(state, 0, A.sell("1a")))


# aggressive_merger: acquire twice.
def test_aggressive_merger_two_acquisitions() -> None:
    state = acting(
        "acquire",
        strategies=["aggressive_merger", "chain_store"],
        records=[{"acquired": 1}, {}],
        boulevard=[("cafe", 1, 1)],
    )
    assert _achieved(play(state, 0, A.acquire("cafe", 1, 1, "1a")))


# step_by_step: level up two different shops; the same shop again does not count.
def test_step_by_step_needs_two_different_shops() -> None:
    state = acting(
        "attract",
        second="attract",
        options={"same_action_twice": True},
        strategies=["step_by_step", "aggressive_merger"],
        areas=[{"1a": "cafe", "1b": "builder", "1c": "cafe"}, {}],
        resources=[{"wood": 3}, {}],
        gold=[20, 0],
    )
    assert not _achieved(play(state, 0, A.level_up("1a", "2a")))
    assert not _achieved(play(state, 0, A.level_up("2a", "3a")))
    assert state.records[0]["levelled"] == [0, 0]
    state = acting(
        "attract",
        strategies=["step_by_step", "aggressive_merger"],
        areas=[{"1a": "cafe", "1b": "builder", "1c": "cafe"}, {}],
        records=[{"levelled": [0]}, {}],
        resources=[{"wood": 3}, {}],
        gold=[20, 0],
    )
    assert _achieved(play(state, 0, A.level_up("1c", "2c")))


# step_by_step: a shop keeps its identity when sold and acquired.
def test_shop_identity_survives_sale_and_acquisition() -> None:
    state = acting(
        "sell", areas=[{}, {"2a": "cafe"}], current=1, strategies=["aggressive_merger", "chain_store"]
    )
    ident = state.areas[1]["2a"].id
    play(state, 1, A.sell("2a"))
    assert state.boulevard[0].id == ident


# savvy_shopper: two different resources from other players' shops; own shops do not count.
def test_savvy_shopper_two_resources_from_others() -> None:
    state = acting(
        "resource",
        second="resource",
        options={"same_action_twice": True},
        strategies=["savvy_shopper", "aggressive_merger"],
        areas=[{"1a": "stone_merchant"}, {"1a": "lumber_merchant", "1b": "lumber_merchant"}],
        gold=[10, 0],
    )
    assert not _achieved(play(state, 0, A.take_resources(1, "1a")))
    assert not _achieved(play(state, 0, A.take_resources(1, "1b")))  # wood again
    state = acting(
        "resource",
        second="resource",
        options={"same_action_twice": True},
        strategies=["savvy_shopper", "aggressive_merger"],
        records=[{"taken": ["wood"]}, {}],
        areas=[{"1a": "stone_merchant"}, {"1a": "stone_merchant"}],
        gold=[10, 0],
    )
    assert not _achieved(play(state, 0, A.take_resources(0, "1a")))  # own shop
    assert _achieved(play(state, 0, A.take_resources(1, "1a")))


# Decision: goals count only from the moment the card was taken.
def test_goal_counts_from_taking_the_card() -> None:
    state = acting(
        "sell",
        strategies=["strategic_retreat", "aggressive_merger"],
        records=[{"sold": 1}, {}],
        areas=[{"1a": "cafe", "1b": "cafe"}, {}],
        rng=3,
    )
    play(state, 0, A.sell("1a"))
    kept = state.drawn[0][0]
    play(state, 0, A.keep_strategy(kept))
    assert state.records[0] == {"built": [], "sold": 0, "acquired": 0, "levelled": [], "taken": []}


# Achievement: +5, the card shown and returned, shuffle, draw 2, keep one, the turn goes on.
def test_achievement_pays_shows_draws_and_continues() -> None:
    state = acting(
        "sell",
        strategies=["strategic_retreat", "aggressive_merger"],
        records=[{"sold": 1}, {}],
        areas=[{"1a": "cafe"}, {}],
        gold=[0, 0],
    )
    events = play(state, 0, A.sell("1a"))
    assert types(events) == ["sold", "strategy_achieved", "bonus_taken", "deck_shuffled", "strategy_drawn"]
    assert of_type(events, "strategy_achieved")[0]["card"] == "strategic_retreat"
    assert state.gold[0] == 1 + 5 and state.strategies[0] is None
    assert state.phase == "keep_strategy" and len(state.drawn[0]) == 2
    assert len(state.strategy_deck) == 10 - 1 - 2
    card = state.drawn[0][1]
    events = play(state, 0, A.keep_strategy(card))
    assert types(events) == ["strategy_kept", "deck_shuffled"]
    assert state.strategies[0] == card and len(state.strategy_deck) == 8
    assert state.phase == "action" and state.step == 1 and state.declared == ["sell", "attract"]


def test_achievement_on_the_last_action_ends_the_turn_after_keeping() -> None:
    state = acting(
        "attract",
        second="sell",
        step=1,
        strategies=["strategic_retreat", "aggressive_merger"],
        records=[{"sold": 1}, {}],
        areas=[{"1a": "cafe"}, {}],
    )
    state.declared = ["attract", "sell"]
    play(state, 0, A.sell("1a"))
    events = play(state, 0, A.keep_strategy(state.drawn[0][0]))
    assert state.current == 1 and "income" in types(events)


# Option strategy_draw = 3 also on achievement.
def test_achievement_draws_three_with_the_option() -> None:
    state = acting(
        "sell",
        strategies=["strategic_retreat", "aggressive_merger"],
        options={"strategy_draw": 3},
        records=[{"sold": 1}, {}],
        areas=[{"1a": "cafe"}, {}],
    )
    play(state, 0, A.sell("1a"))
    assert len(state.drawn[0]) == 3


# Decision: a card cannot be discarded.
def test_no_discard() -> None:
    with pytest.raises(InvalidAction):
        RULES.action_from_json({"type": "discard_strategy"})
    state = position()
    assert {a.type for a in RULES.legal_actions(state, 0)} == {"declare"}
    assert len(STRATEGIES) == 5


# Bonus cards: first_level4, by level-up (Decision)...
def test_first_level4_by_level_up() -> None:
    state = acting(
        "attract", areas=[{"3a": "cafe", "1b": "builder"}, {}], resources=[{"wood": 1}, {}], gold=[7, 0]
    )
    events = play(state, 0, A.level_up("3a", "4a"))
    assert of_type(events, "bonus_taken") == [{"type": "bonus_taken", "seat": 0, "bonus": "first_level4"}]
    assert state.bonuses[0] == ["first_level4"] and "first_level4" not in state.bonus_available


# ... or by acquisition (Decision).
def test_first_level4_by_acquisition() -> None:
    state = acting("acquire", boulevard=[("cafe", 4, 1)], gold=[8, 0])
    play(state, 0, A.acquire("cafe", 4, 1, "4b"))
    assert state.bonuses[0] == ["first_level4"]


# first_strategy: achieve a strategy card (checked after the achievement).
def test_first_strategy() -> None:
    state = acting(
        "sell",
        strategies=["strategic_retreat", "aggressive_merger"],
        records=[{"sold": 1}, {}],
        areas=[{"1a": "cafe"}, {}],
    )
    play(state, 0, A.sell("1a"))
    assert state.bonuses[0] == ["first_strategy"]


# first_diagonal: 1a 2b 3c 4d or 1d 2c 3b 4a; Decision: shops of any kinds.
@pytest.mark.parametrize(("cells", "last"), [(["1a", "2b", "3c"], "4d"), (["1d", "2c", "4a"], "3b")])
def test_first_diagonal(cells: list[str], last: str) -> None:
    level = int(last[0])
    state = acting(
        "acquire",
        areas=[dict.fromkeys(cells, "cafe"), {}],
        boulevard=[("general_store", level, 1)],
        gold=[20, 0],
        bonuses=[[], ["first_level4"]],
    )
    play(state, 0, A.acquire("general_store", level, 1, last))
    assert state.bonuses[0] == ["first_diagonal"]


# first_column: all four cells of one column.
def test_first_column() -> None:
    state = acting(
        "attract",
        areas=[{"1a": "cafe", "1b": "restaurant", "1c": "lumber_merchant"}, {}],
        resources=[{"wood": 1}, {}],
    )
    play(state, 0, A.build("cafe", "1d"))
    assert state.bonuses[0] == ["first_column"]


# first_row: all four cells of one row; several bonus cards may be taken at once.
def test_first_row_and_several_at_once() -> None:
    state = acting(
        "acquire",
        areas=[{"1d": "cafe", "2d": "cafe", "3d": "cafe", "1a": "cafe", "2b": "cafe", "3c": "cafe"}, {}],
        boulevard=[("cafe", 4, 1)],
        gold=[8, 0],
    )
    events = play(state, 0, A.acquire("cafe", 4, 1, "4d"))
    assert [e["bonus"] for e in of_type(events, "bonus_taken")] == [
        "first_level4",
        "first_diagonal",
        "first_row",
    ]


# The first player to meet a condition takes the card and keeps it when the condition stops holding.
def test_bonus_kept_and_only_for_the_first() -> None:
    state = position(areas=[{"4a": "cafe", "1a": "cafe"}, {"4a": "cafe"}], bonuses=[["first_level4"], []])
    play(state, 0, A.declare("sell", "attract"))
    play(state, 0, A.sell("4a"))
    assert state.bonuses[0] == ["first_level4"]
    play(state, 0, SKIP)
    play(state, 1, A.declare("sell", "attract"))
    play(state, 1, A.sell("4a"))
    assert state.bonuses[1] == []
