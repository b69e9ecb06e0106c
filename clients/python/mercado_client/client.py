"""An asyncio client for the mercado match service.

async with MercadoClient("127.0.0.1:50051") as client:
    match_id = await client.create_match(players=2, seats=[None, "medium"])
    seat = await client.join(match_id, "ada")
    async for update in seat.follow():
        if update.state.legal_actions:
            await seat.act(update.state.legal_actions[0])
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from types import TracebackType

import grpc
from mercado.v1 import match_pb2 as api
from mercado.v1 import match_pb2_grpc as api_grpc
from mercado.v1 import mercado_pb2 as pb
from tenacity import AsyncRetrying, retry_if_exception, stop_after_delay, wait_exponential

from .wire import BOT_LEVEL_NAMES, BOT_LEVELS, MATCH_STATUSES

# Codes worth retrying: the server is restarting or the connection dropped.
TRANSIENT = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
DEFAULT_RECONNECT_SECONDS = 60.0
RECONNECT_FIRST_WAIT, RECONNECT_MAX_WAIT = 0.05, 2.0


def _transient(error: BaseException) -> bool:
    return isinstance(error, grpc.aio.AioRpcError) and error.code() in TRANSIENT


def _bearer(token: str | None) -> tuple[tuple[str, str], ...] | None:
    return (("authorization", f"Bearer {token}"),) if token else None


class MercadoClient:
    """A connection to a mercado server."""

    def __init__(self, target: str, reconnect_seconds: float = DEFAULT_RECONNECT_SECONDS) -> None:
        self.target = target
        self.channel = grpc.aio.insecure_channel(target)
        self.stub = api_grpc.MatchServiceStub(self.channel)
        self.reconnect_seconds = reconnect_seconds

    async def __aenter__(self) -> MercadoClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.close()

    async def close(self) -> None:
        await self.channel.close()

    def retrying(self) -> AsyncRetrying:
        """Retry transient failures with backoff for up to ``reconnect_seconds``."""
        return AsyncRetrying(
            retry=retry_if_exception(_transient),
            wait=wait_exponential(multiplier=RECONNECT_FIRST_WAIT, max=RECONNECT_MAX_WAIT),
            stop=stop_after_delay(self.reconnect_seconds),
            reraise=True,
        )

    async def create_match(
        self,
        players: int = 2,
        seats: Sequence[str | None] = (),
        money: str = "hidden",
        seed: int | None = None,
        face_down_counts_as_available: bool = True,
    ) -> str:
        """Create a match; ``seats`` gives per seat None (open) or a bot level. Returns the match id."""
        specs = [
            api.SeatSpec(bot=api.SeatSpec.Bot(level=BOT_LEVELS[level]))
            if level
            else api.SeatSpec(open=api.SeatSpec.Open())
            for level in seats
        ]
        options = pb.MercadoOptions(
            money=pb.MONEY_PUBLIC if money == "public" else pb.MONEY_HIDDEN,
            face_down_counts_as_available=face_down_counts_as_available,
        )
        request = api.CreateMatchRequest(game=api.GAME_MERCADO, players=players, seats=specs, mercado=options)
        if seed is not None:
            request.seed = seed
        response: api.CreateMatchResponse = await self.stub.CreateMatch(request)
        return response.match_id

    async def join(self, match_id: str, display_name: str, seat: int | None = None) -> Seat:
        request = api.JoinMatchRequest(match_id=match_id, display_name=display_name)
        if seat is not None:
            request.seat = seat
        response = await self.stub.JoinMatch(request)
        return Seat(self, match_id, response.seat, response.seat_token)

    async def claim_bot_seat(self, agent_name: str, levels: Sequence[str] = ()) -> tuple[Seat, str]:
        """Take a seat reserved for a bot; returns the seat and its level name."""
        request = api.ClaimBotSeatRequest(agent_name=agent_name, levels=[BOT_LEVELS[lv] for lv in levels])
        response = await self.stub.ClaimBotSeat(request)
        level = BOT_LEVEL_NAMES[response.level]
        return Seat(self, response.match_id, response.seat, response.seat_token), level

    async def list_matches(
        self, status: str | None = None, page_size: int = 20, page_token: str = ""
    ) -> api.ListMatchesResponse:
        request = api.ListMatchesRequest(
            status=MATCH_STATUSES[status] if status else api.MATCH_STATUS_UNSPECIFIED,
            page_size=page_size,
            page_token=page_token,
        )
        response: api.ListMatchesResponse = await self.stub.ListMatches(request)
        return response

    async def view(self, match_id: str, token: str | None = None) -> api.MatchState:
        """The view of a seat (with its token) or of a spectator."""
        async for attempt in self.retrying():
            with attempt:
                state: api.MatchState = await self.stub.GetView(
                    api.GetViewRequest(match_id=match_id), metadata=_bearer(token)
                )
                return state
        raise AssertionError("unreachable")

    async def replay(self, match_id: str) -> api.Replay:
        replay: api.Replay = await self.stub.GetReplay(api.GetReplayRequest(match_id=match_id))
        return replay

    async def follow(
        self, match_id: str, token: str | None = None, after_version: int = 0
    ) -> AsyncIterator[api.MatchUpdate]:
        """Every update after ``after_version``, each once; reconnects and resumes after a dropped connection.

        Gives up after ``reconnect_seconds`` without getting through.
        """
        last = after_version
        failing_since: float | None = None  # when the current run of failures began
        failures = 0
        while True:
            try:
                request = api.StreamEventsRequest(match_id=match_id, after_version=last)
                call = self.stub.StreamEvents(request, metadata=_bearer(token))
                await call.initial_metadata()  # sent when the server opens the stream, or with its end
                if not call.done():
                    failing_since, failures = None, 0  # got through, quiet or not
                async for update in call:
                    failing_since, failures = None, 0
                    last = max(last, update.version)
                    yield update
                return
            except grpc.aio.AioRpcError as error:
                # The retry window counts from the failure, not from when a (maybe long quiet) stream opened.
                now = time.monotonic()
                failing_since = now if failing_since is None else failing_since
                if not _transient(error) or now - failing_since >= self.reconnect_seconds:
                    raise
                await asyncio.sleep(min(RECONNECT_MAX_WAIT, RECONNECT_FIRST_WAIT * 2**failures))
                failures += 1


@dataclass
class Seat:
    """A seat taken in a match: acts and follows with its secret token."""

    client: MercadoClient
    match_id: str
    seat: int
    token: str

    async def view(self) -> api.MatchState:
        return await self.client.view(self.match_id, self.token)

    def follow(self, after_version: int = 0) -> AsyncIterator[api.MatchUpdate]:
        return self.client.follow(self.match_id, self.token, after_version)

    async def submit(self, action: api.Action, version: int, request_id: str) -> api.SubmitActionResponse:
        """One submission, retried while the server is unreachable (same request id: applied at most once)."""
        request = api.SubmitActionRequest(
            match_id=self.match_id, expected_version=version, request_id=request_id, action=action
        )
        async for attempt in self.client.retrying():
            with attempt:
                response: api.SubmitActionResponse = await self.client.stub.SubmitAction(
                    request, metadata=_bearer(self.token)
                )
                return response
        raise AssertionError("unreachable")

    async def act(self, action: api.Action, version: int | None = None) -> api.SubmitActionResponse:
        """Submit ``action``; on ABORTED (stale version) fetch the view and resubmit while still legal."""
        request_id = uuid.uuid4().hex
        if version is None:
            version = (await self.view()).version
        while True:
            try:
                return await self.submit(action, version, request_id)
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.ABORTED:
                    raise
                state = await self.view()
                if action not in state.legal_actions:
                    raise
                version = state.version
