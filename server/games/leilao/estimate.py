"""What the AI's search takes a position's final scores to be where its play-outs stop.

The score now counts the cards played so far, but in a two-player game every card is played
sooner or later: a card spent now costs no more than one kept, and what a high card kept is
worth is the rounds it will win. So each seat's estimate is its score now, plus the stalls the
current pick sequence still gives it (the best first), less what the cards it will still play
cost, plus the stalls it can expect from the rounds left: its place in each from how its hand
fares against the others' (every card of one hand against every card of another, as if bids
were random), each place's stalls from the deck's numbers. While a round's ties are broken, its
ranking already gives each slot its place, a tie group's slots sharing the places it holds. Every
hand is public (RULES.md, "Information"); a sealed choice counts as still in its owner's hand.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from .components import CARD_NUMBER
from .rules import pick_places
from .scoring import cards_cost, scores
from .state import BID, FINISHED, PICK, TIEBREAK, LeilaoState, Options


def estimated_scores(state: LeilaoState) -> list[float]:
    """Each seat's score now plus what the rest of the game should bring it (see the module)."""
    n = state.players
    now = [float(score) for score in scores(state)]
    if state.phase == PICK:  # the stalls left go down the pick sequence, the best first
        assert state.pick_sequence is not None
        stalls = display_best_first(state)
        for seat, value in zip(state.pick_sequence[state.picks_made :], stalls, strict=False):
            now[seat] += value
    elif state.phase == TIEBREAK:
        for seat, share in tied_round_stalls(state):
            now[seat] += share
    hands = [sorted(hand + sealed_cards(state, seat)) for seat, hand in enumerate(state.hands)]
    rounds = rounds_left(state, hands)
    if not rounds:
        return now
    prizes = rank_prizes(state, n)
    estimates = []
    for seat, hand in enumerate(hands):
        place = 1.0 + sum(1.0 - beats(hand, other) for j, other in enumerate(hands) if j != seat)
        low = min(int(place), n)
        prize = prizes[low - 1] + (place - low) * (prizes[min(low, n - 1)] - prizes[low - 1])
        played = min(rounds, len(hand))
        cost = cards_cost(state.options, hand) * played / len(hand) if hand else 0.0
        estimates.append(now[seat] + rounds * prize - cost)
    return estimates


def sealed_cards(state: LeilaoState, seat: int) -> list[int]:
    """The cards of ``seat``'s choice not yet revealed, counted as still in its hand."""
    sealed = state.sealed[seat]
    if sealed is None:
        return []
    return [sealed.card] if sealed.extra is None else [sealed.card, sealed.extra]


def rounds_left(state: LeilaoState, hands: list[list[int]]) -> int:
    """Rounds still to bid: this one if its bids are not revealed, and as many more as the deck and
    the shortest hand allow (a card a round each)."""
    if state.phase == FINISHED:
        return 0
    current = 1 if state.phase == BID else 0
    return min(len(state.deck) // state.options.display_size + current, min(map(len, hands)))


def tied_round_stalls(state: LeilaoState) -> list[tuple[int, float]]:
    """While ties are being broken, what each slot of the ranking should take from the display (the
    best stall first down the pick sequence): a tie group's slots share its places evenly, as
    their re-bids may order them any way."""
    assert state.ranking is not None
    place_value = place_values(state.options, sum(map(len, state.ranking)), display_best_first(state))
    shares: list[tuple[int, float]] = []
    place = 0
    for group in state.ranking:
        share = sum(place_value[place : place + len(group)]) / len(group)
        shares.extend((slot.seat, share) for slot in group)
        place += len(group)
    return shares


def display_best_first(state: LeilaoState) -> list[int]:
    """The numbers of the stalls on display, the best first (the order the picks take them in)."""
    return sorted(map(CARD_NUMBER.__getitem__, state.display), reverse=True)


def rank_prizes(state: LeilaoState, n: int) -> list[float]:
    """The stalls a slot ranked 1st, 2nd, … can expect in a round (``cycle``: picks k and n + k)."""
    pool = sorted(map(CARD_NUMBER.__getitem__, state.deck + state.display), reverse=True)
    if not pool:
        return [0.0] * n
    size = state.options.display_size
    values = [pool[min(len(pool) - 1, int((k + 0.5) * len(pool) / size))] for k in range(size)]
    return place_values(state.options, n, values)


def place_values(options: Options, slots: int, stalls: list[int]) -> list[float]:
    """What each of a round's ``slots`` places takes when ``stalls`` go down the picks in order."""
    values = [0.0] * slots
    for place, stall in zip(pick_places(options, slots), stalls, strict=False):
        values[place] += stall
    return values


def beats(hand: list[int], other: list[int]) -> float:
    """The chance a card drawn from ``hand`` beats one drawn from ``other``, a sorted hand (a tie: half)."""
    if not hand:
        return 0.0
    if not other:
        return 1.0
    wins = 0.0
    for card in hand:
        below, up_to = bisect_left(other, card), bisect_right(other, card)
        wins += below + 0.5 * (up_to - below)
    return wins / (len(hand) * len(other))
