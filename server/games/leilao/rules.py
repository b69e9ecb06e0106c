"""The rules of RULES.md: who is to move, legal actions, their effects, rounds and the end.

Two paths apply an action: :func:`apply` checks it, refuses an illegal one with a
reason (the state untouched) and records events; :func:`apply_unchecked` trusts
the caller and records nothing. Everything after set-up is deterministic.

Sealed steps (``bid``, ``tiebreak``): a submission leaves the hand for
``state.sealed[seat]``; the last submission of the step reveals them all, and the
engine goes on by itself (ranking, tie groups, picking, the next round).

Events (``apply``; :func:`views.events_for` strips what another seat may not see)::

    {"type": "sealed", "step": "bid", "seat": 0, "card": 11, "extra": 4}   # others: type, step, seat
    {"type": "sealed", "step": "tiebreak", "seat": 0, "card": 3}
    {"type": "reveal", "step": "bid", "round": 1, "bids": [{"seat", "card", "extra"}, ...]}
    {"type": "reveal", "step": "tiebreak", "round": 1, "rebids": [{"seat", "card"}, ...]}
    {"type": "tiebreak", "card": 4, "slots": [{"seat", "role", "card"}, ...], "pending": [0, 1]}
    {"type": "tie_settled", "order": [{"seat", "role", "card"}, ...]}   # fewer than two hold cards
    {"type": "ranking", "ranking": [{"seat", "role", "card"}, ...], "pick_sequence": [0, 1, 0, 0]}
    {"type": "pick", "seat": 0, "stall": "red-17"}
    {"type": "leftover", "stalls": ["green-5"]}                         # leftover_stalls = discard
    {"type": "deal", "round": 2, "display": [...], "deck_count": 72}
    {"type": "game_over", "result": {"scores", "ranks", "tie_breaks"}}
"""

from __future__ import annotations

import functools
from collections import Counter
from typing import Any

from .actions import BIDS, PICKS, REBIDS, Bid, LeilaoAction, Pick, Rebid
from .components import CARD_NAMES
from .errors import IllegalAction
from .scoring import outcome
from .state import (
    BID,
    EXTRA,
    FINISHED,
    MAIN,
    PICK,
    REBID,
    TIEBREAK,
    LeilaoState,
    Options,
    Played,
    Sealed,
    Slot,
)

Event = dict[str, Any]


# --- who is to move ----------------------------------------------------------------------------


def current_group_index(state: LeilaoState) -> int | None:
    """Index in the ranking of the highest tie group not yet broken, if any."""
    if state.ranking is None:
        return None
    for i, group in enumerate(state.ranking):
        if len(group) > 1:
            return i
    return None


def current_group(state: LeilaoState) -> list[Slot]:
    i = current_group_index(state)
    assert state.ranking is not None and i is not None
    return state.ranking[i]


def tiebreak_members(state: LeilaoState) -> list[int]:
    """The seats that re-bid in the current tie-break: those that held a card when it began."""
    return [s.seat for s in current_group(state) if state.hands[s.seat] or state.sealed[s.seat] is not None]


def pending(state: LeilaoState) -> list[int]:
    """The seats that must act now, in seat order."""
    if state.phase == BID:
        return [p for p in range(state.players) if state.sealed[p] is None]
    if state.phase == TIEBREAK:
        return sorted(p for p in tiebreak_members(state) if state.sealed[p] is None)
    if state.phase == PICK:
        assert state.pick_sequence is not None
        return [state.pick_sequence[state.picks_made]]
    return []


def acted(state: LeilaoState) -> list[int]:
    """The seats that have submitted in the current sealed step (public: not what they chose)."""
    return [p for p in range(state.players) if state.sealed[p] is not None]


def to_move(state: LeilaoState) -> frozenset[int]:
    return frozenset(pending(state))


# --- legal actions -----------------------------------------------------------------------------


def legal_actions(state: LeilaoState, seat: int) -> list[LeilaoAction]:
    """What ``seat`` may do now, in a stable order; empty if it is not to move."""
    if seat not in pending(state):
        return []
    if state.phase == BID:
        return list(bids_from(tuple(state.hands[seat])))
    if state.phase == TIEBREAK:
        return [REBIDS[card] for card in state.hands[seat]]
    return [PICKS[stall] for stall in state.display]


# Hands recur (a hand is known to every seat, and the search meets the same ones again and again): their
# bids, a few hundred each, are worked out once. Bounded, and invisible but for the time it saves.
@functools.lru_cache(maxsize=4096)
def bids_from(hand: tuple[int, ...]) -> tuple[Bid, ...]:
    """Every bid of a hand: each card alone, then with each other card as the extra."""
    bids: list[Bid] = []
    for card in hand:
        bids.append(BIDS[card, None])
        bids.extend(BIDS[card, extra] for extra in hand if extra != card)
    return tuple(bids)


def search_actions(state: LeilaoState, seat: int) -> list[LeilaoAction]:
    """The legal actions the AI's search weighs: a bid of two cards only once, the higher as its
    main card. Both cards rank as slots by their numbers alone and the fee is the same, so a bid
    and its swap play the same; weighing both would halve the visits each of the 210 distinct bids
    of a full hand gets."""
    if seat in pending(state) and state.phase == BID:
        return list(distinct_bids_from(tuple(state.hands[seat])))
    return legal_actions(state, seat)


@functools.lru_cache(maxsize=4096)
def distinct_bids_from(hand: tuple[int, ...]) -> tuple[Bid, ...]:
    """A hand's bids without swaps, in the order of ``bids_from``: each card alone or with a lower extra."""
    return tuple(bid for bid in bids_from(hand) if bid.extra is None or bid.extra < bid.card)


def why_illegal(state: LeilaoState, seat: int, action: LeilaoAction) -> str | None:
    """Why ``seat`` may not play ``action`` now (one line), or None if it may."""
    if not isinstance(action, Bid | Rebid | Pick):
        return "not a Leilão action"
    if state.phase == FINISHED:
        return "the game is over"
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.players:
        return f"there is no seat {seat}"
    if seat not in pending(state):
        if state.phase != PICK and state.sealed[seat] is not None:
            return f"seat {seat} has already submitted in this step"
        if state.phase == TIEBREAK:
            return f"seat {seat} does not re-bid in this tie-break"
        return f"it is not seat {seat}'s turn to pick"
    hand = state.hands[seat]
    if isinstance(action, Bid):
        if state.phase != BID:
            return f"no bids in the {state.phase} step"
        if action.card not in hand:
            return f"card {action.card} is not in seat {seat}'s hand"
        if action.extra is not None:
            if action.extra == action.card:
                return "the extra card must differ from the main card"
            if action.extra not in hand:
                return f"extra card {action.extra} is not in seat {seat}'s hand"
        return None
    if isinstance(action, Rebid):
        if state.phase != TIEBREAK:
            return f"no re-bids in the {state.phase} step"
        if action.card not in hand:
            return f"card {action.card} is not in seat {seat}'s hand"
        return None
    if state.phase != PICK:
        return f"no picks in the {state.phase} step"
    if not isinstance(action.stall, int) or not 0 <= action.stall < len(CARD_NAMES):
        return f"there is no stall {action.stall!r}"
    if action.stall not in state.display:
        return f"stall {CARD_NAMES[action.stall]} is not in the display"
    return None


# --- applying ----------------------------------------------------------------------------------


def apply(state: LeilaoState, seat: int, action: LeilaoAction) -> list[Event]:
    """Play ``action`` for ``seat``, checked; the events it caused, hidden parts included."""
    reason = why_illegal(state, seat, action)
    if reason is not None:
        raise IllegalAction(reason)
    events: list[Event] = []
    _play(state, seat, action, events)
    return events


def apply_unchecked(state: LeilaoState, seat: int, action: LeilaoAction) -> None:
    """Play an action known to be legal, recording no events."""
    _play(state, seat, action, None)


def _play(state: LeilaoState, seat: int, action: LeilaoAction, events: list[Event] | None) -> None:
    if isinstance(action, Pick):
        _pick(state, seat, action.stall, events)
        return
    hand = state.hands[seat]
    hand.remove(action.card)
    if isinstance(action, Bid):
        if action.extra is not None:
            hand.remove(action.extra)
        state.sealed[seat] = Sealed(action.card, action.extra)
        if events is not None:
            events.append(
                {"type": "sealed", "step": BID, "seat": seat, "card": action.card, "extra": action.extra}
            )
        if all(s is not None for s in state.sealed):
            _reveal_bids(state, events)
        return
    state.sealed[seat] = Sealed(action.card, None)
    if events is not None:
        events.append({"type": "sealed", "step": TIEBREAK, "seat": seat, "card": action.card})
    if not pending(state):
        _reveal_rebids(state, events)


def slot_json(slot: Slot) -> dict[str, Any]:
    return {"seat": slot.seat, "role": slot.role, "card": slot.card}


def _reveal_bids(state: LeilaoState, events: list[Event] | None) -> None:
    """All bids face up at once onto the played piles; the ranking; then the ties."""
    slots: list[Slot] = []
    for p in range(state.players):
        sealed = state.sealed[p]
        assert sealed is not None
        slots.append(Slot(p, MAIN, sealed.card))
        if sealed.extra is not None:
            slots.append(Slot(p, EXTRA, sealed.extra))
    counts = Counter(slot.card for slot in slots)
    for slot in slots:
        state.played[slot.seat].append(Played(slot.card, slot.role, counts[slot.card] > 1, state.round))
    if events is not None:
        events.append(
            {
                "type": "reveal",
                "step": BID,
                "round": state.round,
                "bids": [
                    {"seat": p, "card": s.card, "extra": s.extra}
                    for p, s in enumerate(state.sealed)
                    if s is not None
                ],
            }
        )
    state.sealed = [None] * state.players
    # Highest number first; a tie group's slots in priority order.
    slots.sort(key=lambda s: (-s.card, state.priority(s.seat)))
    ranking: list[list[Slot]] = []
    for slot in slots:
        if ranking and ranking[-1][0].card == slot.card:
            ranking[-1].append(slot)
        else:
            ranking.append([slot])
    state.ranking = ranking
    _resolve(state, events)


def _reveal_rebids(state: LeilaoState, events: list[Event] | None) -> None:
    """The re-bids of the current tie group face up at once; the group ordered by them."""
    assert state.ranking is not None
    i = current_group_index(state)
    assert i is not None
    group = state.ranking[i]
    rebids: dict[int, int] = {}
    for slot in group:
        sealed = state.sealed[slot.seat]
        if sealed is not None:
            rebids[slot.seat] = sealed.card
    counts = Counter(rebids.values())
    for seat, card in sorted(rebids.items()):
        state.played[seat].append(Played(card, REBID, counts[card] > 1, state.round))
    if events is not None:
        events.append(
            {
                "type": "reveal",
                "step": TIEBREAK,
                "round": state.round,
                "rebids": [{"seat": seat, "card": card} for seat, card in sorted(rebids.items())],
            }
        )
    state.sealed = [None] * state.players
    rebidders = sorted(
        (s for s in group if s.seat in rebids), key=lambda s: (-rebids[s.seat], state.priority(s.seat))
    )
    ordered: list[list[Slot]] = []
    for slot in rebidders:
        if ordered and rebids[ordered[-1][0].seat] == rebids[slot.seat]:
            ordered[-1].append(slot)  # equal re-bids: a new tie group in the same place
        else:
            ordered.append([slot])
    ordered.extend([slot] for slot in group if slot.seat not in rebids)  # no card: after, by priority
    state.ranking[i : i + 1] = ordered
    _resolve(state, events)


def _resolve(state: LeilaoState, events: list[Event] | None) -> None:
    """Break the tie groups highest first: settle those with fewer than two card holders at once,
    stop at the first that needs re-bids; with none left, the pick sequence."""
    assert state.ranking is not None
    while True:
        i = current_group_index(state)
        if i is None:
            break
        group = state.ranking[i]
        holders = [s for s in group if state.hands[s.seat]]
        if len(holders) >= 2:
            state.phase = TIEBREAK
            if events is not None:
                events.append(
                    {
                        "type": "tiebreak",
                        "card": group[0].card,
                        "slots": [slot_json(s) for s in group],
                        "pending": sorted(s.seat for s in holders),
                    }
                )
            return
        order = holders + [s for s in group if not state.hands[s.seat]]
        state.ranking[i : i + 1] = [[s] for s in order]
        if events is not None:
            events.append({"type": "tie_settled", "order": [slot_json(s) for s in order]})
    slots = [group[0] for group in state.ranking]
    state.pick_sequence = pick_sequence(state, slots)
    state.picks_made = 0
    state.phase = PICK
    if events is not None:
        events.append(
            {
                "type": "ranking",
                "ranking": [slot_json(s) for s in slots],
                "pick_sequence": list(state.pick_sequence),
            }
        )


def pick_sequence(state: LeilaoState, slots: list[Slot]) -> list[int]:
    """The seat of each pick of a round whose ranking is ``slots`` (:func:`pick_places`)."""
    return [slots[place].seat for place in pick_places(state.options, len(slots))]


def pick_places(options: Options, slots: int) -> list[int]:
    """The place in the ranking (0 the first) of the slot each pick of a round goes to, of ``slots``:
    ``cycle``, the slots in rank order again and again until the display is empty; ``discard``,
    each slot once."""
    if options.leftover_stalls == "discard":
        return list(range(slots))
    return [i % slots for i in range(options.display_size)]


def _pick(state: LeilaoState, seat: int, stall: int, events: list[Event] | None) -> None:
    state.display.remove(stall)
    state.stalls[seat].append(stall)
    state.picks_made += 1
    if events is not None:
        events.append({"type": "pick", "seat": seat, "stall": CARD_NAMES[stall]})
    assert state.pick_sequence is not None
    if state.picks_made == len(state.pick_sequence) or not state.display:
        end_round(state, events)


def end_round(state: LeilaoState, events: list[Event] | None) -> None:
    """Leftover stalls leave the game; the game ends, or the next round is dealt."""
    if state.display:
        if events is not None:
            events.append({"type": "leftover", "stalls": [CARD_NAMES[c] for c in state.display]})
        state.removed.extend(state.display)
        state.display = []
    state.ranking = None
    state.pick_sequence = None
    state.picks_made = 0
    if game_ends(state):
        state.phase = FINISHED
        if events is not None:
            events.append({"type": "game_over", "result": outcome(state).to_json()})
    else:
        deal(state, events)


def game_ends(state: LeilaoState) -> bool:
    """At the end of a round: the deck cannot fill the display, or a hand is empty."""
    return len(state.deck) < state.options.display_size or any(not hand for hand in state.hands)


def deal(state: LeilaoState, events: list[Event] | None) -> None:
    """A new round: the top 2N cards of the deck face up; everyone bids."""
    size = state.options.display_size
    state.round += 1
    state.display = state.deck[:size]
    del state.deck[:size]
    state.phase = BID
    state.sealed = [None] * state.players
    if events is not None:
        events.append(
            {
                "type": "deal",
                "round": state.round,
                "display": [CARD_NAMES[c] for c in state.display],
                "deck_count": len(state.deck),
            }
        )
