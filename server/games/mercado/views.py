"""Player views: the part of a position (and of its events) that one seat may see.

A view never holds the identity of face-down restaurants, the order or
contents of the bag and the customer decks (only their sizes), nor, with
hidden money, another seat's coins or income. ``seat=None`` is a spectator,
who with hidden money sees no coins at all.
"""

from __future__ import annotations

from typing import Any, Final

from .components import GOODS, RESTAURANTS
from .geometry import N_SQUARES
from .options import Options
from .position import entrances_json, market_json, tiles_by_level
from .rules import Event, legal_actions
from .state import FINISHED, PHASE_NAMES, STATUS_NAMES, GameState

VIEW_FORMAT: Final = "mercado-view/1"


def may_see_coins(options: Options, viewer: int | None, owner: int) -> bool:
    """Whether ``viewer`` may see ``owner``'s coins and income."""
    return options.money == "public" or viewer == owner


def player_view(state: GameState, seat: int | None) -> dict[str, Any]:
    """What ``seat`` (None: a spectator) may see, with its legal actions on its turn."""
    options = state.options
    view: dict[str, Any] = {
        "format": VIEW_FORMAT,
        "seat": seat,
        "options": options.to_json(),
        "status": STATUS_NAMES[state.status],
        "current_player": state.current,
        "phase": PHASE_NAMES[state.phase],
        "redrawn_this_turn": state.redrawn,
        "refreshed_this_turn": state.refreshed,
        "coins": [c if may_see_coins(options, seat, p) else None for p, c in enumerate(state.coins)],
        "wooden_stands": list(state.wooden_stands),
        "stand_hands": [[GOODS[g] for g in hand] for hand in state.hands],
        "restaurant_hands": [[RESTAURANTS[k] for k in hand] for hand in state.restaurant_hands],
        "market": market_json(state, hide_face_down=True),
        "entrances": entrances_json(state),
        "offer": [GOODS[g] for g in state.offer],
        "bag_count": len(state.bag),
        "display": tiles_by_level(state.display),
        "deck_counts": {str(level): len(deck) for level, deck in enumerate(state.decks, start=1)},
        "consecutive_coins": state.consecutive_coins,
        "final_turns_left": state.final_turns_left,
        "result": state.result.to_json() if state.result else None,
    }
    if seat == state.current and state.status != FINISHED:
        view["legal_actions"] = [a.to_json() for a in legal_actions(state)]
    return view


def public_market(state: GameState) -> list[tuple[int, int, int, int]]:
    """The occupied squares as every viewer sees them, as (square, good, owner, restaurant) with -1
    for none: a stand has a good and an owner, a face-up restaurant its kind, and a face-down one is
    (square, -1, -1, -1), its kind never shown. What ``player_view``'s market says, as integers."""
    out: list[tuple[int, int, int, int]] = []
    for q in range(N_SQUARES):
        if state.stand_good[q] >= 0:
            out.append((q, state.stand_good[q], state.stand_owner[q], -1))
        elif state.restaurant[q] >= 0:
            out.append((q, -1, -1, state.restaurant[q]))
        elif state.face_down[q] >= 0:
            out.append((q, -1, -1, -1))
    return out


def events_for(events: list[Event], options: Options, seat: int | None) -> list[Event]:
    """The events as ``seat`` may see them: other seats' income amounts removed when money is hidden."""
    out: list[Event] = []
    for event in events:
        if event["type"] == "income" and not may_see_coins(options, seat, event["player"]):
            event = {"type": "income", "player": event["player"]}
        out.append(event)
    return out
