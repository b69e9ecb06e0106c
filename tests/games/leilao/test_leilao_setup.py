"""RULES.md "Components", "Setup" and "Options": the data, the options, set-up from a seed."""

from __future__ import annotations

from collections import Counter

import pytest
from leilao_helpers import game

from server.games.interface import GameRules
from server.games.leilao import RULES, InvalidOptions, Leilao, LeilaoAction, LeilaoState
from server.games.leilao.components import CARD_NAMES, COLOURS, N_MARKET_CARDS
from server.games.leilao.state import BID


def test_rules_object_is_the_leilao_game() -> None:
    rules: GameRules[LeilaoState, LeilaoAction] = RULES
    assert isinstance(rules, Leilao)
    assert (rules.name, rules.min_players, rules.max_players) == ("leilao", 2, 4)


# Components (Assumed): 4 colours, each one card of every number 1-20, named colour-number.
def test_80_unique_market_cards_four_colours_of_1_to_20() -> None:
    assert N_MARKET_CARDS == 80 == len(set(CARD_NAMES))
    assert COLOURS == ("red", "blue", "green", "yellow")
    assert Counter(name.split("-")[0] for name in CARD_NAMES) == {c: 20 for c in COLOURS}
    assert "red-17" in CARD_NAMES and "yellow-1" in CARD_NAMES and "blue-20" in CARD_NAMES


# Setup 2: each player takes a bid hand 1-20.
@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_player_starts_with_a_hand_of_1_to_20(players: int) -> None:
    state = RULES.new_game(RULES.options({"players": players}), 3)
    assert state.hands == [list(range(1, 21))] * players
    assert state.played == [[]] * players and state.stalls == [[]] * players


# Setup 1 (Decision: the cards set aside are the market deck) and A round, 1. Deal.
@pytest.mark.parametrize("players", [2, 3, 4])
def test_round_1_deals_2n_stalls_from_a_shuffled_deck_of_all_80(players: int) -> None:
    state = RULES.new_game(RULES.options({"players": players}), 11)
    assert len(state.display) == 2 * players
    assert len(state.deck) == 80 - 2 * players
    assert sorted(state.deck + state.display) == list(range(80))
    assert state.deck + state.display != list(range(80))
    assert state.phase == BID and state.round == 1


def test_the_same_seed_gives_the_same_game_and_other_seeds_other_decks() -> None:
    options = RULES.options({"players": 3})
    first = RULES.new_game(options, 42)
    assert RULES.position_to_json(first) == RULES.position_to_json(RULES.new_game(options, 42))
    decks = {tuple(RULES.new_game(options, seed).deck) for seed in range(20)}
    assert len(decks) == 20


# Setup 3: a random start player, stored in the state.
def test_start_player_is_drawn_from_the_seed() -> None:
    starts = {RULES.new_game(RULES.options({"players": 4}), seed).start_player for seed in range(40)}
    assert starts == {0, 1, 2, 3}


# Setup 3, Decision: the start player's only use is the priority order, from it upwards, wrapping.
def test_priority_order_runs_from_the_start_player_wrapping_round() -> None:
    assert game(4, start=2).priority_order() == [2, 3, 0, 1]
    assert game(3, start=0).priority_order() == [0, 1, 2]
    assert RULES.view(game(3, start=1), None)["priority_order"] == [1, 2, 0]


# Options: defaults, values, unknown names.
def test_options_fill_in_the_defaults() -> None:
    assert RULES.options({"players": 3}) == {
        "players": 3,
        "card_penalty": "face",
        "set_bonus": "per_set",
        "leftover_stalls": "cycle",
    }


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"players": 1},
        {"players": 5},
        {"players": True},
        {"players": "2"},
        {"players": 2.0},
        {"players": 2, "card_penalty": "two"},
        {"players": 2, "set_bonus": "never"},
        {"players": 2, "leftover_stalls": "keep"},
        {"players": 2, "money": "hidden"},
    ],
)
def test_bad_options_are_refused_with_a_reason(data: dict[str, object]) -> None:
    with pytest.raises(InvalidOptions) as error:
        RULES.options(data)
    assert isinstance(error.value, ValueError) and "\n" not in str(error.value)


def test_a_non_integer_seed_is_refused() -> None:
    with pytest.raises(ValueError):
        RULES.new_game(RULES.options({"players": 2}), "7")  # type: ignore[arg-type]
