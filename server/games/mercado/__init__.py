"""The Mercado de Lisboa rules engine: pure, deterministic, no I/O.

Public API::

    state = new_game(Options(players=3, money="public"), seed=7)
    for action in legal_actions(state): ...
    events = apply(state, action)           # checked; raises IllegalAction
    apply_unchecked(state, action)          # fast path for search
    child = state.clone()
    player_view(state, seat)                # what one seat may see
    payments(state, action)                 # what an action costs and pays, before it is applied
    position.to_json(state) / position.from_json(data)
    components                              # the component data (tile counts, layout)
    Determinizer(view, coins).sample(rng)   # a full state consistent with one seat's view
    view_coins(view)                        # every seat's coins as far as a view tells
    RULES                                   # all of it behind the games' interface (game.py)

The modules a search calls on every move may be compiled to C (``make compile``,
``scripts/compile-engine.py``): the same source, about twice as fast (``server/compiled.py``).
"""

from . import components, position
from .actions import ALL_ACTIONS, KIND_NAMES, N_ACTIONS, Action, action_by_id, action_from_json, parse_action
from .errors import IllegalAction, InvalidAction, InvalidPosition, RulesError
from .game import RULES
from .geometry import (
    CUSTOMER_DECKS,
    ENTRANCE_INDEX,
    GOOD_INDEX,
    RESTAURANT_INDEX,
    SQUARE_INDEX,
    customer_kind,
)
from .options import Money, Options
from .rules import (
    Event,
    apply,
    apply_unchecked,
    customer_income,
    legal_actions,
    payments,
    payments_of,
    stand_cost,
    stand_income,
    stand_value,
    why_illegal,
)
from .sampling import Determinizer, View, view_coins, visible_state
from .setup import new_game, replay
from .state import GameState, Result
from .views import events_for, player_view, public_market

__all__ = [
    "ALL_ACTIONS",
    "CUSTOMER_DECKS",
    "ENTRANCE_INDEX",
    "GOOD_INDEX",
    "KIND_NAMES",
    "N_ACTIONS",
    "RESTAURANT_INDEX",
    "RULES",
    "SQUARE_INDEX",
    "Action",
    "Determinizer",
    "Event",
    "GameState",
    "IllegalAction",
    "InvalidAction",
    "InvalidPosition",
    "Money",
    "Options",
    "Result",
    "RulesError",
    "View",
    "action_by_id",
    "action_from_json",
    "apply",
    "apply_unchecked",
    "components",
    "customer_income",
    "customer_kind",
    "events_for",
    "legal_actions",
    "new_game",
    "parse_action",
    "payments",
    "payments_of",
    "player_view",
    "position",
    "public_market",
    "replay",
    "stand_cost",
    "stand_income",
    "stand_value",
    "view_coins",
    "visible_state",
    "why_illegal",
]
