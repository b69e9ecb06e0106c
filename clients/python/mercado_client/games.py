"""Every game's actions, options, views and events between the API's messages and their JSON forms.

Mercado de Lisboa has its own typed messages (``wire.py``, ``views.py``). The other games follow
one convention, so one piece of code serves them all, a new game included: a game called ``g`` is
``GAME_G`` in match.proto and the field ``g`` of its ``oneof``s; an action's JSON
``{"type": t, ...}`` is the field ``t`` of the game's action message, holding the other fields;
options are the game's options message field for field, an option whose values are names being an
enum field ``<option>_rule`` (``OREGANO_SPECIAL_LIMIT_ONE_TOTAL`` is ``"one_total"``) beside its
deprecated string field ``<option>``. Their views and events are typed too, and still carry the
rules' JSON in a deprecated ``google.protobuf.Struct``, which is what this module reads.
"""

from __future__ import annotations

import re
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.struct_pb2 import Struct
from mercado.v1 import match_pb2 as api

from . import wire
from .wire import WireError

_PREFIX = "GAME_"


def game_name(game: int) -> str:
    """The game's name ("mercado", "oregano", "leilao") for its API enum; unspecified is Mercado."""
    if game == api.GAME_UNSPECIFIED:
        return "mercado"
    try:
        return api.Game.Name(game)[len(_PREFIX) :].lower()  # type: ignore[arg-type]
    except ValueError:
        raise WireError(f"unknown game {game}") from None


def game_enum(name: str) -> api.Game.ValueType:
    try:
        return api.Game.Value(_PREFIX + name.upper())
    except ValueError:
        raise WireError(f"unknown game {name!r} (one of {', '.join(GAMES)})") from None


# Every game's name: the match.proto enum's names, which are also the oneof fields of its messages.
GAMES = [game_name(number) for number in api.Game.values() if number != api.GAME_UNSPECIFIED]


def _options_message(game: str) -> Message:
    """An empty options message of ``game``: the type of CreateMatchRequest's field of its name."""
    message: Message = type(getattr(api.CreateMatchRequest(), game))()
    return message


def plain(value: Any) -> Any:
    """A Struct's JSON with whole numbers as ``int`` (a Struct keeps every number as a double)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    return value


def struct_json(struct: Struct) -> dict[str, Any]:
    return plain(json_format.MessageToDict(struct))  # type: ignore[no-any-return]


def json_struct(data: dict[str, Any]) -> Struct:
    struct = Struct()
    struct.update(data)
    return struct


def _fields_json(message: Message) -> dict[str, Any]:
    """A message's fields by their proto names; an unset optional field is None."""
    data: dict[str, Any] = json_format.MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )
    for field in message.DESCRIPTOR.fields:
        if field.has_presence and field.name not in data:
            data[field.name] = None
    return data


def _parse(data: dict[str, Any], message: Message, what: str) -> None:
    try:
        json_format.ParseDict({key: value for key, value in data.items() if value is not None}, message)
    except json_format.ParseError as error:
        raise WireError(f"not a {what}: {str(error).splitlines()[0]}") from None


# --- actions ---------------------------------------------------------------------


def action_game(action: api.Action) -> str:
    game = action.WhichOneof("game")
    if game is None:
        raise WireError("the action names no game")
    return game


def action_json(action: api.Action) -> dict[str, Any]:
    """The rules' JSON of an API action, whatever its game; WireError when malformed."""
    game = action_game(action)
    if game == "mercado":
        return wire.action_json(action)
    message = getattr(action, game)
    kind = message.WhichOneof("action")
    if kind is None:
        raise WireError("the action is empty")
    return {"type": kind, **_fields_json(getattr(message, kind))}


def action_message(game: str, data: dict[str, Any]) -> api.Action:
    """The API action of ``game`` for the rules' JSON of an action."""
    if game == "mercado":
        return wire.action_message(data)
    message = type(getattr(api.Action(), game))()
    kind = data.get("type")
    if not isinstance(kind, str) or message.DESCRIPTOR.fields_by_name.get(kind) is None:
        raise WireError(f"unknown {game} action type {kind!r}")
    fields = {key: value for key, value in data.items() if key != "type"}
    _parse(fields, getattr(message, kind), f"{game} {kind}")
    getattr(message, kind).SetInParent()
    return api.Action(**{game: message})


# --- options ---------------------------------------------------------------------

_RULE = "_rule"  # the suffix of an option's enum field, beside its deprecated string field


def _enum_prefix(enum: EnumDescriptor) -> str:
    """The prefix of an enum's value names: ``OREGANO_SPECIAL_LIMIT_`` for OreganoSpecialLimit."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", enum.name).upper() + "_"


def enum_name(enum: EnumDescriptor, number: int) -> str:
    """The rules' name of an enum value: ``"one_total"`` for OREGANO_SPECIAL_LIMIT_ONE_TOTAL."""
    value = enum.values_by_number.get(number)
    if value is None or number == 0:
        raise WireError(f"{enum.name} has no value {number}")
    return str(value.name[len(_enum_prefix(enum)) :].lower())


def enum_value_name(enum: EnumDescriptor, name: str) -> str:
    """The name of the enum value of a rules' name: OREGANO_SPECIAL_LIMIT_ONE_TOTAL for "one_total"."""
    return _enum_prefix(enum) + name.upper()


def enum_number(enum: EnumDescriptor, name: str) -> int | None:
    """The enum value of a rules' name; None when the enum has none."""
    value = enum.values_by_name.get(enum_value_name(enum, name))
    return None if value is None or value.number == 0 else value.number


def _rule_field(field: FieldDescriptor) -> bool:
    return field.name.endswith(_RULE) and field.enum_type is not None


def options_json(game: str, message: Message) -> dict[str, Any]:
    """The options a game's options message sets (absent ones are left to the rules' defaults);
    WireError when an option's enum and string fields disagree."""
    data: dict[str, Any] = {}
    for field, value in message.ListFields():
        name, given = field.name, value
        if _rule_field(field):
            name, given = name[: -len(_RULE)], enum_name(field.enum_type, value)
        if data.setdefault(name, given) != given:
            raise WireError(f"{game} options: {name} and {name}{_RULE} disagree")
    return data


def options_message(game: str, options: dict[str, Any]) -> Message:
    """A game's options message from its full JSON options (``players`` aside), an option of names
    in both its enum field and its deprecated string field."""
    message = _options_message(game)
    _parse({key: value for key, value in options.items() if key != "players"}, message, f"{game} options")
    for field in message.DESCRIPTOR.fields:
        source = field.name[: -len(_RULE)]
        if _rule_field(field) and message.HasField(source):
            number = enum_number(field.enum_type, getattr(message, source))
            if number is not None:  # an unknown name is left to the server to refuse
                setattr(message, field.name, number)
    return message


# --- views and events --------------------------------------------------------------


def view_json(state: api.MatchState) -> dict[str, Any] | None:
    """The rules' JSON view a MatchState carries; None when it carries none."""
    game = state.view.WhichOneof("game")
    if game is None:
        return None
    if game == "mercado":
        from .views import view_json as mercado_view_json

        return mercado_view_json(state)
    return struct_json(getattr(state.view, game).view)


def event_json(event: api.Event) -> dict[str, Any]:
    game = event.WhichOneof("game")
    if game is None:
        raise WireError("the event names no game")
    if game == "mercado":
        return json_format.MessageToDict(event.mercado, preserving_proto_field_name=True)
    return struct_json(getattr(event, game).event)
