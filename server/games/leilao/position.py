"""Positions as JSON: the complete state, hidden parts (deck order, sealed choices) included.

``from_json`` validates and raises ``InvalidPosition`` naming the first problem.
A position need not hold all 80 market cards (a fixture may have a short deck),
but every market card appears at most once, every seat's hand + sealed choice +
played pile is exactly its 20 bid cards (1..hand in a research variant, whose
``options`` hold ``hand``), and the phase agrees with the rest.

The format (names as in RULES.md; market cards as ``colour-number``, bid cards as numbers)::

    {
      "format": "leilao-position/1",
      "options": {"players": 2, "card_penalty": "face", "set_bonus": "per_set",
                  "leftover_stalls": "cycle"},
      "start_player": 0,            # the priority order starts here
      "round": 1,
      "phase": "bid",               # bid | tiebreak | pick | finished
      "pending": [1],               # derived: the seats to act (checked if present)
      "deck": ["green-3", ...],     # top first
      "display": ["red-17", ...],   # in the order dealt
      "removed": [],                # stalls that left the game (leftover_stalls = discard)
      "stalls": [["red-17"], []],   # each seat's stall area, in the order taken
      "hands": [[1, 2, ...], ...],  # increasing; a sealed choice's cards are not in it
      "played": [[{"card": 11, "role": "main", "void": false, "round": 1}, ...], ...],
                                    # role: main | extra | rebid; void: a tie voided it
      "sealed": [{"card": 11, "extra": 4}, null],  # bid step; {"card": 3} in a tie-break
      "fees": [5, 0],               # derived: 5 per extra card played (checked if present)
      "ranking": null,              # from the reveal: groups of slots in rank order, a group
                                    # of two or more a tie not yet broken:
                                    # [[{"seat": 0, "role": "main", "card": 11}], ...]
      "pick_sequence": null,        # pick phase: the seats in picking order (derived, checked)
      "picks_made": 0,
      "result": null                # finished: {"scores", "ranks", "tie_breaks"} (checked)
    }

Only ``options``, ``start_player``, ``round``, ``phase``, ``deck``, ``display``, ``stalls``,
``hands`` and ``played`` are required.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .components import CARD_INDEX, CARD_NAMES, EXTRA_BID_FEE
from .errors import InvalidOptions, InvalidPosition
from .rules import current_group_index, game_ends, pending, pick_sequence, slot_json
from .scoring import fees, outcome
from .state import (
    BID,
    EXTRA,
    FINISHED,
    MAIN,
    PHASES,
    PICK,
    REBID,
    ROLES,
    TIEBREAK,
    LeilaoState,
    Options,
    Played,
    Sealed,
    Slot,
)

FORMAT = "leilao-position/1"
_REQUIRED = ("options", "start_player", "round", "phase", "deck", "display", "stalls", "hands", "played")
_OPTIONAL = (
    "format",
    "pending",
    "removed",
    "sealed",
    "fees",
    "ranking",
    "pick_sequence",
    "picks_made",
    "result",
)
FIELDS = frozenset(_REQUIRED + _OPTIONAL)
_PLAYED_FIELDS = {"card", "role", "void", "round"}


# --- writing -----------------------------------------------------------------------------------


def cards_json(cards: list[int]) -> list[str]:
    return [CARD_NAMES[c] for c in cards]


def played_json(pile: list[Played]) -> list[dict[str, Any]]:
    return [{"card": p.card, "role": p.role, "void": p.void, "round": p.round} for p in pile]


def ranking_json(ranking: list[list[Slot]] | None) -> list[list[dict[str, Any]]] | None:
    return None if ranking is None else [[slot_json(s) for s in group] for group in ranking]


def sealed_json(state: LeilaoState, sealed: Sealed | None) -> dict[str, Any] | None:
    if sealed is None:
        return None
    if state.phase == TIEBREAK:
        return {"card": sealed.card}
    return {"card": sealed.card, "extra": sealed.extra}


def to_json(state: LeilaoState) -> dict[str, Any]:
    """The complete position, hidden parts included."""
    return {
        "format": FORMAT,
        "options": state.options.to_json(),
        "start_player": state.start_player,
        "round": state.round,
        "phase": state.phase,
        "pending": pending(state),
        "deck": cards_json(state.deck),
        "display": cards_json(state.display),
        "removed": cards_json(state.removed),
        "stalls": [cards_json(s) for s in state.stalls],
        "hands": [list(h) for h in state.hands],
        "played": [played_json(p) for p in state.played],
        "sealed": [sealed_json(state, s) for s in state.sealed],
        "fees": [fees(state, p) for p in range(state.players)],
        "ranking": ranking_json(state.ranking),
        "pick_sequence": None if state.pick_sequence is None else list(state.pick_sequence),
        "picks_made": state.picks_made,
        "result": outcome(state).to_json() if state.phase == FINISHED else None,
    }


# --- loading -----------------------------------------------------------------------------------


def _int(value: Any, field: str, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidPosition(f"{field} must be an integer")
    if value < low or (high is not None and value > high):
        bounds = f"{low}..{high}" if high is not None else f">= {low}"
        raise InvalidPosition(f"{field} must be {bounds}")
    return int(value)


def _list(value: Any, field: str, length: int | None = None) -> list[Any]:
    if not isinstance(value, list):
        raise InvalidPosition(f"{field} must be a list")
    if length is not None and len(value) != length:
        raise InvalidPosition(f"{field} must have {length} entries")
    return value


def _object(value: Any, field: str, keys: set[str], required: set[str]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidPosition(f"{field} must be an object")
    for key in value:
        if key not in keys:
            raise InvalidPosition(f"{field} has an unknown field {key!r}")
    for key in sorted(required):
        if key not in value:
            raise InvalidPosition(f"{field} lacks {key!r}")
    return value


class _Cards:
    """Market cards met so far: each at most once in the whole position."""

    def __init__(self) -> None:
        self.seen: set[int] = set()

    def read(self, value: Any, field: str) -> list[int]:
        cards = []
        for i, name in enumerate(_list(value, field)):
            if not isinstance(name, str) or name not in CARD_INDEX:
                raise InvalidPosition(f"{field}[{i}] is not a market card: {name!r}")
            card = CARD_INDEX[name]
            if card in self.seen:
                raise InvalidPosition(f"{field}[{i}]: market card {name} appears twice")
            self.seen.add(card)
            cards.append(card)
        return cards


def _bid_card(value: Any, field: str, options: Options) -> int:
    return _int(value, field, 1, options.hand)


def from_json(data: Any) -> LeilaoState:
    """A position from JSON, validated (``InvalidPosition`` with the first problem)."""
    if not isinstance(data, dict):
        raise InvalidPosition("a position must be an object")
    for key in data:
        if key not in FIELDS:
            raise InvalidPosition(f"unknown field {key!r}")
    for key in _REQUIRED:
        if key not in data:
            raise InvalidPosition(f"missing field {key!r}")
    if data.get("format", FORMAT) != FORMAT:
        raise InvalidPosition(f"format must be {FORMAT!r}")
    try:
        options = Options.from_json(data["options"], research=True)
    except InvalidOptions as error:
        raise InvalidPosition(f"options: {error.reason}") from None
    n = options.players
    state = LeilaoState(options)
    state.start_player = _int(data["start_player"], "start_player", 0, n - 1)
    state.round = _int(data["round"], "round", 1)
    phase = data["phase"]
    if phase not in PHASES:
        raise InvalidPosition(f"phase must be one of {', '.join(PHASES)}")
    state.phase = phase

    cards = _Cards()
    state.deck = cards.read(data["deck"], "deck")
    state.display = cards.read(data["display"], "display")
    state.removed = cards.read(data.get("removed", []), "removed")
    state.stalls = [cards.read(s, f"stalls[{p}]") for p, s in enumerate(_list(data["stalls"], "stalls", n))]

    hands = _list(data["hands"], "hands", n)
    played = _list(data["played"], "played", n)
    sealed = _list(data.get("sealed", [None] * n), "sealed", n)
    for p in range(n):
        field = f"hands[{p}]"
        hand = [_bid_card(c, f"{field}[{i}]", options) for i, c in enumerate(_list(hands[p], field))]
        if hand != sorted(set(hand)):
            raise InvalidPosition(f"{field} must be increasing, without repeats")
        state.hands[p] = hand
        pile: list[Played] = []
        for i, entry in enumerate(_list(played[p], f"played[{p}]")):
            field = f"played[{p}][{i}]"
            entry = _object(
                entry, field, {"card", "role", "void", "round"}, {"card", "role", "void", "round"}
            )
            card = _bid_card(entry["card"], f"{field}.card", options)
            if entry["role"] not in ROLES:
                raise InvalidPosition(f"{field}.role must be one of {', '.join(ROLES)}")
            if not isinstance(entry["void"], bool):
                raise InvalidPosition(f"{field}.void must be true or false")
            played_round = _int(entry["round"], f"{field}.round", 1, state.round)
            pile.append(Played(card, entry["role"], entry["void"], played_round))
        state.played[p] = pile
        state.sealed[p] = _read_sealed(sealed[p], f"sealed[{p}]", phase, options)
        owned = Counter(hand + [x.card for x in pile])
        if state.sealed[p] is not None:
            s = state.sealed[p]
            assert s is not None
            owned.update([s.card] if s.extra is None else [s.card, s.extra])
        if sorted(owned.elements()) != list(options.bid_cards):
            raise InvalidPosition(
                f"seat {p}: hand, sealed choice and played pile must hold 1-{options.hand} once each"
            )

    if data.get("ranking") is not None:
        state.ranking = _read_ranking(state, data["ranking"])
    state.picks_made = _int(data.get("picks_made", 0), "picks_made", 0)
    _check_phase(state, data)

    if "fees" in data:
        expected = [fees(state, p) for p in range(n)]
        if data["fees"] != expected:
            raise InvalidPosition(f"fees must be {expected} ({EXTRA_BID_FEE} per extra card played)")
    if data.get("pending") is not None and data["pending"] != pending(state):
        raise InvalidPosition(f"pending must be {pending(state)} in this position")
    if data.get("result") is not None:
        if phase != FINISHED:
            raise InvalidPosition("result must be null before the game is finished")
        if data["result"] != outcome(state).to_json():
            raise InvalidPosition("result does not match the scores of this position")
    return state


def _read_sealed(value: Any, field: str, phase: str, options: Options) -> Sealed | None:
    if value is None:
        return None
    if phase == BID:
        entry = _object(value, field, {"card", "extra"}, {"card"})
        card = _bid_card(entry["card"], f"{field}.card", options)
        extra = entry.get("extra")
        if extra is not None:
            extra = _bid_card(extra, f"{field}.extra", options)
            if extra == card:
                raise InvalidPosition(f"{field}.extra must differ from its card")
        return Sealed(card, extra)
    if phase == TIEBREAK:
        entry = _object(value, field, {"card"}, {"card"})
        return Sealed(_bid_card(entry["card"], f"{field}.card", options), None)
    raise InvalidPosition(f"{field} must be null in the {phase} phase")


def _read_ranking(state: LeilaoState, value: Any) -> list[list[Slot]]:
    if state.phase not in (TIEBREAK, PICK):
        raise InvalidPosition(f"ranking must be null in the {state.phase} phase")
    ranking: list[list[Slot]] = []
    previous = state.options.hand + 1
    for g, group_value in enumerate(_list(value, "ranking")):
        group: list[Slot] = []
        for i, slot_value in enumerate(_list(group_value, f"ranking[{g}]")):
            field = f"ranking[{g}][{i}]"
            entry = _object(slot_value, field, {"seat", "role", "card"}, {"seat", "role", "card"})
            seat = _int(entry["seat"], f"{field}.seat", 0, state.players - 1)
            if entry["role"] not in (MAIN, EXTRA):
                raise InvalidPosition(f"{field}.role must be main or extra")
            card = _bid_card(entry["card"], f"{field}.card", state.options)
            if card > previous:
                raise InvalidPosition(f"{field}: the ranking must go from the highest card down")
            previous = card
            group.append(Slot(seat, entry["role"], card))
        if not group:
            raise InvalidPosition(f"ranking[{g}] must not be empty")
        if len({s.card for s in group}) != 1 or len({s.seat for s in group}) != len(group):
            raise InvalidPosition(f"ranking[{g}]: a tie group holds one card number, of different seats")
        ranking.append(group)
    this_round = Counter(
        (p, x.role, x.card)
        for p in range(state.players)
        for x in state.played[p]
        if x.round == state.round
        if x.role != REBID
    )
    slots = Counter((s.seat, s.role, s.card) for group in ranking for s in group)
    if slots != this_round:
        raise InvalidPosition("ranking must hold exactly the main and extra bids of this round")
    return ranking


def _check_phase(state: LeilaoState, data: dict[str, Any]) -> None:
    size = state.options.display_size
    if state.phase != PICK and (data.get("pick_sequence") is not None or state.picks_made):
        raise InvalidPosition("pick_sequence and picks_made belong to the pick phase")
    if state.phase == FINISHED:
        if state.display or state.ranking is not None:
            raise InvalidPosition("a finished game has an empty display and no ranking")
        if not game_ends(state):
            raise InvalidPosition("the game cannot be finished: the deck holds a round and no hand is empty")
        return
    if state.phase in (BID, TIEBREAK) and len(state.display) != size:
        raise InvalidPosition(f"display must hold {size} stalls until picking starts")
    if state.phase == BID:
        if state.ranking is not None:
            raise InvalidPosition("ranking must be null in the bid phase")
        if all(s is not None for s in state.sealed):
            raise InvalidPosition("in the bid phase at least one seat has not bid")
        for p in range(state.players):
            if not state.hands[p] and state.sealed[p] is None:
                raise InvalidPosition(f"seat {p} has no card to bid with")
        return
    if state.ranking is None:
        raise InvalidPosition(f"ranking is required in the {state.phase} phase")
    i = current_group_index(state)
    if state.phase == TIEBREAK:
        if i is None:
            raise InvalidPosition("in the tiebreak phase the ranking must hold a tie group")
        group = state.ranking[i]
        members = {s.seat for s in group if state.hands[s.seat] or state.sealed[s.seat] is not None}
        for p, s in enumerate(state.sealed):
            if s is not None and p not in members:
                raise InvalidPosition(f"sealed[{p}]: seat {p} does not re-bid in this tie-break")
        if len(members) < 2:
            raise InvalidPosition("the current tie group needs two members holding a card")
        if all(state.sealed[p] is not None for p in members):
            raise InvalidPosition("in the tiebreak phase at least one member has not re-bid")
        return
    if i is not None:
        raise InvalidPosition("in the pick phase every tie must be broken")
    expected = pick_sequence(state, [group[0] for group in state.ranking])
    if data.get("pick_sequence") != expected:
        raise InvalidPosition(f"pick_sequence must be {expected}")
    state.pick_sequence = expected
    if state.picks_made >= len(expected):
        raise InvalidPosition(f"picks_made must be below {len(expected)}")
    left = size - state.picks_made
    if len(state.display) != left:
        raise InvalidPosition(f"display must hold {left} stalls after {state.picks_made} picks")
