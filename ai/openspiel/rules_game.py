"""Any game of the service's interface (``server/games/interface.py``) as an OpenSpiel game: Oregano and
Leilão (docs/openspiel.md). Mercado has its own wrapper (``game.py``), kept for its history tensor.

The state wraps the rules engine's own state and plays every action through the rules (checked), so
the rules are never written twice. A game declares its actions in a fixed catalogue, whose positions
are OpenSpiel's action ids. In a game with sealed steps (``SIMULTANEOUS`` dynamics), a step with
several seats to move is a simultaneous node: ``apply_actions`` gives each of them its action, in
seat order, and the engine reveals them together at the last one; a seat not in the step has no
legal action (OpenSpiel's convention: it is passed 0). Chance is sampled, as in Mercado: the set-up
comes from a seed of the game's random stream, and the engine's state carries every later draw.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import pyspiel

from ai.mcts import margins
from server.games.registry import AnyGame

from .game import REWARDS, rank_rewards

Layout = list[tuple[str, tuple[int, ...]]]
Pieces = dict[str, "np.ndarray[Any, np.dtype[np.float32]]"]


def game_type(
    name: str,
    long_name: str,
    dynamics: pyspiel.GameType.Dynamics,
    chance_mode: pyspiel.GameType.ChanceMode,
    players: tuple[int, int],
    parameters: Mapping[str, Any],
    utility: pyspiel.GameType.Utility = pyspiel.GameType.Utility.ZERO_SUM,
) -> pyspiel.GameType:
    """A wrapped game's type: imperfect information, rewards at the end (zero-sum but for margins
    with more than two players)."""
    return pyspiel.GameType(
        short_name=name,
        long_name=long_name,
        dynamics=dynamics,
        chance_mode=chance_mode,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=players[1],
        min_num_players=players[0],
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(parameters),
    )


class Catalogue:
    """Every action a game can have, numbered: OpenSpiel's action ids."""

    def __init__(self, actions: Sequence[Hashable]) -> None:
        self.actions = tuple(actions)
        self.ids = {action: i for i, action in enumerate(self.actions)}
        if len(self.ids) != len(self.actions):
            raise ValueError("a catalogue lists each action once")

    def __len__(self) -> int:
        return len(self.actions)


class Step(NamedTuple):
    """One decision (or one simultaneous step): each seat's text of the events as that seat saw them."""

    seen: tuple[str, ...]


class Play:
    """What a state holds on the Python side: the engine's state (None until first needed: the set-up
    of ``seed``) and the steps so far."""

    __slots__ = ("engine", "seed", "steps")

    def __init__(self, seed: int, steps: list[Step], engine: Any | None = None) -> None:
        self.seed = seed
        self.steps = steps
        self.engine = engine

    def __deepcopy__(self, memo: dict[int, Any]) -> Play:
        # OpenSpiel clones a Python state by making a new initial state and deep-copying the
        # attributes onto it (so a set-up made lazily costs nothing there): the engine's own clone is
        # far cheaper than a deep copy.
        return Play(self.seed, self.steps[:], None if self.engine is None else self.engine.clone())


def utility(reward: str, players: int) -> pyspiel.GameType.Utility:
    """Rank rewards always sum to 0; margins (over the best other seat) only with two players."""
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {', '.join(REWARDS)}")
    zero_sum = reward == "ranks" or players == 2
    return pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM


class RulesGame(pyspiel.Game):  # type: ignore[misc]
    """A game of the interface; a subclass gives its rules, catalogue, set-up and tensor layout.

    ``reward``: ``ranks`` (``game.rank_rewards``) or, for a game that bounds its scores
    (``score_range``), ``margin``: each seat's final score less the best of the others'."""

    rules: AnyGame

    def __init__(
        self,
        kind: pyspiel.GameType,
        params: Mapping[str, Any],
        options: Mapping[str, Any],
        catalogue: Catalogue,
        max_game_length: int,
        score_range: tuple[int, int] | None = None,
    ) -> None:
        self.options = options
        self.players: int = options["players"]
        self.catalogue = catalogue
        self.reward: str = params.get("reward", "ranks")
        spread = 1
        if self.reward == "margin":
            if score_range is None:
                raise ValueError("reward must be ranks in this game")
            spread = score_range[1] - score_range[0]
        info = pyspiel.GameInfo(
            num_distinct_actions=len(catalogue),
            max_chance_outcomes=0,
            num_players=self.players,
            min_utility=float(-spread),
            max_utility=float(spread),
            utility_sum=0.0 if kind.utility == pyspiel.GameType.Utility.ZERO_SUM else None,
            max_game_length=max_game_length,
        )
        super().__init__(kind, info, dict(params))
        self.setups = random.Random(params["rng_seed"])
        self.simultaneous = kind.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS

    def set_up(self, seed: int) -> Any:
        """The engine's state at the start of the game of ``seed``."""
        return self.rules.new_game(self.options, seed)

    def next_seed(self) -> int:
        """The seed of the next game's set-up: the next of the game's random stream."""
        return self.setups.getrandbits(63)

    def new_initial_state(self) -> RulesState:
        return RulesState(self, Play(self.next_seed(), []))

    def view_layout(self) -> Layout:
        """The named pieces of the observation tensor, in order."""
        raise NotImplementedError

    def fill(self, pieces: Pieces, view: Mapping[str, Any]) -> None:
        """Write a seat's view into the (zeroed) pieces of its observation tensor."""
        raise NotImplementedError

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Any = None
    ) -> ViewObserver:
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return ViewObserver(self, perfect_recall)


class RulesState(pyspiel.State):  # type: ignore[misc]
    def __init__(self, game: RulesGame, play: Play) -> None:
        super().__init__(game)
        self.play = play

    @property
    def engine(self) -> Any:
        """The rules engine's state, hidden parts included."""
        if self.play.engine is None:
            self.play.engine = self.game().set_up(self.play.seed)
        return self.play.engine

    def game(self) -> RulesGame:
        return self.get_game()  # type: ignore[no-any-return]

    def movers(self) -> list[int]:
        """The seats to move now, in seat order."""
        return sorted(self.game().rules.to_move(self.engine))

    def current_player(self) -> int:
        movers = self.movers()
        if not movers:
            return int(pyspiel.PlayerId.TERMINAL)
        if len(movers) > 1 and self.game().simultaneous:
            return int(pyspiel.PlayerId.SIMULTANEOUS)
        return movers[0]

    def _legal_actions(self, player: int) -> list[int]:
        game = self.game()
        ids = game.catalogue.ids
        return sorted(ids[action] for action in game.rules.legal_actions(self.engine, player))

    def _apply_action(self, action: int) -> None:
        self._play({self.movers()[0]: action})

    def _apply_actions(self, actions: Sequence[int]) -> None:
        self._play({seat: actions[seat] for seat in self.movers()})

    def _play(self, actions: Mapping[int, int]) -> None:
        """Each seat's action, in seat order, through the rules (checked); the step's events kept as
        each seat saw them."""
        game = self.game()
        rules, engine = game.rules, self.engine
        events = []
        for seat, action in sorted(actions.items()):
            events += rules.apply(engine, seat, game.catalogue.actions[action])
        seen = tuple(
            json.dumps(rules.events_for(engine, events, seat), separators=(",", ":"))
            for seat in range(game.players)
        )
        self.play.steps.append(Step(seen))

    def _action_to_string(self, player: int, action: int) -> str:
        return str(self.game().rules.action_text(self.game().catalogue.actions[action]))

    def is_terminal(self) -> bool:
        return bool(self.game().rules.is_over(self.engine))

    def returns(self) -> list[float]:
        game = self.game()
        outcome = game.rules.outcome(self.engine)
        if outcome is None:
            return [0.0] * game.players
        if game.reward == "margin":
            return [float(margin) for margin in margins(outcome.scores)]
        return rank_rewards(outcome.ranks)

    def view(self, player: int) -> dict[str, Any]:
        """What ``player`` may see now: the rules' view, with its legal actions when it is to move."""
        return dict(self.game().rules.view(self.engine, player))

    def seen_steps(self, player: int) -> list[str]:
        """Each step's events as ``player`` saw them, as JSON lines."""
        return [step.seen[player] for step in self.play.steps]

    def resample_from_infostate(self, player: int, sampler: Any) -> RulesState:
        """A state ``player`` cannot tell from this one: the parts hidden from it redrawn by the
        rules' own sampler (``rules.sample``), from ``sampler()`` (OpenSpiel's sampler)."""
        game = self.game()
        rng = random.Random(int(sampler() * 2**53))
        sample = game.rules.sample(self.engine, player, rng)
        return RulesState(game, Play(self.play.seed, self.play.steps[:], sample))

    def __str__(self) -> str:
        return json.dumps(self.game().rules.position_to_json(self.engine), separators=(",", ":"))


class ViewObserver:
    """OpenSpiel's Python observer of a wrapped game: the observation tensor (``tensor``, its named
    pieces in ``dict``) from a seat's view; strings: the view, and for the information state, each
    step's events as the seat saw them."""

    def __init__(self, game: RulesGame, perfect_recall: bool) -> None:
        self.game = game
        self.perfect_recall = perfect_recall
        layout = game.view_layout()
        self.tensor = np.zeros(sum(math.prod(shape) for _, shape in layout), np.float32)
        self.dict: Pieces = {}
        offset = 0
        for name, shape in layout:
            size = math.prod(shape)
            self.dict[name] = self.tensor[offset : offset + size].reshape(shape)
            offset += size

    def set_from(self, state: RulesState, player: int) -> None:
        self.tensor.fill(0.0)
        self.game.fill(self.dict, state.view(player))

    def string_from(self, state: RulesState, player: int) -> str:
        view = state.view(player)
        view.pop("legal_actions", None)
        text = json.dumps(view, separators=(",", ":"))
        if self.perfect_recall:
            text += "".join("\n" + line for line in state.seen_steps(player))
        return text


def one_hot(piece: np.ndarray[Any, Any], index: int | None) -> None:
    """Set ``piece[index]`` to 1 (nothing for None)."""
    if index is not None:
        piece[index] = 1
