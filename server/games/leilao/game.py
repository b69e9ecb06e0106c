"""Leilão das Bancas behind the service's :class:`~server.games.interface.GameRules`."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from server.games.interface import GameRules, Outcome, ScoreParts

from . import actions, estimate, position, rules, sampling, scoring, setup, views
from .actions import LeilaoAction
from .components import MAX_PLAYERS, MIN_PLAYERS
from .errors import InvalidOptions
from .rules import Event
from .state import FINISHED, LeilaoState, Options


class Leilao:
    """The rules of RULES.md, one object for the whole service."""

    name = "leilao"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    opening_actions = 3  # its first round: a bid and two picks

    def options(self, data: Mapping[str, Any]) -> Mapping[str, Any]:
        return Options.from_json(data).to_json()

    def new_game(self, options: Mapping[str, Any], seed: int) -> LeilaoState:
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise InvalidOptions("the seed must be an integer")
        return setup.new_game(Options.from_json(options), seed)

    def to_move(self, state: LeilaoState) -> frozenset[int]:
        return rules.to_move(state)

    def sealed(self, state: LeilaoState) -> frozenset[int]:
        return frozenset(rules.acted(state))

    def action_shown(self, state: LeilaoState, seat: int, action: LeilaoAction, viewer: int | None) -> bool:
        return True  # a bid is hidden while sealed (``sealed``), and public once revealed

    def legal_actions(self, state: LeilaoState, seat: int) -> list[LeilaoAction]:
        return rules.legal_actions(state, seat)

    def search_actions(self, state: LeilaoState, seat: int) -> list[LeilaoAction]:
        return rules.search_actions(state, seat)

    def why_illegal(self, state: LeilaoState, seat: int, action: LeilaoAction) -> str | None:
        return rules.why_illegal(state, seat, action)

    def apply(self, state: LeilaoState, seat: int, action: LeilaoAction) -> list[Event]:
        return rules.apply(state, seat, action)

    def apply_unchecked(self, state: LeilaoState, seat: int, action: LeilaoAction) -> None:
        rules.apply_unchecked(state, seat, action)

    def clone(self, state: LeilaoState) -> LeilaoState:
        return state.clone()

    def is_over(self, state: LeilaoState) -> bool:
        return state.phase == FINISHED

    def outcome(self, state: LeilaoState) -> Outcome | None:
        return scoring.outcome(state) if state.phase == FINISHED else None

    def view(self, state: LeilaoState, seat: int | None) -> dict[str, Any]:
        return views.player_view(state, seat)

    def events_for(self, state: LeilaoState, events: Sequence[Event], seat: int | None) -> list[Event]:
        return views.events_for(events, seat)

    def sample(self, state: LeilaoState, seat: int, rng: random.Random) -> LeilaoState:
        return sampling.sample(state, seat, rng)

    def determinize(self, view: Mapping[str, Any], rng: random.Random) -> LeilaoState:
        return sampling.determinize(view, rng)

    def score_now(self, state: LeilaoState) -> tuple[int, ...]:
        return scoring.scores(state)

    def estimated_scores(self, state: LeilaoState) -> list[float]:
        return estimate.estimated_scores(state)

    def score_parts(self, state: LeilaoState) -> list[ScoreParts]:
        return [scoring.score_parts(state, seat) for seat in range(state.players)]

    def score_shown(self, state: LeilaoState, seat: int, viewer: int | None) -> bool:
        return True  # every part of a score is public

    def position_to_json(self, state: LeilaoState) -> dict[str, Any]:
        return position.to_json(state)

    def position_from_json(self, data: Any) -> LeilaoState:
        return position.from_json(data)

    def action_to_json(self, action: LeilaoAction) -> dict[str, Any]:
        return actions.action_to_json(action)

    def action_from_json(self, data: Any) -> LeilaoAction:
        return actions.action_from_json(data)

    def action_text(self, action: LeilaoAction) -> str:
        return actions.action_text(action)

    def parse_action(self, text: str) -> LeilaoAction:
        return actions.parse_action(text)


RULES: GameRules[LeilaoState, LeilaoAction] = Leilao()
