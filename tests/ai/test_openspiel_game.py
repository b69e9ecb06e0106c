"""Mercado as an OpenSpiel game: OpenSpiel's own checks, resampling, a learner and IS-MCTS on it."""

from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import ismcts, mcts, tabular_qlearner

import ai.openspiel  # noqa: F401  (registers the game)
from ai.openspiel.game import MAX_GAME_LENGTH, rank_rewards


@pytest.mark.parametrize("players", [2, 3, 4])
def test_openspiel_random_simulations_pass(players: int) -> None:
    game = pyspiel.load_game("mercado", {"players": players})
    # Serialising a sampled-stochastic game needs its random state, which OpenSpiel 2.0.2 does not ask a
    # Python game for; states serialise (test below).
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_margin_rewards_with_public_money_pass_too() -> None:
    game = pyspiel.load_game("mercado", {"players": 3, "reward": "margin", "money": "public"})
    assert game.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def test_game_facts() -> None:
    game = pyspiel.load_game("mercado", {"players": 4})
    assert game.num_players() == 4
    assert game.num_distinct_actions() == 1083
    assert game.max_game_length() == MAX_GAME_LENGTH
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    assert (game.min_utility(), game.max_utility()) == (-1.0, 1.0)
    with pytest.raises(ValueError, match="players"):
        pyspiel.load_game("mercado", {"players": 5})
    with pytest.raises(ValueError, match="reward"):
        pyspiel.load_game("mercado", {"reward": "coins"})


def test_rank_rewards_are_zero_sum() -> None:
    assert rank_rewards([1, 2]) == [1.0, -1.0]
    assert rank_rewards([1, 1]) == [0.0, 0.0]
    assert rank_rewards([2, 1, 3, 1]) == [-1 / 3, 2 / 3, -1.0, 2 / 3]


def test_set_ups_follow_the_rng_seed() -> None:
    def first_set_ups(seed: int) -> list[str]:
        game = pyspiel.load_game("mercado", {"rng_seed": seed})
        return [str(game.new_initial_state()) for _ in range(3)]

    assert first_set_ups(1) == first_set_ups(1)
    assert first_set_ups(1) != first_set_ups(2)
    assert len(set(first_set_ups(1))) == 3


def random_states(game: pyspiel.Game, seed: int, every: int) -> list[pyspiel.State]:
    """States of one random game, every ``every`` decisions, the final one included."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    states = []
    while not state.is_terminal():
        if len(state.history()) % every == 0:
            states.append(state.clone())
        state.apply_action(rng.choice(state.legal_actions()))
    return [*states, state]


def test_a_state_survives_serialisation() -> None:
    game = pyspiel.load_game("mercado", {"players": 3})
    for state in random_states(game, seed=1, every=25):
        copy = game.deserialize_state(state.serialize())
        assert str(copy) == str(state)
        assert copy.history() == state.history()
        assert copy.information_state_string(1) == state.information_state_string(1)


@pytest.mark.parametrize(("players", "money"), [(2, "hidden"), (3, "public"), (4, "hidden")])
def test_resampled_states_look_the_same_to_the_player(players: int, money: str) -> None:
    game = pyspiel.load_game("mercado", {"players": players, "money": money})
    sampler = pyspiel.UniformProbabilitySampler(7, 0.0, 1.0)
    hidden_differs = False
    for state in random_states(game, seed=players, every=20):
        for player in range(players):
            other = state.resample_from_infostate(player, sampler)
            assert other.information_state_string(player) == state.information_state_string(player)
            assert other.information_state_tensor(player) == state.information_state_tensor(player)
            assert other.observation_string(player) == state.observation_string(player)
            assert other.observation_tensor(player) == state.observation_tensor(player)
            assert other.current_player() == state.current_player()
            assert other.legal_actions() == state.legal_actions()
            hidden_differs |= str(other) != str(state)
    assert hidden_differs


def test_hidden_money_stays_out_of_other_seats_strings_and_tensors() -> None:
    game = pyspiel.load_game("mercado", {"players": 2, "money": "hidden"})
    state = random_states(game, seed=3, every=30)[1]
    coins = state.engine.coins
    assert state.view(0)["coins"] == [coins[0], None]
    assert f'"coins":[{coins[0]},null]' in state.information_state_string(0)
    observer = game.make_py_observer()
    observer.set_from(state, 0)
    assert observer.dict["coins"].tolist() == [coins[0], 0.0]
    assert observer.dict["coins_visible"].tolist() == [1.0, 0.0]
    assert observer.tensor.tolist() == state.observation_tensor(0)


def test_information_state_holds_the_public_history() -> None:
    game = pyspiel.load_game("mercado", {"players": 2})
    state = random_states(game, seed=4, every=40)[1]
    lines = state.information_state_string(0).split("\n")
    assert len(lines) == 1 + len(state.history())
    assert state.observation_string(0) == lines[0]
    assert lines[1].startswith(f"{state.public_history()[0].actor}: ")


def test_tabular_q_learning_trains_on_it() -> None:
    game = pyspiel.load_game("mercado", {"players": 2})
    env = rl_environment.Environment(game, observation_type=rl_environment.ObservationType.OBSERVATION)
    agents = [
        tabular_qlearner.QLearner(player_id=p, num_actions=env.action_spec()["num_actions"]) for p in range(2)
    ]
    finished = 0
    for _ in range(3):
        time_step = env.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            output = agents[player].step(time_step)
            assert output.action in time_step.observations["legal_actions"][player]
            time_step = env.step([output.action])
        for agent in agents:
            agent.step(time_step)
        finished += 1
        assert sorted(time_step.rewards) in ([-1.0, 1.0], [0.0, 0.0])
    assert finished == 3
    assert all(agent.loss is not None for agent in agents)
    # Every decision's observation became a row of the learner's table; the last ones carry the result.
    assert sum(len(agent._q_values) for agent in agents) > 50


def test_openspiel_ismcts_plays_a_legal_game_to_the_end() -> None:
    game = pyspiel.load_game("mercado", {"players": 2})
    rng = np.random.RandomState(5)
    bot = ismcts.ISMCTSBot(
        game, mcts.RandomRolloutEvaluator(1, rng), 2.0, max_simulations=5, random_state=rng
    )
    state = game.new_initial_state()
    while not state.is_terminal():
        legal = state.legal_actions()
        action = bot.step(state) if state.current_player() == 0 else int(rng.choice(legal))
        assert action in legal
        state.apply_action(action)
    assert sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])
