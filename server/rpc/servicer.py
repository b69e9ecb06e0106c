"""The MatchService servicer: validate and translate requests, make one call to the match layer, answer."""

from __future__ import annotations

import base64
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import wraps
from typing import Any, TypeVar

import grpc
from mercado.v1 import match_pb2 as api
from mercado.v1 import match_pb2_grpc as api_grpc
from mercado_client.wire import BOT_LEVEL_NAMES, MATCH_STATUS_NAMES

from server.match import DEFAULT_BOT_LEVEL, FINISHED, Match, MatchService
from server.match.errors import InvalidRequest, NotAllowedNow

from . import convert, render
from .errors import REFUSALS, status_of

log = logging.getLogger("mercado.rpc")
T = TypeVar("T")
DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE = 20, 100


def bearer_token(context: grpc.aio.ServicerContext) -> str | None:
    """The seat token from `authorization: Bearer <token>` metadata, if any."""
    for key, value in context.invocation_metadata() or ():
        if key == "authorization" and isinstance(value, str) and value.startswith("Bearer "):
            return value[len("Bearer ") :].strip() or None
    return None


def refusals_as_status(
    method: Callable[..., Awaitable[T]],
) -> Callable[..., Awaitable[T]]:
    """Turn a refusal into its status code and one-line reason."""

    @wraps(method)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext) -> T:
        try:
            return await method(self, request, context)
        except REFUSALS as error:
            code, reason = status_of(error)
            # The caller's business, so debug only: an idle agent is refused a bot seat every second.
            log.debug("refused", extra={"method": method.__name__, "code": code.name, "reason": reason})
            await context.abort(code, reason)
            raise  # unreachable: abort raises

    return wrapper


def _page_token(match: Match) -> str:
    return base64.urlsafe_b64encode(f"{match.record.created_ms}:{match.match_id}".encode()).decode()


def _parse_page_token(token: str) -> tuple[int, str] | None:
    if not token:
        return None
    try:
        created, match_id = base64.urlsafe_b64decode(token.encode()).decode().split(":", 1)
        return int(created), match_id
    except (ValueError, UnicodeDecodeError):
        raise InvalidRequest("page_token is not one this server issued") from None


class MatchServicer(api_grpc.MatchServiceServicer):
    """Thin: each method converts the request, calls the match layer once, builds the response."""

    def __init__(self, service: MatchService) -> None:
        self.service = service

    @refusals_as_status
    async def CreateMatch(
        self, request: api.CreateMatchRequest, context: grpc.aio.ServicerContext
    ) -> api.CreateMatchResponse:
        if request.game not in (api.GAME_UNSPECIFIED, api.GAME_MERCADO):
            raise InvalidRequest("unknown game")
        options = convert.options_from_request(request.players, request.mercado)
        seats: list[str | None] = []
        for spec in request.seats:
            if spec.WhichOneof("kind") == "bot":
                seats.append(BOT_LEVEL_NAMES.get(spec.bot.level, DEFAULT_BOT_LEVEL))
            else:
                seats.append(None)
        seed = request.seed if request.HasField("seed") else None
        match = self.service.create_match(options, seats, seed)
        log.info("match created", extra={"match_id": match.match_id, "players": options.players})
        return api.CreateMatchResponse(match_id=match.match_id, match=convert.summary(match))

    @refusals_as_status
    async def JoinMatch(
        self, request: api.JoinMatchRequest, context: grpc.aio.ServicerContext
    ) -> api.JoinMatchResponse:
        seat = request.seat if request.HasField("seat") else None
        seated = self.service.join(request.match_id, request.display_name, seat)
        log.info("seat joined", extra={"match_id": request.match_id, "seat": seated.seat})
        return api.JoinMatchResponse(
            seat=seated.seat, seat_token=seated.token, match=convert.summary(seated.match)
        )

    @refusals_as_status
    async def ClaimBotSeat(
        self, request: api.ClaimBotSeatRequest, context: grpc.aio.ServicerContext
    ) -> api.ClaimBotSeatResponse:
        levels = [BOT_LEVEL_NAMES[level] for level in request.levels if level in BOT_LEVEL_NAMES]
        seated = self.service.claim_bot_seat(levels, request.agent_name)
        level = seated.match.record.seats[seated.seat].bot_level
        log.info("bot seat claimed", extra={"match_id": seated.match.match_id, "seat": seated.seat})
        return api.ClaimBotSeatResponse(
            match_id=seated.match.match_id,
            seat=seated.seat,
            seat_token=seated.token,
            level=convert.bot_level_message(level),
            match=convert.summary(seated.match),
        )

    @refusals_as_status
    async def ListMatches(
        self, request: api.ListMatchesRequest, context: grpc.aio.ServicerContext
    ) -> api.ListMatchesResponse:
        if request.page_size > MAX_PAGE_SIZE:
            raise InvalidRequest(f"page_size must be at most {MAX_PAGE_SIZE}")
        size = request.page_size or DEFAULT_PAGE_SIZE
        status = MATCH_STATUS_NAMES.get(request.status)
        matches = self.service.list_matches(status, size + 1, _parse_page_token(request.page_token))
        page = matches[:size]
        response = api.ListMatchesResponse(matches=[convert.summary(m) for m in page])
        if len(matches) > size:
            response.next_page_token = _page_token(page[-1])
        return response

    @refusals_as_status
    async def GetView(self, request: api.GetViewRequest, context: grpc.aio.ServicerContext) -> api.MatchState:
        match = self.service.get(request.match_id)
        seat = self.service.seat_of(match, bearer_token(context))
        return render.match_state(match, match.latest(), seat)

    @refusals_as_status
    async def SubmitAction(
        self, request: api.SubmitActionRequest, context: grpc.aio.ServicerContext
    ) -> api.SubmitActionResponse:
        action = convert.action_from_message(request.action)
        match = self.service.get(request.match_id)
        seat, update = await self.service.submit(
            request.match_id, bearer_token(context), request.expected_version, request.request_id, action
        )
        return render.submit_response(match, update, seat)

    @refusals_as_status
    async def GetReplay(self, request: api.GetReplayRequest, context: grpc.aio.ServicerContext) -> api.Replay:
        match = self.service.get(request.match_id)
        if match.status != FINISHED:
            raise NotAllowedNow("a replay is available once the match has finished")
        record = match.record
        return api.Replay(
            match_id=record.match_id,
            game=api.GAME_MERCADO,
            players=record.options.players,
            seed=record.seed,
            mercado=convert.options_message(record.options),
            steps=[
                api.ReplayStep(version=a.version, seat=a.seat, action=convert.action_to_message(a.action))
                for a in match.actions
            ],
        )

    async def StreamEvents(
        self, request: api.StreamEventsRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[api.MatchUpdate]:
        try:
            match = self.service.get(request.match_id)
            seat = self.service.seat_of(match, bearer_token(context))
            updates = self.service.follow(request.match_id, request.after_version)
            # Headers now: a client can tell an open but quiet stream from one that never got through.
            await context.send_initial_metadata(())
            async for update in updates:
                yield render.match_update(match, update, seat)
        except REFUSALS as error:
            code, reason = status_of(error)
            await context.abort(code, reason)
