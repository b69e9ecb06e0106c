"""Between the API's protobuf messages and the rules' JSON names (POSITION.md).

Squares are named "a1".."e5", entrances "top-a".."right-5", goods and
restaurants by their rule names. Used by the server and by clients alike.
"""

from __future__ import annotations

import functools
from typing import Any

from mercado.v1 import match_pb2 as api
from mercado.v1 import mercado_pb2 as pb

GOODS = ("fish", "flowers", "tomatoes", "meat", "grapes")
RESTAURANTS = ("sushi_bar", "tea_house", "pizzeria", "burger_bar", "wine_bar", "pub")
SIDES = ("top", "bottom", "left", "right")
COLUMNS = "abcde"


# Bot levels and match statuses by name, and back.
BOT_LEVELS = {
    "easy": api.BOT_LEVEL_EASY,
    "medium": api.BOT_LEVEL_MEDIUM,
    "hard": api.BOT_LEVEL_HARD,
    "expert": api.BOT_LEVEL_EXPERT,
}
BOT_LEVEL_NAMES = {value: name for name, value in BOT_LEVELS.items()}
MATCH_STATUSES = {
    "waiting": api.MATCH_STATUS_WAITING,
    "playing": api.MATCH_STATUS_PLAYING,
    "finished": api.MATCH_STATUS_FINISHED,
    "cancelled": api.MATCH_STATUS_CANCELLED,
}
ON_TIMEOUT = {"ai": api.ON_TIMEOUT_AI, "forfeited": api.ON_TIMEOUT_FORFEIT}
ON_TIMEOUT_NAMES = {value: name for name, value in ON_TIMEOUT.items()}
MATCH_STATUS_NAMES = {value: name for name, value in MATCH_STATUSES.items()}


class WireError(ValueError):
    """A message that does not name a valid good, square, entrance or action."""


def good_name(good: int) -> str:
    if not 1 <= good <= len(GOODS):
        raise WireError(f"good must be one of {', '.join(GOODS)}")
    return GOODS[good - 1]


_GOOD_ENUMS = {name: pb.Good.ValueType(i + 1) for i, name in enumerate(GOODS)}
_RESTAURANT_ENUMS = {name: pb.Restaurant.ValueType(i + 1) for i, name in enumerate(RESTAURANTS)}


def good_enum(name: str) -> pb.Good.ValueType:
    return _GOOD_ENUMS[name]


def restaurant_name(restaurant: int) -> str:
    if not 1 <= restaurant <= len(RESTAURANTS):
        raise WireError(f"restaurant must be one of {', '.join(RESTAURANTS)}")
    return RESTAURANTS[restaurant - 1]


def restaurant_enum(name: str) -> pb.Restaurant.ValueType:
    return _RESTAURANT_ENUMS[name]


def square_name(square: pb.Square) -> str:
    if not (1 <= square.column <= 5 and 1 <= square.row <= 5):
        raise WireError("square column and row must each be 1 to 5")
    return f"{COLUMNS[square.column - 1]}{square.row}"


@functools.cache
def square_message(name: str) -> pb.Square:
    """The Square for a name like "c3" (shared: copy before changing it)."""
    return pb.Square(column=COLUMNS.index(name[0]) + 1, row=int(name[1:]))


def entrance_name(entrance: pb.Entrance) -> str:
    if not 1 <= entrance.side <= len(SIDES):
        raise WireError("entrance side must be top, bottom, left or right")
    if not 1 <= entrance.line <= 5:
        raise WireError("entrance line must be 1 to 5")
    side = SIDES[entrance.side - 1]
    line = COLUMNS[entrance.line - 1] if side in ("top", "bottom") else str(entrance.line)
    return f"{side}-{line}"


@functools.cache
def entrance_message(name: str) -> pb.Entrance:
    """The Entrance for a name like "top-c" (shared: copy before changing it)."""
    side, line = name.split("-")
    number = COLUMNS.index(line) + 1 if side in ("top", "bottom") else int(line)
    return pb.Entrance(side=pb.Side.ValueType(SIDES.index(side) + 1), line=number)


def tile_message(level: int, goods: list[str]) -> pb.CustomerTile:
    return pb.CustomerTile(level=level, goods=[good_enum(g) for g in goods])


def tile_json(tile: pb.CustomerTile) -> dict[str, Any]:
    if len(tile.goods) != 2:
        raise WireError("a customer tile has exactly two goods")
    return {"level": tile.level, "goods": [good_name(g) for g in tile.goods]}


def action_json(action: api.Action) -> dict[str, Any]:
    """The POSITION.md JSON of an API action; raises WireError when malformed."""
    if action.WhichOneof("game") != "mercado":
        raise WireError("the action names no game")
    m = action.mercado
    kind = m.WhichOneof("action")
    if kind is None:
        raise WireError("the action is empty")
    if kind == "open_stand":
        return {
            "type": kind,
            "good": good_name(m.open_stand.good),
            "square": square_name(m.open_stand.square),
        }
    if kind == "take_offer":
        return {"type": kind, "good": good_name(m.take_offer.good)}
    if kind == "bring_customer":
        tile = tile_json(m.bring_customer.tile)
        return {"type": kind, **tile, "entrance": entrance_name(m.bring_customer.entrance)}
    if kind == "open_restaurant":
        o = m.open_restaurant
        return {"type": kind, "restaurant": restaurant_name(o.restaurant), "square": square_name(o.square)}
    return {"type": kind}


def action_message(data: dict[str, Any]) -> api.Action:
    """The API action for POSITION.md JSON."""
    kind = data["type"]
    m = pb.MercadoAction()
    if kind == "open_stand":
        m.open_stand.CopyFrom(
            pb.OpenStand(good=good_enum(data["good"]), square=square_message(data["square"]))
        )
    elif kind == "take_offer":
        m.take_offer.good = good_enum(data["good"])
    elif kind == "bring_customer":
        m.bring_customer.CopyFrom(
            pb.BringCustomer(
                tile=tile_message(data["level"], data["goods"]), entrance=entrance_message(data["entrance"])
            )
        )
    elif kind == "open_restaurant":
        m.open_restaurant.CopyFrom(
            pb.OpenRestaurant(
                restaurant=restaurant_enum(data["restaurant"]), square=square_message(data["square"])
            )
        )
    else:
        getattr(m, kind).SetInParent()
    return api.Action(mercado=m)


def describe(action: api.Action) -> str:
    """A short human text for an action, e.g. 'open_stand fish c3'."""
    data = action_json(action)
    parts = [data["type"]]
    if data["type"] == "bring_customer":
        parts += [str(data["level"]), "+".join(data["goods"]), data["entrance"]]
    parts += [data[key] for key in ("good", "restaurant", "square") if key in data]
    return " ".join(parts)
