"""Oregano's messages (proto/mercado/v1/oregano.proto), filled from its rules' JSON views and events,
and its actions' previews (``server.games.oregano.previews``)."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from mercado.v1 import match_pb2 as api
from mercado.v1 import mercado_pb2
from mercado.v1 import oregano_pb2 as pb

from server.games.oregano import RULES, OreganoAction, OreganoState, previews
from server.games.oregano.components import ACTION_KINDS, BONUSES, RESOURCES, SHOP_IDS, STRATEGIES
from server.games.oregano.state import DECLARE, PHASES, STATUSES

from .rules_json import RulesJsonWire, enum_numbers

SHOP = enum_numbers(pb.OreganoShop, SHOP_IDS)
RESOURCE = enum_numbers(pb.OreganoResource, RESOURCES)
STRATEGY = enum_numbers(pb.OreganoStrategyCard, STRATEGIES)
BONUS = enum_numbers(pb.OreganoBonus, BONUSES)
ACTION_KIND = enum_numbers(pb.OreganoActionKind, ACTION_KINDS)
PHASE = enum_numbers(pb.OreganoPhase, PHASES)
STATUS = enum_numbers(pb.OreganoStatus, STATUSES)


def _resources(counts: Mapping[str, int]) -> pb.OreganoResources:
    return pb.OreganoResources(**{resource: counts[resource] for resource in RESOURCES})


def _strategy(message: pb.OreganoStrategy, strategy: Mapping[str, Any]) -> None:
    """``{"count": n}``, or a card the viewer may see: ``{"card", "progress", "goal"}``."""
    if "card" in strategy:
        message.count = 1
        message.card = STRATEGY[strategy["card"]]
        message.progress = strategy["progress"]
        message.goal = strategy["goal"]
    else:
        message.count = strategy["count"]


def _drawn(message: pb.OreganoDrawn, drawn: Mapping[str, Any]) -> None:
    """``{"cards": [...]}`` for the viewer's own seat, ``{"count": n}`` for another."""
    if "cards" in drawn:
        message.count = len(drawn["cards"])
        message.cards.extend(STRATEGY[card] for card in drawn["cards"])
    else:
        message.count = drawn["count"]


def _record(message: pb.OreganoRecord, record: Mapping[str, Any]) -> None:
    message.built.extend(SHOP[kind] for kind in record["built"])
    message.sold = record["sold"]
    message.acquired = record["acquired"]
    message.levelled.extend(record["levelled"])
    message.taken.extend(RESOURCE[resource] for resource in record["taken"])


def _player(message: pb.OreganoPlayer, view: Mapping[str, Any], seat: int) -> None:
    message.seat = seat
    message.gold = view["gold"][seat]
    message.resources.CopyFrom(_resources(view["resources"][seat]))
    for cell, shop in view["areas"][seat].items():
        message.area.add(cell=cell, shop=SHOP[shop["shop"]], id=shop["id"])
    _strategy(message.strategy, view["strategies"][seat])
    _drawn(message.drawn, view["drawn"][seat])
    _record(message.record, view["records"][seat])
    message.bonuses.extend(BONUS[bonus] for bonus in view["bonuses"][seat])


class OreganoWire(RulesJsonWire):
    """Oregano on the wire."""

    def __init__(self) -> None:
        super().__init__(RULES)

    def fill_view(self, message: pb.OreganoView, state: OreganoState, view: Mapping[str, Any]) -> None:
        options = self.options_message(view["options"])
        assert isinstance(options, pb.OreganoOptions)
        message.options.CopyFrom(options)
        message.status = STATUS[view["status"]]
        message.phase = PHASE[view["phase"]]
        message.first_player = view["first_player"]
        message.current_player = view["current_player"]
        message.round = view["round"]
        for seat in range(len(view["gold"])):
            _player(message.players.add(), view, seat)
        for entry in view["boulevard"]:
            message.boulevard.add(
                shop=SHOP[entry["shop"]], level=entry["level"], seller=entry["seller"], id=entry["id"]
            )
        message.stock.extend(
            pb.OreganoStock(shop=SHOP[kind], count=count) for kind, count in view["stock"].items()
        )
        message.supply.CopyFrom(_resources(view["supply"]))
        message.strategy_deck_count = view["strategy_deck_count"]
        message.bonus_available.extend(BONUS[bonus] for bonus in view["bonus_available"])
        message.declared.extend(ACTION_KIND[kind] for kind in view["declared"] or ())
        message.step = view["step"]
        message.end_triggered = view["end_triggered"]
        if view["result"] is not None:
            message.result.CopyFrom(self.result(state, view["result"]))

    def fill_event(self, message: pb.OreganoEvent, state: OreganoState, event: Mapping[str, Any]) -> None:
        kind = event["type"]
        typed = getattr(message, kind)
        typed.SetInParent()
        if kind == "game_over":
            typed.result.CopyFrom(self.result(state, event["result"]))
            return
        for name, value in event.items():
            if name != "type":
                _EVENT_FIELDS.get(name, _set)(typed, name, value)
        # A seat's own drawn and put-back cards come as lists alone: the typed event counts them too.
        if kind == "strategy_drawn" and "cards" in event:
            typed.count = len(event["cards"])
        elif kind == "strategy_kept" and "returned" in event:
            typed.returned_count = len(event["returned"])

    def preview_fragment(self, state: OreganoState, seat: int, action: OreganoAction) -> bytes:
        return _preview_fragment(previews.preview(state, seat, action))

    def actions_bytes(self, state: OreganoState, seat: int, actions: Sequence[OreganoAction]) -> bytes:
        """The legal actions and their previews; while declaring, also the view's declare outlook."""
        legal = super().actions_bytes(state, seat, actions)
        if state.phase != DECLARE:
            return legal
        view = pb.OreganoView()
        for outlook in previews.declare_outlook(state, seat):
            typed = view.declare_outlook.add(kind=ACTION_KIND[outlook.kind], operations=outlook.operations)
            if outlook.best is not None and outlook.preview is not None:
                typed.best.CopyFrom(self.action_message(outlook.best).oregano)
                typed.best_preview.CopyFrom(_preview_message(outlook.preview))
        return legal + api.MatchState(view=api.View(oregano=view)).SerializeToString()


# How an event's JSON field becomes its typed field: by name, the same in every event of docs/oregano.md.
def _set(message: Any, name: str, value: Any) -> None:
    setattr(message, name, value)


def _enum(names: Mapping[str, int]) -> Any:
    def put(message: Any, name: str, value: str) -> None:
        setattr(message, name, names[value])

    return put


def _enums(names: Mapping[str, int]) -> Any:
    def put(message: Any, name: str, values: list[str]) -> None:
        getattr(message, name).extend(names[value] for value in values)

    return put


def _extend(message: Any, name: str, values: list[int]) -> None:
    getattr(message, name).extend(values)


def _paid(message: Any, name: str, paid: Mapping[str, int]) -> None:
    getattr(message, name).CopyFrom(pb.OreganoCost(**paid))


_EVENT_FIELDS: dict[str, Any] = {
    "shop": _enum(SHOP),
    "card": _enum(STRATEGY),
    "cards": _enums(STRATEGY),
    "returned": _enums(STRATEGY),
    "resource": _enum(RESOURCE),
    "bonus": _enum(BONUS),
    "first": _enum(ACTION_KIND),
    "second": _enum(ACTION_KIND),
    "kind": _enum(ACTION_KIND),
    "paid": _paid,
    "took": _extend,
}


@functools.lru_cache(maxsize=8192)  # previews take few values: most repeat
def _preview_fragment(preview: previews.Preview) -> bytes:
    return api.MatchState(previews=[api.ActionPreview(oregano=_preview_message(preview))]).SerializeToString()


def _preview_message(preview: previews.Preview) -> pb.OreganoPreview:
    message = pb.OreganoPreview(
        cost=pb.OreganoCost(gold=preview.cost[0], **dict(zip(RESOURCES, preview.cost[1:], strict=True))),
        resources=pb.OreganoResources(**dict(zip(RESOURCES, preview.resources, strict=True))),
        score_change=preview.score_change,
        achieves_strategy=preview.achieves_strategy,
        bonuses=[BONUS[bonus] for bonus in preview.bonuses],
    )
    message.earnings.extend(
        mercado_pb2.Earning(seat=seat, amount=gold) for seat, gold in enumerate(preview.earnings) if gold
    )
    if preview.casino is not None:
        message.casino.loss = preview.casino.loss
        message.casino.win_takes.extend(preview.casino.win_takes)
    return message
