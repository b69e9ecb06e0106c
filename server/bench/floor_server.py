"""A server that plays no game, for ``mercado bench server|players --floor``.

It answers MatchService with canned messages (views of a real position,
rendered by the real server code once at start-up) and keeps no database:
a stream opens with the match as it stands, and each action only bumps a
version, turns the move over and goes to both seats' streams. The real
health service answers the baseline, and CreatePlayer a guest token that
nothing checks (``mercado bench players --floor``). So the same harness, run
against it, measures the cost of the calls and stream messages themselves,
the floor under any figure of the real server. It is not a server for
playing: it checks no token, version or action.

Run as ``python -m server.bench.floor_server --port 0``; it logs
``listening`` with its port, as ``mercado serve`` does, and stops on SIGTERM.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import random
import signal
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import click
import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from mercado.v1 import match_pb2 as api
from mercado.v1 import match_pb2_grpc as api_grpc
from mercado.v1 import players_pb2 as players_api

from server.bench.server import BENCH_STREAMS_PER_CONNECTION
from server.cli.serve import configure_logging
from server.games.mercado import Options, legal_actions
from server.match import MatchService, Policy
from server.rpc import render
from server.rpc.server import (
    SHUTDOWN_GRACE_SECONDS,
    THROUGHPUT_GC_THRESHOLD,
    Connections,
    collect_garbage_for_serving,
    run_event_loop,
    server_options,
)
from server.store.sqlite import SqliteStore

log = logging.getLogger("mercado.bench.floor")
ACTIONS_PER_MATCH = 60  # about a real 2-player game's length
POSITION_ACTIONS = 20  # how far into a game the canned views are


@dataclass(frozen=True)
class Canned:
    """A real mid-game position as each seat sees it, with and without its legal actions."""

    waiting: tuple[api.MatchState, api.MatchState]
    moving: tuple[api.MatchState, api.MatchState]
    update: tuple[api.MatchUpdate, api.MatchUpdate]  # the last action's stream message per seat


async def _canned() -> Canned:
    service = MatchService(
        SqliteStore(":memory:"), policy=Policy(allow_chosen_seeds=True, default_clock=None)
    )
    match = await service.create_match(Options(players=2), [None, None], seed=1)
    tokens = [(await service.join(match.match_id, f"bench-{seat}")).token for seat in (0, 1)]
    rng = random.Random(1)
    for version in range(POSITION_ACTIONS):
        action = rng.choice(legal_actions(match.state))
        token = tokens[match.state.current_player]
        await service.submit(match.match_id, token, version, f"{version}", action)
    update = match.latest()
    # Whoever is to move in the harness's match gets the real mover's legal actions.
    legal = render.match_state(match, update, match.state.current_player).legal_actions
    waiting = [render.match_state(match, update, seat) for seat in (0, 1)]
    moving = [api.MatchState() for _ in waiting]
    for bare, full in zip(waiting, moving, strict=True):
        bare.ClearField("legal_actions")
        full.CopyFrom(bare)
        full.legal_actions.extend(legal)
    updates = [api.MatchUpdate.FromString(render.update_bytes(match, update, seat)) for seat in (0, 1)]
    service.store.close()
    return Canned((waiting[0], waiting[1]), (moving[0], moving[1]), (updates[0], updates[1]))


@dataclass(eq=False)
class FloorMatch:
    match_id: str
    version: int = 0
    to_move: int = 0
    watchers: list[tuple[int, asyncio.Queue[api.MatchUpdate]]] = field(default_factory=list)

    @property
    def finished(self) -> bool:
        return self.version >= ACTIONS_PER_MATCH


def _seat(context: grpc.aio.ServicerContext) -> int:
    """The seat its token names (tokens here are just "<match id>:<seat>")."""
    for key, value in context.invocation_metadata() or ():
        if key == "authorization" and isinstance(value, str):
            return int(value.rsplit(":", 1)[1])
    return 0


class FloorServicer(api_grpc.MatchServiceServicer):
    """Each answer is a copy of a canned message with the match's version, turn and status set."""

    def __init__(self, canned: Canned) -> None:
        self.canned = canned
        self.matches: dict[str, FloorMatch] = {}
        self.ids = itertools.count(1)
        self.player_ids = itertools.count(1)

    def _state(self, match: FloorMatch, seat: int) -> api.MatchState:
        moving = not match.finished and seat == match.to_move
        state = api.MatchState()
        state.CopyFrom((self.canned.moving if moving else self.canned.waiting)[seat])
        state.match.match_id = match.match_id
        state.version = state.match.version = match.version
        if match.finished:
            state.match.status = api.MATCH_STATUS_FINISHED
            state.ClearField("to_move")
        else:
            state.to_move = match.to_move
        return state

    async def CreatePlayer(
        self, request: players_api.CreatePlayerRequest, context: grpc.aio.ServicerContext
    ) -> players_api.CreatePlayerResponse:
        player_id = f"floor-player-{next(self.player_ids)}"
        player = players_api.Player(player_id=player_id, display_name=request.display_name)
        return players_api.CreatePlayerResponse(player=player, player_token=player_id)

    async def CreateMatch(
        self, request: api.CreateMatchRequest, context: grpc.aio.ServicerContext
    ) -> api.CreateMatchResponse:
        match = FloorMatch(f"floor-{next(self.ids)}")
        self.matches[match.match_id] = match
        return api.CreateMatchResponse(match_id=match.match_id, match=self._state(match, 0).match)

    async def JoinMatch(
        self, request: api.JoinMatchRequest, context: grpc.aio.ServicerContext
    ) -> api.JoinMatchResponse:
        match = self.matches[request.match_id]
        token = f"{match.match_id}:{request.seat}"
        return api.JoinMatchResponse(seat=request.seat, seat_token=token, match=self._state(match, 0).match)

    async def GetView(self, request: api.GetViewRequest, context: grpc.aio.ServicerContext) -> api.MatchState:
        return self._state(self.matches[request.match_id], _seat(context))

    async def SubmitAction(
        self, request: api.SubmitActionRequest, context: grpc.aio.ServicerContext
    ) -> api.SubmitActionResponse:
        match = self.matches[request.match_id]
        seat = _seat(context)
        match.version += 1
        match.to_move = 1 - match.to_move
        for watcher, queue in match.watchers:
            update = api.MatchUpdate()
            update.CopyFrom(self.canned.update[watcher])
            update.version = match.version
            update.seat = seat
            update.action.CopyFrom(request.action)
            update.state.CopyFrom(self._state(match, watcher))
            queue.put_nowait(update)
        if match.finished:
            del self.matches[match.match_id]
        state = self._state(match, seat)
        return api.SubmitActionResponse(
            version=match.version, events=self.canned.update[seat].events, state=state
        )

    async def StreamEvents(
        self, request: api.StreamEventsRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[api.MatchUpdate]:
        match = self.matches[request.match_id]
        queue: asyncio.Queue[api.MatchUpdate] = asyncio.Queue()
        seat = _seat(context)
        watcher = (seat, queue)
        match.watchers.append(watcher)
        try:
            yield api.MatchUpdate(version=match.version, state=self._state(match, seat))  # as it stands
            while True:
                update = await queue.get()
                yield update
                if update.state.match.status == api.MATCH_STATUS_FINISHED:
                    return
        finally:
            match.watchers.remove(watcher)


async def serve(host: str, port: int, max_connections: int) -> None:
    # As many calls per connection as the harness opens on its one channel per process.
    limits = Connections(max_streams=BENCH_STREAMS_PER_CONNECTION, max_connections=max_connections)
    server = grpc.aio.server(options=server_options(limits))
    # The generated base answers UNIMPLEMENTED to every method the harness never calls.
    floor = FloorServicer(await _canned())  # type: ignore[abstract]
    api_grpc.add_MatchServiceServicer_to_server(floor, server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    bound = server.add_insecure_port(f"{host}:{port}")
    collect_garbage_for_serving(THROUGHPUT_GC_THRESHOLD)  # the most actions per second
    await server.start()
    await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    log.info("listening", extra={"host": host, "port": bound})
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await server.stop(SHUTDOWN_GRACE_SECONDS)


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True)
@click.option(
    "--max-connections", type=click.IntRange(min=1), default=Connections.max_connections, show_default=True
)
def main(host: str, port: int, max_connections: int) -> None:
    """Serve canned MatchService answers (no game, no database), guest players and health checks."""
    configure_logging("info")
    run_event_loop(serve(host, port, max_connections))


if __name__ == "__main__":
    main()
