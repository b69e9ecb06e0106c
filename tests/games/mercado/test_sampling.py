"""Determinizations are complete states consistent with one seat's view that account for every tile."""

from __future__ import annotations

import copy
import random
from collections import Counter

import pytest
from aiplay import interesting_positions, random_game

from server.games.mercado import Determinizer, GameState, apply, legal_actions, player_view, visible_state
from server.games.mercado.components import (
    CUSTOMER_TILES,
    GOODS,
    RESTAURANTS,
    STAND_TILES_PER_GOOD,
)
from server.games.mercado.geometry import GOOD_INDEX, customer_kind

SAMPLES = 6
# Every physical tile of the game, by kind index.
ALL_RESTAURANTS = Counter({kind: 2 for kind in range(len(RESTAURANTS))})
ALL_STAND_TILES = Counter({good: STAND_TILES_PER_GOOD for good in range(len(GOODS))})
ALL_CUSTOMERS = Counter(
    customer_kind(level, (GOOD_INDEX[a], GOOD_INDEX[b])) for level, (a, b) in CUSTOMER_TILES
)
PUB = RESTAURANTS.index("pub")

CASES = [(players, seed) for players in (2, 3, 4) for seed in (1, 2, 3)]


def positions(players: int, seed: int) -> list[GameState]:
    return interesting_positions(players, seed)


def restaurants_in_play(state: GameState) -> Counter[int]:
    """Face-down and face-up restaurants and restaurant hands, plus the pub set aside below 4 players."""
    tiles = Counter(k for k in state.face_down if k >= 0)
    tiles.update(k for k in state.restaurant if k >= 0)
    for hand in state.restaurant_hands:
        tiles.update(hand)
    if state.players < 4:
        tiles[PUB] += 1
    return tiles


def stand_tiles(state: GameState) -> Counter[int]:
    tiles = Counter(state.bag) + Counter(state.offer)
    for hand in state.hands:
        tiles.update(hand)
    tiles.update(g for g in state.stand_good if g >= 0)
    return tiles


def customer_tiles(state: GameState) -> Counter[int]:
    tiles: Counter[int] = Counter()
    for pile in (*state.decks, *state.display):
        tiles.update(pile)
    tiles.update(k for k in state.entrances if k >= 0)
    return tiles


def test_the_accounting_helpers_count_every_tile_of_a_real_game() -> None:
    """The expectations below rest on these counts; check them on true states first."""
    for step in random_game(4, 5):
        assert restaurants_in_play(step.state) == ALL_RESTAURANTS
        assert stand_tiles(step.state) == ALL_STAND_TILES
        assert customer_tiles(step.state) == ALL_CUSTOMERS


@pytest.mark.parametrize(("players", "seed"), CASES)
def test_every_sample_is_consistent_with_the_view(players: int, seed: int) -> None:
    for state in positions(players, seed):
        for seat in range(players):
            view = player_view(state, seat)
            original = copy.deepcopy(view)
            determinizer = Determinizer(view, list(state.coins))
            for n in range(SAMPLES):
                sample = determinizer.sample(random.Random(n))
                # With the true coins the sample's view is the view itself, legal actions included.
                assert player_view(sample, seat) == view
                assert [q for q, k in enumerate(sample.face_down) if k >= 0] == [
                    q for q, k in enumerate(state.face_down) if k >= 0
                ]
                assert sample.restaurant == state.restaurant
                assert sample.stand_good == state.stand_good
                assert sample.stand_owner == state.stand_owner
                assert sample.entrances == state.entrances
                assert sample.hands == state.hands
                assert sample.restaurant_hands == state.restaurant_hands
                assert sample.offer == state.offer
                assert sample.display == state.display
                assert len(sample.bag) == len(state.bag)
                assert [len(d) for d in sample.decks] == [len(d) for d in state.decks]
                assert sample.current_player == state.current_player
                assert sample.phase == state.phase
                assert sample.status == state.status
                assert sample.line_stands == state.line_stands
                assert sample.owned_goods == state.owned_goods
            assert view == original, "sampling must not change the view"


@pytest.mark.parametrize(("players", "seed"), CASES)
def test_every_hidden_tile_is_accounted_for(players: int, seed: int) -> None:
    for state in positions(players, seed):
        seat = state.current_player
        determinizer = Determinizer(player_view(state, seat), list(state.coins))
        for n in range(SAMPLES):
            sample = determinizer.sample(random.Random(1000 + n))
            assert restaurants_in_play(sample) == ALL_RESTAURANTS
            assert Counter(k for k in sample.face_down if k >= 0) == Counter(
                k for k in state.face_down if k >= 0
            )
            assert stand_tiles(sample) == ALL_STAND_TILES
            # The unseen stand tiles are determined, so the bag holds exactly the true bag's tiles.
            assert Counter(sample.bag) == Counter(state.bag)
            assert customer_tiles(sample) == ALL_CUSTOMERS
            for level in range(4):
                assert Counter(sample.decks[level]) == Counter(state.decks[level])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_hidden_orders_and_identities_vary_with_the_seed(players: int) -> None:
    state = positions(players, 7)[1]
    view = player_view(state, state.current_player)
    determinizer = Determinizer(view, list(state.coins))
    samples = [determinizer.sample(random.Random(seed)) for seed in range(12)]
    assert len(set(state.bag)) > 1
    assert len({tuple(s.bag) for s in samples}) > 1, "the bag order is not randomised"
    for level in range(4):
        if len(set(state.decks[level])) > 1:
            assert len({tuple(s.decks[level]) for s in samples}) > 1, f"deck {level + 1} is not shuffled"
    if len({k for k in state.face_down if k >= 0}) > 1:
        assert len({tuple(s.face_down) for s in samples}) > 1, "face-down identities are not randomised"
    # The same generator state gives the same sample.
    assert determinizer.sample(random.Random(3)) == determinizer.sample(random.Random(3))


def test_samples_are_independent_of_each_other_and_of_the_base() -> None:
    state = positions(3, 4)[2]
    view = player_view(state, state.current_player)
    determinizer = Determinizer(view, list(state.coins))
    first = determinizer.sample(random.Random(0))
    untouched = determinizer.sample(random.Random(0))
    while not first.is_terminal:
        apply(first, legal_actions(first)[0])
    second = determinizer.sample(random.Random(0))
    assert second == untouched
    assert player_view(second, state.current_player) == view


@pytest.mark.parametrize("players", [2, 3, 4])
def test_sample_coins_are_the_coins_passed_in(players: int) -> None:
    state = positions(players, 2)[2]
    seat = state.current_player
    view = player_view(state, seat)
    assert sum(c is None for c in view["coins"]) == players - 1  # money is hidden
    coins = [3 + 4 * p for p in range(players)]
    determinizer = Determinizer(view, coins)
    for n in range(3):
        sample = determinizer.sample(random.Random(n))
        assert sample.coins == coins
        assert sample.coins is not coins
    assert visible_state(view, coins).coins == coins


def test_visible_state_keeps_the_visible_and_drops_the_hidden() -> None:
    state = positions(4, 3)[2]
    seat = state.current_player
    visible = visible_state(player_view(state, seat), list(state.coins))
    assert len(visible.bag) == len(state.bag)  # its size decides redraws and refreshes; not its contents
    assert len(set(visible.bag)) <= 1
    assert visible.decks == [[], [], [], []]
    assert all(k < 0 for k in visible.face_down)
    assert visible.stand_good == state.stand_good
    assert visible.restaurant == state.restaurant
    assert visible.entrances == state.entrances
    assert visible.display == state.display
    assert visible.hands == state.hands
    assert visible.restaurant_hands == state.restaurant_hands
    assert visible.current_player == state.current_player
