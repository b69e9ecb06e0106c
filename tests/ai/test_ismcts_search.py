"""The interface's ISMCTS (ai/ismcts.py): legal, reproducible, blind to what the seat cannot see, and
sound at sealed steps."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from ai.ismcts import (
    Search,
    SearchConfig,
    choose_action,
    most_visited,
    played,
    ranks_of,
    rewards,
    simultaneous,
)
from ai.mcts import Tally
from server.games.registry import GAMES, AnyGame, game_named

SMALL = SearchConfig(iterations=40, playout_steps=6)


def positions(game: AnyGame, players: int, seed: int, count: int = 4) -> list[tuple[Any, int]]:
    """``count`` positions spread over a random game, each with a seat to move that has a choice."""
    rng = random.Random(seed)
    state = game.new_game(game.options({"players": players}), seed)
    out = []
    while not game.is_over(state):
        seat = rng.choice(sorted(game.to_move(state)))
        actions = game.legal_actions(state, seat)
        if len(actions) > 1:
            out.append((game.clone(state), seat))
        game.apply(state, seat, rng.choice(actions))
    return out[:: len(out) // count][:count]


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_search_picks_a_legal_action_the_same_for_the_same_view_and_seed(name: str, players: int) -> None:
    game = game_named(name)
    for state, seat in positions(game, players, seed=players):
        view = game.view(state, seat)
        action = choose_action(game, view, SMALL, seed=5)
        assert game.why_illegal(state, seat, action) is None
        assert choose_action(game, view, SMALL, seed=5) == action


@pytest.mark.parametrize("name", sorted(GAMES))
def test_two_positions_the_seat_cannot_tell_apart_get_the_same_choice(name: str) -> None:
    """Fairness: the true position's hidden parts never reach the search."""
    game = game_named(name)
    for state, seat in positions(game, 2, seed=11):
        other = game.sample(state, seat, random.Random(3))
        assert game.view(other, seat) == game.view(state, seat)
        config = SearchConfig(iterations=60, playout_steps=6)
        mine = choose_action(game, game.view(state, seat), config, seed=9)
        assert choose_action(game, game.view(other, seat), config, seed=9) == mine


def leilao_after_first_bid(first: dict[str, Any]) -> Any:
    """Round 1 of a 2-player Leilão where seat 0 has made the sealed bid ``first``."""
    game = game_named("leilao")
    state = game.new_game(game.options({"players": 2}), 4)
    game.apply(state, 0, game.action_from_json(first))
    return state


def test_another_seats_sealed_bid_does_not_change_the_choice() -> None:
    game = game_named("leilao")
    high = leilao_after_first_bid({"type": "bid", "card": 20, "extra": 19})
    low = leilao_after_first_bid({"type": "bid", "card": 1, "extra": None})
    assert game.view(high, 1) == game.view(low, 1)
    assert choose_action(game, game.view(high, 1), SMALL, 2) == choose_action(
        game, game.view(low, 1), SMALL, 2
    )


def test_at_a_sealed_step_every_seat_chooses_at_the_same_node() -> None:
    """Decoupled statistics: the other seat's choice is not made below (and so knowing) ours."""
    game = game_named("leilao")
    state = game.new_game(game.options({"players": 2}), 4)
    search = Search(game, game.view(state, 0), SearchConfig(iterations=50, playout_steps=6), random.Random(1))
    search.run()
    root = search.root
    assert set(root.arms) == {0, 1}
    assert sum(arm.visits for arm in root.arms[0].values()) == 50
    assert sum(arm.visits for arm in root.arms[1].values()) == 50
    assert all(len(key) == 2 for key in root.children)  # children by the joint choice


def test_a_sealed_choice_is_drawn_from_the_search_and_a_turn_s_is_its_most_visited() -> None:
    """At a sealed step the same view searched again with other seeds gives other choices, each a tried
    action; the seed alone decides which (an arena stays reproducible). In a turn: the most visited."""
    game = game_named("leilao")
    state = game.new_game(game.options({"players": 2}), 4)
    view = game.view(state, 0)
    choices = [choose_action(game, view, SMALL, seed) for seed in range(8)]
    assert len(set(choices)) > 2
    assert choose_action(game, view, SMALL, 3) == choices[3]
    for seed, choice in enumerate(choices):
        search = Search(game, view, SMALL, random.Random(seed))
        search.run()
        assert search.root_tallies()[choice].visits > 0
    argmax = replace(SMALL, temperature=None)
    for seed in range(3):
        search = Search(game, view, argmax, random.Random(seed))
        assert choose_action(game, view, argmax, seed) == search.run() == most_visited(search.root_tallies())

    while game.to_move(state) != {0} or len(game.legal_actions(state, 0)) < 2:  # a pick of seat 0's
        seat = min(game.to_move(state))
        game.apply(state, seat, game.legal_actions(state, seat)[0])
    for seed in range(3):
        search = Search(game, game.view(state, 0), SMALL, random.Random(seed))
        assert choose_action(game, game.view(state, 0), SMALL, seed) == search.run()


def test_a_drawn_choice_favours_the_actions_that_surely_did_best() -> None:
    game = game_named("leilao")
    state = game.new_game(game.options({"players": 2}), 4)
    assert simultaneous(game, state)
    tallies = {
        "good": Tally(100, 80.0),
        "close": Tally(100, 79.0),
        "lucky": Tally(1, 1.0),  # one play-out, the best reward there is
        "poor": Tally(100, 60.0),
        "untried": Tally(0, 0.0),
    }
    drawn = Counter(played(game, state, tallies, SMALL, seed) for seed in range(400))
    assert drawn["good"] > drawn["close"] > 100 and drawn["lucky"] + drawn["poor"] < 10
    assert "untried" not in drawn
    assert played(game, state, tallies, replace(SMALL, temperature=None), 0) == "good"  # the most visited


def test_a_single_legal_action_needs_no_search() -> None:
    game = game_named("leilao")
    state = game.new_game(game.options({"players": 2}), 4)
    while len(game.legal_actions(state, min(game.to_move(state)))) != 1:
        seat = min(game.to_move(state))
        game.apply(state, seat, game.legal_actions(state, seat)[-1])
    seat = min(game.to_move(state))
    search = Search(game, game.view(state, seat), SMALL, random.Random(0))
    assert search.run() == game.legal_actions(state, seat)[0]
    assert search.iterations == 0


def test_a_seat_not_to_move_has_nothing_to_search() -> None:
    game = game_named("oregano")
    state = game.new_game(game.options({"players": 2}), 4)
    idle = 1 - min(game.to_move(state))
    with pytest.raises(ValueError, match="nothing to do"):
        choose_action(game, game.view(state, idle), SMALL, 0)


def test_rewards_favour_the_leader_and_share_first_places() -> None:
    assert ranks_of([5, 9, 9]) == [3, 1, 1]
    low, high, other = rewards([5, 9, 9], ranks_of([5, 9, 9]), 10.0)
    assert low < 0.5 < high == other
    assert all(0.0 <= r <= 1.0 for r in rewards([-80, 200], [2, 1], 10.0))


def test_a_search_told_to_estimate_judges_where_it_stops_by_the_game_s_estimate() -> None:
    game = game_named("leilao")
    state, seat = positions(game, 2, 6)[1]
    config = SearchConfig(iterations=10, playout_steps=0, estimate=True)
    search = Search(game, game.view(state, seat), config, random.Random(1))
    estimates = game.estimated_scores(state)
    assert estimates != list(game.score_now(state))
    assert search.playout(game.clone(state)) == rewards(estimates, ranks_of(estimates), config.margin_scale)
    scores = game.score_now(state)
    as_it_stands = Search(game, game.view(state, seat), replace(config, estimate=False), random.Random(1))
    assert as_it_stands.playout(game.clone(state)) == rewards(scores, ranks_of(scores), config.margin_scale)
