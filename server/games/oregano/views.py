"""What each seat may see (RULES.md "Information"): views and events.

Public: areas, the boulevard with sellers, stock and supply counts, gold,
resource cards, bonus cards, the strategy deck's size, whose turn, the round,
the declaration, every operation, payment and die roll, and a strategy card's
kind when it is achieved; so each seat's record (what it did since taking its
card, all public operations) is in every view. Private to its holder (option ``strategy_cards``:
``hidden``): the strategy card and its progress, and the cards drawn and put
back (these stay private even with ``open``). Hidden from all: the deck's
order and ``rng`` (future shuffles and die rolls).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .actions import KEEP_STRATEGY, OreganoAction
from .components import STRATEGY_GOAL
from .position import public_json, record_json
from .rules import Event, legal_actions, strategy_progress, to_move
from .state import OVER, OreganoState

VIEW_FORMAT = "oregano-view/1"


def may_see_strategy(state: OreganoState, viewer: int | None, holder: int) -> bool:
    """Whether ``viewer`` may see ``holder``'s strategy card and its progress."""
    return viewer == holder or state.options.strategies_open


def _strategy(state: OreganoState, viewer: int | None, holder: int) -> dict[str, Any]:
    card = state.strategies[holder]
    if card is None:
        return {"count": 0}
    if not may_see_strategy(state, viewer, holder):
        return {"count": 1}
    progress = strategy_progress(card, state.records[holder])
    return {"card": card, "progress": progress, "goal": STRATEGY_GOAL}


def player_view(state: OreganoState, seat: int | None) -> dict[str, Any]:
    """What ``seat`` (None: a spectator) may see, with its legal actions when it is to move."""
    n = state.players
    view: dict[str, Any] = {
        "format": VIEW_FORMAT,
        "seat": seat,
        **public_json(state),
        "to_move": sorted(to_move(state)),
        "strategy_deck_count": len(state.strategy_deck),
        "strategies": [_strategy(state, seat, holder) for holder in range(n)],
        "drawn": [
            {"cards": state.drawn[holder][:]} if holder == seat else {"count": len(state.drawn[holder])}
            for holder in range(n)
        ],
        "records": [record_json(r) for r in state.records],
        "bonus_available": state.bonus_available[:],
        "bonuses": [b[:] for b in state.bonuses],
        "declared": state.declared[:] if state.declared is not None else None,
        "step": state.step,
        "end_triggered": state.end_triggered,
        "result": state.result.to_json() if state.result is not None else None,
    }
    if seat is not None and state.phase != OVER and seat in to_move(state):
        view["legal_actions"] = [a.to_json() for a in legal_actions(state, seat)]
    return view


def action_shown(state: OreganoState, seat: int, action: OreganoAction, viewer: int | None) -> bool:
    """Whether ``viewer`` may see ``seat``'s ``action``: the strategy card it kept names its card."""
    return action.type != KEEP_STRATEGY or may_see_strategy(state, viewer, seat)


def events_for(state: OreganoState, events: Sequence[Event], seat: int | None) -> list[Event]:
    """``events`` as ``seat`` may see them: others' drawn and put-back cards become counts, and
    with hidden strategy cards, the kept card too."""
    out: list[Event] = []
    for event in events:
        kind, holder = event["type"], event.get("seat")
        if kind == "strategy_drawn" and holder != seat:
            event = {"type": kind, "seat": holder, "count": len(event["cards"])}
        elif kind == "strategy_kept" and holder != seat:
            shown: Event = {"type": kind, "seat": holder, "returned_count": len(event["returned"])}
            if holder is not None and may_see_strategy(state, seat, int(holder)):
                shown["card"] = event["card"]
            event = shown
        else:
            event = dict(event)
        out.append(event)
    return out
