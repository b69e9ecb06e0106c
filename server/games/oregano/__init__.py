"""Oregano Market (``oregano``): its rules, pure and deterministic, behind :class:`GameRules`.

Public API::

    from server.games.oregano import RULES
    options = RULES.options({"players": 3})          # defaults filled in, checked
    state = RULES.new_game(options, seed=7)
    seat, = RULES.to_move(state)
    for action in RULES.legal_actions(state, seat): ...
    events = RULES.apply(state, seat, action)         # checked; ValueError, state unchanged
    RULES.view(state, seat); RULES.events_for(state, events, seat)
    RULES.sample(state, seat, random.Random(1))       # hidden parts redrawn, for search
    RULES.determinize(view, random.Random(1))         # the same, from a seat's view alone
    RULES.position_to_json(state) / RULES.position_from_json(data)
    RULES.action_to_json(a) / action_from_json(d) / action_text(a) / parse_action(t)

Modules: ``components`` (the component data), ``state``, ``actions``, ``rules``,
``scoring``, ``previews`` (what each action costs and pays), ``position``, ``views``,
``sampling``, ``errors``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from server.games.interface import Event, GameRules, Outcome, ScoreParts

from . import actions, components, position, previews, rules, sampling, scoring, search_actions, views
from .actions import OreganoAction
from .components import MAX_PLAYERS, MIN_PLAYERS
from .errors import IllegalAction, InvalidAction, InvalidOptions, InvalidPosition, OreganoError
from .state import OVER, Options, OreganoState


class Oregano:
    """Oregano Market's :class:`GameRules`."""

    name = components.GAME
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    opening_actions = 5  # its two set-up choices and its first turn (a declaration and two actions)

    def options(self, data: Mapping[str, Any]) -> Mapping[str, Any]:
        return Options.from_json(dict(data)).to_json()

    def new_game(self, options: Mapping[str, Any], seed: int) -> OreganoState:
        return rules.new_game(Options.from_json(dict(options)), seed)

    def to_move(self, state: OreganoState) -> frozenset[int]:
        return rules.to_move(state)

    def sealed(self, state: OreganoState) -> frozenset[int]:
        return frozenset()  # every decision is taken alone

    def action_shown(self, state: OreganoState, seat: int, action: OreganoAction, viewer: int | None) -> bool:
        return views.action_shown(state, seat, action, viewer)

    def legal_actions(self, state: OreganoState, seat: int) -> list[OreganoAction]:
        return rules.legal_actions(state, seat)

    def search_actions(self, state: OreganoState, seat: int) -> list[OreganoAction]:
        return search_actions.search_actions(state, seat)

    def why_illegal(self, state: OreganoState, seat: int, action: OreganoAction) -> str | None:
        return rules.why_illegal(state, seat, action)

    def apply(self, state: OreganoState, seat: int, action: OreganoAction) -> list[Event]:
        return rules.apply(state, seat, action)

    def apply_unchecked(self, state: OreganoState, seat: int, action: OreganoAction) -> None:
        rules.apply_unchecked(state, seat, action)

    def clone(self, state: OreganoState) -> OreganoState:
        return state.clone()

    def is_over(self, state: OreganoState) -> bool:
        return state.phase == OVER

    def outcome(self, state: OreganoState) -> Outcome | None:
        return state.result

    def view(self, state: OreganoState, seat: int | None) -> dict[str, Any]:
        return views.player_view(state, seat)

    def events_for(self, state: OreganoState, events: Sequence[Event], seat: int | None) -> list[Event]:
        return views.events_for(state, events, seat)

    def sample(self, state: OreganoState, seat: int, rng: random.Random) -> OreganoState:
        return sampling.sample(state, seat, rng)

    def determinize(self, view: Mapping[str, Any], rng: random.Random) -> OreganoState:
        return sampling.determinize(view, rng)

    def score_now(self, state: OreganoState) -> tuple[int, ...]:
        return scoring.scores(state)

    def estimated_scores(self, state: OreganoState) -> tuple[int, ...]:
        return self.score_now(state)

    def score_parts(self, state: OreganoState) -> list[ScoreParts]:
        return [scoring.score_parts(state, seat) for seat in range(state.players)]

    def score_shown(self, state: OreganoState, seat: int, viewer: int | None) -> bool:
        return True  # every part of a score is public

    def position_to_json(self, state: OreganoState) -> dict[str, Any]:
        return position.to_json(state)

    def position_from_json(self, data: Any) -> OreganoState:
        return position.from_json(data)

    def action_to_json(self, action: OreganoAction) -> dict[str, Any]:
        return action.to_json()

    def action_from_json(self, data: Any) -> OreganoAction:
        return actions.action_from_json(data)

    def action_text(self, action: OreganoAction) -> str:
        return action.text()

    def parse_action(self, text: str) -> OreganoAction:
        return actions.parse_action(text)


RULES: GameRules[OreganoState, OreganoAction] = Oregano()

__all__ = [
    "RULES",
    "IllegalAction",
    "InvalidAction",
    "InvalidOptions",
    "InvalidPosition",
    "Options",
    "Oregano",
    "OreganoAction",
    "OreganoError",
    "OreganoState",
    "actions",
    "components",
    "previews",
]
