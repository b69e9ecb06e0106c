"""Helpers the Oregano Market tests share: compact positions and short-hand play (no tests here)."""

from __future__ import annotations

import random
from typing import Any

from server.games.interface import Event
from server.games.oregano import RULES, OreganoAction, OreganoState
from server.games.oregano import actions as A
from server.games.oregano.components import BONUSES, STRATEGIES, STRATEGY_COPIES

OPTIONS_2 = RULES.options({"players": 2})


def position(
    players: int = 2,
    *,
    areas: list[dict[str, str]] | None = None,
    gold: list[int] | None = None,
    resources: list[dict[str, int]] | None = None,
    strategies: list[str | None] | None = None,
    records: list[dict[str, Any]] | None = None,
    phase: str = "declare",
    declared: list[str] | None = None,
    step: int = 0,
    current: int = 0,
    first: int = 0,
    round: int = 1,
    boulevard: list[tuple[str, int, int]] | None = None,
    stock: dict[str, int] | None = None,
    supply: dict[str, int] | None = None,
    deck: list[str] | None = None,
    bonuses: list[list[str]] | None = None,
    options: dict[str, Any] | None = None,
    status: str | None = None,
    end_triggered: bool = False,
    rng: int = 1,
) -> OreganoState:
    """A position built from a few facts; everything else takes a plain default. Loaded (and
    so validated) through position_from_json."""
    opts = dict(RULES.options({"players": players, **(options or {})}))
    base = RULES.new_game(opts, 0)
    data = RULES.position_to_json(base)
    next_id = 0
    area_data: list[dict[str, Any]] = []
    for area in areas or [{} for _ in range(players)]:
        cells: dict[str, Any] = {}
        for cell, kind in area.items():
            cells[cell] = {"shop": kind, "id": next_id}
            next_id += 1
        area_data.append(cells)
    blvd = []
    for kind, level, seller in boulevard or []:
        blvd.append({"shop": kind, "level": level, "seller": seller, "id": next_id})
        next_id += 1
    defaults: list[str | None] = ["aggressive_merger", "aggressive_merger", "savvy_shopper", "savvy_shopper"]
    held = strategies if strategies is not None else defaults[:players]
    if deck is None:
        deck = [card for card in STRATEGIES for _ in range(STRATEGY_COPIES)]
        for card in held:
            if card is not None:
                deck.remove(card)
    taken = [b for seat_bonuses in bonuses or [] for b in seat_bonuses]
    data.update(
        {
            "status": status or ("final_round" if end_triggered else "playing"),
            "phase": phase,
            "first_player": first,
            "current_player": current,
            "round": round,
            "gold": gold if gold is not None else [5] * players,
            "resources": [
                {"wood": 0, "stone": 0, "metal": 0, **r} for r in (resources or [{} for _ in range(players)])
            ],
            "areas": area_data,
            "boulevard": blvd,
            "stock": {**data["stock"], **(stock or {})},
            "supply": {**data["supply"], **(supply or {})},
            "strategy_deck": deck,
            "strategies": held,
            "drawn": [[] for _ in range(players)],
            "records": [
                {"built": [], "sold": 0, "acquired": 0, "levelled": [], "taken": [], **r}
                for r in (records or [{} for _ in range(players)])
            ],
            "bonus_available": [b for b in BONUSES if b not in taken],
            "bonuses": bonuses or [[] for _ in range(players)],
            "declared": declared,
            "step": step,
            "next_shop_id": next_id,
            "end_triggered": end_triggered,
            "rng": rng,
        }
    )
    return RULES.position_from_json(data)


def acting(kind: str, **facts: Any) -> OreganoState:
    """Seat 0 (or ``current``) about to perform a declared ``kind`` as its first action."""
    other = "sell" if kind != "sell" else "attract"
    return position(phase="action", declared=[kind, facts.pop("second", other)], **facts)


def play(state: OreganoState, seat: int, action: OreganoAction) -> list[Event]:
    return RULES.apply(state, seat, action)


def types(events: list[Event]) -> list[str]:
    return [e["type"] for e in events]


def of_type(events: list[Event], kind: str) -> list[Event]:
    return [e for e in events if e["type"] == kind]


def shop_at(state: OreganoState, seat: int, cell: str) -> str | None:
    shop = state.areas[seat].get(cell)
    return None if shop is None else shop.kind


def random_game(
    players: int, seed: int, options: dict[str, Any] | None = None
) -> tuple[OreganoState, list[tuple[int, OreganoAction]], list[Event]]:
    """A whole game of random legal play: the final state, the moves and every event."""
    opts = RULES.options({"players": players, **(options or {})})
    state = RULES.new_game(opts, seed)
    chooser = random.Random(seed)
    moves: list[tuple[int, OreganoAction]] = []
    events: list[Event] = []
    while not RULES.is_over(state):
        (seat,) = RULES.to_move(state)
        action = chooser.choice(RULES.legal_actions(state, seat))
        events += RULES.apply(state, seat, action)
        moves.append((seat, action))
        assert len(moves) < 5000
    return state, moves, events


def through_setup(players: int = 2, seed: int = 0, options: dict[str, Any] | None = None) -> OreganoState:
    """A new game played through set-up with the first legal choice each time."""
    state = RULES.new_game(RULES.options({"players": players, **(options or {})}), seed)
    while state.round == 0:
        (seat,) = RULES.to_move(state)
        RULES.apply(state, seat, RULES.legal_actions(state, seat)[0])
    return state


SKIP = A.skip()
