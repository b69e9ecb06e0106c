"""OpenSpiel's search bots as arena seats: ``openspiel-ismcts:N`` (OpenSpiel's IS-MCTS) and
``openspiel-mcts:N`` (OpenSpiel's MCTS on one determinization), N simulations a move, each leaf valued
by one uniformly random rollout.

Like every arena bot, one decides from its seat's view and the coins known from the public history:
it searches from a state drawn from that view, never from the true position. IS-MCTS then redraws
the hidden parts every simulation (``resample_from_infostate``); MCTS keeps the one draw.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from server.games.mercado import Action, View, action_by_id

from .game import MercadoGame, MercadoState

KINDS = ("openspiel-ismcts", "openspiel-mcts")
# OpenSpiel's examples' exploration constant, for rewards in [-1, 1].
UCT_C = 2.0


class OpenSpielBot:
    """One of KINDS, with ``simulations`` a move; the arena's ``Bot`` (``ai.bots``)."""

    def __init__(self, kind: str, simulations: int, name: str, seed: int = 0) -> None:
        self.name = name
        self.kind = kind
        self.simulations = simulations
        self.rng = np.random.RandomState(seed % 2**31)
        self.sampler = pyspiel.UniformProbabilitySampler(seed % 2**31, 0.0, 1.0)
        self.searches: dict[str, tuple[MercadoGame, Any]] = {}

    def choose(self, view: View, coins: list[int]) -> Action:
        game, bot = self._search(view["options"])
        state = game.state_from_view(view, coins, random.Random(int(self.rng.randint(2**31))))
        return action_by_id(int(bot.step(state)))

    def _search(self, options: dict[str, Any]) -> tuple[MercadoGame, Any]:
        """The game of these options and the OpenSpiel bot searching it, made once."""
        key = repr(sorted(options.items()))
        if key not in self.searches:
            game = MercadoGame(options)
            evaluator = mcts.RandomRolloutEvaluator(1, self.rng)
            if self.kind == "openspiel-ismcts":
                bot = ismcts.ISMCTSBot(game, evaluator, UCT_C, self.simulations, random_state=self.rng)
                bot.set_resampler(self._resample)
            else:
                bot = mcts.MCTSBot(game, UCT_C, self.simulations, evaluator, random_state=self.rng)
            self.searches[key] = game, bot
        return self.searches[key]

    def _resample(self, state: MercadoState, player: int) -> MercadoState:
        # The bot's own sampler (OpenSpiel's default is seeded from the clock): games replay exactly.
        return state.resample_from_infostate(player, self.sampler)


def openspiel_bot(spec: str, seed: int = 0) -> OpenSpielBot:
    """``openspiel-ismcts:N`` or ``openspiel-mcts:N`` (N simulations a move)."""
    kind, _, count = spec.partition(":")
    if kind not in KINDS or not count.isdigit() or int(count) < 1:
        raise ValueError(f"unknown bot {spec!r}; OpenSpiel's are {', '.join(k + ':N' for k in KINDS)}")
    return OpenSpielBot(kind, int(count), spec, seed)
