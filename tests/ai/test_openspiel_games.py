"""Oregano and Leilão as OpenSpiel games: OpenSpiel's own checks, what each seat is shown, a learner."""

from __future__ import annotations

import random

import pyspiel
import pytest
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import tabular_qlearner

import ai.openspiel  # noqa: F401  (registers the games)
from ai.openspiel.oregano import CATALOGUE
from server.games.leilao import RULES as LEILAO
from server.games.leilao import Bid

GAMES = ("oregano", "leilao")


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_openspiel_random_simulations_pass(name: str, players: int) -> None:
    game = pyspiel.load_game(name, {"players": players})
    # As for Mercado: OpenSpiel 2.0.2 cannot serialise a sampled-stochastic Python game with its state.
    pyspiel.random_sim_test(game, num_sims=2 if players == 2 else 1, serialize=False, verbose=False)


def test_game_facts() -> None:
    oregano = pyspiel.load_game("oregano", {"players": 3})
    assert oregano.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert oregano.num_distinct_actions() == len(CATALOGUE) == 912
    assert oregano.max_game_length() == 2 * 3 + 6 * 3 * 20
    leilao = pyspiel.load_game("leilao", {"players": 2})
    assert leilao.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    assert leilao.get_type().chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    assert leilao.num_distinct_actions() == 400 + 20 + 80  # bids, re-bids, picks
    assert (leilao.min_utility(), leilao.max_utility()) == (-1.0, 1.0)
    with pytest.raises(ValueError, match="round_limit"):
        pyspiel.load_game("oregano", {"round_limit": 0})
    with pytest.raises(ValueError, match="hand"):
        pyspiel.load_game("leilao", {"hand": 21})
    with pytest.raises(ValueError, match="reward"):
        pyspiel.load_game("leilao", {"reward": "coins"})
    with pytest.raises(pyspiel.SpielError, match="reward"):
        pyspiel.load_game("oregano", {"reward": "margin"})  # Oregano's rewards are its ranks


def test_a_reduced_leilao_is_deterministic_and_ends_after_its_rounds() -> None:
    game = pyspiel.load_game("leilao", {"hand": 4, "rounds": 2, "deal": 7, "reward": "margin"})
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert game.num_distinct_actions() == 16 + 4 + 80
    assert str(game.new_initial_state()) == str(game.new_initial_state())
    rng = random.Random(1)
    state = game.new_initial_state()
    assert state.view(0)["hands"] == [[1, 2, 3, 4], [1, 2, 3, 4]]
    assert state.view(0)["deck_count"] == 4  # the second round's stalls
    while not state.is_terminal():
        if state.is_simultaneous_node():
            state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(2)])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert state.engine.round <= 2
    outcome = LEILAO.outcome(state.engine)
    assert outcome is not None
    a, b = outcome.scores
    assert state.returns() == [a - b, b - a]


def test_sealed_steps_are_simultaneous_nodes_and_picks_turns() -> None:
    game = pyspiel.load_game("leilao", {"players": 3, "deal": 1})
    state = game.new_initial_state()
    assert state.is_simultaneous_node()
    bid = game.catalogue.ids
    # Seats 0 and 1 tie at 5: only they re-bid, seat 2 has nothing to do (and is passed 0).
    state.apply_actions([bid[Bid(5, None)], bid[Bid(5, None)], bid[Bid(3, None)]])
    assert state.is_simultaneous_node()
    assert state.legal_actions(2) == []
    assert len(state.legal_actions(0)) == len(state.legal_actions(1)) == 19
    state.apply_actions([state.legal_actions(0)[-1], state.legal_actions(1)[0], 0])
    assert not state.is_simultaneous_node()
    assert state.current_player() == 0  # its re-bid won the tie: first pick
    assert [state.action_to_string(0, a).split()[0] for a in state.legal_actions()] == ["pick"] * 6
    # Each seat saw its own bid sealed, the others' only at the reveal.
    lines = state.information_state_string(1).split("\n")
    assert '"seat":0,"card":5' not in lines[1].split('"reveal"')[0]
    assert '"seat":1,"card":5' in lines[1].split('"reveal"')[0]


def random_states(game: pyspiel.Game, seed: int, every: int) -> list[pyspiel.State]:
    """States of one random game, every ``every`` steps, the final one included."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    states = []
    while not state.is_terminal():
        if len(state.history()) % every == 0:
            states.append(state.clone())
        if state.is_simultaneous_node():
            state.apply_actions(
                [rng.choice(state.legal_actions(p) or [0]) for p in range(game.num_players())]
            )
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return [*states, state]


@pytest.mark.parametrize(("name", "players"), [("oregano", 2), ("oregano", 4), ("leilao", 3)])
def test_what_a_seat_is_shown_does_not_change_with_what_it_cannot_see(name: str, players: int) -> None:
    """Every hidden part redrawn as a seat sees it (the rules' sampler): its strings, tensors and
    legal actions stay the same, though the hidden parts changed."""
    game = pyspiel.load_game(name, {"players": players})
    sampler = pyspiel.UniformProbabilitySampler(7, 0.0, 1.0)
    hidden_differs = False
    for state in random_states(game, seed=players, every=9):
        for player in range(players):
            other = state.resample_from_infostate(player, sampler)
            assert other.information_state_string(player) == state.information_state_string(player)
            assert other.observation_string(player) == state.observation_string(player)
            assert other.observation_tensor(player) == state.observation_tensor(player)
            assert other.current_player() == state.current_player()
            assert other.legal_actions(player) == state.legal_actions(player)
            hidden_differs |= str(other) != str(state)
    assert hidden_differs


def test_a_hidden_strategy_card_stays_out_of_other_seats_strings_and_tensors() -> None:
    game = pyspiel.load_game("oregano", {"players": 2})
    state = random_states(game, seed=5, every=30)[1]
    card = state.engine.strategies[0]
    assert card is not None
    observer = game.make_py_observer()
    observer.set_from(state, 0)
    assert observer.dict["strategies"].sum() == 1  # its own card
    observer.set_from(state, 1)
    assert observer.dict["strategies"][0].sum() == 0
    assert observer.dict["strategy_held"].tolist() == [1.0, 1.0]
    assert observer.tensor.tolist() == state.observation_tensor(1)
    assert card in state.observation_string(0)
    assert f'"card":"{card}"' not in state.information_state_string(1).split("\n")[0]


def test_the_information_state_adds_each_step_as_the_seat_saw_it() -> None:
    game = pyspiel.load_game("leilao", {"players": 2})
    state = random_states(game, seed=4, every=10)[1]
    lines = state.information_state_string(0).split("\n")
    assert lines[0] == state.observation_string(0)
    assert len(lines) == 1 + len(state.play.steps)


@pytest.mark.parametrize("name", GAMES)
def test_a_state_survives_serialisation(name: str) -> None:
    game = pyspiel.load_game(name, {"players": 3})
    for state in random_states(game, seed=1, every=15):
        copy = game.deserialize_state(state.serialize())
        assert str(copy) == str(state)
        assert copy.information_state_string(1) == state.information_state_string(1)


@pytest.mark.parametrize("name", GAMES)
def test_tabular_q_learning_trains_on_it(name: str) -> None:
    game = pyspiel.load_game(name, {"players": 2})
    env = rl_environment.Environment(game, observation_type=rl_environment.ObservationType.OBSERVATION)
    agents = [
        tabular_qlearner.QLearner(player_id=p, num_actions=env.action_spec()["num_actions"]) for p in range(2)
    ]
    for _ in range(3):
        time_step = env.reset()
        while not time_step.last():
            legal = time_step.observations["legal_actions"]
            if env.is_turn_based:
                player = time_step.observations["current_player"]
                actions = [agents[player].step(time_step).action]
            else:  # a seat with nothing to do in a step (a pick is one seat's) is passed 0
                actions = [agent.step(time_step).action if legal[p] else 0 for p, agent in enumerate(agents)]
            time_step = env.step(actions)
        for agent in agents:
            agent.step(time_step)
        assert sorted(time_step.rewards) in ([-1.0, 1.0], [0.0, 0.0])
    assert all(agent.loss is not None for agent in agents)
    assert sum(len(agent._q_values) for agent in agents) > 50
