"""Final scoring (RULES.md, "Final scoring"): stall points + set bonus - card penalty - fees.

Everything here is computed from public information, so the current scores are
public at all times; a sealed choice not yet revealed counts for nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from operator import attrgetter

from server.games.interface import Outcome, ScorePart, ScoreParts, TieBreak

from .components import CARD_COLOUR, CARD_NUMBER, EXTRA_BID_FEE, N_COLOURS, SET_BONUS
from .state import EXTRA, LeilaoState, Options

# The search scores positions by the thousand: the sums below run in C (map), not in generators.
CARD, ROLE = attrgetter("card"), attrgetter("role")  # of a played card


def stall_points(state: LeilaoState, seat: int) -> int:
    return sum(map(CARD_NUMBER.__getitem__, state.stalls[seat]))


def set_bonuses(options: Options, stalls: Iterable[int]) -> int:
    """How many set bonuses ``stalls`` score: ``per_set``, one per complete set of the four
    colours; ``once``, one for owning all four."""
    colours = list(map(CARD_COLOUR.__getitem__, stalls))
    sets = min(colours.count(colour) for colour in range(N_COLOURS))
    return min(sets, 1) if options.set_bonus == "once" else sets


def set_bonus(state: LeilaoState, seat: int) -> int:
    return SET_BONUS * set_bonuses(state.options, state.stalls[seat])


def card_cost(options: Options, card: int) -> int:
    """What a played card takes off the final score: ``face``, its number; ``one``, 1."""
    return 1 if options.card_penalty == "one" else card


def cards_cost(options: Options, numbers: Sequence[int]) -> int:
    """What played cards of these numbers take off the final score (``card_cost`` of each, at once)."""
    return len(numbers) if options.card_penalty == "one" else sum(numbers)


def card_penalty(state: LeilaoState, seat: int) -> int:
    """The cost of every card in the played pile (``card_cost`` of each, summed at once)."""
    return cards_cost(state.options, list(map(CARD, state.played[seat])))


def extra_bids(state: LeilaoState, seat: int) -> int:
    """Extra bids revealed (whatever they won, tie or no tie)."""
    return list(map(ROLE, state.played[seat])).count(EXTRA)


def fees(state: LeilaoState, seat: int) -> int:
    """5 per extra bid revealed."""
    return EXTRA_BID_FEE * extra_bids(state, seat)


def score(state: LeilaoState, seat: int) -> int:
    return stall_points(state, seat) + set_bonus(state, seat) - card_penalty(state, seat) - fees(state, seat)


def scores(state: LeilaoState) -> tuple[int, ...]:
    return tuple(score(state, p) for p in range(state.players))


def tie_breaks(state: LeilaoState, seat: int) -> tuple[int, ...]:
    """Decision: ties go to the higher stall points, then to more stalls."""
    return (stall_points(state, seat), len(state.stalls[seat]))


TIE_BREAKS = (("stall_points", "Stall numbers"), ("stalls", "Stalls"))  # what tie_breaks gives, named


def score_parts(state: LeilaoState, seat: int) -> ScoreParts:
    """``seat``'s score as ``score`` counts it, in parts, and its tie-breaks."""
    stalls = state.stalls[seat]
    sets = set_bonuses(state.options, stalls)
    extras = extra_bids(state, seat)
    parts = (
        ScorePart("stall_points", "Stall numbers", stall_points(state, seat), len(stalls)),
        ScorePart("set_bonus", "Set bonus", SET_BONUS * sets, sets),
        ScorePart("card_penalty", "Cards played", -card_penalty(state, seat), len(state.played[seat])),
        ScorePart("extra_bid_fees", "Extra-bid fees", -EXTRA_BID_FEE * extras, extras),
    )
    named = zip(TIE_BREAKS, tie_breaks(state, seat), strict=True)
    return ScoreParts(seat, parts, tuple(TieBreak(name, label, value) for (name, label), value in named))


def outcome(state: LeilaoState) -> Outcome:
    """Scores and 1-based ranks: ties go to higher stall points, then to more stalls; players
    still tied share the place (competition ranking: 1, 1, 3)."""
    values = scores(state)
    breaks = tuple(tie_breaks(state, p) for p in range(state.players))
    keys = [(values[p], *breaks[p]) for p in range(state.players)]
    ranks = tuple(1 + sum(1 for other in keys if other > key) for key in keys)
    return Outcome(scores=values, ranks=ranks, tie_breaks=breaks)
