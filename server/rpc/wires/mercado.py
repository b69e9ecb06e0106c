"""Mercado de Lisboa's messages (proto/mercado/v1/mercado.proto) from its rules' JSON, and back.

Most of a view is the same for every viewer: only coins (with hidden money) and the mover's legal
actions differ. So the board is built and serialized once per update and each viewer's part
after it; concatenated protobuf serializations parse as one merged message, which keeps this exact
with no wire encoding by hand but the fields that wrap a part (``server/rpc/encoding.py``). What a
seat may see is still decided by the rules (``player_view``, ``may_see_coins``, ``events_for``)
alone.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from google.protobuf.message import Message
from mercado.v1 import match_pb2 as api
from mercado.v1 import mercado_pb2 as pb
from mercado_client.wire import (
    WireError,
    action_json,
    action_message,
    entrance_message,
    good_enum,
    restaurant_enum,
    square_message,
    tile_message,
)

from server.games.mercado import (
    ALL_ACTIONS,
    Action,
    Event,
    Money,
    Options,
    action_from_json,
    events_for,
    legal_actions,
    payments,
    player_view,
)
from server.games.mercado.views import may_see_coins
from server.match import Update
from server.rpc.encoding import embedded, field_key

PHASE = {"main": pb.PHASE_MAIN, "take_offer": pb.PHASE_TAKE_OFFER}
END_REASON = {"squares": pb.EndTriggered.REASON_SQUARES, "entrances": pb.EndTriggered.REASON_ENTRANCES}
GAME_END_REASON = {
    "final_round": pb.GameEnded.REASON_FINAL_ROUND,
    "consecutive_coins": pb.GameEnded.REASON_CONSECUTIVE_COINS,
}


# --- options, actions --------------------------------------------------------


def options_from_request(players: int, mercado: pb.MercadoOptions) -> Options:
    """Engine options from CreateMatch's fields (engine validation raises InvalidPosition)."""
    if mercado.money not in pb.Money.values():
        raise WireError("money must be MONEY_HIDDEN or MONEY_PUBLIC")
    money: Money = "public" if mercado.money == pb.MONEY_PUBLIC else "hidden"
    face_down = (
        mercado.face_down_counts_as_available if mercado.HasField("face_down_counts_as_available") else True
    )
    return Options(players=players or 2, money=money, face_down_counts_as_available=face_down)


def options_message(options: Options) -> pb.MercadoOptions:
    return pb.MercadoOptions(
        money=pb.MONEY_PUBLIC if options.money == "public" else pb.MONEY_HIDDEN,
        face_down_counts_as_available=options.face_down_counts_as_available,
    )


def action_from_message(action: api.Action) -> Action:
    """Raises WireError or InvalidAction when malformed."""
    return _action_from_bytes(action.SerializeToString(deterministic=True))


@functools.lru_cache(maxsize=4096)  # the same few hundred actions arrive again and again
def _action_from_bytes(action: bytes) -> Action:
    return action_from_json(action_json(api.Action.FromString(action)))


def action_to_message(action: Action) -> api.Action:
    return action_message(action.to_json())


def events_message(events: list[Event], options: Options, seat: int | None) -> list[api.Event]:
    return [api.Event(mercado=event_message(e)) for e in events_for(events, options, seat)]


# --- views -------------------------------------------------------------------


# The board is most of every message, and from one action to the next most of it is unchanged.
# So each of its parts (a square's content, an entrance's customer, a level of customers) is
# serialized once per distinct value and cached; a board is those fragments joined (repeated
# fields of concatenated serializations append, in order), never parsed.


@functools.cache
def _square_fragment(name: str, stand: str | None, owner: int, restaurant: str | None) -> bytes:
    square = square_message(name)
    if stand is not None:
        content = pb.SquareContent(square=square, stand=pb.Stand(good=good_enum(stand), owner=owner))
    elif restaurant is not None:
        content = pb.SquareContent(square=square, restaurant=restaurant_enum(restaurant))
    else:
        content = pb.SquareContent(square=square, face_down=pb.FaceDown())
    return pb.MercadoView(market=[content]).SerializeToString()


@functools.cache
def _entrance_fragment(name: str, level: int, goods: tuple[str, ...]) -> bytes:
    entrance = pb.EntranceContent(entrance=entrance_message(name), tile=tile_message(level, list(goods)))
    return pb.MercadoView(entrances=[entrance]).SerializeToString()


@functools.cache
def _offer_fragment(good: str) -> bytes:
    return pb.MercadoView(offer=[good_enum(good)]).SerializeToString()


@functools.lru_cache(maxsize=4096)  # displays and deck sizes combine in many ways: keep the recent ones
def _customer_level_fragment(level: int, display: tuple[tuple[str, ...], ...], deck_size: int) -> bytes:
    customers = pb.CustomerLevel(
        level=level, display=[tile_message(level, list(goods)) for goods in display], deck_size=deck_size
    )
    return pb.MercadoView(customers=[customers]).SerializeToString()


def _result_message(result: dict[str, list[int]]) -> pb.MercadoResult:
    return pb.MercadoResult(
        scores=result["scores"], stands_on_market=result["stands_on_market"], ranks=result["ranks"]
    )


def players_message(view: dict[str, Any], coins: list[int | None]) -> list[pb.PlayerPublic]:
    """The players of a view, with the coins the viewer may see."""
    players = []
    for seat, shown in enumerate(coins):
        player = pb.PlayerPublic(
            seat=seat,
            wooden_stands=view["wooden_stands"][seat],
            stand_hand=[good_enum(g) for g in view["stand_hands"][seat]],
            restaurant_hand=[restaurant_enum(k) for k in view["restaurant_hands"][seat]],
        )
        if shown is not None:
            player.coins = shown
        players.append(player)
    return players


@functools.lru_cache(maxsize=64)
def _options_of(options: tuple[tuple[str, Any], ...]) -> pb.MercadoOptions:
    """The options message of a match's options (the items of their JSON), shared as the actions'
    messages are: callers copy it, never change it."""
    return options_message(Options(**dict(options)))


@functools.lru_cache(maxsize=64)
def _options_fragment(options: tuple[tuple[str, Any], ...]) -> bytes:
    return pb.MercadoView(options=_options_of(options)).SerializeToString()


def board_bytes(view: dict[str, Any]) -> bytes:
    """Everything of a view but its players, serialized as a MercadoView: the same for every viewer."""
    fragments = [
        _square_fragment(name, c.get("stand"), c.get("owner", 0), c.get("restaurant"))
        for name, c in view["market"].items()
    ]
    fragments += [
        _entrance_fragment(name, c["level"], tuple(c["goods"])) for name, c in view["entrances"].items()
    ]
    fragments += [_offer_fragment(good) for good in view["offer"]]
    deck_counts = view["deck_counts"]
    fragments += [
        _customer_level_fragment(int(level), tuple(map(tuple, tiles)), deck_counts[level])
        for level, tiles in view["display"].items()
    ]
    fragments.append(_options_fragment(tuple(view["options"].items())))
    rest = pb.MercadoView(
        phase=PHASE[view["phase"]],
        redrawn_this_turn=view["redrawn_this_turn"],
        bag_size=view["bag_count"],
        consecutive_coins=view["consecutive_coins"],
    )
    if view["final_turns_left"] is not None:
        rest.final_turns_left = view["final_turns_left"]
    if view["result"] is not None:
        rest.result.CopyFrom(_result_message(view["result"]))
    fragments.append(rest.SerializeToString())
    return b"".join(fragments)


def view_message(view: dict[str, Any]) -> pb.MercadoView:
    """The engine's player view as a MercadoView."""
    message = pb.MercadoView.FromString(board_bytes(view))
    message.players.extend(players_message(view, view["coins"]))
    return message


# --- events ------------------------------------------------------------------


def event_message(event: Event) -> pb.MercadoEvent:
    """One engine event (already redacted for its viewer) as a MercadoEvent."""
    kind = event["type"]
    e = pb.MercadoEvent()
    if kind == "hand_redrawn":
        e.hand_redrawn.CopyFrom(
            pb.HandRedrawn(
                player=event["player"],
                returned=[good_enum(g) for g in event["returned"]],
                drawn=[good_enum(g) for g in event["drawn"]],
            )
        )
    elif kind == "stand_opened":
        e.stand_opened.CopyFrom(
            pb.StandOpened(
                player=event["player"],
                good=good_enum(event["good"]),
                square=square_message(event["square"]),
                cost=event["cost"],
            )
        )
    elif kind == "restaurant_taken":
        e.restaurant_taken.CopyFrom(
            pb.RestaurantTaken(
                player=event["player"],
                square=square_message(event["square"]),
                restaurant=restaurant_enum(event["restaurant"]),
            )
        )
    elif kind == "income":
        e.income.player = event["player"]
        if "amount" in event:
            e.income.amount = event["amount"]
    elif kind == "offer_refreshed":
        e.offer_refreshed.CopyFrom(
            pb.OfferRefreshed(
                returned=[good_enum(g) for g in event["returned"]],
                drawn=[good_enum(g) for g in event["drawn"]],
            )
        )
    elif kind == "offer_taken":
        e.offer_taken.CopyFrom(pb.OfferTaken(player=event["player"], good=good_enum(event["good"])))
    elif kind == "offer_refilled":
        e.offer_refilled.good = good_enum(event["good"])
    elif kind == "customer_brought":
        e.customer_brought.CopyFrom(
            pb.CustomerBrought(
                player=event["player"],
                tile=tile_message(event["level"], event["goods"]),
                entrance=entrance_message(event["entrance"]),
            )
        )
    elif kind == "display_refilled":
        e.display_refilled.tile.CopyFrom(tile_message(event["level"], event["goods"]))
    elif kind == "restaurant_opened":
        e.restaurant_opened.CopyFrom(
            pb.RestaurantOpened(
                player=event["player"],
                restaurant=restaurant_enum(event["restaurant"]),
                square=square_message(event["square"]),
            )
        )
    elif kind == "coin_taken":
        e.coin_taken.player = event["player"]
    elif kind == "end_triggered":
        e.end_triggered.CopyFrom(
            pb.EndTriggered(reason=END_REASON[event["reason"]], final_turns=event["final_turns"])
        )
    elif kind == "game_ended":
        e.game_ended.CopyFrom(
            pb.GameEnded(reason=GAME_END_REASON[event["reason"]], result=_result_message(event["result"]))
        )
    else:
        raise ValueError(f"no message for event {kind!r}")
    return e


# --- what each viewer receives ----------------------------------------------------

_ACTIONS = [action_to_message(a) for a in ALL_ACTIONS]  # by action id
# One serialized MatchState fragment holding just one legal action, per action id.
_LEGAL_FRAGMENTS = [api.MatchState(legal_actions=[message]).SerializeToString() for message in _ACTIONS]


_VIEW = field_key(api.MatchState.DESCRIPTOR, "view")
_MERCADO = field_key(api.View.DESCRIPTOR, "mercado")


def _in_match_state(mercado: bytes) -> bytes:
    """A serialized MercadoView as a MatchState fragment (its ``view.mercado``)."""
    return embedded(_VIEW, embedded(_MERCADO, mercado))


def _public_view(update: Update) -> dict[str, Any]:
    """The spectator's view: what every viewer may see."""
    cached: dict[str, Any] | None = update.rendered.get("view")
    if cached is None:
        cached = update.rendered["view"] = player_view(update.state, None)
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
        mercado = pb.MercadoView(players=players_message(view, coins)).SerializeToString()
        cached = update.rendered[key] = _in_match_state(mercado)
    return cached


def _previews(update: Update, seat: int, actions: list[Action]) -> bytes:
    """What each of the mover's legal actions costs and pays, as the mover may see it, serialized."""
    state = update.state
    visible = [may_see_coins(state.options, seat, player) for player in range(state.players)]
    parts = []
    for action in actions:
        cost, income = payments(state, action)
        earnings: tuple[tuple[int, int | None], ...] = ()
        if any(income):  # most actions pay nobody: skip building their earnings (about 15% of this)
            earnings = tuple((p, amount if visible[p] else None) for p, amount in enumerate(income) if amount)
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


class MercadoWire:
    """Mercado de Lisboa on the wire: its own typed messages, built from cached fragments."""

    name = "mercado"
    game = api.GAME_MERCADO

    def options_from_request(self, players: int, options: Message | None) -> Mapping[str, Any]:
        message = options if isinstance(options, pb.MercadoOptions) else pb.MercadoOptions()
        return options_from_request(players, message).to_json()

    def options_message(self, options: Mapping[str, Any]) -> Message:
        return _options_of(tuple(options.items()))

    def action_from_message(self, action: api.Action) -> Action:
        return action_from_message(action)

    def action_message(self, action: Action) -> api.Action:
        return _ACTIONS[action.id]

    def view_bytes(self, update: Update, seat: int | None, moving: bool) -> bytes:
        state = update.state
        parts = [_board(update), _players(update, seat)]
        if moving and seat is not None:
            actions = legal_actions(state)
            parts += [_LEGAL_FRAGMENTS[a.id] for a in actions]
            parts.append(_previews(update, seat, actions))
        return b"".join(parts)

    def events(self, update: Update, seat: int | None) -> list[api.Event]:
        assert update.record is not None
        options = update.state.options
        key = ("events", seat if options.money_hidden else "all")
        cached: list[api.Event] | None = update.rendered.get(key)
        if cached is None:
            cached = update.rendered[key] = events_message(update.record.events, options, seat)
        return cached


def _board(update: Update) -> bytes:
    """The board every viewer shares, as a serialized MatchState fragment."""
    cached: bytes | None = update.rendered.get("board")
    if cached is None:
        cached = update.rendered["board"] = _in_match_state(board_bytes(_public_view(update)))
    return cached
