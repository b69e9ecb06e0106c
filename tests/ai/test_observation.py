"""With hidden money every seat's coins follow exactly from the public history, as ai/arena.py observes it."""

from __future__ import annotations

import pytest
from aiplay import random_game
from hypothesis import given, settings
from hypothesis import strategies as st

from ai.observation import CoinTracker, coin_changes
from server.games.mercado import player_view
from server.games.mercado.components import STARTING_COINS

SEEDS = range(16)


def check_game(players: int, seed: int, coin_rate: float = 0.1) -> int:
    """Play one game, tracking coins for every seat and a spectator; returns the number of actions."""
    trackers = [CoinTracker(players) for _ in range(players)]
    # A spectator with hidden money sees no coins at all: nothing corrects its reconstruction.
    spectator = CoinTracker(players)
    actions = 0
    for step in random_game(players, seed, "hidden", coin_rate):
        state = step.state
        if step.action is None:
            assert state.coins == [STARTING_COINS] * players
            for seat, tracker in enumerate(trackers):
                assert tracker.completed(player_view(state, seat))["coins"] == state.coins
            continue
        assert step.actor is not None
        actions += 1
        for seat, tracker in enumerate(trackers):
            view = player_view(state, seat)
            assert view["coins"].count(None) == players - 1
            tracker.observe(view, step.actor, step.action)
            where = f"seat {seat}, version {step.version}, after {step.action}"
            assert tracker.coins == state.coins, where
            assert tracker.completed(view)["coins"] == state.coins, where
        spectator_view = player_view(state, None)
        assert spectator_view["coins"] == [None] * players
        spectator.observe(spectator_view, step.actor, step.action)
        assert spectator.coins == state.coins, f"spectator, version {step.version}, after {step.action}"
    return actions


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", SEEDS)
def test_tracker_reproduces_every_seats_coins_after_every_action(players: int, seed: int) -> None:
    assert check_game(players, seed) > 20


@pytest.mark.parametrize("players", [2, 3, 4])
def test_tracker_follows_coin_heavy_games(players: int) -> None:
    """Uniformly random play: many coins taken, games often ended by consecutive coins."""
    for seed in range(100, 104):
        check_game(players, seed, coin_rate=1.0)


@settings(max_examples=15, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 2**32), coin_rate=st.floats(0.0, 1.0))
def test_tracker_property(players: int, seed: int, coin_rate: float) -> None:
    check_game(players, seed, coin_rate)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_coin_changes_are_exactly_the_coins_each_action_moved(players: int) -> None:
    before = None
    kinds = set()
    for step in random_game(players, 11):
        if step.action is not None:
            assert before is not None and step.actor is not None
            changes = coin_changes(player_view(step.state, None), step.actor, step.action)
            assert changes == [a - b for a, b in zip(step.state.coins, before, strict=True)], str(step.action)
            kinds.add(step.action.type)
        before = list(step.state.coins)
    assert {"open_stand", "bring_customer", "take_offer"} <= kinds


def test_completed_fills_only_the_coins() -> None:
    steps = list(random_game(3, 4))
    tracker = CoinTracker(3)
    for step in steps[1:]:
        assert step.actor is not None and step.action is not None
        tracker.observe(player_view(step.state, 1), step.actor, step.action)
    state = steps[-1].state
    view = player_view(state, 1)
    completed = tracker.completed(view)
    assert completed["coins"] == state.coins
    assert {k: v for k, v in completed.items() if k != "coins"} == {
        k: v for k, v in view.items() if k != "coins"
    }
    assert view["coins"].count(None) == 2, "completed must not change the view it was given"
