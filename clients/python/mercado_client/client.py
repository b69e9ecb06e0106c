"""An asyncio client for the mercado match service.

async with MercadoClient("127.0.0.1:50051") as client:
    me = await client.create_player("ada")  # a guest player: keep me.player_token
    match_id = await client.create_match(players=2, seats=[None, "medium"], token=me.player_token)
    seat = await client.join(match_id, token=me.player_token)
    async for update in seat.watch():
        if is_my_turn(update.state):
            await seat.act(update.state.legal_actions[0], update.state.version)
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

import grpc
from mercado.v1 import match_pb2 as api
from mercado.v1 import match_pb2_grpc as api_grpc
from mercado.v1 import mercado_pb2 as pb
from mercado.v1 import players_pb2 as players_api

from . import games
from .state import is_over
from .wire import BOT_LEVEL_NAMES, BOT_LEVELS, MATCH_STATUSES

# Codes worth retrying: the server is restarting or the connection dropped.
TRANSIENT = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
DEFAULT_RECONNECT_SECONDS = 60.0
RECONNECT_FIRST_WAIT, RECONNECT_MAX_WAIT = 0.05, 2.0


def _transient(error: BaseException) -> bool:
    return isinstance(error, grpc.aio.AioRpcError) and error.code() in TRANSIENT


def retry_after(error: BaseException) -> float | None:
    """The seconds a fair-use refusal (RESOURCE_EXHAUSTED with ``retry-after``) asks to wait; else None.

    Such a call changed nothing, so repeating it is safe whatever it was.
    """
    if not isinstance(error, grpc.aio.AioRpcError) or error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
        return None
    for key, value in error.trailing_metadata() or ():
        if key == "retry-after":
            try:
                return max(0.0, float(value))
            except ValueError:
                return None
    return None


def _bearer(token: str | None) -> tuple[tuple[str, str], ...] | None:
    return (("authorization", f"Bearer {token}"),) if token else None


def open_channel(target: str, tls: bool = False, ca_file: str | Path | None = None) -> grpc.aio.Channel:
    """A channel to ``target``: plain text, or TLS (with ``ca_file``'s roots, else the system's)."""
    if not tls and ca_file is None:
        return grpc.aio.insecure_channel(target)
    roots = Path(ca_file).read_bytes() if ca_file is not None else None
    return grpc.aio.secure_channel(target, grpc.ssl_channel_credentials(root_certificates=roots))


@dataclass(frozen=True)
class Endpoint:
    """Where a server is, and whether to speak TLS to it (with ``ca_file``'s roots, else the system's)."""

    target: str
    tls: bool = False
    ca_file: Path | None = None

    def connect(self, reconnect_seconds: float = DEFAULT_RECONNECT_SECONDS) -> MercadoClient:
        return MercadoClient(self.target, reconnect_seconds, tls=self.tls, ca_file=self.ca_file)

    def __str__(self) -> str:
        return self.target


class MercadoClient:
    """A connection to a mercado server: plain text, or TLS with ``tls`` or a ``ca_file``.

    Calls refused by a fair-use limit (RESOURCE_EXHAUSTED with ``retry-after``) are repeated
    once that time has passed, within ``reconnect_seconds``; calls that are safe to repeat
    (views, joins and submissions with their request id, streams) are also retried while the
    server is unavailable.
    """

    def __init__(
        self,
        target: str,
        reconnect_seconds: float = DEFAULT_RECONNECT_SECONDS,
        *,
        tls: bool = False,
        ca_file: str | Path | None = None,
    ) -> None:
        self.target = target
        self.channel = open_channel(target, tls, ca_file)
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

    async def call(self, method: Any, request: Any, repeatable: bool = True, **kwargs: Any) -> Any:
        """``method(request)`` of the stub, repeated after a fair-use refusal and, when ``repeatable``,
        after a transient failure (``_Failures``)."""
        failures = _Failures(self.reconnect_seconds)
        while True:
            try:
                return await method(request, **kwargs)
            except grpc.aio.AioRpcError as error:
                if not repeatable and retry_after(error) is None:
                    raise
                await failures.wait_after(error)

    async def create_match(
        self,
        players: int = 2,
        seats: Sequence[str | None] = (),
        money: str = "hidden",
        seed: int | None = None,
        face_down_counts_as_available: bool = True,
        clock: api.TimeControl | None = None,
        *,
        token: str | None = None,
        hot_seat: bool = False,
        unrated: bool = False,
        game: str = "mercado",
        options: Mapping[str, Any] | None = None,
    ) -> str:
        """Create a match; ``seats`` gives per seat None (open) or a bot level. Returns the match id.

        ``game``: "mercado", "oregano" or "leilao"; ``options``: another game's rule options as JSON
        (docs/oregano.md, docs/leilao.md; ``money`` and ``face_down_counts_as_available`` are
        Mercado's).

        ``clock``: the time control (``api.TimeControl(turn_seconds=0)`` for none); the server's
        default when absent. ``token``: the creator's player credential (a server without
        --allow-anonymous requires one). ``hot_seat``: one player may take several seats;
        ``unrated``: the match never counts for the ratings."""
        specs = [
            api.SeatSpec(bot=api.SeatSpec.Bot(level=BOT_LEVELS[level]))
            if level
            else api.SeatSpec(open=api.SeatSpec.Open())
            for level in seats
        ]
        request = api.CreateMatchRequest(
            game=games.game_enum(game), players=players, seats=specs, hot_seat=hot_seat, unrated=unrated
        )
        if game == "mercado":
            request.mercado.money = pb.MONEY_PUBLIC if money == "public" else pb.MONEY_HIDDEN
            request.mercado.face_down_counts_as_available = face_down_counts_as_available
        else:
            getattr(request, game).CopyFrom(games.options_message(game, dict(options or {})))
        if seed is not None:
            request.seed = seed
        if clock is not None:
            request.time_control.CopyFrom(clock)
        response: api.CreateMatchResponse = await self.call(
            self.stub.CreateMatch, request, repeatable=False, metadata=_bearer(token)
        )
        return response.match_id

    async def join(
        self, match_id: str, display_name: str = "", seat: int | None = None, *, token: str | None = None
    ) -> Seat:
        """Take a seat (the first open one when ``seat`` is None), retried while the server is
        unavailable under one request id: a retry gets the seat the first attempt took, never a second.

        With a player credential (``token``) the seat is bound to that player and the returned Seat
        acts with the credential (its ``seat_token`` is kept too); ``display_name`` may then be
        empty, for the player's own. Without one it is anonymous play with the seat's token."""
        request = api.JoinMatchRequest(
            match_id=match_id, display_name=display_name, request_id=uuid.uuid4().hex
        )
        if seat is not None:
            request.seat = seat
        response: api.JoinMatchResponse = await self.call(
            self.stub.JoinMatch, request, metadata=_bearer(token)
        )
        return Seat(self, match_id, response.seat, token or response.seat_token, response.seat_token)

    async def claim_bot_seat(
        self, agent_name: str, levels: Sequence[str] = (), *, agent_key: str, agent_id: str = ""
    ) -> tuple[Seat, str]:
        """Take a seat reserved for a bot, with the server's agent key; returns the seat and its level.
        ``agent_id``: the id of the agent's heartbeats, so that the server counts its free seats."""
        request = api.ClaimBotSeatRequest(
            agent_name=agent_name, levels=[BOT_LEVELS[lv] for lv in levels], agent_id=agent_id
        )
        response: api.ClaimBotSeatResponse = await self.call(
            self.stub.ClaimBotSeat, request, repeatable=False, metadata=_bearer(agent_key)
        )
        level = BOT_LEVEL_NAMES[response.level]
        return Seat(self, response.match_id, response.seat, response.seat_token), level

    async def agent_heartbeat(
        self, agent_id: str, levels: Sequence[str], free_slots: int, *, agent_key: str
    ) -> int:
        """An AI agent tells the server which levels it plays (all when empty) and how many more
        seats it can take; returns the seconds within which the next heartbeat is due."""
        request = api.AgentHeartbeatRequest(
            agent_id=agent_id, levels=[BOT_LEVELS[lv] for lv in levels], free_slots=free_slots
        )
        response: api.AgentHeartbeatResponse = await self.call(
            self.stub.AgentHeartbeat, request, metadata=_bearer(agent_key)
        )
        return response.interval_seconds

    async def list_matches(
        self,
        status: str | None = None,
        page_size: int = 20,
        page_token: str = "",
        player_id: str = "",
        game: str = "",
    ) -> api.ListMatchesResponse:
        """Matches, newest first: with ``status`` only those; with ``player_id`` only that player's
        (where it holds a seat; ``bot:<level>`` for a bot level's); with ``game`` only its."""
        request = api.ListMatchesRequest(
            status=MATCH_STATUSES[status] if status else api.MATCH_STATUS_UNSPECIFIED,
            page_size=page_size,
            page_token=page_token,
            player_id=player_id,
            game=games.game_enum(game) if game else api.GAME_UNSPECIFIED,
        )
        response: api.ListMatchesResponse = await self.call(self.stub.ListMatches, request)
        return response

    # --- players, ratings and matchmaking -----------------------------------------------------------

    async def create_player(self, display_name: str) -> players_api.CreatePlayerResponse:
        """A new guest player, and its secret player token (``player_token``): keep it to be this
        player again later (``rotate_player_token`` replaces it). Not repeated on a transient failure
        (that could make two players)."""
        request = players_api.CreatePlayerRequest(display_name=display_name)
        response: players_api.CreatePlayerResponse = await self.call(
            self.stub.CreatePlayer, request, repeatable=False
        )
        return response

    async def rotate_player_token(self, token: str) -> players_api.RotatePlayerTokenResponse:
        """A new token for the guest player whose token ``token`` is, which replaces it: keep the
        response's ``player_token`` instead, since every earlier token of the player is refused from
        then on (UNAUTHENTICATED). The player, its ratings and its seats stay. Not repeated on a
        transient failure: after a lost reply the old token may be refused already."""
        response: players_api.RotatePlayerTokenResponse = await self.call(
            self.stub.RotatePlayerToken,
            players_api.RotatePlayerTokenRequest(),
            repeatable=False,
            metadata=_bearer(token),
        )
        return response

    async def get_player(
        self, player_id: str = "", *, token: str | None = None, game: str = ""
    ) -> players_api.Player:
        """A player's profile and rating in ``game`` ("mercado" when empty, "oregano", "leilao"); with
        an empty ``player_id``, the player whose credential ``token`` is."""
        request = players_api.GetPlayerRequest(player_id=player_id, game=game)
        player: players_api.Player = await self.call(self.stub.GetPlayer, request, metadata=_bearer(token))
        return player

    async def leaderboard(
        self, page_size: int = 20, page_token: str = "", game: str = ""
    ) -> players_api.GetLeaderboardResponse:
        """Players rated in ``game`` ("mercado" when empty, "oregano", "leilao"; bots included), best
        display rating first; a page of them."""
        request = players_api.GetLeaderboardRequest(page_size=page_size, page_token=page_token, game=game)
        response: players_api.GetLeaderboardResponse = await self.call(self.stub.GetLeaderboard, request)
        return response

    async def find_match(
        self, players: int = 2, allow_ai: bool = False, *, token: str, game: str = "mercado"
    ) -> AsyncGenerator[api.FindMatchUpdate, None]:
        """Queue the player whose credential ``token`` is for a match of ``game`` ("mercado",
        "oregano", "leilao") and ``players``, matched by its rating in that game: a Queued update
        about once a second, then one with the MatchFound (``update.found``), and the iteration ends.
        ``allow_ai``: after a wait, the server fills the seats no queued player takes with bots.

        Closing it (``aclose``, ``contextlib.aclosing``) or cancelling its task closes the stream,
        which leaves the queue. A fair-use refusal is repeated after its retry-after, and a dropped
        connection queues again (the wait starts over; a match made just before the drop is among
        ``list_matches(player_id=...)``), within ``reconnect_seconds``; any other error ends it,
        e.g. ALREADY_EXISTS when this player is queued already.
        """
        request = api.FindMatchRequest(game=games.game_enum(game), players=players, allow_ai=allow_ai)
        failures = _Failures(self.reconnect_seconds)
        while True:
            call = self.stub.FindMatch(request, metadata=_bearer(token))
            try:
                async for update in call:
                    failures.reset()
                    yield update
                    if update.HasField("found"):
                        return
                return  # the server ended the stream without a match: nothing more will come
            except grpc.aio.AioRpcError as error:
                await failures.wait_after(error)
            finally:
                call.cancel()  # leaves the queue when the caller stops listening; nothing once ended

    async def view(self, match_id: str, token: str | None = None) -> api.MatchState:
        """The view of a seat (with its token) or of a spectator."""
        request = api.GetViewRequest(match_id=match_id)
        state: api.MatchState = await self.call(self.stub.GetView, request, metadata=_bearer(token))
        return state

    def watch(self, match_id: str, token: str | None = None) -> AsyncIterator[api.MatchUpdate]:
        """The match as it goes, as a spectator (no token) or a seat: its view, then every change
        until the match is over (see ``Seat.watch``, which a seat that acts watches with: it also
        knows the answers to its own actions)."""
        return _watch(self, match_id, token, _Newest())

    async def replay(self, match_id: str) -> api.Replay:
        replay: api.Replay = await self.call(self.stub.GetReplay, api.GetReplayRequest(match_id=match_id))
        return replay

    async def follow(
        self, match_id: str, token: str | None = None, after_version: int = 0
    ) -> AsyncIterator[api.MatchUpdate]:
        """The match as it stands, then every update after ``after_version``, each once; reconnects and
        resumes after a dropped connection (starting again with the match as it stands).

        Gives up after ``reconnect_seconds`` without getting through.
        """
        last = after_version
        failures = _Failures(self.reconnect_seconds)
        while True:
            try:
                request = api.StreamEventsRequest(match_id=match_id, after_version=last)
                call = self.stub.StreamEvents(request, metadata=_bearer(token))
                await call.initial_metadata()  # sent when the server opens the stream, or with its end
                if not call.done():
                    failures.reset()  # got through, quiet or not
                async for update in call:
                    failures.reset()
                    # The first message (no seat acted) shows where it stands; a sealed choice has no action.
                    if update.HasField("seat"):
                        last = max(last, update.version)
                    yield update
                return
            except grpc.aio.AioRpcError as error:
                # The retry window counts from the failure, not from when a (maybe long quiet) stream opened.
                await failures.wait_after(error)


class _Failures:
    """A call's or a stream's current run of failures, and the wait before trying again.

    The library depends on grpcio and protobuf alone, so this is its backoff rather than a retry
    library's: as long as a fair-use refusal asks (retry-after), else exponential for a transient
    failure; never past ``reconnect_seconds`` counted from the run's first failure.
    """

    def __init__(self, reconnect_seconds: float) -> None:
        self.reconnect_seconds = reconnect_seconds
        self.since: float | None = None  # when the current run of failures began
        self.count = 0

    def reset(self) -> None:
        """Got through: the next failure starts a new run."""
        self.since, self.count = None, 0

    async def wait_after(self, error: grpc.aio.AioRpcError) -> None:
        """Wait before trying again after ``error``; raises ``error`` when it is not worth it."""
        now = time.monotonic()
        self.since = now if self.since is None else self.since
        asked = retry_after(error)
        if asked is not None:
            if now + asked - self.since > self.reconnect_seconds:
                raise error
            pause = asked
        elif _transient(error) and now - self.since < self.reconnect_seconds:
            pause = min(RECONNECT_MAX_WAIT, RECONNECT_FIRST_WAIT * 2**self.count)
        else:
            raise error
        self.count += 1
        await asyncio.sleep(pause)


class _Newest:
    """The newest state of a match seen through one seat or one watch: states only move forward, by
    version; a state of the same version that arrives later (seats, clocks or status changed)
    replaces it."""

    def __init__(self) -> None:
        self.state: api.MatchState | None = None

    def note(self, state: api.MatchState) -> None:
        if self.state is None or state.version >= self.state.version:
            self.state = state


def _with_state(update: api.MatchUpdate, state: api.MatchState) -> api.MatchUpdate:
    """``update`` with ``state`` in place of its own."""
    changed = api.MatchUpdate()
    changed.CopyFrom(update)
    changed.state.CopyFrom(state)
    return changed


async def _watch(
    client: MercadoClient, match_id: str, token: str | None, newest: _Newest
) -> AsyncIterator[api.MatchUpdate]:
    """The match as it goes: its view, then every change (as ``follow`` gives them) until it is over.

    A state never goes back: each update's state is the newest one seen, here or in ``newest`` (a
    seat's own views and answers). An update older than that state, such as another seat's sealed
    bid accepted just before the seat's own bid whose answer came first, comes with its own events
    and that newer state (``update.state.version`` is then greater than ``update.version``). When a
    stream's first message is ahead of what was given, the actions in between come in order with
    its state, then the message itself if seats, clocks or the status changed since the last of
    them. An update that changes nothing already given (the same version and summary) is skipped.
    """
    first = await client.view(match_id, token)
    newest.note(first)
    yield api.MatchUpdate(version=first.version, state=first)
    if is_over(first):
        return
    # The version of the last update given, and the last state (newer than its version's when the
    # update was older than a state seen).
    shown, last = first.version, first
    ahead: api.MatchUpdate | None = None  # a stream's first message ahead of the updates given
    async for update in client.follow(match_id, token, first.version):
        known = newest.state
        assert known is not None
        acting = update.HasField("seat")
        if update.version < known.version:  # a newer state is known: an action's events still count
            if acting and update.version > shown:
                shown, last = update.version, known
                yield _with_state(update, known)
            continue
        if not acting:
            if update.version > shown:
                newest.note(update.state)
                ahead = update  # given once the actions before it are, if it changes their summary
            elif update.state.match != last.match:
                newest.note(update.state)
                last = update.state
                yield update
            continue
        if update.version <= shown:
            continue  # seen already
        shown, last = update.version, update.state
        newest.note(update.state)
        yield update
        if ahead is not None and update.version >= ahead.version:
            caught_up, ahead = ahead, None
            # Seats, clocks or status that changed after that action: the stream's first message knew.
            if caught_up.version == last.version and caught_up.state.match != last.match:
                newest.note(caught_up.state)
                last = caught_up.state
                yield caught_up


@dataclass
class Seat:
    """A seat taken in a match: acts and follows with ``token``, the seat's secret token or the
    credential of the player it is bound to."""

    client: MercadoClient
    match_id: str
    seat: int
    token: str
    # The seat's own token, which acts for it as well: kept when ``token`` is a player's credential.
    seat_token: str = ""
    _newest: _Newest = field(default_factory=_Newest, init=False, repr=False, compare=False)

    @property
    def latest(self) -> api.MatchState | None:
        """The newest state this seat's calls have brought (its views, the answers to its actions,
        its watch's updates); None before the first."""
        return self._newest.state

    async def view(self) -> api.MatchState:
        state = await self.client.view(self.match_id, self.token)
        self._newest.note(state)
        return state

    def follow(self, after_version: int = 0) -> AsyncIterator[api.MatchUpdate]:
        """Every update of the match as the stream sends them; see ``MercadoClient.follow``."""
        return self.client.follow(self.match_id, self.token, after_version)

    def watch(self) -> AsyncIterator[api.MatchUpdate]:
        """The match as it goes, for game loops: the seat's view, then every update until the match
        is over, never with a state older than one this seat has seen, the answers to its own
        actions included (see ``_watch``). A loop that acts whenever ``is_my_turn(update.state)``
        acts once per turn, in a sealed step too::

            async for update in seat.watch():
                if is_my_turn(update.state):
                    await seat.act(update.state.legal_actions[0], update.state.version)
        """
        return _watch(self.client, self.match_id, self.token, self._newest)

    async def submit(self, action: api.Action, version: int, request_id: str) -> api.SubmitActionResponse:
        """One submission, retried while the server is unreachable (same request id: applied at most once)."""
        request = api.SubmitActionRequest(
            match_id=self.match_id, expected_version=version, request_id=request_id, action=action
        )
        response: api.SubmitActionResponse = await self.client.call(
            self.client.stub.SubmitAction, request, metadata=_bearer(self.token)
        )
        if response.HasField("state"):
            self._newest.note(response.state)
        return response

    async def leave(self) -> api.LeaveMatchResponse:
        """Give the seat up: open again while the match waits, else the AI plays it (or it forfeits)."""
        request = api.LeaveMatchRequest(match_id=self.match_id)
        response: api.LeaveMatchResponse = await self.client.call(
            self.client.stub.LeaveMatch, request, repeatable=False, metadata=_bearer(self.token)
        )
        return response

    async def reclaim(self) -> api.MatchState:
        """Take the seat back from the AI that plays it since its time ran out."""
        request = api.ReclaimSeatRequest(match_id=self.match_id)
        state: api.MatchState = await self.client.call(
            self.client.stub.ReclaimSeat, request, repeatable=False, metadata=_bearer(self.token)
        )
        self._newest.note(state)
        return state

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
