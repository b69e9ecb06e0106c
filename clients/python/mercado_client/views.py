"""A MercadoView as the rules' JSON view (the shape of the engine's ``player_view``)."""

from __future__ import annotations

from typing import Any

from mercado.v1 import match_pb2 as api
from mercado.v1 import mercado_pb2 as pb

from .wire import entrance_name, good_name, restaurant_name, square_name, tile_json

PHASES = {pb.PHASE_MAIN: "main", pb.PHASE_TAKE_OFFER: "take_offer"}


def _status(state: api.MatchState, view: pb.MercadoView) -> str:
    if state.match.status == api.MATCH_STATUS_FINISHED:
        return "finished"
    return "final_round" if view.HasField("final_turns_left") else "playing"


def view_json(state: api.MatchState) -> dict[str, Any]:
    """The seat's view in the rules' JSON names; hidden coins are None."""
    view = state.view.mercado
    market: dict[str, dict[str, Any]] = {}
    for square in view.market:
        kind = square.WhichOneof("content")
        if kind == "stand":
            market[square_name(square.square)] = {
                "stand": good_name(square.stand.good),
                "owner": square.stand.owner,
            }
        elif kind == "restaurant":
            market[square_name(square.square)] = {"restaurant": restaurant_name(square.restaurant)}
        else:
            market[square_name(square.square)] = {"face_down": True}
    result = None
    if view.HasField("result"):
        result = {
            "scores": list(view.result.scores),
            "stands_on_market": list(view.result.stands_on_market),
            "ranks": list(view.result.ranks),
        }
    return {
        "seat": state.your_seat if state.HasField("your_seat") else None,
        "options": {
            "players": len(view.players),
            "money": "public" if view.options.money == pb.MONEY_PUBLIC else "hidden",
            "face_down_counts_as_available": view.options.face_down_counts_as_available,
        },
        "status": _status(state, view),
        "current_player": state.to_move if state.HasField("to_move") else 0,
        "phase": PHASES.get(view.phase, "main"),
        "redrawn_this_turn": view.redrawn_this_turn,
        "refreshed_this_turn": view.refreshed_this_turn,
        "coins": [p.coins if p.HasField("coins") else None for p in view.players],
        "wooden_stands": [p.wooden_stands for p in view.players],
        "stand_hands": [[good_name(g) for g in p.stand_hand] for p in view.players],
        "restaurant_hands": [[restaurant_name(k) for k in p.restaurant_hand] for p in view.players],
        "market": market,
        "entrances": {entrance_name(e.entrance): tile_json(e.tile) for e in view.entrances},
        "offer": [good_name(g) for g in view.offer],
        "bag_count": view.bag_size,
        "display": {str(c.level): [tile_json(t)["goods"] for t in c.display] for c in view.customers},
        "deck_counts": {str(c.level): c.deck_size for c in view.customers},
        "consecutive_coins": view.consecutive_coins,
        "final_turns_left": view.final_turns_left if view.HasField("final_turns_left") else None,
        "result": result,
    }
