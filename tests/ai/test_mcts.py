"""The single-observer ISMCTS: tree statistics, rewards, determinism, fairness, legal moves at every level."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import random
from collections.abc import Iterator

import pytest
from aiplay import interesting_positions, mid_game, random_game

from ai.bots import BOT_NAMES, GreedyBot, MctsBot, RandomBot, make_bot
from ai.levels import LEVELS
from ai.mcts import Node, Search, SearchConfig, choose_action, rewards, rollout
from ai.observation import CoinTracker
from server.games.mercado import (
    GameState,
    Result,
    action_by_id,
    apply_unchecked,
    legal_actions,
    player_view,
    position,
)
from server.games.mercado.state import FINAL_ROUND, MAIN

SMALL = SearchConfig(iterations=30)


def search(state: GameState, config: SearchConfig, seed: int = 0) -> tuple[Search, int]:
    """A finished search from the mover's view (with the true coins), and the id of the action it chose."""
    s = Search(player_view(state, state.current_player), list(state.coins), config, random.Random(seed))
    return s, s.run().id


def nodes(node: Node) -> Iterator[Node]:
    for child in node.children.values():
        yield child
        yield from nodes(child)


# --- tree statistics -----------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "iterations"), [(2, 120), (3, 90), (4, 60)])
def test_root_statistics_after_a_search(players: int, iterations: int) -> None:
    state = mid_game(players, 3)
    legal = {a.id for a in legal_actions(state)}
    assert len(legal) > 1
    s, chosen = search(state, SearchConfig(iterations=iterations))
    root = s.root
    assert s.iterations == iterations
    assert root.visits == iterations
    # Each iteration goes through exactly one root child.
    assert sum(child.visits for child in root.children.values()) == iterations
    # While an action is untried the root expands one, so every legal action was tried once the budget allows.
    assert set(root.children) == legal if iterations >= len(legal) else set(root.children) <= legal
    for child in root.children.values():
        assert child.actor == state.current_player
        assert 1 <= child.visits <= child.available <= iterations
        assert 0.0 <= child.total <= child.visits
    assert chosen in legal
    assert root.children[chosen].visits == max(c.visits for c in root.children.values())


def optional_draw_positions(kind: str) -> list[GameState]:
    """Positions where ``kind`` (redraw_hand or refresh_offer: actions that need the bag) is legal."""
    found: list[GameState] = []
    for players in (2, 3):
        for seed in range(12):
            for step in random_game(players, seed):
                if len(found) < 8 and any(a.type == kind for a in legal_actions(step.state)):
                    found.append(step.state)
    assert len(found) == 8
    return found


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("kind", ["redraw_hand", "refresh_offer"])
def test_search_weighs_every_legal_action_of_the_view(kind: str, seed: int) -> None:
    """Redrawing and refreshing depend only on the bag's size, which the view shows: the search must
    consider them like any other legal action, and still return its most visited one."""
    for n, state in enumerate(optional_draw_positions(kind)):
        view = player_view(state, state.current_player)
        legal = {a.id for a in legal_actions(state)}
        assert len(legal) > 1
        s = Search(view, list(state.coins), SearchConfig(iterations=200), random.Random(seed))
        chosen = s.run()
        visits = {str(action_by_id(k)): c.visits for k, c in s.root.children.items()}
        where = f"{kind} position {n}: chose {chosen}; root visits {visits}"
        assert s.root.visits == 200, where
        assert set(s.root.children) == legal, where
        assert s.root.children[chosen.id].visits == max(c.visits for c in s.root.children.values()), where


def test_random_bot_draws_every_legal_action() -> None:
    """'A uniformly random legal action': every legal action, the bag-dependent ones included, comes up."""
    for state in optional_draw_positions("redraw_hand") + optional_draw_positions("refresh_offer"):
        legal = {a.id for a in legal_actions(state)}
        if len(legal) > 12:
            continue
        view = player_view(state, state.current_player)
        drawn = {make_bot("random", seed).choose(view, list(state.coins)).id for seed in range(300)}
        assert drawn == legal, [str(a) for a in legal_actions(state) if a.id not in drawn]


@pytest.mark.parametrize("players", [2, 4])
def test_every_node_of_the_tree_is_consistent(players: int) -> None:
    state = mid_game(players, 5)
    s, _ = search(state, SearchConfig(iterations=80))
    assert s.root.actor == -1 and s.root.total == 0.0
    depth_two = 0
    for node in nodes(s.root):
        assert 0 <= node.actor < players
        assert 1 <= node.visits <= node.available
        assert 0.0 <= node.total <= node.visits
        if node.children:
            # Every visit but the one that created the node went on to exactly one child.
            assert sum(c.visits for c in node.children.values()) == node.visits - 1
            depth_two += 1
    assert depth_two > 0, "the tree never grew below the root"


def test_root_visits_of_a_longer_search_concentrate_on_few_actions() -> None:
    state = mid_game(2, 8)
    s, chosen = search(state, SearchConfig(iterations=400))
    visits = sorted((c.visits for c in s.root.children.values()), reverse=True)
    assert s.root.children[chosen].visits == visits[0]
    assert visits[0] > 400 / len(visits), "the most visited action should be visited more than on average"


# --- rewards ---------------------------------------------------------------------------------------


def finished_results() -> Iterator[Result]:
    for players in (2, 3, 4):
        for seed in range(6):
            *_, last = random_game(players, seed, coin_rate=0.3)
            assert last.state.result is not None
            yield last.state.result


@pytest.mark.parametrize("reward", ["win", "margin"])
def test_rewards_are_in_unit_range_and_the_winner_gets_the_most(reward: str) -> None:
    for result in [
        *finished_results(),
        Result((5, 5, 3), (2, 2, 1), (1, 1, 3)),
        Result((4, 4), (3, 2), (1, 2)),
    ]:
        values = rewards(result, reward)  # type: ignore[arg-type]
        assert len(values) == len(result.scores)
        assert all(0.0 <= v <= 1.0 for v in values)
        best = max(values)
        for p, rank in enumerate(result.ranks):
            if rank == 1:
                assert values[p] == best
            else:
                assert values[p] < best
        for p in range(len(values)):
            for q in range(len(values)):
                if reward == "margin" and result.scores[p] > result.scores[q]:
                    assert values[p] > values[q], "more coins must earn a larger margin reward"
                if (result.scores[p], result.ranks[p]) == (result.scores[q], result.ranks[q]):
                    assert values[p] == values[q]
                if reward == "win" and result.ranks[p] > 1:
                    assert values[p] == 0.0


def test_win_reward_shares_ties() -> None:
    assert rewards(Result((5, 5, 3), (2, 2, 1), (1, 1, 3)), "win") == [0.5, 0.5, 0.0]
    assert rewards(Result((6, 6, 6, 6), (1, 1, 1, 1), (1, 1, 1, 1)), "win") == [0.25] * 4
    assert rewards(Result((7, 2), (0, 3), (1, 2)), "win") == [1.0, 0.0]
    # A tie on coins broken by stands has one winner.
    assert rewards(Result((4, 4), (3, 2), (1, 2)), "win") == [1.0, 0.0]


def test_margin_reward_is_even_for_a_shared_first_place_and_grows_with_the_margin() -> None:
    shared = rewards(Result((5, 5), (2, 2), (1, 1)), "margin")
    assert shared[0] == shared[1] > 0.5
    small, large = (
        rewards(Result((6, 5), (1, 1), (1, 2)), "margin"),
        rewards(Result((15, 5), (1, 1), (1, 2)), "margin"),
    )
    assert 0.5 < small[0] < large[0] < 1.0
    assert 0.0 < large[1] < small[1] < 0.5


def test_rollout_plays_to_the_end_with_legal_moves() -> None:
    for state in interesting_positions(3, 2):
        played = state.clone()
        rollout(played, random.Random(1), 3)
        assert played.is_terminal and played.result is not None
        assert state != played


# --- determinism ------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_same_view_seed_and_budget_give_the_same_action(players: int) -> None:
    state = mid_game(players, 4)
    view, coins = player_view(state, state.current_player), list(state.coins)
    first = Search(view, coins, SMALL, random.Random(11))
    second = Search(copy.deepcopy(view), list(coins), SMALL, random.Random(11))
    assert first.run() is second.run()
    assert {k: c.visits for k, c in first.root.children.items()} == {
        k: c.visits for k, c in second.root.children.items()
    }
    assert choose_action(view, coins, SMALL, 5) is choose_action(view, coins, SMALL, 5)
    # The seed matters: some other seed chooses differently.
    chosen = {choose_action(view, coins, SMALL, seed).id for seed in range(8)}
    assert len(chosen) > 1


def test_a_single_legal_action_is_returned_at_once() -> None:
    state = mid_game(2, 1)
    data = position.to_json(state)
    data.update(phase="take_offer", offer=["meat"])
    only = position.from_json(data)
    [action] = legal_actions(only)
    s = Search(
        player_view(only, only.current_player),
        list(only.coins),
        SearchConfig(iterations=5000),
        random.Random(0),
    )
    assert s.run() is action
    assert s.iterations == 0
    assert s.root.visits == 0 and not s.root.children


# --- fairness ----------------------------------------------------------------------------------------


def played_to_the_middle(players: int, seed: int, seat: int) -> tuple[GameState, CoinTracker]:
    """A hidden-money main-phase state with face-down squares left where ``seat`` is to move, and that
    seat's coin tracker fed from the game's public history."""
    tracker = CoinTracker(players)
    steps = list(random_game(players, seed))
    for n, step in enumerate(steps):
        if step.action is not None:
            assert step.actor is not None
            tracker.observe(player_view(step.state, seat), step.actor, step.action)
        state = step.state
        if (
            n >= len(steps) // 3
            and state.current_player == seat
            and state.phase == MAIN
            and state.status != FINAL_ROUND
            and len({k for k in state.face_down if k >= 0}) > 1
            and len(set(state.bag)) > 1
            and len(legal_actions(state)) > 3
        ):
            return state, tracker
    raise AssertionError("no suitable position")


def hidden_twin(state: GameState, seat: int) -> GameState:
    """The same position with every hidden part changed: face-down identities, bag and deck order, an
    opponent's coins (money is hidden) and the engine's random state."""
    data = position.to_json(state)
    squares = [q for q, c in data["market"].items() if "face_down" in c]
    a = squares[0]
    b = next(q for q in squares if data["market"][q]["face_down"] != data["market"][a]["face_down"])
    data["market"][a], data["market"][b] = data["market"][b], data["market"][a]
    bag = data["bag"]
    rotated = bag[1:] + bag[:1]
    shift = 1
    while rotated == bag:
        shift += 1
        rotated = bag[shift:] + bag[:shift]
    data["bag"] = rotated
    for level, deck in data["decks"].items():
        if len({tuple(t) for t in deck}) > 1:
            data["decks"][level] = deck[::-1] if deck[::-1] != deck else deck[1:] + deck[:1]
            break
    opponent = (seat + 1) % state.players
    data["coins"][opponent] += 5
    data["rng"] = (data["rng"] + 12345) % 2**64
    return position.from_json(data)


@pytest.mark.parametrize(("players", "seed", "seat"), [(2, 3, 1), (3, 6, 0), (4, 9, 2)])
def test_decisions_are_the_same_for_states_with_the_same_view(players: int, seed: int, seat: int) -> None:
    state, tracker = played_to_the_middle(players, seed, seat)
    twin = hidden_twin(state, seat)
    assert twin != state
    assert twin.face_down != state.face_down and twin.bag != state.bag
    assert twin.decks != state.decks and twin.coins != state.coins
    view, twin_view = player_view(state, seat), player_view(twin, seat)
    assert view == twin_view
    # The seat's picture of everyone's coins comes from the public history alone.
    coins = tracker.completed(view)["coins"]
    assert coins == state.coins
    assert tracker.completed(twin_view)["coins"] == coins
    kept = copy.deepcopy(view)
    for seed_ in (0, 1):
        assert choose_action(view, coins, SMALL, seed_) is choose_action(twin_view, coins, SMALL, seed_)
    for name in ("random", "greedy"):
        assert make_bot(name, 4).choose(view, coins) is make_bot(name, 4).choose(twin_view, coins)
    small = MctsBot(SMALL, seed=4)
    assert small.choose(view, coins) is MctsBot(SMALL, seed=4).choose(twin_view, coins)
    assert view == kept, "deciding must not change the view"
    # The view is no blind spot: a visible change (the seat's own coins) does change it.
    visible_change = twin.clone()
    visible_change.coins[seat] += 1
    assert player_view(visible_change, seat) != view


def test_bots_and_the_search_take_a_view_not_a_state() -> None:
    for bot in (RandomBot, GreedyBot, MctsBot):
        assert list(inspect.signature(bot.choose).parameters) == ["self", "view", "coins"]
    assert list(inspect.signature(choose_action).parameters) == ["view", "coins", "config", "seed"]
    assert list(inspect.signature(Search).parameters) == ["view", "coins", "config", "rng"]
    for name in BOT_NAMES:
        assert list(inspect.signature(make_bot(name).choose).parameters) == ["view", "coins"]


# --- legal actions at every level ---------------------------------------------------------------------


def positions_for_every_player_count() -> list[GameState]:
    out: list[GameState] = []
    for players, seed, money in ((2, 1, "hidden"), (3, 2, "public"), (4, 3, "hidden")):
        out += interesting_positions(players, seed, money)
    return out


POSITIONS = positions_for_every_player_count()


def legal_ids(state: GameState) -> set[int]:
    return {a.id for a in legal_actions(state)}


@pytest.mark.parametrize("level", list(LEVELS))
def test_every_level_with_a_small_budget_returns_a_legal_action(level: str) -> None:
    config = dataclasses.replace(LEVELS[level], iterations=20, seconds=None)
    for n, state in enumerate(POSITIONS):
        seat = state.current_player
        view = player_view(state, seat)
        action = choose_action(view, list(state.coins), config, n)
        assert action.id in legal_ids(state), f"{action} at {n}"


@pytest.mark.parametrize("name", ["random", "greedy", "mcts:easy"])
def test_every_bot_returns_a_legal_action(name: str) -> None:
    positions = POSITIONS if name != "mcts:easy" else POSITIONS[::3]
    for n, state in enumerate(positions):
        bot = make_bot(name, n)
        seat = state.current_player
        # Coins as an online bot knows them: visible ones from the view, the rest reconstructed (here: true).
        action = bot.choose(player_view(state, seat), list(state.coins))
        assert action.id in legal_ids(state), f"{name}: {action} at {n}"


def test_bots_play_whole_games_with_legal_actions() -> None:
    for players in (2, 3):
        state = next(random_game(players, 21)).state
        bots = [make_bot("greedy", 1), make_bot("random", 2), MctsBot(SearchConfig(iterations=8), seed=3)]
        while not state.is_terminal:
            seat = state.current_player
            action = bots[seat].choose(player_view(state, seat), list(state.coins))
            assert action.id in legal_ids(state)
            apply_unchecked(state, action)


def test_make_bot_knows_its_names() -> None:
    assert make_bot("random").name == "random"
    assert make_bot("greedy").name == "greedy"
    for level in LEVELS:
        bot = make_bot(f"mcts:{level}")
        assert isinstance(bot, MctsBot) and bot.config == LEVELS[level]
    for bad in ("mcts:impossible", "mcts", "alphazero", ""):
        with pytest.raises(ValueError):
            make_bot(bad)


@pytest.mark.parametrize("level", ["easy", "medium", pytest.param("hard", marks=pytest.mark.slow)])
def test_each_real_level_returns_a_legal_action_mid_game(level: str) -> None:
    state = mid_game(3, 12)
    view = player_view(state, state.current_player)
    action = choose_action(view, list(state.coins), LEVELS[level], 1)
    assert action.id in legal_ids(state)


# --- strength -----------------------------------------------------------------------------------------


def last_turn(players: int, seed: int) -> GameState | None:
    """The main phase of the game's very last turn, if the game ends by its final round."""
    for step in random_game(players, seed):
        s = step.state
        if s.status == FINAL_ROUND and s.final_turns_left == 1 and s.phase == MAIN:
            return s
    return None


def exact_reward(state: GameState, action_id: int, seat: int) -> float:
    """After the last turn's action the game is decided: hidden parts no longer matter."""
    played = state.clone()
    apply_unchecked(played, next(a for a in legal_actions(played) if a.id == action_id))
    while not played.is_terminal:
        apply_unchecked(played, legal_actions(played)[0])
    assert played.result is not None
    return rewards(played.result, "margin")[seat]


def test_search_finds_the_best_last_move() -> None:
    """On the last turn every action's reward is exact; a few hundred iterations find the best one."""
    found, tried = 0, 0
    for players in (2, 3, 4):
        for seed in range(4):
            state = last_turn(players, seed)
            if state is None:
                continue
            seat = state.current_player
            values = {a.id: exact_reward(state, a.id, seat) for a in legal_actions(state)}
            if len(set(values.values())) == 1:
                continue
            _, chosen = search(state, SearchConfig(iterations=300, reward="margin"))
            tried += 1
            found += values[chosen] == max(values.values())
            assert values[chosen] > sorted(values.values())[len(values) // 2 - 1] or values[chosen] == max(
                values.values()
            ), "the chosen last move is worse than most"
    assert tried >= 8
    assert found >= 0.8 * tried
