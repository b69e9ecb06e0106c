"""Match and player records to API messages and back, the same for every game (each game's own
messages are its wire's: ``server.rpc.wires``)."""

from __future__ import annotations

import functools

from mercado.v1 import match_pb2 as api
from mercado.v1 import players_pb2 as players_pb
from mercado_client.fairness import seed_commitment
from mercado_client.wire import (
    BOT_LEVEL_NAMES,
    BOT_LEVELS,
    MATCH_STATUSES,
    ON_TIMEOUT,
    ON_TIMEOUT_NAMES,
    WireError,
)

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
from server.players.ratings import played, unrated_because
from server.rpc.wires import wire_of
from server.store.records import BOT, EXTERNAL, GUEST, RATED, PlayerRecord

PLAYER_KINDS = {
    GUEST: players_pb.PLAYER_KIND_GUEST,
    EXTERNAL: players_pb.PLAYER_KIND_EXTERNAL,
    BOT: players_pb.PLAYER_KIND_BOT,
}
MAX_CLOCK_SECONDS = 7 * 24 * 3600  # a week: correspondence play has no clock at all


# --- matches -----------------------------------------------------------------


def bot_level_message(level: str | None) -> api.BotLevel.ValueType:
    return BOT_LEVELS[level or DEFAULT_BOT_LEVEL]


def summary(match: Match) -> api.MatchSummary:
    """A match's summary with what only memory knows: its current deadline and final ranks."""
    message = summary_of(match.record, match.status, match.version)
    deadlines = match.deadlines_ms()
    if len(match.to_move()) > 1:  # a simultaneous step: each seat's own (in a turn, the summary's)
        for seat, deadline in deadlines.items():
            message.seats[seat].deadline_unix_ms = deadline
    if deadlines:
        message.deadline_unix_ms = min(deadlines.values())
    message.ranks.extend(match.ranks())
    message.rated = _rated(match)
    return message


def summary_bytes(match: Match, status: str, version: int) -> bytes:
    """``summary(match)`` serialized as it was at ``version``, with ``status``, for a stream's update.
    What changes with each action (version, deadline, ranks) is added to the rest, which is
    serialized again only when the seats, the status or the rating change. An earlier version than
    the match's carries no deadline: its turn is over."""
    deadlines = match.deadlines_ms() if version == match.version else {}
    if deadlines and len(match.to_move()) > 1:  # each seat's own deadline, inside its SeatInfo
        message = summary(match)
        message.status = MATCH_STATUSES[status]
        message.version = version
        if status != FINISHED:
            message.ClearField("ranks")
        return message.SerializeToString()
    record = match.record
    built_from = (status, match.status, record.rating, tuple(record.seats))
    built = match.summary_built
    if built is None or built[0] != built_from:
        message = summary_of(record, status, 0)
        message.rated = _rated(match)
        built = match.summary_built = (built_from, message.SerializeToString())
    changing = api.MatchSummary(version=version)
    if deadlines:
        changing.deadline_unix_ms = min(deadlines.values())
    if status == FINISHED:
        changing.ranks.extend(match.ranks())
    return built[1] + changing.SerializeToString()


def _rated(match: Match) -> bool:
    """Whether the match counts for the ratings: see ``MatchSummary.rated``."""
    if match.status == FINISHED and match.record.rating is None:
        # Finished, its rating still being written: decided as the ratings will decide it.
        return unrated_because(match.record, played(match)) is None
    return _record_rated(match.record)


def _record_rated(record: MatchRecord) -> bool:
    # Decided once finished; until then (and while the decision is being written) whether it can be.
    return record.rating == RATED if record.rating else unrated_because(record, None) is None


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
    wire = wire_of(record.game)
    message = api.MatchSummary(
        match_id=record.match_id,
        game=wire.game,
        status=MATCH_STATUSES[status],
        players=len(record.seats),
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
        seed_commitment=commitment(record),
        seed_chosen=record.seed_chosen,
        time_control=time_control_message(record.clock),
        hot_seat=record.hot_seat,
        rated=_record_rated(record),
    )
    getattr(message, wire.name).CopyFrom(wire.options_message(record.options))
    return message


def player_message(player: PlayerRecord) -> players_pb.Player:
    return players_pb.Player(
        player_id=player.player_id,
        display_name=player.display_name,
        kind=PLAYER_KINDS[player.kind],
        rating=players_pb.Rating(mu=player.mu, sigma=player.sigma, display=player.shown_rating),
        rated_matches=player.rated_matches,
        wins=player.wins,
        created_unix_ms=player.created_ms,
        game=player.game,
    )
