"""The MatchService servicer: validate and translate requests, make one call to the match layer, answer.

Every call goes through the same gate (``_gate`` around it, ``_admit`` first in
it): a request that did not decode is refused, a player credential is verified
(its player is the call's ``CALLER``), the caller's rate limit is spent (by a
refused request or credential too), and afterwards the call is counted in the
metrics. A refusal becomes its status code and one-line reason (with
``retry-after`` for fair-use limits); anything unexpected is logged with its
traceback and answered INTERNAL, with no detail.

A failed call ends by setting its status and returning, never by
``context.abort()``, and lets go of its failure's traceback: grpcio's asyncio
server keeps the exception that abort raises in the call's state, and a
failure that a future keeps is referenced from the frames of its own traceback.
Either is a reference cycle that holds the call's HTTP/2 stream until the
garbage collector runs, so a hundred refused calls in a row would leave a
connection refusing every new call.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from contextvars import ContextVar
from functools import wraps
from typing import Any, TypeVar, cast

import grpc
from mercado.v1 import match_pb2 as api
from mercado.v1 import match_pb2_grpc as api_grpc
from mercado.v1 import players_pb2 as players_pb
from mercado_client.wire import BOT_LEVEL_NAMES, MATCH_STATUS_NAMES

from server.games.registry import GAMES
from server.match import BOT_LEVELS, DEFAULT_BOT_LEVEL, MatchService
from server.match.errors import InvalidRequest, NotAllowedNow, Throttled, Unauthenticated
from server.match.holdings import player_client
from server.players.directory import Players
from server.players.identity import NOT_VALID, PLAYER_ID, Identity, is_player_credential
from server.players.matchmaking import Matchmaker, Seeker
from server.store.records import PlayerRecord, bot_player_id

from . import convert, render, wires
from .errors import REFUSALS, CallEnded, status_of, trailing_metadata
from .handlers import Undecodable
from .limits import BY_NETWORK, FairUse, RateLimiter
from .metrics import Metrics

log = logging.getLogger("mercado.rpc")
T = TypeVar("T")
DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE = 20, 100
MAX_PAGE_TOKEN_LENGTH = 128
# Ends of a call that are not failures of the server: the call was refused, or its client left.
ABORTS = (grpc.aio.AbortError, CallEnded)
BOT_PLAYERS = {bot_player_id(level) for level in BOT_LEVELS}
# The player the current call's credential names (set by the gate), None for a seat token or none;
# the seat token, when the credential is one; and the key of the network the call comes from.
CALLER: ContextVar[Identity | None] = ContextVar("caller", default=None)
SEAT_TOKEN: ContextVar[str | None] = ContextVar("seat_token", default=None)
CALLER_NETWORK: ContextVar[str] = ContextVar("caller_network", default="")


Metadata = Sequence[tuple[str, str | bytes]]


def _value(metadata: Metadata, name: str) -> str | None:
    for key, value in metadata:
        if key == name and isinstance(value, str):
            return value
    return None


def _forwarded_for(metadata: Metadata) -> str | None:
    """Every x-forwarded-for field, in order, as one list: a proxy may append a field of its own after
    the client's (HAProxy does) rather than add to the one it got (Envoy does)."""
    hops = [value for key, value in metadata if key == "x-forwarded-for" and isinstance(value, str)]
    return ", ".join(hops) if hops else None


def _bearer(metadata: Metadata) -> str | None:
    value = _value(metadata, "authorization")
    if value is None or not value.startswith("Bearer "):
        return None
    return value[len("Bearer ") :].strip() or None


def bearer_token(context: grpc.aio.ServicerContext) -> str | None:
    """The token from `authorization: Bearer <token>` metadata, if any."""
    return _bearer(context.invocation_metadata() or ())


def _page_token(*fields: object) -> str:
    """A page token: where the previous page ended, as colon-separated fields."""
    return base64.urlsafe_b64encode(":".join(str(field) for field in fields).encode()).decode()


def _page_fields(token: str, form: re.Pattern[str]) -> re.Match[str] | None:
    """The fields of a page token this server issued in ``form``; None for the first page."""
    if not token:
        return None
    try:
        if len(token) > MAX_PAGE_TOKEN_LENGTH:
            raise ValueError
        found = form.fullmatch(base64.urlsafe_b64decode(token.encode()).decode())
    except (ValueError, UnicodeDecodeError):
        found = None
    if found is None:
        raise InvalidRequest("page_token is not one this server issued")
    return found


# Each field as the server writes it, and only values its conversion takes (a 64-bit integer, a float).
MATCHES_PAGE = re.compile(r"([0-9]{1,18}):([0-9a-f]{32})")  # created_ms, match_id
LEADERBOARD_PAGE = re.compile(
    r"(-?(?:[0-9]{1,20}(?:\.[0-9]{1,20})?(?:e[+-][0-9]{1,3})?|inf))"
    r":([0-9a-f]{32}|bot:[a-z]+):([0-9]{1,9})(?::([a-z]{1,16}))?"
)  # rating (its repr), id, rank, game (none in tokens issued before ratings were per game: Mercado)


def _known(value: int, names: Mapping[Any, str], what: str) -> str:
    name = names.get(value)
    if name is None:
        raise InvalidRequest(f"unknown {what} {value}")
    return name


def _bot_levels(levels: Iterable[int]) -> list[str]:
    return [_known(level, BOT_LEVEL_NAMES, "bot level") for level in levels]


def _game(name: str) -> str:
    """The game a request names by its name (empty: Mercado)."""
    if not name:
        return "mercado"
    if name not in GAMES:
        raise InvalidRequest(f"unknown game {name[:20]!r} (one of {', '.join(GAMES)})")
    return name


def _player_id(player_id: str) -> str:
    if not (PLAYER_ID.match(player_id) or player_id in BOT_PLAYERS):
        raise InvalidRequest("player_id must be 32 lowercase hexadecimal characters or bot:<level>")
    return player_id


def seat_token() -> str | None:
    """The caller's seat token: its bearer credential unless that names a player."""
    return SEAT_TOKEN.get()


def caller_id() -> str | None:
    identity = CALLER.get()
    return None if identity is None else identity.player_id


def _drop_tracebacks(error: BaseException) -> None:
    """Let a failed call's frames go now: a traceback holds every frame the failure passed through
    (with the call's context), and a failure kept by a future that one of those frames references is
    a reference cycle, which would hold the call's HTTP/2 stream until the garbage collector runs."""
    seen: set[int] = set()
    pending: list[BaseException | None] = [error]
    while pending:
        current = pending.pop()
        if current is not None and id(current) not in seen:
            seen.add(id(current))
            current.__traceback__ = None
            pending += [current.__cause__, current.__context__]


def gated(
    method: Callable[[Any, Any, grpc.aio.ServicerContext], Awaitable[T]],
) -> Callable[[Any, Any, grpc.aio.ServicerContext], Awaitable[T]]:
    """A unary method behind the gate, timed whole."""
    name = method.__name__

    @wraps(method)
    async def call(self: MatchServicer, request: Any, context: grpc.aio.ServicerContext) -> T:
        async with self._gate(name, context, timed=True):
            await self._admit(name, request, context)
            return await method(self, request, context)
        return cast(T, None)  # failed: the gate set the call's status, and gRPC sends no message

    return call


class MatchServicer(api_grpc.MatchServiceServicer):
    """Thin: each method converts the request, calls the match layer once, builds the response."""

    def __init__(
        self,
        service: MatchService,
        fair_use: FairUse | None = None,
        metrics: Metrics | None = None,
        players: Players | None = None,
        matchmaker: Matchmaker | None = None,
    ) -> None:
        fair_use = fair_use or FairUse()
        self.service = service
        self.players = players
        self.matchmaker = matchmaker
        self.clients = fair_use.clients()
        self.limiter = RateLimiter(fair_use.rates)
        self.streams = fair_use.stream_slots()
        self.metrics = metrics

    # --- the gate ------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _gate(self, method: str, context: grpc.aio.ServicerContext, timed: bool) -> AsyncIterator[None]:
        """End the call the block serves (it admits the call first, ``_admit``): a failure with its
        status, not raised again (the call returns, its status set), and the call counted in the
        metrics, with its time when ``timed``."""
        started = time.perf_counter()
        code = "OK"
        try:
            yield
        except ABORTS:
            raise
        except asyncio.CancelledError:
            code = "CANCELLED"
            raise
        except Exception as error:
            code = self._code(method, error).name
            self._fail(error, context)
            _drop_tracebacks(error)
        finally:
            if self.metrics:
                self.metrics.call(method, code, time.perf_counter() - started if timed else None)

    async def _admit(
        self, method: str, request: object, context: grpc.aio.ServicerContext
    ) -> tuple[str, str]:
        """Refuse an undecodable request; know the caller's player; spend the caller's rate limit
        (its player's, when it names one, but for the methods counted by network). Returns the client's
        key and its network's."""
        metadata = context.invocation_metadata() or ()  # built anew by each call: read once
        client = network = self.clients.key(context.peer(), _forwarded_for(metadata))
        if isinstance(request, Undecodable):
            self.limiter.take(method, client)  # it costs its network's budget like any call
            log.warning("undecodable request", extra={"method": method, "reason": request.reason})
            raise InvalidRequest(f"the request is not a valid {method} request: {request.reason}")
        credential = _bearer(metadata)
        # Set for every call: a task may serve several calls in turn.
        CALLER.set(None)
        SEAT_TOKEN.set(credential)
        CALLER_NETWORK.set(network)
        if credential and is_player_credential(credential):
            try:
                if self.players is None:
                    raise Unauthenticated("this server has no players: send a seat token")
                identity = await self.players.identify(credential)
            except Exception:
                self.limiter.take(method, client)  # a refused credential costs its network's budget
                raise
            CALLER.set(identity)
            SEAT_TOKEN.set(None)
            if client and method not in BY_NETWORK:  # a trusted network (the empty key) stays trusted
                client = player_client(identity.player_id)
        self.limiter.take(method, client)
        return client, network

    def _players(self) -> Players:
        if self.players is None:
            raise NotAllowedNow("this server has no players")
        return self.players

    @staticmethod
    def _identity() -> Identity:
        """Who the caller is; a player credential is required."""
        identity = CALLER.get()
        if identity is None and seat_token() is not None:
            raise Unauthenticated(f"{NOT_VALID}: it is not a JWT (a seat token is no player credential)")
        if identity is None:
            raise Unauthenticated("a player credential is required: send 'authorization: Bearer <token>'")
        return identity

    async def _caller(self, game: str = "mercado") -> PlayerRecord:
        """The caller's player record, with its rating in ``game``; a player credential is required."""
        return await self._players().player_of(self._identity(), game)

    def _code(self, method: str, error: Exception) -> grpc.StatusCode:
        """The status a failed call ends with: a refusal's own, INTERNAL for anything else (logged)."""
        if not isinstance(error, REFUSALS):
            log.error("internal error", exc_info=error, extra={"method": method})
            return grpc.StatusCode.INTERNAL
        code, reason = status_of(error)
        if isinstance(error, Throttled) and self.metrics:
            self.metrics.throttled(method)
        # The caller's business, so debug only: an idle agent is refused a bot seat every second.
        log.debug("refused", extra={"method": method, "code": code.name, "reason": reason})
        return code

    @staticmethod
    def _fail(error: Exception, context: grpc.aio.ServicerContext) -> None:
        """Set the failed call's status: a refusal with its reason (and retry-after), anything else
        with no detail."""
        if isinstance(error, REFUSALS):
            code, reason = status_of(error)
            context.set_trailing_metadata(trailing_metadata(error))
        else:
            code, reason = grpc.StatusCode.INTERNAL, "internal error"
        context.set_code(code)
        context.set_details(reason)

    # --- methods -------------------------------------------------------------

    @gated
    async def CreateMatch(
        self, request: api.CreateMatchRequest, context: grpc.aio.ServicerContext
    ) -> api.CreateMatchResponse:
        wire = wires.wire_for_request(request.game)
        given = request.WhichOneof("options")
        if given not in (None, wire.name):
            raise InvalidRequest(f"{given} options for a match of {wire.name}")
        options = wire.options_from_request(request.players, getattr(request, given) if given else None)
        seats: list[str | None] = []
        for spec in request.seats:
            if spec.WhichOneof("kind") == "bot":
                level = spec.bot.level
                seats.append(DEFAULT_BOT_LEVEL if level == 0 else _known(level, BOT_LEVEL_NAMES, "bot level"))
            else:
                seats.append(None)
        seed = request.seed if request.HasField("seed") else None
        network = CALLER_NETWORK.get()
        creator = caller_id() or network
        named = request.HasField("time_control")
        clock = convert.time_control(request.time_control) if named else None
        match = await self.service.create_match(
            options,
            seats,
            seed,
            creator,
            clock,
            default_clock=not named,
            network=network,
            player_id=caller_id(),
            hot_seat=request.hot_seat,
            unrated=request.unrated,
            game=wire.name,
        )
        log.info(
            "match created",
            extra={"match_id": match.match_id, "game": wire.name, "players": options["players"]},
        )
        return api.CreateMatchResponse(match_id=match.match_id, match=convert.summary(match))

    @gated
    async def JoinMatch(
        self, request: api.JoinMatchRequest, context: grpc.aio.ServicerContext
    ) -> api.JoinMatchResponse:
        seat = request.seat if request.HasField("seat") else None
        name, player_id = request.display_name, None
        if CALLER.get() is not None:
            player = await self._caller()
            name, player_id = name or player.display_name, player.player_id
        seated = await self.service.join(request.match_id, name, seat, player_id, request.request_id)
        log.info("seat joined", extra={"match_id": request.match_id, "seat": seated.seat})
        return api.JoinMatchResponse(
            seat=seated.seat, seat_token=seated.token, match=convert.summary(seated.match)
        )

    @gated
    async def ClaimBotSeat(
        self, request: api.ClaimBotSeatRequest, context: grpc.aio.ServicerContext
    ) -> api.ClaimBotSeatResponse:
        levels = _bot_levels(request.levels)
        seated = await self.service.claim_bot_seat(
            levels, request.agent_name, bearer_token(context), request.agent_id[:64]
        )
        level = seated.match.record.seats[seated.seat].bot_level
        log.info(
            "bot seat claimed",
            extra={"match_id": seated.match.match_id, "seat": seated.seat, "agent": request.agent_name[:40]},
        )
        return api.ClaimBotSeatResponse(
            match_id=seated.match.match_id,
            seat=seated.seat,
            seat_token=seated.token,
            level=convert.bot_level_message(level),
            match=convert.summary(seated.match),
        )

    @gated
    async def ListMatches(
        self, request: api.ListMatchesRequest, context: grpc.aio.ServicerContext
    ) -> api.ListMatchesResponse:
        if request.page_size > MAX_PAGE_SIZE:
            raise InvalidRequest(f"page_size must be at most {MAX_PAGE_SIZE}")
        size = request.page_size or DEFAULT_PAGE_SIZE
        status = None if request.status == 0 else _known(request.status, MATCH_STATUS_NAMES, "status")
        player_id = _player_id(request.player_id) if request.player_id else None
        page_end = _page_fields(request.page_token, MATCHES_PAGE)
        after = None if page_end is None else (int(page_end[1]), page_end[2])
        game = wires.wire_for_request(request.game).name if request.game else None
        listed = await self.service.list_matches(status, size + 1, after, player_id, game)
        page = listed[:size]
        response = api.ListMatchesResponse(
            matches=[convert.summary_of(m.record, m.status, m.version) for m in page]
        )
        if len(listed) > size:
            response.next_page_token = _page_token(page[-1].record.created_ms, page[-1].record.match_id)
        return response

    # GetView, SubmitAction, ReclaimSeat and StreamEvents answer serialized messages (render.py),
    # which handlers.py sends as they are: hence the overrides' types.

    @gated
    async def GetView(  # type: ignore[override]
        self, request: api.GetViewRequest, context: grpc.aio.ServicerContext
    ) -> bytes:
        match, seat = await self.service.view(request.match_id, seat_token(), caller_id())
        return render.state_bytes(match, match.latest(), seat)

    @gated
    async def SubmitAction(  # type: ignore[override]
        self, request: api.SubmitActionRequest, context: grpc.aio.ServicerContext
    ) -> bytes:
        match = await self.service.get(request.match_id)
        action = wires.action_from_message(match.record.game, request.action)
        match, seat, update = await self.service.submit(
            request.match_id,
            seat_token(),
            request.expected_version,
            request.request_id,
            action,
            caller_id(),
        )
        return render.submit_response(match, update, seat)

    @gated
    async def GetReplay(self, request: api.GetReplayRequest, context: grpc.aio.ServicerContext) -> api.Replay:
        match = await self.service.finished(request.match_id)
        record = match.record
        wire = wires.wire_of(record.game)
        replay = api.Replay(
            match_id=record.match_id,
            game=wire.game,
            players=len(record.seats),
            seed=record.seed,
            steps=[
                api.ReplayStep(version=a.version, seat=a.seat, action=wire.action_message(a.action))
                for a in match.actions
            ],
            seed_salt=record.salt,
            seed_commitment=convert.commitment(record),
            seed_chosen=record.seed_chosen,
        )
        getattr(replay, wire.name).CopyFrom(wire.options_message(record.options))
        return replay

    @gated
    async def LeaveMatch(
        self, request: api.LeaveMatchRequest, context: grpc.aio.ServicerContext
    ) -> api.LeaveMatchResponse:
        match = await self.service.leave(request.match_id, seat_token(), caller_id())
        return api.LeaveMatchResponse(match=convert.summary(match))

    @gated
    async def ReclaimSeat(  # type: ignore[override]
        self, request: api.ReclaimSeatRequest, context: grpc.aio.ServicerContext
    ) -> bytes:
        match, seat = await self.service.reclaim(request.match_id, seat_token(), caller_id())
        return render.state_bytes(match, match.latest(), seat)

    @gated
    async def AgentHeartbeat(
        self, request: api.AgentHeartbeatRequest, context: grpc.aio.ServicerContext
    ) -> api.AgentHeartbeatResponse:
        levels = _bot_levels(request.levels)
        interval = await self.service.agent_heartbeat(
            bearer_token(context), request.agent_id, levels, request.free_slots
        )
        return api.AgentHeartbeatResponse(interval_seconds=interval)

    async def StreamEvents(  # type: ignore[override]
        self, request: api.StreamEventsRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[bytes]:
        started = time.perf_counter()
        async with self._gate("StreamEvents", context, timed=False):
            client, network = await self._admit("StreamEvents", request, context)
            self.streams.acquire(client, network)
            try:
                following = self.service.following(
                    request.match_id, seat_token(), request.after_version, caller_id()
                )
                async with following as stream:
                    # The match as it stands comes at once, and the headers with it: one batch of gRPC's
                    # work instead of two, for each stream of a crowd opening after a restart.
                    updates = stream.updates
                    first = render.update_bytes(stream.match, await anext(updates), stream.seat)
                    if self.metrics:
                        self.metrics.call("StreamEvents", "OPENED", time.perf_counter() - started)
                    yield first
                    del first  # the stream lives as long as its player, its first message need not
                    async for update in updates:
                        yield render.update_bytes(stream.match, update, stream.seat)
            finally:
                self.streams.release(client, network)

    # --- players -------------------------------------------------------------

    @gated
    async def CreatePlayer(
        self, request: players_pb.CreatePlayerRequest, context: grpc.aio.ServicerContext
    ) -> players_pb.CreatePlayerResponse:
        player, token = await self._players().create_guest(request.display_name)
        log.info("player created", extra={"player_id": player.player_id})
        return players_pb.CreatePlayerResponse(player=convert.player_message(player), player_token=token)

    @gated
    async def RotatePlayerToken(
        self, request: players_pb.RotatePlayerTokenRequest, context: grpc.aio.ServicerContext
    ) -> players_pb.RotatePlayerTokenResponse:
        player, token = await self._players().rotate_token(self._identity())
        return players_pb.RotatePlayerTokenResponse(player=convert.player_message(player), player_token=token)

    @gated
    async def GetPlayer(
        self, request: players_pb.GetPlayerRequest, context: grpc.aio.ServicerContext
    ) -> players_pb.Player:
        game = _game(request.game)
        if request.player_id:
            player = await self._players().get(_player_id(request.player_id), game)
        else:
            player = await self._caller(game)
        return convert.player_message(player)

    @gated
    async def GetLeaderboard(
        self, request: players_pb.GetLeaderboardRequest, context: grpc.aio.ServicerContext
    ) -> players_pb.GetLeaderboardResponse:
        if request.page_size > MAX_PAGE_SIZE:
            raise InvalidRequest(f"page_size must be at most {MAX_PAGE_SIZE}")
        size = request.page_size or DEFAULT_PAGE_SIZE
        game = _game(request.game)
        page_end = _page_fields(request.page_token, LEADERBOARD_PAGE)
        if page_end is not None and (page_end[4] or "mercado") != game:
            raise InvalidRequest("page_token is of another game's leaderboard")
        after = None if page_end is None else (float(page_end[1]), page_end[2])
        listed = await self._players().leaderboard(size + 1, after, game)
        first = 1 if page_end is None else int(page_end[3]) + 1
        page = listed[:size]
        response = players_pb.GetLeaderboardResponse(
            entries=[
                players_pb.LeaderboardEntry(rank=first + i, player=convert.player_message(player))
                for i, player in enumerate(page)
            ]
        )
        if len(listed) > size:
            last = page[-1]
            response.next_page_token = _page_token(
                repr(last.display_rating), last.player_id, first + size - 1, game
            )
        return response

    async def FindMatch(
        self, request: api.FindMatchRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[api.FindMatchUpdate]:
        async with self._gate("FindMatch", context, timed=False):
            client, network = await self._admit("FindMatch", request, context)
            game = wires.wire_for_request(request.game).name
            players = request.players or 2
            if not 2 <= players <= 4:
                raise InvalidRequest("players must be 2, 3 or 4")
            player = await self._caller(game)
            if self.matchmaker is None:
                raise NotAllowedNow("this server has no matchmaking")
            self.streams.acquire(client, network)
            try:
                await context.send_initial_metadata(())
                found = self.matchmaker.find(
                    player.player_id,
                    player.display_name,
                    player.mu,
                    players,
                    request.allow_ai,
                    game,
                    client,
                    network,
                )
                async for step in found:
                    if isinstance(step, Seeker):
                        now = asyncio.get_running_loop().time()
                        yield api.FindMatchUpdate(
                            queued=api.Queued(
                                waited_ms=int((now - step.since) * 1000),
                                queued_players=self.matchmaker.queued(players, game),
                                rating_window=step.window(now),
                            )
                        )
                    else:
                        yield api.FindMatchUpdate(
                            found=api.MatchFound(
                                match_id=step.match.match_id,
                                seat=step.seat,
                                seat_token=step.token,
                                match=convert.summary(step.match),
                            )
                        )
            finally:
                self.streams.release(client, network)
