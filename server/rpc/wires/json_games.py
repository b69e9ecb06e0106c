"""A game whose messages follow the JSON convention of ``mercado_client.games``: its typed options
and actions mirror their JSON forms, and its views and events are the rules' JSON in a Struct."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from google.protobuf.message import Message
from mercado.v1 import match_pb2 as api
from mercado_client import games
from mercado_client.wire import WireError

from server.games.registry import AnyGame, game_named
from server.match import Update


class JsonWire:
    def __init__(self, rules: AnyGame) -> None:
        self.rules = rules
        self.name = rules.name
        self.game = games.game_enum(rules.name)

    def options_from_request(self, players: int, options: Message | None) -> Mapping[str, Any]:
        data = {} if options is None else games.options_json(self.name, options)
        try:
            return self.rules.options({**data, "players": players or 2})
        except ValueError as error:
            raise WireError(str(error)) from None

    def options_message(self, options: Mapping[str, Any]) -> Message:
        return games.options_message(self.name, dict(options))

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
            rules = self.rules
            view = rules.view(update.state, seat)
            view.pop("legal_actions", None)  # MatchState.legal_actions carries them, when the seat may act
            state = api.MatchState()
            getattr(state.view, self.name).view.update(view)
            if moving and seat is not None:
                actions = rules.legal_actions(update.state, seat)
                state.legal_actions.extend(self.action_message(action) for action in actions)
            cached = update.rendered[key] = state.SerializeToString()
        return cached

    def event_bytes(self, update: Update, seat: int | None) -> list[bytes]:
        assert update.record is not None
        key = ("events", seat)
        cached: list[bytes] | None = update.rendered.get(key)
        if cached is None:
            cached = update.rendered[key] = []
            for event in self.rules.events_for(update.state, update.events, seat):
                message = api.Event()
                getattr(message, self.name).event.update(event)
                cached.append(message.SerializeToString())
        return cached


@functools.lru_cache(maxsize=65536)  # a game has few distinct actions: most are sent again and again
def _action_message(game: str, action: Any) -> api.Action:
    return games.action_message(game, game_named(game).action_to_json(action))
