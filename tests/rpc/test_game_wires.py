"""Oregano's and Leilão's typed views and events, as the server sends them, carry exactly what the
rules' JSON views and events carry: each is turned back into that JSON here, field by field, and
compared, for every viewer of random matches. So do their deprecated Structs, and every state's
legal actions come with their previews, a sealed step's grouped too, and with the scores in parts."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.descriptor import EnumDescriptor
from mercado.v1 import leilao_pb2, oregano_pb2, score_pb2
from mercado.v1 import match_pb2 as api
from mercado_client.games import action_json, enum_name, options_json, struct_json

from server.games.leilao import previews as leilao_previews
from server.games.oregano import previews as oregano_previews
from server.games.registry import game_named
from server.match import PLAYING, MatchService, Policy
from server.rpc import render
from server.rpc.wires import WIRES
from server.rpc.wires.rules_json import RulesJsonWire
from server.store.sqlite import SqliteStore

DERIVED = ("format", "seat", "to_move", "legal_actions")  # the view's fields the MatchState holds itself


def name(enum: Any, number: int) -> str:
    descriptor: EnumDescriptor = enum.DESCRIPTOR
    return enum_name(descriptor, number)


def result_json(result: score_pb2.GameResult) -> dict[str, Any]:
    return {
        "scores": [score.total for score in result.scores],
        "ranks": list(result.ranks),
        "tie_breaks": [[tie.value for tie in score.tie_breaks] for score in result.scores],
    }


# --- Oregano -------------------------------------------------------------------------------------


def oregano_view_json(view: oregano_pb2.OreganoView, seat: int | None) -> dict[str, Any]:
    """The rules' JSON view (but the MatchState's own fields) that a typed view says."""
    o = oregano_pb2
    players = view.players

    def strategy(player: oregano_pb2.OreganoPlayer) -> dict[str, Any]:
        s = player.strategy
        if s.card:
            return {"card": name(o.OreganoStrategyCard, s.card), "progress": s.progress, "goal": s.goal}
        return {"count": s.count}

    def drawn(player: oregano_pb2.OreganoPlayer) -> dict[str, Any]:
        if player.seat == seat:
            return {"cards": [name(o.OreganoStrategyCard, c) for c in player.drawn.cards]}
        assert not player.drawn.cards
        return {"count": player.drawn.count}

    def record(player: oregano_pb2.OreganoPlayer) -> dict[str, Any]:
        r = player.record
        return {
            "built": [name(o.OreganoShop, k) for k in r.built],
            "sold": r.sold,
            "acquired": r.acquired,
            "levelled": list(r.levelled),
            "taken": [name(o.OreganoResource, k) for k in r.taken],
        }

    def resources(r: oregano_pb2.OreganoResources) -> dict[str, int]:
        return {"wood": r.wood, "stone": r.stone, "metal": r.metal}

    assert [p.seat for p in players] == list(range(len(players)))
    return {
        "options": {"players": len(players), **options_json("oregano", view.options)},
        "status": name(o.OreganoStatus, view.status),
        "phase": name(o.OreganoPhase, view.phase),
        "first_player": view.first_player,
        "current_player": view.current_player,
        "round": view.round,
        "gold": [p.gold for p in players],
        "resources": [resources(p.resources) for p in players],
        "areas": [
            {s.cell: {"shop": name(o.OreganoShop, s.shop), "id": s.id} for s in p.area} for p in players
        ],
        "boulevard": [
            {"shop": name(o.OreganoShop, e.shop), "level": e.level, "seller": e.seller, "id": e.id}
            for e in view.boulevard
        ],
        "stock": {name(o.OreganoShop, s.shop): s.count for s in view.stock},
        "supply": resources(view.supply),
        "strategy_deck_count": view.strategy_deck_count,
        "strategies": [strategy(p) for p in players],
        "drawn": [drawn(p) for p in players],
        "records": [record(p) for p in players],
        "bonus_available": [name(o.OreganoBonus, b) for b in view.bonus_available],
        "bonuses": [[name(o.OreganoBonus, b) for b in p.bonuses] for p in players],
        "declared": [name(o.OreganoActionKind, k) for k in view.declared] or None,
        "step": view.step,
        "end_triggered": view.end_triggered,
        "result": result_json(view.result) if view.HasField("result") else None,
    }


_OREGANO_ENUMS = {
    "shop": oregano_pb2.OreganoShop,
    "card": oregano_pb2.OreganoStrategyCard,
    "cards": oregano_pb2.OreganoStrategyCard,
    "returned": oregano_pb2.OreganoStrategyCard,
    "resource": oregano_pb2.OreganoResource,
    "bonus": oregano_pb2.OreganoBonus,
    "first": oregano_pb2.OreganoActionKind,
    "second": oregano_pb2.OreganoActionKind,
    "kind": oregano_pb2.OreganoActionKind,
}


def oregano_event_json(event: oregano_pb2.OreganoEvent, viewer: int | None) -> dict[str, Any]:
    """The rules' JSON event that a typed event says."""
    kind = event.WhichOneof("kind")
    assert kind is not None
    typed = getattr(event, kind)
    if kind == "game_over":
        return {"type": kind, "result": result_json(typed.result)}
    data: dict[str, Any] = {"type": kind}
    for field in typed.DESCRIPTOR.fields:
        value = getattr(typed, field.name)
        enum = _OREGANO_ENUMS.get(field.name)
        if field.name == "paid":
            value = {k: v for k, v in (("gold", value.gold), *_cards(value)) if v}
        elif enum is not None and field.label == field.LABEL_REPEATED:
            value = [name(enum, v) for v in value]
        elif enum is not None:
            value = name(enum, value) if value else None
        elif field.label == field.LABEL_REPEATED:
            value = list(value)
        data[field.name] = value
    own = data.get("seat") == viewer
    if kind == "strategy_drawn":  # the seat's own cards, or another's count
        assert own or not data["cards"]
        del data["cards" if not own else "count"]
    elif kind == "strategy_kept":  # the seat's own put-back cards, or another's count; the card if shown
        assert own or not data["returned"]
        del data["returned" if not own else "returned_count"]
        if data["card"] is None:
            del data["card"]
    return data


def _cards(cost: oregano_pb2.OreganoCost) -> list[tuple[str, int]]:
    return [("wood", cost.wood), ("stone", cost.stone), ("metal", cost.metal)]


# --- Leilão --------------------------------------------------------------------------------------


def leilao_view_json(view: leilao_pb2.LeilaoView, seat: int | None) -> dict[str, Any]:
    """The rules' JSON view (but the MatchState's own fields) that a typed view says."""
    players = view.players
    assert [p.seat for p in players] == list(range(len(players)))
    sealed = None
    if view.HasField("sealed"):
        assert view.sealed.seat == seat
        sealed = choice_json(view.sealed)
        del sealed["seat"]
        if view.phase == leilao_pb2.LEILAO_PHASE_TIEBREAK:
            del sealed["extra"]
    in_step = view.phase in (leilao_pb2.LEILAO_PHASE_TIEBREAK, leilao_pb2.LEILAO_PHASE_PICK)
    return {
        "options": {"players": len(players), **options_json("leilao", view.options)},
        "round": view.round,
        "phase": name(leilao_pb2.LeilaoPhase, view.phase),
        "start_player": view.start_player,
        "priority_order": list(view.priority_order),
        "acted": list(view.acted),
        "display": [s.name for s in view.display],
        "deck_count": view.deck_count,
        "stalls": [[s.name for s in p.stalls] for p in players],
        "removed": [s.name for s in view.removed],
        "played": [
            [
                {
                    "card": c.card,
                    "role": name(leilao_pb2.LeilaoRole, c.role),
                    "void": c.void,
                    "round": c.round,
                }
                for c in p.played
            ]
            for p in players
        ],
        "fees": [p.fees for p in players],
        "hands": [list(p.hand) for p in players],
        "sealed": sealed,
        "tie_group": [slot_json(s) for s in view.tie_group]
        if view.phase == leilao_pb2.LEILAO_PHASE_TIEBREAK
        else None,
        "ranking": [[slot_json(s) for s in group.slots] for group in view.ranking] if in_step else None,
        "pick_sequence": list(view.pick_sequence) if view.phase == leilao_pb2.LEILAO_PHASE_PICK else None,
        "picks_made": view.picks_made,
        "scores": [p.score for p in players],
        "result": result_json(view.result) if view.HasField("result") else None,
    }


def slot_json(slot: leilao_pb2.LeilaoSlot) -> dict[str, Any]:
    return {"seat": slot.seat, "role": name(leilao_pb2.LeilaoRole, slot.role), "card": slot.card}


def choice_json(choice: leilao_pb2.LeilaoChoice) -> dict[str, Any]:
    return {
        "seat": choice.seat,
        "card": choice.card,
        "extra": choice.extra if choice.HasField("extra") else None,
    }


def leilao_event_json(event: leilao_pb2.LeilaoEvent) -> dict[str, Any]:
    """The rules' JSON event that a typed event says."""
    kind = event.WhichOneof("kind")
    assert kind is not None
    typed = getattr(event, kind)
    data: dict[str, Any] = {"type": kind}
    if kind == "sealed":
        data |= {"step": name(leilao_pb2.LeilaoPhase, typed.step), "seat": typed.seat}
        if typed.HasField("choice"):  # the seat's own
            choice = choice_json(typed.choice)
            data |= {"card": choice["card"]} | ({"extra": choice["extra"]} if typed.step == 1 else {})
    elif kind == "reveal":
        step = name(leilao_pb2.LeilaoPhase, typed.step)
        choices = [choice_json(c) for c in typed.choices]
        if step == "tiebreak":
            choices = [{"seat": c["seat"], "card": c["card"]} for c in choices]
        data |= {"step": step, "round": typed.round, ("bids" if step == "bid" else "rebids"): choices}
    elif kind == "tiebreak":
        data |= {
            "card": typed.card,
            "slots": [slot_json(s) for s in typed.slots],
            "pending": list(typed.pending),
        }
    elif kind == "tie_settled":
        data["order"] = [slot_json(s) for s in typed.order]
    elif kind == "ranking":
        assert all(len(group.slots) == 1 for group in typed.ranking)
        data |= {
            "ranking": [slot_json(group.slots[0]) for group in typed.ranking],
            "pick_sequence": list(typed.pick_sequence),
        }
    elif kind == "pick":
        data |= {"seat": typed.seat, "stall": typed.stall.name}
    elif kind == "leftover":
        data["stalls"] = [s.name for s in typed.stalls]
    elif kind == "deal":
        data |= {
            "round": typed.round,
            "display": [s.name for s in typed.display],
            "deck_count": typed.deck_count,
        }
    else:
        data["result"] = result_json(typed.result)
    return data


def bid_options_json(options: leilao_pb2.LeilaoBidOptions) -> list[dict[str, Any]]:
    """A sealed step's bid options, one by one: its legal actions, in their order."""
    if options.step == leilao_pb2.LEILAO_PHASE_TIEBREAK:
        return [{"type": "rebid", "card": c.card} for c in options.cards]
    return [
        {"type": "bid", "card": c.card, "extra": extra} for c in options.cards for extra in (None, *c.extras)
    ]


def check_stall_names(message: Any) -> None:
    """Every LeilaoStall's colour and number are those its name says."""
    if isinstance(message, leilao_pb2.LeilaoStall):
        colour, number = message.name.split("-")
        assert (name(leilao_pb2.LeilaoColour, message.colour), message.number) == (colour, int(number))
        return
    for field, value in message.ListFields():
        if field.message_type is not None and field.message_type.file.package == "mercado.v1":
            for item in value if field.label == field.LABEL_REPEATED else [value]:
                check_stall_names(item)


def oregano_preview(shown: api.ActionPreview, players: int) -> oregano_previews.Preview:
    p = shown.oregano
    earnings = [0] * players
    for earning in p.earnings:
        assert earning.amount  # only the seats paid, each with its amount (gold is public)
        earnings[earning.seat] = earning.amount
    casino = (
        oregano_previews.Casino(p.casino.loss, tuple(p.casino.win_takes)) if p.HasField("casino") else None
    )
    return oregano_previews.Preview(
        cost=(p.cost.gold, p.cost.wood, p.cost.stone, p.cost.metal),
        earnings=tuple(earnings),
        resources=(p.resources.wood, p.resources.stone, p.resources.metal),
        score_change=p.score_change,
        achieves_strategy=p.achieves_strategy,
        bonuses=tuple(name(oregano_pb2.OreganoBonus, b) for b in p.bonuses),
        casino=casino,
    )


def outlook_json(outlook: oregano_pb2.OreganoDeclareOutlook) -> dict[str, Any]:
    """A declare outlook as the page reads it: its kind, how many operations, the best one's action."""
    best = action_json(api.Action(oregano=outlook.best)) if outlook.HasField("best") else None
    return {
        "kind": name(oregano_pb2.OreganoActionKind, outlook.kind),
        "operations": outlook.operations,
        "best": best,
        "score_change": outlook.best_preview.score_change if best else None,
    }


def outlook_rules(outlook: oregano_previews.Outlook) -> dict[str, Any]:
    best = outlook.best
    return {
        "kind": outlook.kind,
        "operations": outlook.operations,
        "best": None if best is None else game_named("oregano").action_to_json(best),
        "score_change": None if outlook.preview is None else outlook.preview.score_change,
    }


def leilao_preview(shown: api.ActionPreview, players: int) -> leilao_previews.Preview:
    p = shown.leilao
    preview = leilao_previews.Preview(p.card_penalty, p.fee, p.stall_points, p.set_bonus)
    assert p.score_change == preview.score_change
    return preview


# --- every viewer of random matches ----------------------------------------------------------------

PREVIEW_OF = {"oregano": oregano_preview, "leilao": leilao_preview}
PREVIEWS: dict[str, Any] = {"oregano": oregano_previews, "leilao": leilao_previews}

VIEW_JSON = {"oregano": oregano_view_json, "leilao": leilao_view_json}


def check_state(game: str, state: api.MatchState, rules_state: Any, viewer: int | None, moving: bool) -> None:
    """One viewer's MatchState against the rules."""
    rules = game_named(game)
    typed = getattr(state.view, game)
    expected = rules.view(rules_state, viewer)
    legal = expected.pop("legal_actions", [])
    # The deprecated Struct is still the rules' JSON view, as it was.
    assert struct_json(typed.view) == expected
    assert VIEW_JSON[game](typed, viewer) == {k: v for k, v in expected.items() if k not in DERIVED}
    if game == "leilao":
        check_stall_names(typed)
    assert [action_json(a) for a in state.legal_actions] == (legal if moving else [])
    assert len(state.previews) == len(state.legal_actions)
    assert all(p.WhichOneof("game") == game for p in state.previews)
    if moving:
        assert viewer is not None
        actions = rules.legal_actions(rules_state, viewer)
        for action, shown in zip(actions, state.previews, strict=True):
            players = len(rules.score_now(rules_state))
            assert PREVIEW_OF[game](shown, players) == PREVIEWS[game].preview(rules_state, viewer, action)
    if game == "leilao":
        sealed_step = moving and bool(legal) and legal[0]["type"] != "pick"
        assert bid_options_json(typed.bid_options) == (legal if sealed_step else [])
    if game == "oregano":
        declaring = moving and expected["phase"] == "declare"
        assert [outlook_json(o) for o in typed.declare_outlook] == (
            [outlook_rules(o) for o in oregano_previews.declare_outlook(rules_state, viewer)]
            if declaring
            else []
        )
    scores = [score.total for score in state.score_parts]
    assert scores == list(rules.score_now(rules_state))  # every score of these games is public


@pytest.mark.parametrize("game", ["oregano", "leilao"])
@pytest.mark.parametrize("players", [2, 3, 4])
async def test_every_viewer_gets_the_rules_view_and_events_typed(
    tmp_path: Path, game: str, players: int
) -> None:
    policy = Policy(allow_chosen_seeds=True, default_clock=None)
    service = MatchService(SqliteStore(tmp_path / "m.db"), policy=policy)
    rules = game_named(game)
    kinds: set[str] = set()
    try:
        options = dict(rules.options({"players": players}))
        if players == 3:  # the other way of the options that change what is seen
            options.update(
                {"strategy_cards": "open"} if game == "oregano" else {"leftover_stalls": "discard"}
            )
        match = await service.create_match(options, [None] * players, seed=players, game=game)
        tokens = [(await service.join(match.match_id, f"p{seat}")).token for seat in range(players)]
        rng = random.Random(players)
        while match.status == PLAYING:
            seat = rng.choice(sorted(rules.to_move(match.state)))
            action = rng.choice(rules.legal_actions(match.state, seat))
            version = match.version
            _, _, update = await service.submit(match.match_id, tokens[seat], version, str(version), action)
            assert update.record is not None
            for viewer in (None, *range(players)):
                sent = api.MatchUpdate.FromString(render.update_bytes(match, update, viewer))
                moving = viewer in rules.to_move(update.state)
                check_state(game, sent.state, update.state, viewer, moving)
                events = rules.events_for(update.state, update.events, viewer)
                assert [struct_json(getattr(e, game).event) for e in sent.events] == events
                if game == "oregano":
                    typed = [oregano_event_json(e.oregano, viewer) for e in sent.events]
                else:
                    typed = [leilao_event_json(e.leilao) for e in sent.events]
                assert typed == events
                kinds.update(e["type"] for e in events)
        assert "game_over" in kinds
    finally:
        service.store.close()


def test_every_game_has_its_wire() -> None:
    from server.games.registry import GAMES

    assert WIRES.keys() == GAMES.keys()


RARE_EVENTS = {
    "oregano": [
        {
            "type": "levelled_up",
            "seat": 0,
            "shop": "cafe",
            "id": 3,
            "from": "1a",
            "to": "2b",
            "paid": {"wood": 1, "gold": 3},
        },
        {"type": "casino", "seat": 1, "go": True},
        {"type": "die", "seat": 1, "roll": 5},
        {"type": "casino_lost", "seat": 1, "gold": 5},
        {"type": "casino_won", "seat": 1, "took": [7, 0, 4]},
    ],
    "leilao": [
        {
            "type": "tie_settled",
            "order": [{"seat": 0, "role": "extra", "card": 4}, {"seat": 1, "role": "main", "card": 4}],
        },
        {"type": "leftover", "stalls": ["green-5", "red-20"]},
    ],
}


@pytest.mark.parametrize("game", sorted(RARE_EVENTS))
def test_the_events_random_play_seldom_makes_are_typed_alike(game: str) -> None:
    wire = WIRES[game]
    assert isinstance(wire, RulesJsonWire)
    for event in RARE_EVENTS[game]:
        message = api.Event()
        wire.fill_event(getattr(message, game), None, event)
        typed = (
            oregano_event_json(message.oregano, None)
            if game == "oregano"
            else leilao_event_json(message.leilao)
        )
        assert typed == event
