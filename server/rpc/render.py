"""What each viewer receives for one update, built once per update and viewer.

Most of a view is the same for every viewer: only coins (with hidden money),
``your_seat`` and the legal actions of the seat to move differ. So the
shared part of a ``MatchState`` is built and serialized once per update, and
each viewer's state is that serialization followed by its own small parts.
Concatenated protobuf serializations parse as one merged message, which
keeps this exact without hand-written wire encoding. What a seat may see is
still decided by the engine (``player_view``, ``may_see_coins``,
``events_for``) alone.
"""

from __future__ import annotations

import functools
from typing import Any

from mercado.v1 import match_pb2 as api
from mercado.v1 import mercado_pb2 as pb
from mercado_client.wire import MATCH_STATUSES

from server.games.mercado import ALL_ACTIONS, Action, legal_actions, payments, player_view
from server.games.mercado.views import may_see_coins
from server.match import FINISHED, OWNER, PLAYING, Match, Update

from . import convert

_ACTIONS = [convert.action_to_message(a) for a in ALL_ACTIONS]  # by action id
# One serialized MatchState fragment holding just one legal action, per action id.
_LEGAL_FRAGMENTS = [api.MatchState(legal_actions=[message]).SerializeToString() for message in _ACTIONS]


def _public_view(update: Update) -> dict[str, Any]:
    """The spectator's view: what every viewer may see."""
    cached: dict[str, Any] | None = update.rendered.get("view")
    if cached is None:
        cached = update.rendered["view"] = player_view(update.state, None)
    return cached


def _status(match: Match, update: Update) -> str:
    """The match's status as of ``update``."""
    if update.record is None:
        return match.status
    # After an action every seat was taken; it finished the match only if its state is terminal.
    return FINISHED if update.state.is_terminal else PLAYING


def _shared(match: Match, update: Update) -> bytes:
    """The MatchState every viewer shares, serialized: summary, version, whose turn, the board."""
    cached: bytes | None = update.rendered.get("shared")
    if cached is None:
        view = _public_view(update)
        state = api.MatchState(
            match=convert.summary(match),
            version=update.version,
            view=api.View(mercado=convert.board_message(view)),
        )
        state.match.version = update.version
        status = _status(match, update)
        state.match.status = MATCH_STATUSES[status]
        if status == PLAYING:  # nobody is to move while seats are open
            state.to_move = update.state.current_player
            state.seats_to_move.append(update.state.current_player)
        if update.version != match.version:  # an earlier version (a stream catching up): its turn is over
            state.match.ClearField("deadline_unix_ms")
        if status != FINISHED:
            state.match.ClearField("ranks")
        cached = update.rendered["shared"] = state.SerializeToString()
    return cached


def _players(update: Update, seat: int | None) -> bytes:
    """The players as ``seat`` sees them (coins per the money option), serialized."""
    options = update.state.options
    key = ("players", seat if options.money_hidden else "all")
    cached: bytes | None = update.rendered.get(key)
    if cached is None:
        view = _public_view(update)
        coins: list[int | None] = [
            c if may_see_coins(options, seat, p) else None for p, c in enumerate(update.state.coins)
        ]
        mercado = pb.MercadoView(players=convert.players_message(view, coins))
        cached = update.rendered[key] = api.MatchState(view=api.View(mercado=mercado)).SerializeToString()
    return cached


def _previews(update: Update, seat: int, actions: list[Action]) -> bytes:
    """What each of the mover's legal actions costs and pays, as the mover may see it, serialized."""
    options = update.state.options
    parts = []
    for action in actions:
        cost, income = payments(update.state, action)
        earnings = tuple(
            (player, amount if may_see_coins(options, seat, player) else None)
            for player, amount in enumerate(income)
            if amount
        )
        parts.append(_preview_fragment(cost, earnings))
    return b"".join(parts)


@functools.lru_cache(maxsize=4096)  # costs and earnings take few values: most previews repeat
def _preview_fragment(cost: int, earnings: tuple[tuple[int, int | None], ...]) -> bytes:
    """One serialized MatchState fragment holding one preview (concatenated, they append in order)."""
    preview = pb.MercadoPreview(cost=cost)
    for player, amount in earnings:
        earning = preview.earnings.add(seat=player)
        if amount is not None:
            earning.amount = amount
    return api.MatchState(previews=[api.ActionPreview(mercado=preview)]).SerializeToString()


def state_bytes(match: Match, update: Update, seat: int | None) -> bytes:
    """The serialized MatchState ``seat`` (None: a spectator) sees as of ``update``: built once, for
    its stream and every GetView alike (the mover's legal actions and previews are the costly part)."""
    key = ("state", seat)
    cached: bytes | None = update.rendered.get(key)
    if cached is not None:
        return cached
    parts = [_shared(match, update), _players(update, seat)]
    state = update.state
    if seat is not None:
        parts.append(api.MatchState(your_seat=seat).SerializeToString())
        owner_moves = match.record.seats[seat].played_by == OWNER
        if seat == state.current_player and owner_moves and _status(match, update) == PLAYING:
            actions = legal_actions(state)
            parts += [_LEGAL_FRAGMENTS[a.id] for a in actions]
            parts.append(_previews(update, seat, actions))
    cached = update.rendered[key] = b"".join(parts)
    return cached


def match_state(match: Match, update: Update, seat: int | None) -> api.MatchState:
    return api.MatchState.FromString(state_bytes(match, update, seat))


def _events(update: Update, seat: int | None) -> list[api.Event]:
    assert update.record is not None
    options = update.state.options
    key = ("events", seat if options.money_hidden else "all")
    cached: list[api.Event] | None = update.rendered.get(key)
    if cached is None:
        cached = update.rendered[key] = convert.events_message(update.record.events, options, seat)
    return cached


def match_update(match: Match, update: Update, seat: int | None) -> api.MatchUpdate:
    """One stream message for ``seat``, built once per viewer and update."""
    key = ("update", seat)
    cached: api.MatchUpdate | None = update.rendered.get(key)
    if cached is None:
        cached = api.MatchUpdate(version=update.version)
        if update.record is not None:
            cached.seat = update.record.seat
            cached.action.CopyFrom(_ACTIONS[update.record.action.id])
            cached.events.extend(_events(update, seat))
        cached.state.MergeFromString(state_bytes(match, update, seat))
        update.rendered[key] = cached
    return cached


def submit_response(match: Match, update: Update, seat: int) -> api.SubmitActionResponse:
    """The submitter's answer: the same events and state its own stream carries."""
    rendered = match_update(match, update, seat)
    return api.SubmitActionResponse(version=update.version, events=rendered.events, state=rendered.state)
