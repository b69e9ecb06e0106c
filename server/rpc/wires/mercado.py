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
    GameState,
    Money,
    Options,
    Result,
    action_from_json,
    events_for,
    legal_actions,
    payments_of,
    public_market,
)
from server.games.mercado.components import GOODS, RESTAURANTS
from server.games.mercado.geometry import ENTRANCE_NAMES, SQUARE_NAMES
from server.games.mercado.position import customer_json
from server.games.mercado.state import PHASE_NAMES
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


@functools.lru_cache(maxsize=64)
def _options_of(options: tuple[tuple[str, Any], ...]) -> pb.MercadoOptions:
    """The options message of a match's options (the items of their JSON), shared as the actions'
    messages are: callers copy it, never change it."""
    return options_message(Options(**dict(options)))


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


def _square_content(name: str, stand: str | None, owner: int, restaurant: str | None) -> pb.SquareContent:
    """An occupied square: a stand, a face-up restaurant, or (neither) a face-down restaurant."""
    square = square_message(name)
    if stand is not None:
        return pb.SquareContent(square=square, stand=pb.Stand(good=good_enum(stand), owner=owner))
    if restaurant is not None:
        return pb.SquareContent(square=square, restaurant=restaurant_enum(restaurant))
    return pb.SquareContent(square=square, face_down=pb.FaceDown())


def _entrance_content(name: str, level: int, goods: list[str]) -> pb.EntranceContent:
    return pb.EntranceContent(entrance=entrance_message(name), tile=tile_message(level, goods))


def _customer_level(level: int, display: list[list[str]], deck_size: int) -> pb.CustomerLevel:
    tiles = [tile_message(level, goods) for goods in display]
    return pb.CustomerLevel(level=level, display=tiles, deck_size=deck_size)


def _player(
    seat: int, wooden: int, stands: list[str], restaurants: list[str], coins: int | None
) -> pb.PlayerPublic:
    """One player, with coins only when the viewer may see them (else None)."""
    player = pb.PlayerPublic(
        seat=seat,
        wooden_stands=wooden,
        stand_hand=[good_enum(g) for g in stands],
        restaurant_hand=[restaurant_enum(k) for k in restaurants],
    )
    if coins is not None:
        player.coins = coins
    return player


def _turn(view: Mapping[str, Any]) -> pb.MercadoView:
    """The view's scalar fields: where the turn stands, the bag's size, the end and the result."""
    turn = pb.MercadoView(
        phase=PHASE[view["phase"]],
        redrawn_this_turn=view["redrawn_this_turn"],
        refreshed_this_turn=view["refreshed_this_turn"],
        bag_size=view["bag_count"],
        consecutive_coins=view["consecutive_coins"],
    )
    if view["final_turns_left"] is not None:
        turn.final_turns_left = view["final_turns_left"]
    if view["result"] is not None:
        turn.result.CopyFrom(_result_message(view["result"]))
    return turn


def _result_message(result: dict[str, list[int]]) -> pb.MercadoResult:
    return pb.MercadoResult(
        scores=result["scores"], stands_on_market=result["stands_on_market"], ranks=result["ranks"]
    )


def view_message(view: dict[str, Any]) -> pb.MercadoView:
    """The engine's player view (its JSON) as a MercadoView."""
    message = _turn(view)
    message.options.CopyFrom(options_message(Options(**view["options"])))
    message.market.extend(
        _square_content(name, c.get("stand"), c.get("owner", 0), c.get("restaurant"))
        for name, c in view["market"].items()
    )
    message.entrances.extend(
        _entrance_content(name, c["level"], c["goods"]) for name, c in view["entrances"].items()
    )
    message.offer.extend(good_enum(good) for good in view["offer"])
    message.customers.extend(
        _customer_level(int(level), tiles, view["deck_counts"][level])
        for level, tiles in view["display"].items()
    )
    message.players.extend(
        _player(
            seat,
            view["wooden_stands"][seat],
            view["stand_hands"][seat],
            view["restaurant_hands"][seat],
            coins,
        )
        for seat, coins in enumerate(view["coins"])
    )
    return message


# The server builds the same message from the rules' state. The board is most of every message, and
# from one action to the next most of it is unchanged, so each part (a square's content, an
# entrance's customer, a level of customers, a player) is serialized once per distinct value, cached
# by the state's integers, and a board is those fragments joined (repeated fields of concatenated
# serializations append, in order), never parsed. Each reads only what ``player_view`` shows:
# the market through ``public_market``, the bag and the decks by their sizes.


@functools.cache
def _square_fragment(content: tuple[int, int, int, int]) -> bytes:
    square, good, owner, restaurant = content
    stand = GOODS[good] if good >= 0 else None
    face_up = RESTAURANTS[restaurant] if restaurant >= 0 else None
    return pb.MercadoView(
        market=[_square_content(SQUARE_NAMES[square], stand, owner, face_up)]
    ).SerializeToString()


@functools.cache
def _entrance_fragment(entrance: int, kind: int) -> bytes:
    customer = customer_json(kind)
    content = _entrance_content(ENTRANCE_NAMES[entrance], customer["level"], customer["goods"])
    return pb.MercadoView(entrances=[content]).SerializeToString()


@functools.cache
def _offer_fragment(good: int) -> bytes:
    return pb.MercadoView(offer=[good_enum(GOODS[good])]).SerializeToString()


_CUSTOMERS = field_key(pb.MercadoView.DESCRIPTOR, "customers")
_PLAYERS = field_key(pb.MercadoView.DESCRIPTOR, "players")


@functools.cache
def _level_fragment(level: int) -> bytes:
    return pb.CustomerLevel(level=level).SerializeToString()


@functools.cache
def _display_tile_fragment(kind: int) -> bytes:
    """A CustomerLevel fragment holding one tile of its display."""
    customer = customer_json(kind)
    return pb.CustomerLevel(display=[tile_message(customer["level"], customer["goods"])]).SerializeToString()


@functools.cache
def _deck_size_fragment(size: int) -> bytes:
    return pb.CustomerLevel(deck_size=size).SerializeToString()


def _customer_level_fragment(level: int, display: list[int], deck_size: int) -> bytes:
    """One level's display and deck size: built from fragments, as their combinations are many."""
    parts = [_level_fragment(level), *[_display_tile_fragment(kind) for kind in display]]
    parts.append(_deck_size_fragment(deck_size))
    return embedded(_CUSTOMERS, b"".join(parts))


@functools.lru_cache(maxsize=64)
def _options_fragment(options: Options) -> bytes:
    return pb.MercadoView(options=options_message(options)).SerializeToString()


@functools.lru_cache(maxsize=4096)
def _turn_fragment(
    phase: int,
    redrawn: bool,
    refreshed: bool,
    bag: int,
    consecutive: int,
    final_turns_left: int | None,
    result: Result | None,
) -> bytes:
    turn = {
        "phase": PHASE_NAMES[phase],
        "redrawn_this_turn": redrawn,
        "refreshed_this_turn": refreshed,
        "bag_count": bag,
        "consecutive_coins": consecutive,
        "final_turns_left": final_turns_left,
        "result": result.to_json() if result is not None else None,
    }
    return _turn(turn).SerializeToString()


@functools.lru_cache(maxsize=16384)
def _player_fragment(seat: int, wooden: int, stands: tuple[int, ...], restaurants: tuple[int, ...]) -> bytes:
    """A player without coins: they change far more often, and are a fragment of their own."""
    player = _player(seat, wooden, [GOODS[g] for g in stands], [RESTAURANTS[k] for k in restaurants], None)
    return player.SerializeToString()


@functools.lru_cache(maxsize=1024)
def _coins_fragment(coins: int) -> bytes:
    return pb.PlayerPublic(coins=coins).SerializeToString()


def board_bytes(state: GameState) -> bytes:
    """Everything of a view but its players, serialized as a MercadoView: the same for every viewer."""
    fragments = [_square_fragment(content) for content in public_market(state)]
    fragments += [_entrance_fragment(e, kind) for e, kind in enumerate(state.entrances) if kind >= 0]
    fragments += [_offer_fragment(good) for good in state.offer]
    fragments += [
        _customer_level_fragment(level, display, len(deck))
        for level, (display, deck) in enumerate(zip(state.display, state.decks, strict=True), start=1)
    ]
    fragments.append(_options_fragment(state.options))
    fragments.append(
        _turn_fragment(
            state.phase,
            state.redrawn,
            state.refreshed,
            len(state.bag),
            state.consecutive_coins,
            state.final_turns_left,
            state.result,
        )
    )
    return b"".join(fragments)


def players_bytes(state: GameState, seat: int | None) -> bytes:
    """The players as ``seat`` (None: a spectator) sees them, serialized as a MercadoView."""
    options = state.options
    parts = []
    for player, coins in enumerate(state.coins):
        fragment = _player_fragment(
            player,
            state.wooden_stands[player],
            tuple(state.hands[player]),
            tuple(state.restaurant_hands[player]),
        )
        if may_see_coins(options, seat, player):
            fragment += _coins_fragment(coins)
        parts.append(embedded(_PLAYERS, fragment))
    return b"".join(parts)


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


def _players(update: Update, seat: int | None) -> bytes:
    """The players as ``seat`` sees them (coins per the money option), as a MatchState fragment."""
    state = update.state
    key = ("players", seat if state.options.money_hidden else "all")
    cached: bytes | None = update.rendered.get(key)
    if cached is None:
        cached = update.rendered[key] = _in_match_state(players_bytes(state, seat))
    return cached


def _previews(update: Update, seat: int, actions: list[Action]) -> bytes:
    """What each of the mover's legal actions costs and pays, as the mover may see it, serialized."""
    state = update.state
    visible = tuple(may_see_coins(state.options, seat, player) for player in range(state.players))
    return b"".join(
        [_preview_fragment(cost, income, visible) for cost, income in payments_of(state, actions)]
    )


@functools.lru_cache(maxsize=8192)  # costs and incomes take few values: most previews repeat
def _preview_fragment(cost: int, income: tuple[int, ...], visible: tuple[bool, ...]) -> bytes:
    """One serialized MatchState fragment holding one preview (concatenated, they append in order):
    who ``income`` pays, with the amounts the viewer may see (``visible`` per seat)."""
    preview = pb.MercadoPreview(cost=cost)
    for player, amount in enumerate(income):
        if amount:
            earning = preview.earnings.add(seat=player)
            if visible[player]:
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

    def event_bytes(self, update: Update, seat: int | None) -> list[bytes]:
        assert update.record is not None
        options = update.state.options
        key = ("events", seat if options.money_hidden else "all")
        cached: list[bytes] | None = update.rendered.get(key)
        if cached is None:
            shown = events_for(update.events, options, seat)
            cached = update.rendered[key] = [_event_bytes(update, i, event) for i, event in enumerate(shown)]
        return cached


def _event_bytes(update: Update, index: int, event: Event) -> bytes:
    """The update's event ``index`` as ``event`` shows it, serialized once per update and form: every
    viewer shares an event that ``events_for`` leaves as it is (it keeps their order)."""
    assert update.record is not None
    key = ("event", index, event is update.events[index])
    cached: bytes | None = update.rendered.get(key)
    if cached is None:
        cached = update.rendered[key] = api.Event(mercado=event_message(event)).SerializeToString()
    return cached


def _board(update: Update) -> bytes:
    """The board every viewer shares, as a serialized MatchState fragment."""
    cached: bytes | None = update.rendered.get("board")
    if cached is None:
        cached = update.rendered["board"] = _in_match_state(board_bytes(update.state))
    return cached
