"""Root-parallel search (ai/parallel.py): one search is today's, k in a pool are k in turn, and the
levels, bots and agent search with as many as they should."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import random
import time
from collections.abc import Iterator
from concurrent.futures import Executor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from aiplay import interesting_positions
from mercado_client import Endpoint
from mercado_terminal.held import SeatFile

from ai import ismcts
from ai.agent import Agent
from ai.bots import MctsBot, make_bot, split_searches
from ai.game_bots import IsmctsBot, game_bot
from ai.levels import level_searches
from ai.mcts import CLOCK_EVERY, SearchConfig, Tally, choose_action
from ai.parallel import (
    Decision,
    decide_in_pool,
    decide_in_turn,
    root_tallies,
    tallies_in_pool,
    tallies_in_turn,
)
from ai.workers import search_pool
from server.games.mercado import player_view
from server.games.registry import GAMES, game_named

SMALL = SearchConfig(iterations=40)
SMALL_GAME = ismcts.SearchConfig(iterations=40, playout_steps=6)
OTHER_GAMES = sorted(name for name in GAMES if name != "mercado")


def mercado_decisions(seed: int, count: int = 4) -> list[Decision]:
    """Decisions of the seat to move at a few points of a 2-player game, with the true coins."""
    states = interesting_positions(2, seed)[:count]
    return [
        Decision("mercado", player_view(s, s.current_player), SMALL, seed + n, list(s.coins))
        for n, s in enumerate(states)
    ]


def game_decisions(name: str, seed: int, count: int = 3) -> list[Decision]:
    """Decisions of a seat with a choice at a few points of a random 2-player game of ``name``."""
    rules = game_named(name)
    rng = random.Random(seed)
    state = rules.new_game(rules.options({"players": 2}), seed)
    views: list[dict[str, Any]] = []
    while not rules.is_over(state):
        seat = rng.choice(sorted(rules.to_move(state)))
        actions = rules.legal_actions(state, seat)
        if len(actions) > 1:
            views.append(rules.view(state, seat))
        rules.apply(state, seat, rng.choice(actions))
    return [
        Decision(name, view, SMALL_GAME, seed + n)
        for n, view in enumerate(views[:: len(views) // count][:count])
    ]


@pytest.fixture(scope="module")
def pool() -> Iterator[Executor]:
    with search_pool(2) as executor:
        yield executor


@pytest.mark.parametrize("seed", [1, 2])
def test_one_mercado_search_plays_the_single_search_s_action(seed: int) -> None:
    for decision in mercado_decisions(seed):
        assert decision.coins is not None
        alone = choose_action(decision.view, decision.coins, SMALL, decision.seed)
        assert decide_in_turn(decision, 1) == alone.to_json()


@pytest.mark.parametrize("name", OTHER_GAMES)
def test_one_search_of_any_game_plays_the_single_search_s_action(name: str) -> None:
    rules = game_named(name)
    for decision in game_decisions(name, 3):
        alone = ismcts.choose_action(rules, decision.view, SMALL_GAME, decision.seed)
        assert decide_in_turn(decision, 1) == rules.action_to_json(alone)


def test_searches_in_a_pool_merge_to_the_same_tallies_as_in_turn(pool: Executor) -> None:
    decisions = mercado_decisions(4, 2) + [d for name in OTHER_GAMES for d in game_decisions(name, 5, 2)]
    for decision in decisions:
        in_turn = tallies_in_turn(decision, 3)
        assert tallies_in_pool(pool, decision, 3) == in_turn
        assert asyncio.run(decide_in_pool(pool, decision, 3)) == decide_in_turn(decision, 3)
        # every search runs its whole budget: each iteration visits one root action
        assert sum(tally.visits for tally in in_turn.values()) == 3 * decision.config.iterations


def test_search_i_is_seeded_seed_plus_i_and_the_merge_sums_them() -> None:
    decision = mercado_decisions(6, 1)[0]
    second = Decision(decision.game, decision.view, decision.config, decision.seed + 1, decision.coins)
    assert root_tallies(decision, 1) == root_tallies(second, 0)
    first, other = root_tallies(decision, 0), root_tallies(decision, 1)
    summed = {
        key: Tally(first[key].visits + other[key].visits, first[key].total + other[key].total)
        for key in first
    }
    assert tallies_in_turn(decision, 2) == summed
    assert list(tallies_in_turn(decision, 2)) == list(first)  # the legal actions' order, for ties


@pytest.mark.parametrize("name", ["mercado", *OTHER_GAMES])
def test_a_search_that_starts_after_its_deadline_answers_at_its_first_look_at_the_clock(name: str) -> None:
    """A move that waited for a worker past its turn's time cap is searched only briefly, however large
    its level's budget: the answer is due (docs/ai.md, "The agent")."""
    decision = (mercado_decisions(3, 1) if name == "mercado" else game_decisions(name, 3, 1))[0]
    large = dataclasses.replace(decision.config, iterations=10**6, seconds=2.0)
    late = dataclasses.replace(decision, config=large, deadline=time.monotonic() - 1.0)
    assert sum(tally.visits for tally in root_tallies(late, 0).values()) == CLOCK_EVERY
    due = dataclasses.replace(decision, deadline=time.monotonic() + 3600)  # the budget ends it first
    assert root_tallies(due, 0) == root_tallies(decision, 0)


def test_levels_search_once_but_hard_on_every_core() -> None:
    assert level_searches("easy") == level_searches("medium") == 1
    assert level_searches("hard") == (os.cpu_count() or 1)


def test_bots_take_a_search_count_after_an_at_sign() -> None:
    assert split_searches("mcts:medium@2") == ("mcts:medium", 2)
    assert split_searches("mcts:hard") == ("mcts:hard", 1)
    bot = make_bot("mcts:hard@3", timed=False)
    assert isinstance(bot, MctsBot) and bot.searches == 3 and bot.config.seconds is None
    hard = make_bot("mcts:hard", timed=False)
    assert isinstance(hard, MctsBot) and hard.searches == 1  # the arena's hard: one search unless asked
    game = game_bot(game_named("leilao"), "mcts:easy@2")
    assert isinstance(game, IsmctsBot) and game.searches == 2 and game.name == "mcts:easy@2"
    for bad in ("mcts:easy@0", "mcts:easy@x", "mcts:easy@"):
        with pytest.raises(ValueError):
            make_bot(bad)


def test_a_bot_with_two_searches_plays_their_merged_choice() -> None:
    decision = mercado_decisions(7, 1)[0]
    assert decision.coins is not None
    bot = make_bot("mcts:easy@2", seed=11, timed=False)
    assert isinstance(bot, MctsBot)
    seed = random.Random(11).getrandbits(63)
    expected = decide_in_turn(Decision("mercado", decision.view, bot.config, seed, decision.coins), 2)
    assert bot.choose(decision.view, decision.coins).to_json() == expected


def test_the_agent_spreads_a_move_over_idle_workers_only(tmp_path: Path) -> None:
    seats = SeatFile(tmp_path / "seats.json")
    with ThreadPoolExecutor(2) as executor:
        agent = Agent(Endpoint("local"), "key", [], 1, seats, executor=executor, workers=2)
        assert agent.searches_for("easy") == 1
        assert agent.searches_for("hard") == min(2, os.cpu_count() or 1)
        agent.searching = 1  # another match's move holds a worker
        assert agent.searches_for("hard") == 1
        agent.searching = 2  # every worker busy: the move waits its turn with one search
        assert agent.searches_for("hard") == 1
        asked = Agent(Endpoint("local"), "key", [], 1, seats, executor=executor, workers=2, search_workers=2)
        assert asked.searches_for("easy") == 2
