"""Engine and match objects to API messages and back. The only place that knows both."""

from __future__ import annotations

import functools
from typing import Any

from mercado.v1 import match_pb2 as api
from mercado.v1 import mercado_pb2 as pb
from mercado.v1 import players_pb2 as players_pb
from mercado_client.fairness import seed_commitment
from mercado_client.wire import (
    BOT_LEVEL_NAMES,
    BOT_LEVELS,
    MATCH_STATUSES,
    ON_TIMEOUT,
    ON_TIMEOUT_NAMES,
    WireError,
    action_json,
    action_message,
    entrance_message,
    good_enum,
    restaurant_enum,
    square_message,
    tile_message,
)

from server.games.mercado import Action, Event, Money, Options, action_from_json, events_for
from server.match import Match
from server.match.records import (
    AI,
    AI_PLAYED,
    DEFAULT_BOT_LEVEL,
    DEFAULT_FALLBACK_LEVEL,
    FINISHED,
    FORFEITED,
    LEFT,
    MatchRecord,
    TimeControl,
)
from server.players.ratings import unrated_because
from server.store.records import BOT, EXTERNAL, GUEST, RATED, PlayerRecord

PLAYER_KINDS = {
    GUEST: players_pb.PLAYER_KIND_GUEST,
    EXTERNAL: players_pb.PLAYER_KIND_EXTERNAL,
    BOT: players_pb.PLAYER_KIND_BOT,
}
MAX_CLOCK_SECONDS = 7 * 24 * 3600  # a week: correspondence play has no clock at all
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
    return action_from_json(action_json(action))


def action_to_message(action: Action) -> api.Action:
    return action_message(action.to_json())


# --- matches -----------------------------------------------------------------


def bot_level_message(level: str | None) -> api.BotLevel.ValueType:
    return BOT_LEVELS[level or DEFAULT_BOT_LEVEL]


def summary(match: Match) -> api.MatchSummary:
    """A match's summary with what only memory knows: its current deadline and final ranks."""
    message = summary_of(match.record, match.status, match.version)
    deadline = match.deadline_ms()
    if deadline is not None:
        message.deadline_unix_ms = deadline
    message.ranks.extend(match.ranks())
    if match.status == FINISHED and match.record.rating is None:
        # Finished, its rating still being written: decided as the ratings will decide it.
        message.rated = unrated_because(match.record, match.turns()) is None
    return message


def time_control(message: api.TimeControl) -> TimeControl | None:
    """A CreateMatch time control; None for none (0 s per turn)."""
    if not message.turn_seconds:
        return None
    if message.on_timeout not in (0, *ON_TIMEOUT_NAMES):
        raise WireError(f"unknown on_timeout {message.on_timeout}")
    level = message.fallback_level
    if level and level not in BOT_LEVEL_NAMES:
        raise WireError(f"unknown fallback_level {level}")
    if message.turn_seconds > MAX_CLOCK_SECONDS or message.reserve_seconds > MAX_CLOCK_SECONDS:
        raise WireError(f"turn_seconds and reserve_seconds must be at most {MAX_CLOCK_SECONDS}")
    return TimeControl(
        turn_seconds=message.turn_seconds,
        reserve_seconds=message.reserve_seconds,
        on_timeout=ON_TIMEOUT_NAMES.get(message.on_timeout, AI),
        fallback_level=BOT_LEVEL_NAMES.get(level, DEFAULT_FALLBACK_LEVEL),
    )


def time_control_message(clock: TimeControl | None) -> api.TimeControl:
    if clock is None:
        return api.TimeControl()
    return api.TimeControl(
        turn_seconds=clock.turn_seconds,
        reserve_seconds=clock.reserve_seconds,
        on_timeout=ON_TIMEOUT[clock.on_timeout],
        fallback_level=BOT_LEVELS[clock.fallback_level],
    )


def commitment(record: MatchRecord) -> str:
    """The seed commitment; empty for a match stored before commitments were."""
    return _commitment(record.seed, record.salt) if record.salt else ""


_commitment = functools.lru_cache(maxsize=4096)(seed_commitment)  # every update's summary carries it


def summary_of(record: MatchRecord, status: str, version: int) -> api.MatchSummary:
    return api.MatchSummary(
        match_id=record.match_id,
        game=api.GAME_MERCADO,
        status=MATCH_STATUSES[status],
        players=record.options.players,
        seats=[
            api.SeatInfo(
                seat=s.seat,
                bot=s.bot_level is not None,
                bot_level=BOT_LEVELS[s.bot_level] if s.bot_level else api.BOT_LEVEL_UNSPECIFIED,
                taken=s.taken,
                display_name=s.display_name,
                reserve_ms=s.reserve_ms if record.clock and s.bot_level is None else 0,
                played_by_ai=s.played_by in AI_PLAYED,
                left=s.played_by == LEFT,
                forfeited=s.played_by == FORFEITED,
                player_id=s.player_id or "",
            )
            for s in record.seats
        ],
        version=version,
        created_unix_ms=record.created_ms,
        mercado=options_message(record.options),
        seed_commitment=commitment(record),
        seed_chosen=record.seed_chosen,
        time_control=time_control_message(record.clock),
        hot_seat=record.hot_seat,
        # Decided once finished; until then (and while the decision is being written) whether it can be.
        rated=record.rating == RATED if record.rating else unrated_because(record, None) is None,
    )


def player_message(player: PlayerRecord) -> players_pb.Player:
    return players_pb.Player(
        player_id=player.player_id,
        display_name=player.display_name,
        kind=PLAYER_KINDS[player.kind],
        rating=players_pb.Rating(mu=player.mu, sigma=player.sigma, display=player.display_rating),
        rated_matches=player.rated_matches,
        wins=player.wins,
        created_unix_ms=player.created_ms,
    )


def events_message(events: list[Event], options: Options, seat: int | None) -> list[api.Event]:
    return [api.Event(mercado=event_message(e)) for e in events_for(events, options, seat)]


# --- views -------------------------------------------------------------------


# The board is most of every message, and from one action to the next most of it is unchanged.
# So each of its parts (a square's content, an entrance's customer, a level of customers) is
# serialized once per distinct value and cached; a board is those fragments joined and parsed
# back as one message (repeated fields of concatenated serializations append, in order).


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


def board_message(view: dict[str, Any]) -> pb.MercadoView:
    """Everything of a view but its players: the same for every viewer."""
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
    message = pb.MercadoView.FromString(b"".join(fragments))
    message.options.CopyFrom(options_message(Options(**view["options"])))
    message.phase = PHASE[view["phase"]]
    message.redrawn_this_turn = view["redrawn_this_turn"]
    message.bag_size = view["bag_count"]
    message.consecutive_coins = view["consecutive_coins"]
    if view["final_turns_left"] is not None:
        message.final_turns_left = view["final_turns_left"]
    if view["result"] is not None:
        message.result.CopyFrom(_result_message(view["result"]))
    return message


def view_message(view: dict[str, Any]) -> pb.MercadoView:
    """The engine's player view as a MercadoView."""
    message = board_message(view)
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
