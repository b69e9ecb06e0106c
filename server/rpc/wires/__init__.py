"""Each game's messages: how its options, actions, views and events travel on the wire.

The service and the streams are game-neutral; what differs per game is here, one object per game
(:class:`GameWire`), looked up by the game's name: Mercado de Lisboa's builds its view from the
rules' state, from cached fragments (``mercado.py``); the others fill their typed views and events
from the rules' JSON (``rules_json.py``, and ``oregano.py``, ``leilao.py``). Every game's score
parts are rendered alike (``scores.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from google.protobuf.message import Message
from mercado.v1 import match_pb2 as api
from mercado_client.games import game_name
from mercado_client.wire import WireError

from server.match import Update

from .leilao import LeilaoWire
from .mercado import MercadoWire
from .oregano import OreganoWire


class GameWire(Protocol):
    name: str  # the game's name, as its rules and the oneof fields of match.proto call it
    game: api.Game.ValueType

    def options_from_request(self, players: int, options: Message | None) -> Mapping[str, Any]:
        """The full options from CreateMatch's player count and options message (None: defaults);
        WireError or the rules' ValueError when they are not the game's."""
        ...

    def options_message(self, options: Mapping[str, Any]) -> Message: ...

    def action_from_message(self, action: api.Action) -> Any:
        """The game's action (WireError, or the rules' ValueError, when it is not one)."""
        ...

    def action_message(self, action: Any) -> api.Action: ...

    def view_bytes(self, update: Update, seat: int | None, moving: bool) -> bytes:
        """Serialized MatchState fragments: the view ``seat`` (None: a spectator) may see as of
        ``update``, and, when ``moving``, its legal actions and their previews (what each costs)."""
        ...

    def event_bytes(self, update: Update, seat: int | None) -> list[bytes]:
        """The update's events as ``seat`` may see them, each a serialized Event."""
        ...


WIRES: dict[str, GameWire] = {wire.name: wire for wire in (MercadoWire(), OreganoWire(), LeilaoWire())}


def wire_of(game: str) -> GameWire:
    return WIRES[game]


def wire_for_request(game: api.Game.ValueType) -> GameWire:
    """The game a request names (unspecified: Mercado); WireError for an unknown one."""
    return WIRES[game_name(game)]


def action_from_message(game: str, action: api.Action) -> Any:
    """``game``'s action from a message, which must be of that game."""
    given = action.WhichOneof("game")
    if given != game:
        what = "empty" if given is None else f"{given}'s"
        raise WireError(f"this match plays {game}; the action is {what}")
    return wire_of(game).action_from_message(action)
