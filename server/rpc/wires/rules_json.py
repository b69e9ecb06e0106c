"""The part of a game's wire that is the same for every game whose typed views and events are built
from its rules' JSON (Oregano, Leilão).

Options and actions follow the JSON convention of ``mercado_client.games``: typed messages that
mirror their JSON forms. Views and events are the game's typed messages, which its wire fills from
the rules' JSON view and events (``fill_view``, ``fill_event``): a typed view holds exactly what the
rules let its seat see. Their deprecated Struct fields (``view``, ``event``) still carry that JSON.
A seat that may act gets its legal actions, each with its preview, computed by the game's rules
(``actions_bytes``).

Viewers mostly see the same: a typed view is built once per update for each distinct JSON view, an
event once per distinct JSON event, and each field of a view's Struct once per distinct value.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from google.protobuf.descriptor import EnumDescriptor
from google.protobuf.message import Message
from google.protobuf.struct_pb2 import Struct
from mercado.v1 import match_pb2 as api
from mercado.v1 import score_pb2
from mercado_client import games
from mercado_client.wire import WireError

from server.games.registry import AnyGame, game_named
from server.match import Update
from server.rpc.encoding import embedded, field_key

from .scores import game_result

Value = TypeVar("Value", bound=int, covariant=True)


class EnumType(Protocol[Value]):
    """A generated enum type (``oregano_pb2.OreganoShop``)."""

    DESCRIPTOR: EnumDescriptor

    def Value(self, name: str) -> Value: ...


def enum_numbers(enum: EnumType[Value], names: Iterable[str]) -> dict[str, Value]:
    """Each of the rules' ``names`` to its value of ``enum`` (``"cafe"`` to OREGANO_SHOP_CAFE)."""
    return {name: enum.Value(games.enum_value_name(enum.DESCRIPTOR, name)) for name in names}


class RulesJsonWire:
    """A game on the wire, its typed views and events filled from its rules' JSON; a subclass fills
    them (``fill_view``, ``fill_event``) and renders each legal action's preview."""

    def __init__(self, rules: AnyGame) -> None:
        self.rules = rules
        self.name = rules.name
        self.game = games.game_enum(rules.name)
        self._view_field = field_key(api.View.DESCRIPTOR, self.name)
        view_message = api.View.DESCRIPTOR.fields_by_name[self.name].message_type
        self._struct_field = field_key(view_message, "view")

    # --- what each game says ----------------------------------------------------------------

    def fill_view(self, message: Any, state: Any, view: Mapping[str, Any]) -> None:
        """Fill the game's typed view from the rules' JSON ``view`` of ``state``."""
        raise NotImplementedError

    def fill_event(self, message: Any, state: Any, event: Mapping[str, Any]) -> None:
        """Fill the game's typed event from one of the rules' JSON events, as its viewer may see it
        (``state``: the position after it)."""
        raise NotImplementedError

    def preview_fragment(self, state: Any, seat: int, action: Any) -> bytes:
        """A serialized MatchState fragment holding the preview of ``seat``'s legal ``action``."""
        raise NotImplementedError

    def view_key(self, fields: Mapping[str, Field]) -> tuple[Field, ...]:
        """What the typed view of a JSON view (its ``fields``) depends on: equal keys, equal typed
        views. Every field but the viewer's seat, unless a game's typed view names it."""
        return tuple(field for name, field in fields.items() if name != "seat")

    def actions_bytes(self, state: Any, seat: int, actions: Sequence[Any]) -> bytes:
        """Serialized MatchState fragments: ``seat``'s legal ``actions`` and their previews."""
        legal = [legal_fragment(self.name, action) for action in actions]
        return b"".join(legal + [self.preview_fragment(state, seat, action) for action in actions])

    # --- what every such game shares ---------------------------------------------------------

    def result(self, state: Any, result: Mapping[str, Any]) -> score_pb2.GameResult:
        """A finished game's result: the rules' final scores in parts, and ``result``'s ranks."""
        return game_result(self.rules.score_parts(state), result["ranks"])

    def options_from_request(self, players: int, options: Message | None) -> Mapping[str, Any]:
        data = {} if options is None else games.options_json(self.name, options)
        try:
            return self.rules.options({**data, "players": players or 2})
        except ValueError as error:
            raise WireError(str(error)) from None

    def options_message(self, options: Mapping[str, Any]) -> Message:
        return _options_message(self.name, tuple(options.items()))

    def action_from_message(self, action: api.Action) -> Any:
        try:
            return self.rules.action_from_json(games.action_json(action))
        except ValueError as error:
            raise WireError(str(error)) from None

    def action_message(self, action: Any) -> api.Action:
        return _action_message(self.name, action)

    def view_bytes(self, update: Update, seat: int | None, moving: bool) -> bytes:
        key = ("view", seat, moving)
        cached: bytes | None = update.rendered.get(key)
        if cached is None:
            rules, state = self.rules, update.state
            view = rules.view(state, seat)
            view.pop("legal_actions", None)  # MatchState.legal_actions carries them, when the seat may act
            fields = {name: Field(value) for name, value in view.items()}
            parts = [self._typed_view(update, view, fields), self._struct(fields)]
            if moving and seat is not None:
                parts.append(self.actions_bytes(state, seat, rules.legal_actions(state, seat)))
            cached = update.rendered[key] = b"".join(parts)
        return cached

    def _typed_view(self, update: Update, view: Mapping[str, Any], fields: Mapping[str, Field]) -> bytes:
        """The typed view of the rules' JSON ``view``, as a MatchState fragment, built once per
        update for every viewer who sees the same."""
        key = ("typed view", self.view_key(fields))
        cached: bytes | None = update.rendered.get(key)
        if cached is None:
            message = api.MatchState()
            self.fill_view(getattr(message.view, self.name), update.state, view)
            cached = update.rendered[key] = message.SerializeToString()
        return cached

    def _struct(self, fields: Mapping[str, Field]) -> bytes:
        """The deprecated Struct of a JSON view (its ``fields``), as a MatchState fragment: each
        field's map entry is built once per distinct value (most are unchanged from one update to
        the next) and the entries are joined."""
        entries = b"".join([_struct_entry(name, field) for name, field in fields.items()])
        return embedded(_VIEW, embedded(self._view_field, embedded(self._struct_field, entries)))

    def event_bytes(self, update: Update, seat: int | None) -> list[bytes]:
        assert update.record is not None
        key = ("events", seat)
        cached: list[bytes] | None = update.rendered.get(key)
        if cached is None:
            events = self.rules.events_for(update.state, update.events, seat)
            cached = update.rendered[key] = [self._event(update, event) for event in events]
        return cached

    def _event(self, update: Update, event: Mapping[str, Any]) -> bytes:
        """One event, serialized once per update for every viewer who sees it alike."""
        key = ("event", repr(event))
        cached: bytes | None = update.rendered.get(key)
        if cached is None:
            message = api.Event()
            typed = getattr(message, self.name)
            self.fill_event(typed, update.state, event)
            typed.event.update(event)
            cached = update.rendered[key] = message.SerializeToString()
        return cached


_VIEW = field_key(api.MatchState.DESCRIPTOR, "view")


class Field:
    """A JSON view's field's value as a cache key: equal to another of the same text (its ``repr``,
    quicker than JSON and as exact for JSON values), the value at hand when the cache misses (and
    let go of once used: the cache keeps the text alone)."""

    __slots__ = ("text", "value")

    def __init__(self, value: Any) -> None:
        self.value = value
        self.text = repr(value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Field) and self.text == other.text

    def __hash__(self) -> int:
        return hash(self.text)


@functools.lru_cache(maxsize=8192)  # a view's fields keep their values over many updates
def _struct_entry(name: str, field: Field) -> bytes:
    """A Struct's map entry for field ``name`` of value ``field``, serialized."""
    struct = Struct()
    struct.update({name: field.value})
    field.value = None
    return struct.SerializeToString()


@functools.lru_cache(maxsize=256)
def _options_message(game: str, options: tuple[tuple[str, Any], ...]) -> Message:
    """A match's options message, shared as the actions' messages are: callers copy it, never
    change it."""
    return games.options_message(game, dict(options))


@functools.lru_cache(maxsize=65536)  # a game has few distinct actions: most are sent again and again
def _action_message(game: str, action: Any) -> api.Action:
    return games.action_message(game, game_named(game).action_to_json(action))


@functools.lru_cache(maxsize=65536)
def legal_fragment(game: str, action: Any) -> bytes:
    """A serialized MatchState fragment holding just one legal action."""
    return api.MatchState(legal_actions=[_action_message(game, action)]).SerializeToString()
