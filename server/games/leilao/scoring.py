"""Final scoring (RULES.md, "Final scoring"): stall points + set bonus - card penalty - fees.

Everything here is computed from public information, so the current scores are
public at all times; a sealed choice not yet revealed counts for nothing.
"""

from __future__ import annotations

from server.games.interface import Outcome

from .components import CARD_COLOUR, CARD_NUMBER, EXTRA_BID_FEE, N_COLOURS, SET_BONUS
from .state import EXTRA, LeilaoState


def stall_points(state: LeilaoState, seat: int) -> int:
    return sum(CARD_NUMBER[card] for card in state.stalls[seat])


def set_bonus(state: LeilaoState, seat: int) -> int:
    """``per_set``: 10 per complete set of the four colours; ``once``: 10 for owning all four."""
    counts = [0] * N_COLOURS
    for card in state.stalls[seat]:
        counts[CARD_COLOUR[card]] += 1
    sets = min(counts)
    if state.options.set_bonus == "once":
        return SET_BONUS if sets else 0
    return SET_BONUS * sets


def card_penalty(state: LeilaoState, seat: int) -> int:
    """``face``: the sum of the played pile's numbers; ``one``: 1 per played card."""
    pile = state.played[seat]
    if state.options.card_penalty == "one":
        return len(pile)
    return sum(p.card for p in pile)


def fees(state: LeilaoState, seat: int) -> int:
    """5 per extra bid revealed (whatever it won, tie or no tie)."""
    return EXTRA_BID_FEE * sum(1 for p in state.played[seat] if p.role == EXTRA)


def score(state: LeilaoState, seat: int) -> int:
    return stall_points(state, seat) + set_bonus(state, seat) - card_penalty(state, seat) - fees(state, seat)


def scores(state: LeilaoState) -> tuple[int, ...]:
    return tuple(score(state, p) for p in range(state.players))


def outcome(state: LeilaoState) -> Outcome:
    """Scores and 1-based ranks: ties go to higher stall points, then to more stalls; players
    still tied share the place (competition ranking: 1, 1, 3)."""
    values = scores(state)
    tie_breaks = tuple((stall_points(state, p), len(state.stalls[p])) for p in range(state.players))
    keys = [(values[p], *tie_breaks[p]) for p in range(state.players)]
    ranks = tuple(1 + sum(1 for other in keys if other > key) for key in keys)
    return Outcome(scores=values, ranks=ranks, tie_breaks=tie_breaks)
