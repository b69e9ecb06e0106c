"""Single-observer Information Set MCTS (Cowling, Powley and Whitehouse, 2012) for 2-4 players.

Each iteration samples a determinization consistent with the searching
seat's view and plays it down one shared tree whose nodes are sequences of
public actions, so statistics are shared across determinizations. Selection
is UCT with availability counts (a child's exploration term counts the
iterations in which it was legal, not the parent's visits). Each node keeps
the reward of the player who chose it, so every player maximises their own
reward (max^n).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple, TypeVar

from server.games.mercado import Action, Determinizer, GameState, Result, View, apply_unchecked, legal_actions

from .heuristics import immediate_gain

Reward = Literal["win", "margin"]
# A score margin of this many coins is worth most of the margin reward.
MARGIN_SCALE = 10.0
# How often (in iterations) a time budget is checked.
CLOCK_EVERY = 8


def within_budget(iterations: int, seconds: float | None, iterate: Callable[[], int]) -> None:
    """Call ``iterate`` (which returns how many iterations have run) until ``iterations`` have run,
    or ``seconds`` have passed (looked at every CLOCK_EVERY iterations)."""
    deadline = None if seconds is None else time.perf_counter() + seconds
    done = 0
    while done < iterations:
        done = iterate()
        if deadline is not None and done % CLOCK_EVERY == 0 and time.perf_counter() > deadline:
            break


@dataclass(frozen=True)
class SearchConfig:
    """A search budget and its parameters. With ``seconds=None`` the search is deterministic for a seed."""

    iterations: int = 1000
    seconds: float | None = None
    exploration: float = 0.7
    reward: Reward = "margin"
    # Rollouts play the best immediate gain among this many random legal actions (1: uniformly random).
    rollout_candidates: int = 3


class Tally(NamedTuple):
    """A root action's statistics: how many iterations chose it, and the chooser's total reward over them."""

    visits: int
    total: float


UNTRIED = Tally(0, 0.0)


class Node:
    """Statistics of one action sequence: visits, availability and the chooser's total reward."""

    __slots__ = ("actor", "available", "children", "total", "visits")

    def __init__(self, actor: int) -> None:
        self.actor = actor
        self.visits = 0
        self.available = 1
        self.total = 0.0
        self.children: dict[int, Node] = {}


def win_shares(ranks: Sequence[int]) -> list[float]:
    """1 for a sole winner, 1/k each for a k-way shared first place, 0 for the others."""
    winners = ranks.count(1)
    return [1.0 / winners if rank == 1 else 0.0 for rank in ranks]


Points = TypeVar("Points", int, float)


def margins(scores: Sequence[Points]) -> list[Points]:
    """Each player's score minus the best score of the others."""
    return [score - max(s for q, s in enumerate(scores) if q != p) for p, score in enumerate(scores)]


def rewards(result: Result, reward: Reward) -> list[float]:
    """Each player's reward in [0, 1] for a finished game."""
    if reward == "win":
        return win_shares(result.ranks)
    return [
        0.5 + 0.5 * math.tanh((margin + (0.5 if rank == 1 else 0.0)) / MARGIN_SCALE)
        for margin, rank in zip(margins(result.scores), result.ranks, strict=True)
    ]


def rollout(state: GameState, rng: random.Random, candidates: int) -> None:
    """Play to the end: each move the best immediate gain among ``candidates`` random legal actions."""
    randrange = rng.randrange
    while not state.is_terminal:
        actions = legal_actions(state)
        action = actions[randrange(len(actions))]
        if candidates > 1 and len(actions) > 1:
            best = immediate_gain(state, action)
            for _ in range(candidates - 1):
                other = actions[randrange(len(actions))]
                gain = immediate_gain(state, other)
                if gain > best:
                    action, best = other, gain
        apply_unchecked(state, action)


class Search:
    """One decision: a tree grown from one view."""

    def __init__(self, view: View, coins: list[int], config: SearchConfig, rng: random.Random) -> None:
        self.determinizer = Determinizer(view, coins)
        self.config = config
        self.rng = rng
        self.root = Node(actor=-1)
        self.iterations = 0

    def run(self) -> Action:
        """Search within the budget and return the most visited legal action."""
        actions = legal_actions(self.determinizer.base)
        if len(actions) == 1:
            return actions[0]
        within_budget(self.config.iterations, self.config.seconds, self.iterate)
        children = self.root.children
        return max(actions, key=lambda a: children[a.id].visits if a.id in children else -1)

    def root_tallies(self) -> dict[int, Tally]:
        """The root's tally of each legal action by id, in the order of the legal actions."""
        children = self.root.children
        actions = legal_actions(self.determinizer.base)
        return {
            a.id: Tally(children[a.id].visits, children[a.id].total) if a.id in children else UNTRIED
            for a in actions
        }

    def iterate(self) -> int:
        """Sample a world, select and expand one node, roll out, back up; how many iterations have run."""
        rng = self.rng
        state = self.determinizer.sample(rng)
        node = self.root
        path = [node]
        exploration = self.config.exploration
        while not state.is_terminal:
            actions = legal_actions(state)
            children = node.children
            untried = [a for a in actions if a.id not in children]
            actor = state.current
            if untried:
                action = untried[rng.randrange(len(untried))]
                for a in actions:
                    if a.id in children:
                        children[a.id].available += 1
                child = children[action.id] = Node(actor)
                apply_unchecked(state, action)
                path.append(child)
                break
            best_score = -1.0
            best: tuple[Action, Node] | None = None
            for a in actions:
                child = children[a.id]
                child.available += 1
                score = child.total / child.visits + exploration * math.sqrt(
                    math.log(child.available) / child.visits
                )
                if score > best_score:
                    best_score, best = score, (a, child)
            assert best is not None
            apply_unchecked(state, best[0])
            node = best[1]
            path.append(node)
        rollout(state, rng, self.config.rollout_candidates)
        assert state.result is not None
        reward = rewards(state.result, self.config.reward)
        for visited in path:
            visited.visits += 1
            if visited.actor >= 0:
                visited.total += reward[visited.actor]
        self.iterations += 1
        return self.iterations


def choose_action(view: View, coins: list[int], config: SearchConfig, seed: int) -> Action:
    """The searched action for the seat whose view this is (its turn), with every seat's coins known."""
    return Search(view, coins, config, random.Random(seed)).run()
