"""Mercado de Lisboa behind the games' interface (``server/games/interface.py``): one seat moves at a
time, the current player."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from server.games.interface import Event, GameRules, Outcome, ScoreParts

from . import position
from .actions import Action, action_from_json, parse_action
from .components import MAX_PLAYERS, MIN_PLAYERS
from .errors import IllegalAction
from .options import Options
from .rules import apply, apply_unchecked, legal_actions, why_illegal
from .sampling import Determinizer, determinize
from .scoring import final_result, score_parts
from .setup import new_game
from .state import FINISHED, GameState
from .views import events_for, may_see_coins, player_view

NOT_YOUR_TURN = "it is not your turn"


class Mercado:
    name = "mercado"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    opening_actions = 3  # its first three turns (a turn is one action)

    def options(self, data: Mapping[str, Any]) -> Options:
        return data if isinstance(data, Options) else position.options_from_json(dict(data))

    def new_game(self, options: Mapping[str, Any], seed: int) -> GameState:
        return new_game(self.options(options), seed)

    def to_move(self, state: GameState) -> frozenset[int]:
        return frozenset() if state.status == FINISHED else frozenset({state.current})

    def _moves(self, state: GameState, seat: int) -> bool:
        """Whether ``seat`` is to move: ``to_move`` without building a set, on the apply path."""
        return seat == state.current and state.status != FINISHED

    def sealed(self, state: GameState) -> frozenset[int]:
        return frozenset()  # every turn is taken alone

    def action_shown(self, state: GameState, seat: int, action: Action, viewer: int | None) -> bool:
        return True  # every action is played in the open

    def legal_actions(self, state: GameState, seat: int) -> list[Action]:
        return legal_actions(state) if self._moves(state, seat) else []

    def search_actions(self, state: GameState, seat: int) -> list[Action]:
        return self.legal_actions(state, seat)

    def why_illegal(self, state: GameState, seat: int, action: Action) -> str | None:
        if not self._moves(state, seat):
            return NOT_YOUR_TURN
        return why_illegal(state, action)

    def apply(self, state: GameState, seat: int, action: Action) -> list[Event]:
        if not self._moves(state, seat):
            raise IllegalAction(NOT_YOUR_TURN)
        return apply(state, action)

    def apply_unchecked(self, state: GameState, seat: int, action: Action) -> None:
        apply_unchecked(state, action)

    def clone(self, state: GameState) -> GameState:
        return state.clone()

    def is_over(self, state: GameState) -> bool:
        return state.status == FINISHED

    def outcome(self, state: GameState) -> Outcome | None:
        result = state.result
        if result is None:
            return None
        tie_breaks = tuple((stands,) for stands in result.stands_on_market)  # RULES.md: stands break ties
        return Outcome(result.scores, result.ranks, tie_breaks)

    def view(self, state: GameState, seat: int | None) -> dict[str, Any]:
        return {**player_view(state, seat), "to_move": sorted(self.to_move(state))}

    def events_for(self, state: GameState, events: Sequence[Event], seat: int | None) -> list[Event]:
        return events_for(list(events), state.options, seat)

    def sample(self, state: GameState, seat: int, rng: random.Random) -> GameState:
        # Every seat can work out every seat's coins from the public history: they are not sampled.
        return Determinizer(player_view(state, seat), list(state.coins)).sample(rng)

    def determinize(self, view: Mapping[str, Any], rng: random.Random) -> GameState:
        return determinize(dict(view), rng)

    def score_now(self, state: GameState) -> tuple[int, ...]:
        return final_result(state).scores

    def estimated_scores(self, state: GameState) -> tuple[int, ...]:
        return self.score_now(state)

    def score_parts(self, state: GameState) -> list[ScoreParts]:
        return [score_parts(state, seat) for seat in range(state.players)]

    def score_shown(self, state: GameState, seat: int, viewer: int | None) -> bool:
        # A score is coins less restaurants: with hidden money only the coins' owner may see it,
        # until the end, when every final score is shown (docs/rules.md, "Information").
        return state.status == FINISHED or may_see_coins(state.options, viewer, seat)

    def position_to_json(self, state: GameState) -> dict[str, Any]:
        return position.to_json(state)

    def position_from_json(self, data: Any) -> GameState:
        return position.from_json(data)

    def action_to_json(self, action: Action) -> dict[str, Any]:
        return action.to_json()

    def action_from_json(self, data: Any) -> Action:
        return action_from_json(data)

    def action_text(self, action: Action) -> str:
        return str(action)

    def parse_action(self, text: str) -> Action:
        return parse_action(text)


RULES: GameRules[GameState, Action] = Mercado()
