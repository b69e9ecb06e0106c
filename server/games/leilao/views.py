"""Seat views: the part of a position (and of its events) that one seat may see.

RULES.md, "Information": everything is public except the order of the market
deck (only its size is shown) and the sealed choices of the current step, which
only their owner sees until the step's reveal. Another seat's hand with a
sealed choice in it is shown as if those cards were still in the hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .actions import action_to_json
from .position import cards_json, played_json, ranking_json, sealed_json
from .rules import Event, acted, current_group, legal_actions, pending, slot_json
from .scoring import fees, outcome, scores
from .state import FINISHED, TIEBREAK, LeilaoState

VIEW_FORMAT = "leilao-view/1"


def shown_hand(state: LeilaoState, owner: int, viewer: int | None) -> list[int]:
    """``owner``'s hand as ``viewer`` sees it: a sealed choice's cards still in it for others."""
    hand = state.hands[owner]
    sealed = state.sealed[owner]
    if sealed is None or viewer == owner:
        return list(hand)
    extra = [] if sealed.extra is None else [sealed.extra]
    return sorted([*hand, sealed.card, *extra])


def player_view(state: LeilaoState, seat: int | None) -> dict[str, Any]:
    """What ``seat`` (None: a spectator) may see, with its legal actions when it is to move."""
    n = state.players
    to_move = pending(state)
    view: dict[str, Any] = {
        "format": VIEW_FORMAT,
        "seat": seat,
        "options": state.options.to_json(),
        "round": state.round,
        "phase": state.phase,
        "start_player": state.start_player,
        "priority_order": state.priority_order(),
        "to_move": to_move,
        "acted": acted(state),
        "display": cards_json(state.display),
        "deck_count": len(state.deck),
        "stalls": [cards_json(s) for s in state.stalls],
        "removed": cards_json(state.removed),
        "played": [played_json(p) for p in state.played],
        "fees": [fees(state, p) for p in range(n)],
        "hands": [shown_hand(state, p, seat) for p in range(n)],
        "sealed": None if seat is None else sealed_json(state, state.sealed[seat]),
        "tie_group": [slot_json(s) for s in current_group(state)] if state.phase == TIEBREAK else None,
        "ranking": ranking_json(state.ranking),
        "pick_sequence": None if state.pick_sequence is None else list(state.pick_sequence),
        "picks_made": state.picks_made,
        "scores": list(scores(state)),
        "result": outcome(state).to_json() if state.phase == FINISHED else None,
    }
    if seat is not None and seat in to_move:
        view["legal_actions"] = [action_to_json(a) for a in legal_actions(state, seat)]
    return view


def events_for(events: Sequence[Event], seat: int | None) -> list[Event]:
    """The events as ``seat`` may see them: another seat's sealed submission says only who acted."""
    out: list[Event] = []
    for event in events:
        if event["type"] == "sealed" and event["seat"] != seat:
            event = {"type": "sealed", "step": event["step"], "seat": event["seat"]}
        out.append(event)
    return out
