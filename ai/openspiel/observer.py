"""Observation and information-state strings and tensors of the OpenSpiel game (layout: docs/openspiel.md).

Both are built from the engine's view of one seat (``player_view``), which already leaves out what
that seat may not see; the information state adds the public history, step by step. A string and
its tensor hold the same information: the string lists interchangeable tiles sorted, as the tensor
counts them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np

from server.games.mercado import (
    ENTRANCE_INDEX,
    GOOD_INDEX,
    KIND_NAMES,
    RESTAURANT_INDEX,
    SQUARE_INDEX,
    action_by_id,
    components,
    customer_kind,
)

if TYPE_CHECKING:
    from .game import MercadoState, Step

N_GOODS = len(components.GOODS)
N_RESTAURANTS = len(components.RESTAURANTS)
N_SQUARES = len(SQUARE_INDEX)
LEVELS = (1, 2, 3, 4)
N_CUSTOMERS = len(LEVELS) * math.comb(N_GOODS, 2)  # one kind per level and pair of goods
STATUSES = ("playing", "final_round", "finished")
PHASES = ("main", "take_offer")

# An action, one-hot by part: its type, good, square, customer tile, entrance and restaurant.
ACTION_PARTS = (
    ("type", len(KIND_NAMES)),
    ("good", N_GOODS),
    ("square", N_SQUARES),
    ("customer", N_CUSTOMERS),
    ("entrance", len(ENTRANCE_INDEX)),
    ("restaurant", N_RESTAURANTS),
)
ACTION_SIZE = sum(size for _, size in ACTION_PARTS)
# What a step showed of the hidden stock: the goods drawn and returned (counts), the restaurant turned
# up, the customer tile drawn.
REVEALED_SIZE = 2 * N_GOODS + N_RESTAURANTS + N_CUSTOMERS

CUSTOMER_NAMES = {
    customer_kind(level, pair): f"{level}:{components.GOODS[pair[0]]}+{components.GOODS[pair[1]]}"
    for level in LEVELS
    for pair in combinations(range(N_GOODS), 2)
}


def customer_of(level: int, goods: Sequence[str]) -> int:
    return customer_kind(level, (GOOD_INDEX[goods[0]], GOOD_INDEX[goods[1]]))


def _action_features(action_id: int) -> tuple[int, ...]:
    """The positions of an action's ones within its ACTION_SIZE block."""
    data = action_by_id(action_id).to_json()
    values = {
        "type": KIND_NAMES.index(data["type"]),
        "good": GOOD_INDEX.get(data.get("good", "")),
        "square": SQUARE_INDEX.get(data.get("square", "")),
        "customer": customer_of(data["level"], data["goods"]) if "level" in data else None,
        "entrance": ENTRANCE_INDEX.get(data.get("entrance", "")),
        "restaurant": RESTAURANT_INDEX.get(data.get("restaurant", "")),
    }
    out, offset = [], 0
    for part, size in ACTION_PARTS:
        value = values[part]
        if value is not None:
            out.append(offset + value)
        offset += size
    return tuple(out)


ACTION_FEATURES: dict[int, tuple[int, ...]] = {}


def action_features(action_id: int) -> tuple[int, ...]:
    if action_id not in ACTION_FEATURES:
        ACTION_FEATURES[action_id] = _action_features(action_id)
    return ACTION_FEATURES[action_id]


def view_layout(players: int) -> list[tuple[str, tuple[int, ...]]]:
    """The named pieces of an observation tensor, in order."""
    n = players
    return [
        ("seat", (n,)),
        ("current_player", (n,)),
        ("status", (len(STATUSES),)),
        ("phase", (len(PHASES),)),
        ("redrawn_this_turn", (1,)),
        ("refreshed_this_turn", (1,)),
        ("coins", (n,)),
        ("coins_visible", (n,)),
        ("wooden_stands", (n,)),
        ("stand_hands", (n, N_GOODS)),
        ("restaurant_hands", (n, N_RESTAURANTS)),
        ("stand_goods", (N_SQUARES, N_GOODS)),
        ("stand_owners", (N_SQUARES, n)),
        ("restaurants", (N_SQUARES, N_RESTAURANTS)),
        ("face_down", (N_SQUARES,)),
        ("entrances", (len(ENTRANCE_INDEX), N_CUSTOMERS)),
        ("offer", (N_GOODS,)),
        ("bag_count", (1,)),
        ("display", (N_CUSTOMERS,)),
        ("deck_counts", (len(LEVELS),)),
        ("consecutive_coins", (1,)),
        ("final_turns_left", (1,)),
        ("scores", (n,)),
    ]


def step_size(players: int) -> int:
    """One step of the history: the actor (one-hot), the action (ACTION_PARTS), what it revealed."""
    return players + ACTION_SIZE + REVEALED_SIZE


def canonical(view: dict[str, Any]) -> dict[str, Any]:
    """The view with interchangeable tiles sorted (hands, offer, display): what the tensor counts."""
    return {
        **view,
        "stand_hands": [sorted(hand, key=GOOD_INDEX.__getitem__) for hand in view["stand_hands"]],
        "restaurant_hands": [
            sorted(hand, key=RESTAURANT_INDEX.__getitem__) for hand in view["restaurant_hands"]
        ],
        "offer": sorted(view["offer"], key=GOOD_INDEX.__getitem__),
        "display": {level: sorted(tiles) for level, tiles in view["display"].items()},
    }


class MercadoObserver:
    """OpenSpiel's Python observer: ``tensor`` (flat), ``dict`` (its named pieces, views of it)."""

    def __init__(self, players: int, history_length: int) -> None:
        layout = view_layout(players)
        if history_length:
            layout.append(("history", (history_length, step_size(players))))
        self.players = players
        self.tensor = np.zeros(sum(math.prod(shape) for _, shape in layout), np.float32)
        self.dict: dict[str, np.ndarray[Any, np.dtype[np.float32]]] = {}
        offset = 0
        for name, shape in layout:
            size = math.prod(shape)
            self.dict[name] = self.tensor[offset : offset + size].reshape(shape)
            offset += size

    def set_from(self, state: MercadoState, player: int) -> None:
        self.tensor.fill(0.0)
        self._set_view(state.view(player))
        if "history" in self.dict:
            self._set_history(state.public_history())

    def _set_view(self, view: dict[str, Any]) -> None:
        d = self.dict
        d["seat"][view["seat"]] = 1
        if view["status"] != "finished":
            d["current_player"][view["current_player"]] = 1
        d["status"][STATUSES.index(view["status"])] = 1
        d["phase"][PHASES.index(view["phase"])] = 1
        d["redrawn_this_turn"][0] = view["redrawn_this_turn"]
        d["refreshed_this_turn"][0] = view["refreshed_this_turn"]
        for p, coins in enumerate(view["coins"]):
            if coins is not None:
                d["coins"][p] = coins
                d["coins_visible"][p] = 1
        d["wooden_stands"][:] = view["wooden_stands"]
        for p, hand in enumerate(view["stand_hands"]):
            for good in hand:
                d["stand_hands"][p, GOOD_INDEX[good]] += 1
        for p, hand in enumerate(view["restaurant_hands"]):
            for kind in hand:
                d["restaurant_hands"][p, RESTAURANT_INDEX[kind]] += 1
        for square, content in view["market"].items():
            s = SQUARE_INDEX[square]
            if "stand" in content:
                d["stand_goods"][s, GOOD_INDEX[content["stand"]]] = 1
                d["stand_owners"][s, content["owner"]] = 1
            elif "restaurant" in content:
                d["restaurants"][s, RESTAURANT_INDEX[content["restaurant"]]] = 1
            else:
                d["face_down"][s] = 1
        for entrance, tile in view["entrances"].items():
            d["entrances"][ENTRANCE_INDEX[entrance], customer_of(tile["level"], tile["goods"])] = 1
        for good in view["offer"]:
            d["offer"][GOOD_INDEX[good]] += 1
        d["bag_count"][0] = view["bag_count"]
        for level, tiles in view["display"].items():
            for goods in tiles:
                d["display"][customer_of(int(level), goods)] += 1
        d["deck_counts"][:] = [view["deck_counts"][str(level)] for level in LEVELS]
        d["consecutive_coins"][0] = view["consecutive_coins"]
        d["final_turns_left"][0] = view["final_turns_left"] or 0
        if view["result"] is not None:
            d["scores"][:] = view["result"]["scores"]

    def _set_history(self, steps: Sequence[Step]) -> None:
        history = self.dict["history"]
        n = self.players
        revealed = n + ACTION_SIZE
        for row, step in zip(history, steps, strict=False):
            row[step.actor] = 1
            for feature in action_features(step.action):
                row[n + feature] = 1
            for good in step.drawn_goods:
                row[revealed + good] += 1
            for good in step.returned_goods:
                row[revealed + N_GOODS + good] += 1
            if step.restaurant >= 0:
                row[revealed + 2 * N_GOODS + step.restaurant] = 1
            if step.customer >= 0:
                row[revealed + 2 * N_GOODS + N_RESTAURANTS + step.customer] = 1

    def string_from(self, state: MercadoState, player: int) -> str:
        text = json.dumps(canonical(state.view(player)), separators=(",", ":"))
        if "history" in self.dict:
            text += "".join("\n" + step.text() for step in state.public_history())
        return text
