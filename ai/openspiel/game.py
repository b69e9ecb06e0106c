"""Mercado de Lisboa as an OpenSpiel game (``pyspiel.load_game("mercado", {...})``): docs/openspiel.md.

The state wraps the rules engine's own state (``server.games.mercado``); OpenSpiel's action ids are
the engine's action ids. Chance is sampled, not explicit: set-up draws its shuffles from the game's
random stream, and every later draw (from the bag, the customer decks) follows from that set-up and
the actions.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import pyspiel

from ai.mcts import margins
from server.games.mercado import (
    GOOD_INDEX,
    N_ACTIONS,
    RESTAURANT_INDEX,
    Determinizer,
    Event,
    GameState,
    Options,
    action_by_id,
    apply_unchecked,
    components,
    customer_kind,
    legal_actions,
    new_game,
    player_view,
    position,
)

from .observer import CUSTOMER_NAMES, MercadoObserver

NAME = "mercado"
REWARDS = ("ranks", "margin")
DEFAULTS: dict[str, Any] = {
    "players": 2,
    "money": "hidden",
    "face_down_counts_as_available": True,
    "reward": "ranks",
    "rng_seed": 0,
}

# Bounds on a game, from the components: every turn that does not take a coin fills a square or an
# entrance for good, and a run of coin turns ends the game at its fourth turn at the latest.
_SQUARES = len(components.COLUMNS) * len(components.ROWS)
_PLACEMENTS = _SQUARES + 4 * components.SIZE  # squares, then entrances
_COIN_RUN = 4
# A placing turn is at most four decisions (redraw, open a stand, refresh the offer, take from it);
# any other turn at most two (redraw, then the action).
MAX_GAME_LENGTH = 4 * _PLACEMENTS + 2 * ((_PLACEMENTS + 1) * (_COIN_RUN - 1) + 1)
# The most any placement pays one player: four customers a tile, a stand worth 1 + 4 neighbours, and
# five stands in a line (a stand opening is paid by four entrances at most, which is less).
_MOST_INCOME = 4 * (1 + 4) * components.SIZE
MAX_SCORE = components.STARTING_COINS + _PLACEMENTS * _MOST_INCOME + MAX_GAME_LENGTH
MIN_SCORE = -len(components.BOARD_RESTAURANTS) - 1  # every restaurant (and the set-aside pub) in hand


def game_type(utility: pyspiel.GameType.Utility = pyspiel.GameType.Utility.ZERO_SUM) -> pyspiel.GameType:
    """The game's type; its utility is general-sum only for the margin reward with more than two players."""
    return pyspiel.GameType(
        short_name=NAME,
        long_name="Mercado de Lisboa",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=components.MAX_PLAYERS,
        min_num_players=components.MIN_PLAYERS,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=DEFAULTS,
    )


GAME_TYPE = game_type()


class Step(NamedTuple):
    """One decision of the public history, with what it showed of the hidden stock."""

    actor: int
    action: int  # the engine's action id
    drawn_goods: tuple[int, ...]  # stand tiles drawn from the bag into a hand or the offer, sorted
    returned_goods: tuple[int, ...]  # stand tiles put back into the bag, sorted
    restaurant: int  # the face-down restaurant it turned up, or -1
    customer: int  # the customer tile it drew into the display, or -1

    def text(self) -> str:
        line = f"{self.actor}: {action_by_id(self.action)}"
        if self.drawn_goods:
            line += " drew " + "+".join(components.GOODS[g] for g in self.drawn_goods)
        if self.returned_goods:
            line += " returned " + "+".join(components.GOODS[g] for g in self.returned_goods)
        if self.restaurant >= 0:
            line += " revealed " + components.RESTAURANTS[self.restaurant]
        if self.customer >= 0:
            line += " refilled " + CUSTOMER_NAMES[self.customer]
        return line


def step_of(actor: int, action: int, events: list[Event]) -> Step:
    """The history step of an action, from the events it caused."""
    drawn: list[int] = []
    returned: list[int] = []
    restaurant = customer = -1
    for event in events:
        kind = event["type"]
        if kind in ("hand_redrawn", "offer_refreshed"):
            drawn += [GOOD_INDEX[g] for g in event["drawn"]]
            returned += [GOOD_INDEX[g] for g in event["returned"]]
        elif kind == "offer_refilled":
            drawn.append(GOOD_INDEX[event["good"]])
        elif kind == "restaurant_taken":
            restaurant = RESTAURANT_INDEX[event["restaurant"]]
        elif kind == "display_refilled":
            a, b = (GOOD_INDEX[g] for g in event["goods"])
            customer = customer_kind(event["level"], (a, b))
    return Step(actor, action, tuple(sorted(drawn)), tuple(sorted(returned)), restaurant, customer)


class Play:
    """What a state holds on the Python side: the engine's state (set up from ``seed`` when first
    needed) and the public history."""

    __slots__ = ("_engine", "options", "seed", "steps")

    def __init__(
        self, options: Options, seed: int, steps: list[Step], engine: GameState | None = None
    ) -> None:
        self.options = options
        self.seed = seed
        self.steps = steps
        self._engine = engine

    @property
    def engine(self) -> GameState:
        # OpenSpiel clones a Python state by making a new initial state and overwriting its attributes:
        # a set-up made lazily costs nothing there.
        if self._engine is None:
            self._engine = new_game(self.options, self.seed)
        return self._engine

    def __deepcopy__(self, memo: dict[int, Any]) -> Play:
        # OpenSpiel deep-copies a Python state's attributes: the engine's own clone is far cheaper.
        engine = None if self._engine is None else self._engine.clone()
        return Play(self.options, self.seed, self.steps[:], engine)


class MercadoGame(pyspiel.Game):  # type: ignore[misc]
    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        values = {**DEFAULTS, **(params or {})}
        if values["reward"] not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}")
        self.options = Options(
            players=values["players"],
            money=values["money"],
            face_down_counts_as_available=values["face_down_counts_as_available"],
        )
        self.reward = values["reward"]
        players = self.options.players
        margin = self.reward == "margin"
        zero_sum = not margin or players == 2
        utility = pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM
        spread = MAX_SCORE - MIN_SCORE
        info = pyspiel.GameInfo(
            num_distinct_actions=N_ACTIONS,
            max_chance_outcomes=0,
            num_players=players,
            min_utility=float(-spread if margin else -1),
            max_utility=float(spread if margin else 1),
            utility_sum=0.0 if zero_sum else None,
            max_game_length=MAX_GAME_LENGTH,
        )
        super().__init__(game_type(utility), info, dict(values))
        self.setups = random.Random(values["rng_seed"])

    def new_initial_state(self) -> MercadoState:
        """A new game, set up from the next seed of the game's random stream."""
        return MercadoState(self, Play(self.options, self.setups.getrandbits(63), []))

    def state_from_view(self, view: dict[str, Any], coins: list[int], rng: random.Random) -> MercadoState:
        """A state consistent with a seat's view and every seat's coins, the hidden parts drawn from
        ``rng``: where a bot that holds only a view starts its search (it has no history)."""
        return MercadoState(self, Play(self.options, 0, [], Determinizer(view, coins).sample(rng)))

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Any = None
    ) -> MercadoObserver:
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return MercadoObserver(self.options.players, MAX_GAME_LENGTH if perfect_recall else 0)


class MercadoState(pyspiel.State):  # type: ignore[misc]
    def __init__(self, game: MercadoGame, play: Play) -> None:
        super().__init__(game)
        self.play = play

    @property
    def engine(self) -> GameState:
        """The rules engine's state, hidden parts included."""
        return self.play.engine

    def current_player(self) -> int:
        engine = self.play.engine
        return pyspiel.PlayerId.TERMINAL if engine.is_terminal else engine.current

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(action.id for action in legal_actions(self.play.engine))

    def _apply_action(self, action: int) -> None:
        engine = self.play.engine
        actor = engine.current
        events: list[Event] = []
        apply_unchecked(engine, action_by_id(action), events)
        self.play.steps.append(step_of(actor, action, events))

    def _action_to_string(self, player: int, action: int) -> str:
        return str(action_by_id(action))

    def is_terminal(self) -> bool:
        return self.play.engine.is_terminal

    def returns(self) -> list[float]:
        result = self.play.engine.result
        if result is None:
            return [0.0] * self.play.engine.players
        if self.get_game().reward == "margin":
            return [float(m) for m in margins(result.scores)]
        return rank_rewards(result.ranks)

    def resample_from_infostate(self, player: int, sampler: Any) -> MercadoState:
        """A state ``player`` cannot tell from this one, the hidden parts (face-down restaurants, the
        bag's and the customer decks' order) drawn by the engine's own sampler. Every seat's coins
        follow from the public history, so they are the same in every such state."""
        engine = self.play.engine
        rng = random.Random(int(sampler() * 2**53))
        sample = Determinizer(player_view(engine, player), list(engine.coins)).sample(rng)
        state = self.get_game().new_initial_state()
        state.play = Play(engine.options, self.play.seed, self.play.steps[:], sample)
        return state  # type: ignore[no-any-return]

    def view(self, player: int) -> dict[str, Any]:
        """What ``player`` may see now (the engine's view, without its list of legal actions)."""
        view = player_view(self.play.engine, player)
        view.pop("legal_actions", None)
        return view

    def public_history(self) -> Sequence[Step]:
        return self.play.steps

    def __str__(self) -> str:
        return json.dumps(position.to_json(self.play.engine), separators=(",", ":"))


def rank_rewards(ranks: Sequence[int]) -> list[float]:
    """Each player's share of the others it beat less the share that beat it: 1 for a sole winner,
    -1 for a sole loser, 0 in a tie with everyone; the rewards sum to 0."""
    others = len(ranks) - 1
    return [(sum(r > rank for r in ranks) - sum(r < rank for r in ranks)) / others for rank in ranks]
