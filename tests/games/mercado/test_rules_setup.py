"""RULES.md, "Components" and "Setup": what ``new_game`` deals."""

from __future__ import annotations

from collections import Counter

import pytest
from positions import LEVEL_4_PAIRS, PAIRS, RESTAURANT_TILES, STAND_TILES, tile_counts

from server.games.mercado import Options, legal_actions, new_game, position

SEEDS = range(40)
RESTAURANT_SQUARES = {"b1", "d1", "a2", "c2", "e2", "c3", "a4", "c4", "e4", "b5", "d5"}
BOARD_RESTAURANTS = RESTAURANT_TILES - Counter(["pub"])  # one pub is set aside


@pytest.mark.parametrize("seed", SEEDS)
def test_four_players_the_fourth_to_move_holds_the_set_aside_pub(seed: int) -> None:
    data = position.to_json(new_game(Options(players=4), seed))
    first = data["current_player"]
    expected: list[list[str]] = [[], [], [], []]
    expected[(first + 3) % 4] = ["pub"]
    assert data["restaurant_hands"] == expected


@pytest.mark.parametrize("players", [2, 3])
def test_two_or_three_players_nobody_holds_a_restaurant(players: int) -> None:
    for seed in SEEDS:
        data = position.to_json(new_game(Options(players=players), seed))
        assert data["restaurant_hands"] == [[] for _ in range(players)]


def test_first_player_is_chosen_at_random() -> None:
    firsts = {new_game(Options(players=4), seed).current_player for seed in SEEDS}
    assert firsts == {0, 1, 2, 3}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_eleven_face_down_restaurants_on_the_restaurant_squares(players: int) -> None:
    for seed in SEEDS:
        market = position.to_json(new_game(Options(players=players), seed))["market"]
        assert set(market) == RESTAURANT_SQUARES
        assert all(set(content) == {"face_down"} for content in market.values())
        assert Counter(content["face_down"] for content in market.values()) == BOARD_RESTAURANTS


@pytest.mark.parametrize("players", [2, 3, 4])
def test_starting_hands_are_never_three_identical(players: int) -> None:
    for seed in range(400):
        for hand in position.to_json(new_game(Options(players=players), seed))["stand_hands"]:
            assert len(hand) == 3
            assert len(set(hand)) > 1, (seed, hand)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_starting_resources(players: int) -> None:
    data = position.to_json(new_game(Options(players=players, money="public"), 11))
    assert data["options"] == {"players": players, "money": "public", "face_down_counts_as_available": True}
    assert data["coins"] == [1] * players
    assert data["wooden_stands"] == [8] * players
    assert len(data["offer"]) == 3
    assert len(data["bag"]) == 35 - 3 - 3 * players
    assert (data["status"], data["phase"], data["redrawn_this_turn"]) == ("playing", "main", False)
    assert (data["consecutive_coins"], data["final_turns_left"], data["result"]) == (0, None, None)
    assert data["entrances"] == {}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_all_35_stand_tiles_seven_of_each_good(players: int) -> None:
    for seed in SEEDS:
        state = new_game(Options(players=players), seed)
        assert tile_counts(state) == STAND_TILES


def test_customer_tiles_three_face_up_per_level_rest_in_decks() -> None:
    pairs = [list(pair) for pair in PAIRS]
    expected = {"1": pairs, "2": pairs, "3": pairs, "4": [list(pair) for pair in LEVEL_4_PAIRS]}
    for seed in SEEDS:
        data = position.to_json(new_game(Options(players=3), seed))
        for level, tiles in expected.items():
            assert len(data["display"][level]) == 3
            assert len(data["decks"][level]) == len(tiles) - 3
            assert sorted(data["display"][level] + data["decks"][level]) == sorted(tiles)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_same_seed_same_game(players: int) -> None:
    for seed in (0, 5, 123456789):
        a = position.to_json(new_game(Options(players=players), seed))
        b = position.to_json(new_game(Options(players=players), seed))
        assert a == b
        assert [x.to_json() for x in legal_actions(new_game(Options(players=players), seed))] == [
            x.to_json() for x in legal_actions(position.from_json(a))
        ]


def test_different_seeds_give_different_games() -> None:
    games = {repr(position.to_json(new_game(Options(players=2), seed))) for seed in SEEDS}
    assert len(games) == len(SEEDS)


def test_default_options_are_two_players_hidden_money() -> None:
    data = position.to_json(new_game(seed=3))
    assert data["options"] == {"players": 2, "money": "hidden", "face_down_counts_as_available": True}
