"""Information Set MCTS over any game's interface (``server/games/interface.py``), from one seat's view.

The search knows only the view: it draws one position consistent with it
(``rules.determinize``), and each iteration redraws that position's hidden
parts as the seat sees them (``rules.sample``), so the decision depends on the
view and the seed alone. The iterations share one tree whose nodes are steps
of the game reached by the same choices. The seats to move at a node choose
independently, each from its own statistics there (decoupled UCT, with
availability counts): at a sealed step no seat's choice in the tree depends on
another's sealed choice of that step, which it could not see. A node's
children are keyed by the step's joint choice. Every seat maximises its own
reward (max^n). Play-outs are random and stop after ``playout_steps`` steps, where the
position is judged by ``rules.score_now``, or by ``rules.estimated_scores`` (what the game
expects of the rest). In the tree and the play-outs alike a seat weighs its
``rules.search_actions``: its legal actions, less those the game knows are never worth a look
(Oregano's idle moves).

The seat plays its most visited action, except at a simultaneous step: there a
choice that can be foreseen can be exploited, so the seat plays a mixed
strategy, its action drawn from the root's statistics (:func:`played`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from server.games.registry import AnyGame

from .mcts import UNTRIED, Tally, margins, within_budget

Key = TypeVar("Key", bound=Hashable)  # an action, or what stands for it (ai/parallel.py)


@dataclass(frozen=True)
class SearchConfig:
    """A search budget and its parameters. With ``seconds=None`` the search is deterministic for a seed."""

    iterations: int = 400
    seconds: float | None = None
    exploration: float = 0.7
    # Random steps played out before the position is scored as it stands.
    playout_steps: int = 20
    # Score it by what the game expects of the rest (``rules.estimated_scores``), not as it stands.
    estimate: bool = False
    # A score margin of this many points is worth most of the reward.
    margin_scale: float = 10.0
    # At a simultaneous step the action is drawn from those tried at the root, with odds exp(value /
    # temperature), its value its mean reward less ``doubt`` / sqrt(its visits): 0.02 is about 0.4 points
    # of margin near an even game (docs/ai.md, "Choices nobody can foresee"). None: the most visited, as
    # at every other step.
    temperature: float | None = 0.02
    doubt: float = 0.5
    # Weigh every legal action, not only the game's search_actions (the yardstick of what these leave out).
    every_action: bool = False


class Arm:
    """One seat's statistics for one of its actions at one node."""

    __slots__ = ("available", "total", "visits")

    def __init__(self) -> None:
        self.visits = 0
        self.available = 0
        self.total = 0.0


class Node:
    """A step of the game: each mover's arms, and the children by joint choice."""

    __slots__ = ("arms", "children")

    def __init__(self) -> None:
        self.arms: dict[int, dict[Hashable, Arm]] = {}
        self.children: dict[tuple[Hashable, ...], Node] = {}


def ranks_of(scores: Sequence[float]) -> list[int]:
    """1-based ranks by score, equal scores sharing a place."""
    return [1 + sum(other > score for other in scores) for score in scores]


def rewards(scores: Sequence[float], ranks: Sequence[int], scale: float) -> list[float]:
    """Each seat's reward in [0, 1]: its margin over the best other seat, squashed, a half point
    added for a first place."""
    return [
        0.5 + 0.5 * math.tanh((margin + (0.5 if rank == 1 else 0.0)) / scale)
        for margin, rank in zip(margins(scores), ranks, strict=True)
    ]


class Search:
    """One decision of ``seat``: a tree grown from its view."""

    def __init__(
        self, rules: AnyGame, view: Mapping[str, Any], config: SearchConfig, rng: random.Random
    ) -> None:
        self.rules = rules
        self.actions = rules.legal_actions if config.every_action else rules.search_actions
        self.seat: int = view["seat"]
        self.config = config
        self.rng = rng
        self.base = rules.determinize(view, rng)
        self.root = Node()
        self.iterations = 0

    def run(self) -> Any:
        """Search within the budget and return the seat's most visited action."""
        actions = self.actions(self.base, self.seat)
        if not actions:
            raise ValueError(f"seat {self.seat} has nothing to do in this view")
        if len(actions) == 1:
            return actions[0]
        within_budget(self.config.iterations, self.config.seconds, self.iterate)
        return most_visited(self.root_tallies())

    def root_tallies(self) -> dict[Any, Tally]:
        """The root's tally of each action the seat weighs (``rules.search_actions``: its legal actions
        but those never worth a look), in the order of the legal actions."""
        arms = self.root.arms.get(self.seat, {})
        return {
            a: Tally(arms[a].visits, arms[a].total) if a in arms else UNTRIED
            for a in self.actions(self.base, self.seat)
        }

    def iterate(self) -> int:
        """Sample a world, select down to a new node, play out, back up; how many iterations have run."""
        rules, rng = self.rules, self.rng
        state = rules.sample(self.base, self.seat, rng)
        node = self.root
        path: list[tuple[Node, list[tuple[int, Hashable]]]] = []
        while not rules.is_over(state):
            movers = sorted(rules.to_move(state))
            joint = [(seat, self.select(node, seat, self.actions(state, seat))) for seat in movers]
            for seat, action in joint:
                rules.apply_unchecked(state, seat, action)
            path.append((node, joint))
            key = tuple(action for _, action in joint)
            child = node.children.get(key)
            if child is None:
                node.children[key] = Node()
                break
            node = child
        reward = self.playout(state)
        for visited, joint in path:
            for seat, action in joint:
                arm = visited.arms[seat][action]
                arm.visits += 1
                arm.total += reward[seat]
        self.iterations += 1
        return self.iterations

    def select(self, node: Node, seat: int, actions: list[Any]) -> Any:
        """``seat``'s choice at ``node`` from its own arms: an untried action first, else UCB1 with
        availability counts."""
        arms = node.arms.setdefault(seat, {})
        untried = []
        for action in actions:
            arm = arms.get(action)
            if arm is None:
                arm = arms[action] = Arm()
            arm.available += 1
            if not arm.visits:
                untried.append(action)
        if untried:
            return untried[self.rng.randrange(len(untried))]
        exploration = self.config.exploration
        best, best_score = actions[0], -1.0
        for action in actions:
            arm = arms[action]
            score = arm.total / arm.visits + exploration * math.sqrt(math.log(arm.available) / arm.visits)
            if score > best_score:
                best, best_score = action, score
        return best

    def playout(self, state: Any) -> list[float]:
        """Random steps to the end or the step limit; each seat's reward there."""
        rules, randrange = self.rules, self.rng.randrange
        for _ in range(self.config.playout_steps):
            if rules.is_over(state):
                break
            for seat in sorted(rules.to_move(state)):
                actions = self.actions(state, seat)
                rules.apply_unchecked(state, seat, actions[randrange(len(actions))])
        outcome = rules.outcome(state)
        if outcome is not None:
            return rewards(outcome.scores, outcome.ranks, self.config.margin_scale)
        scores = rules.estimated_scores(state) if self.config.estimate else rules.score_now(state)
        return rewards(scores, ranks_of(scores), self.config.margin_scale)


def simultaneous(rules: AnyGame, state: Any) -> bool:
    """Whether several seats choose in ``state``'s step, sealed from each other (some may have already)."""
    return len(rules.to_move(state) | rules.sealed(state)) > 1


def played(rules: AnyGame, state: Any, tallies: Mapping[Key, Tally], config: SearchConfig, seed: int) -> Key:
    """The action a decision seeded ``seed`` plays in ``state``, from its searches' root ``tallies`` (in
    the order of the legal actions): at a simultaneous step with a temperature, a mixed strategy, drawn
    from the actions tried with odds growing exponentially with a lower bound of their mean reward (a few
    lucky play-outs do not make an action likely), by a stream of its own (the searches draw from
    ``seed + i``); else the most visited, the first of equals."""
    if config.temperature is not None and len(tallies) > 1 and simultaneous(rules, state):
        odds = mixed_odds(tallies, config.temperature, config.doubt)
        return random.Random(f"{seed}:choice").choices(list(odds), list(odds.values()))[0]
    return most_visited(tallies)


def mixed_odds(tallies: Mapping[Key, Tally], temperature: float, doubt: float) -> dict[Key, float]:
    """The odds of each action tried at the root in the mixed strategy: ``exp((value - best value) /
    temperature)``, an action's value its mean reward less ``doubt`` / sqrt(its visits)."""
    values = {
        key: tally.total / tally.visits - doubt / math.sqrt(tally.visits)
        for key, tally in tallies.items()
        if tally.visits
    }
    best = max(values.values())
    return {key: math.exp((value - best) / temperature) for key, value in values.items()}


def most_visited(tallies: Mapping[Key, Tally]) -> Key:
    """The action with the most visits; of equals, the first (in the order of the legal actions)."""
    return max(tallies, key=lambda key: tallies[key].visits)


def choose_action(rules: AnyGame, view: Mapping[str, Any], config: SearchConfig, seed: int) -> Any:
    """The searched action for the seat whose view this is (it must be to move)."""
    search = Search(rules, view, config, random.Random(seed))
    search.run()
    return played(rules, search.base, search.root_tallies(), config, seed)
