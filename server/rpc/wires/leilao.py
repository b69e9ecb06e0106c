"""Leilão's messages (proto/mercado/v1/leilao.proto), filled from its rules' JSON views and events;
its actions' previews (``server.games.leilao.previews``), and a bid step's legal actions grouped by
main card (``LeilaoBidOptions``)."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from mercado.v1 import leilao_pb2 as pb
from mercado.v1 import match_pb2 as api

from server.games.leilao import RULES, Bid, LeilaoAction, Rebid, previews
from server.games.leilao.components import CARD_COLOUR, CARD_NAMES, CARD_NUMBER, COLOURS, EXTRA_BID_FEE
from server.games.leilao.state import BID, PHASES, PICK, ROLES, TIEBREAK, LeilaoState, Options

from .rules_json import Field, RulesJsonWire, enum_numbers, legal_fragment

PHASE = enum_numbers(pb.LeilaoPhase, PHASES)
ROLE = enum_numbers(pb.LeilaoRole, ROLES)
COLOUR = enum_numbers(pb.LeilaoColour, COLOURS)
# Every stall by its name, as views and events give it.
STALLS = {
    name: pb.LeilaoStall(name=name, colour=COLOUR[COLOURS[CARD_COLOUR[card]]], number=CARD_NUMBER[card])
    for card, name in enumerate(CARD_NAMES)
}


def _stalls(names: Sequence[str]) -> list[pb.LeilaoStall]:
    return [STALLS[name] for name in names]


def _slot(slot: Mapping[str, Any]) -> pb.LeilaoSlot:
    return pb.LeilaoSlot(seat=slot["seat"], role=ROLE[slot["role"]], card=slot["card"])


def _choice(seat: int, choice: Mapping[str, Any]) -> pb.LeilaoChoice:
    """A sealed choice: ``{"card"}`` or ``{"card", "extra"}``, its extra null when it has none."""
    message = pb.LeilaoChoice(seat=seat, card=choice["card"])
    if choice.get("extra") is not None:
        message.extra = choice["extra"]
    return message


def _player(message: pb.LeilaoPlayer, view: Mapping[str, Any], seat: int) -> None:
    message.seat = seat
    message.stalls.extend(_stalls(view["stalls"][seat]))
    message.played.extend(
        pb.LeilaoPlayedCard(card=p["card"], role=ROLE[p["role"]], void=p["void"], round=p["round"])
        for p in view["played"][seat]
    )
    message.fees = view["fees"][seat]
    message.hand.extend(view["hands"][seat])
    message.score = view["scores"][seat]


def _bid_options(actions: Sequence[Bid | Rebid]) -> pb.LeilaoBidOptions:
    """A sealed step's legal bids (or re-bids), grouped by main card."""
    extras: dict[int, list[int]] = {}
    for action in actions:
        allowed = extras.setdefault(action.card, [])
        if isinstance(action, Bid) and action.extra is not None:
            allowed.append(action.extra)
    rebids = isinstance(actions[0], Rebid)
    message = pb.LeilaoBidOptions(step=PHASE[TIEBREAK if rebids else BID])
    if not rebids:
        message.extra_fee = EXTRA_BID_FEE
    message.cards.extend(pb.LeilaoBidCard(card=card, extras=sorted(extras[card])) for card in sorted(extras))
    return message


@functools.lru_cache(maxsize=1024)
def _sealed_step_bytes(options: Options, actions: tuple[Bid | Rebid, ...]) -> bytes:
    """A sealed step's legal bids or re-bids, their previews and the view's bid options, as serialized
    MatchState fragments."""
    legal = [legal_fragment(RULES.name, action) for action in actions]
    shown = [_preview_fragment(previews.sealed_preview(options, action)) for action in actions]
    grouped = api.MatchState(view=api.View(leilao=pb.LeilaoView(bid_options=_bid_options(actions))))
    return b"".join([*legal, *shown, grouped.SerializeToString()])


class LeilaoWire(RulesJsonWire):
    """Leilão on the wire."""

    def __init__(self) -> None:
        super().__init__(RULES)

    def fill_view(self, message: pb.LeilaoView, state: LeilaoState, view: Mapping[str, Any]) -> None:
        options = self.options_message(view["options"])
        assert isinstance(options, pb.LeilaoOptions)
        message.options.CopyFrom(options)
        message.round = view["round"]
        message.phase = PHASE[view["phase"]]
        message.start_player = view["start_player"]
        message.priority_order.extend(view["priority_order"])
        message.acted.extend(view["acted"])
        message.display.extend(_stalls(view["display"]))
        message.deck_count = view["deck_count"]
        for seat in range(len(view["hands"])):
            _player(message.players.add(), view, seat)
        message.removed.extend(_stalls(view["removed"]))
        if view["sealed"] is not None:
            message.sealed.CopyFrom(_choice(view["seat"], view["sealed"]))
        message.tie_group.extend(_slot(slot) for slot in view["tie_group"] or ())
        for group in view["ranking"] or ():
            message.ranking.add().slots.extend(_slot(slot) for slot in group)
        message.pick_sequence.extend(view["pick_sequence"] or ())
        message.picks_made = view["picks_made"]
        if view["result"] is not None:
            message.result.CopyFrom(self.result(state, view["result"]))

    def view_key(self, fields: Mapping[str, Field]) -> tuple[Field, ...]:
        # A seat's own sealed choice names the seat.
        return super().view_key(fields) if fields["sealed"].value is None else tuple(fields.values())

    def actions_bytes(self, state: LeilaoState, seat: int, actions: Sequence[LeilaoAction]) -> bytes:
        if state.phase == PICK:
            return super().actions_bytes(state, seat, actions)
        # A sealed step's bids (up to 400) and their previews follow from the hand and the options
        # alone: each seat's are built once a step.
        return _sealed_step_bytes(state.options, tuple(actions))

    def fill_event(self, message: pb.LeilaoEvent, state: LeilaoState, event: Mapping[str, Any]) -> None:
        kind = event["type"]
        if kind == "sealed":
            message.sealed.step = PHASE[event["step"]]
            message.sealed.seat = event["seat"]
            if "card" in event:  # the seat's own choice
                message.sealed.choice.CopyFrom(_choice(event["seat"], event))
        elif kind == "reveal":
            choices = event["bids"] if "bids" in event else event["rebids"]
            message.reveal.step = PHASE[event["step"]]
            message.reveal.round = event["round"]
            message.reveal.choices.extend(_choice(choice["seat"], choice) for choice in choices)
        elif kind == "tiebreak":
            message.tiebreak.card = event["card"]
            message.tiebreak.slots.extend(_slot(slot) for slot in event["slots"])
            message.tiebreak.pending.extend(event["pending"])
        elif kind == "tie_settled":
            message.tie_settled.order.extend(_slot(slot) for slot in event["order"])
        elif kind == "ranking":  # complete: one slot a place, the shape of a view's ranking
            for slot in event["ranking"]:
                message.ranking.ranking.add().slots.append(_slot(slot))
            message.ranking.pick_sequence.extend(event["pick_sequence"])
        elif kind == "pick":
            message.pick.seat = event["seat"]
            message.pick.stall.CopyFrom(STALLS[event["stall"]])
        elif kind == "leftover":
            message.leftover.stalls.extend(_stalls(event["stalls"]))
        elif kind == "deal":
            message.deal.round = event["round"]
            message.deal.display.extend(_stalls(event["display"]))
            message.deal.deck_count = event["deck_count"]
        elif kind == "game_over":
            message.game_over.result.CopyFrom(self.result(state, event["result"]))
        else:
            raise ValueError(f"no message for event {kind!r}")

    def preview_fragment(self, state: LeilaoState, seat: int, action: LeilaoAction) -> bytes:
        return _preview_fragment(previews.preview(state, seat, action))


@functools.lru_cache(maxsize=4096)  # previews take few values: most repeat
def _preview_fragment(preview: previews.Preview) -> bytes:
    message = pb.LeilaoPreview(
        card_penalty=preview.card_penalty,
        fee=preview.fee,
        stall_points=preview.stall_points,
        set_bonus=preview.set_bonus,
        score_change=preview.score_change,
    )
    return api.MatchState(previews=[api.ActionPreview(leilao=message)]).SerializeToString()
