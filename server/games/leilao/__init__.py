"""Leilão das Bancas (``leilao``): a sealed-bid auction for market stalls, 2-4 players.

The rules of docs/leilao.md, pure and deterministic: no I/O,
no clock, randomness only at set-up (from the seed, stored in the state).

Public API::

    RULES                                   # the GameRules object the service uses
    state = RULES.new_game(RULES.options({"players": 3}), seed=7)
    RULES.to_move(state)                    # frozenset of seats (several in a sealed step)
    RULES.legal_actions(state, seat)        # Bid / Rebid / Pick, in a stable order
    events = RULES.apply(state, seat, action)   # checked; IllegalAction, state untouched
    RULES.apply_unchecked(state, seat, action)  # fast path for search
    RULES.view(state, seat) / RULES.events_for(state, events, seat)
    RULES.sample(state, seat, random.Random(1)) # a determinization for search
    RULES.determinize(view, random.Random(1))   # the same, from a seat's view alone
    RULES.position_to_json(state) / RULES.position_from_json(data)
    RULES.action_text(action) / RULES.parse_action("bid 11+4")

Modules: ``components`` (the data, Assumed facts included), ``state``, ``actions``,
``rules``, ``scoring``, ``previews`` (what each action costs or gains), ``setup``
(``new_game``, ``start_game``, ``replay``), ``position``, ``views``, ``sampling``, ``game``
(the ``Leilao`` class).
"""

from . import components
from .actions import Bid, LeilaoAction, Pick, Rebid, action_from_json, action_text, parse_action
from .errors import IllegalAction, InvalidAction, InvalidOptions, InvalidPosition, LeilaoError
from .game import RULES, Leilao
from .rules import Event
from .setup import new_game, replay, start_game
from .state import LeilaoState, Options

__all__ = [
    "RULES",
    "Bid",
    "Event",
    "IllegalAction",
    "InvalidAction",
    "InvalidOptions",
    "InvalidPosition",
    "Leilao",
    "LeilaoAction",
    "LeilaoError",
    "LeilaoState",
    "Options",
    "Pick",
    "Rebid",
    "action_from_json",
    "action_text",
    "components",
    "new_game",
    "parse_action",
    "replay",
    "start_game",
]
