"""RULES.md "Components", "Setup" and "Options": the component data, options and set-up."""

from __future__ import annotations

import pytest
from test_oregano_support import of_type, play, through_setup, types

from server.games.oregano import RULES, IllegalAction, InvalidOptions
from server.games.oregano import actions as A
from server.games.oregano import components as C


# Components: 2-4 players (Assumed).
@pytest.mark.parametrize("players", [1, 5, "2", True])
def test_players_must_be_two_to_four(players: object) -> None:
    with pytest.raises(InvalidOptions, match="players"):
        RULES.options({"players": players})


def test_players_is_required_and_unknown_options_refused() -> None:
    with pytest.raises(ValueError, match="players"):
        RULES.options({})
    with pytest.raises(ValueError, match="unknown option 'colour'"):
        RULES.options({"players": 2, "colour": "red"})


# Options: every default of the table.
def test_options_defaults() -> None:
    assert RULES.options({"players": 3}) == {
        "players": 3,
        "special_limit": "one_total",
        "same_action_twice": False,
        "strategy_draw": 2,
        "strategy_cards": "hidden",
        "end_timing": "round",
        "stock_end_from_round": 12,
        "round_limit": 20,
    }


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("special_limit", "two"),
        ("same_action_twice", 1),
        ("strategy_draw", 4),
        ("strategy_cards", "secret"),
        ("end_timing", "game"),
        ("stock_end_from_round", 0),
        ("stock_end_from_round", 31),
        ("round_limit", 0),
        ("round_limit", 2**32 - 1),
    ],
)
def test_options_bad_values_refused(name: str, value: object) -> None:
    with pytest.raises(InvalidOptions, match=name):
        RULES.options({"players": 2, name: value})


def test_rules_object_identity() -> None:
    assert (RULES.name, RULES.min_players, RULES.max_players) == ("oregano", 2, 4)


# Components: the area is a 4x4 grid named level then row.
def test_area_cells_are_level_then_row() -> None:
    assert C.CELLS[:5] == ("1a", "1b", "1c", "1d", "2a")
    assert len(C.CELLS) == 16


# Components: shop stock; casino and builder as many as players; 96 tokens with four of each.
@pytest.mark.parametrize("players", [2, 3, 4])
def test_stock_at_start(players: int) -> None:
    state = RULES.new_game(RULES.options({"players": players}), 1)
    assert state.stock["casino"] == state.stock["builder"] == players
    assert state.stock["cafe"] == 22 and state.stock["restaurant"] == 12
    assert state.stock["fountain"] == state.stock["jeweler"] == 2
    assert sum(C.stock_of(k, 4) for k in C.SHOP_IDS) == C.SOURCE_SHOP_TOKENS == 96


# Components: 18 of each resource; 10 strategy cards (two of five kinds); 5 bonus cards.
def test_cards_at_start() -> None:
    state = RULES.new_game(RULES.options({"players": 2}), 3)
    assert state.supply == {"wood": 18, "stone": 18, "metal": 18}
    assert sorted(state.strategy_deck) == sorted(C.STRATEGIES * 2)
    assert state.bonus_available == list(C.BONUSES)


# Decision: 69 itemised cards, not the source's 71.
def test_card_count_is_the_itemised_69() -> None:
    assert C.CARD_COUNT == 69 and C.SOURCE_CARD_COUNT == 71


# Setup 1: 5 gold each; the first player is random (from the seed), then increasing seats.
def test_first_player_is_random_and_deterministic() -> None:
    firsts = {RULES.new_game(RULES.options({"players": 4}), seed).first_player for seed in range(40)}
    assert firsts == {0, 1, 2, 3}
    a = RULES.new_game(RULES.options({"players": 3}), 11)
    b = RULES.new_game(RULES.options({"players": 3}), 11)
    assert RULES.position_to_json(a) == RULES.position_to_json(b)
    assert a.gold == [5, 5, 5]
    assert RULES.to_move(a) == {a.first_player}


def _seed_with_first(players: int, first: int) -> int:
    return next(
        s for s in range(100) if RULES.new_game(RULES.options({"players": players}), s).first_player == first
    )


# Setup 2: each chooses a merchant in stock and a column-1 cell, in seat order from the first.
def test_start_shop_in_turn_order() -> None:
    state = RULES.new_game(RULES.options({"players": 3}), _seed_with_first(3, 2))
    assert state.phase == "start_shop" and RULES.to_move(state) == {2}
    play(state, 2, A.choose_start_shop("stone_merchant", "1c"))
    assert RULES.to_move(state) == {0}
    assert state.areas[2]["1c"].kind == "stone_merchant" and state.stock["stone_merchant"] == 3


def test_start_shop_only_merchants_in_column_1() -> None:
    state = RULES.new_game(RULES.options({"players": 2}), _seed_with_first(2, 0))
    legal = RULES.legal_actions(state, 0)
    assert len(legal) == 3 * 4
    assert {a.shop for a in legal} == set(C.MERCHANTS)
    for bad, reason in [
        (A.choose_start_shop("cafe", "1a"), "not a resource shop"),
        (A.choose_start_shop("lumber_merchant", "2a"), "column 1"),
    ]:
        with pytest.raises(IllegalAction, match=reason):
            play(state, 0, bad)


# Setup 2: with 4 players a merchant kind can run out.
def test_start_shop_kind_can_run_out_with_four() -> None:
    state = RULES.new_game(RULES.options({"players": 4}), _seed_with_first(4, 0))
    for seat in range(3):
        play(state, seat, A.choose_start_shop("metal_merchant", "1a"))
    play(state, 3, A.choose_start_shop("metal_merchant", "1b"))
    assert state.stock["metal_merchant"] == 0
    assert state.phase == "keep_strategy"


# Setup 3: draw 2, keep one, put the other back and shuffle, in the same order.
def test_strategy_draw_keep_and_put_back() -> None:
    state = RULES.new_game(RULES.options({"players": 2}), _seed_with_first(2, 1))
    play(state, 1, A.choose_start_shop("stone_merchant", "1a"))
    events = play(state, 0, A.choose_start_shop("metal_merchant", "1a"))
    drawn = of_type(events, "strategy_drawn")[0]
    assert drawn["seat"] == 1 and len(drawn["cards"]) == 2
    assert len(state.strategy_deck) == 8 and state.drawn[1] == drawn["cards"]
    keep = drawn["cards"][0]
    events = play(state, 1, A.keep_strategy(keep))
    assert types(events)[:3] == ["strategy_kept", "deck_shuffled", "strategy_drawn"]
    assert state.strategies[1] == keep and len(state.strategy_deck) == 7
    assert RULES.to_move(state) == {0}


# Option strategy_draw = 3.
def test_strategy_draw_three() -> None:
    state = RULES.new_game(RULES.options({"players": 2, "strategy_draw": 3}), 4)
    for _ in range(2):
        (seat,) = RULES.to_move(state)
        play(state, seat, RULES.legal_actions(state, seat)[0])
    assert len(state.drawn[state.current]) == 3


def test_keep_only_a_drawn_card() -> None:
    state = RULES.new_game(RULES.options({"players": 2}), 4)
    for _ in range(2):
        (seat,) = RULES.to_move(state)
        play(state, seat, RULES.legal_actions(state, seat)[0])
    (seat,) = RULES.to_move(state)
    missing = next(c for c in C.STRATEGIES if c not in state.drawn[seat])
    with pytest.raises(IllegalAction, match="not among the cards you drew"):
        play(state, seat, A.keep_strategy(missing))


# Setup 4: bonus cards face up, nobody holds resource cards; round 1 starts with the first player.
def test_after_setup_round_one_begins() -> None:
    state = through_setup(3, 5)
    assert state.round == 1 and state.phase == "declare"
    assert state.current == state.first_player
    assert all(card is not None for card in state.strategies)
    assert all(sum(r.values()) == 0 for r in state.resources)
    assert len(state.strategy_deck) == 10 - 3
    assert state.bonus_available == list(C.BONUSES)
