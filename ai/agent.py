"""The AI agent: claims bot seats through the public API and plays them as an ordinary client.

It tells the server, by a heartbeat, which levels it plays and how many more
seats it can take, so that the server refuses bot seats nobody can take. One
asyncio task per claimed seat follows that match's event stream from version 0
(which in Mercado also lets it reconstruct hidden coins) and, whenever its
seat has legal actions (its turn, or a sealed step it has not acted in yet),
searches in a pool of worker processes, so that neither the agent's event
loop nor the server ever waits on a search. A move is searched by as many
workers as its level asks for (:mod:`ai.parallel`) while that many are idle,
by fewer when they are busy with other matches' moves. It plays every game:
Mercado with its own search, the others with :mod:`ai.ismcts` on the view
alone. Each move's searches are seeded from the system's secure source and, at
a sealed step, its choice is drawn from what they found: who rebuilds the
seat's view and runs the same code foresees it only by chance. The seats it
holds are kept in a file: an agent started again resumes them. Streams
reconnect and resume after a server restart; submissions carry a request id, so
a retry is applied at most once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
import uuid
from concurrent.futures import Executor
from typing import Any

import grpc
from mercado.v1 import match_pb2 as api
from mercado_client import Endpoint, MercadoClient, Seat, action_json, games
from mercado_terminal.held import HeldSeat, SeatFile

from server.games.mercado import action_from_json

from .levels import level_config, level_searches
from .observation import CoinTracker
from .parallel import Decision, decide_in_pool
from .workers import search_pool

log = logging.getLogger("mercado.ai")
# Patience with a server that is down (restarting) before a match is given up.
RECONNECT_SECONDS = 3600.0
# Refusals that only mean the agent's picture was out of date; the stream brings the new one.
OUTDATED = (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION)


class Agent:
    """Claims up to ``max_matches`` bot seats at a time and plays them, searching in ``executor``'s
    ``workers`` processes; ``search_workers`` (if given) is how many search each move, whatever its level."""

    def __init__(
        self,
        server: Endpoint,
        agent_key: str,
        levels: list[str],
        max_matches: int,
        seats: SeatFile,
        name: str = "mercado-ai",
        poll_seconds: float = 1.0,
        executor: Executor | None = None,
        workers: int = 1,
        search_workers: int | None = None,
    ) -> None:
        self.server = server
        self.agent_key = agent_key
        self.levels = levels
        self.max_matches = max_matches
        self.seats = seats
        self.name = name
        self.poll_seconds = poll_seconds
        self.executor = executor or search_pool(workers)
        self.workers = workers
        self.search_workers = search_workers
        self.searching = 0  # workers busy with a search
        self.id = f"{name}-{uuid.uuid4().hex[:12]}"
        self.playing: set[asyncio.Task[None]] = set()
        self.next_heartbeat = 0.0

    async def run(self, stop: asyncio.Event | None = None) -> None:
        """Resume the seats held before, then claim and play seats until ``stop`` is set."""
        stop = stop or asyncio.Event()
        async with self.server.connect(RECONNECT_SECONDS) as client:
            for held in self.seats.held(self.server.target):
                if held.level:  # the seats this agent plays (each with its level)
                    self._start(Seat(client, held.match_id, held.seat, held.token), held)
            await self._heartbeat(client)
            log.info("agent started", extra={"server": self.server.target, "levels": self.levels})
            while not stop.is_set():
                if time.monotonic() >= self.next_heartbeat:
                    await self._heartbeat(client)
                if len(self.playing) < self.max_matches and await self._claim(client):
                    continue
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), self.poll_seconds)
            for task in self.playing:
                task.cancel()
            await asyncio.gather(*self.playing, return_exceptions=True)

    async def _heartbeat(self, client: MercadoClient) -> None:
        """Tell the server what this agent plays and how many more seats it can take."""
        free = max(0, self.max_matches - len(self.playing))
        interval = await client.agent_heartbeat(self.id, self.levels, free, agent_key=self.agent_key)
        # Well within the interval: a heartbeat late by a claim or a slow reply still counts.
        self.next_heartbeat = time.monotonic() + interval / 2

    def _start(self, seat: Seat, held: HeldSeat) -> None:
        task = asyncio.create_task(self.play(seat, held))
        self.playing.add(task)
        task.add_done_callback(self.playing.discard)

    async def _claim(self, client: MercadoClient) -> bool:
        """Claim one waiting bot seat and start playing it; False when none waits or the server is away.

        A refused agent key (PERMISSION_DENIED) is raised: no later claim would succeed either.
        """
        try:
            seat, level = await client.claim_bot_seat(
                self.name, self.levels, agent_key=self.agent_key, agent_id=self.id
            )
        except grpc.aio.AioRpcError as error:
            if error.code() == grpc.StatusCode.PERMISSION_DENIED:
                raise
            if error.code() not in (grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.UNAVAILABLE):
                log.warning("claim refused", extra={"code": error.code().name, "reason": error.details()})
            return False
        log.info("seat claimed", extra={"match_id": seat.match_id, "seat": seat.seat, "level": level})
        held = HeldSeat(self.server.target, seat.match_id, seat.seat, seat.token, self.name, level)
        self.seats.add(held)
        self._start(seat, held)
        return True

    async def play(self, seat: Seat, held: HeldSeat) -> None:
        """Follow the match from version 0 and act whenever our seat has legal actions until it
        ends or the server's AI takes the seat over; then forget the seat (``held``, its entry in the
        seat file).

        The stream's first message is the match as it stands; the actions before it follow. In
        Mercado each is observed (to know every seat's coins) and a turn is played once the
        history is caught up with; in the other games the view is all the search needs, and
        only the newest version is acted on. At most once per version.
        """
        level = held.level
        follower: Follower | None = None
        # The version our last action made (always past the one it was chosen in): an update older than
        # it is a picture from before our action (in a sealed step, another seat's choice made while we
        # searched), not a turn of ours.
        answered = -1
        where = {"match_id": seat.match_id, "seat": seat.seat}
        ended = "match over"
        try:
            async for update in seat.follow(after_version=0):
                arrived = time.monotonic()  # our turn starts, as far as we can tell, when we hear of it
                if update.state.match.seats[seat.seat].played_by_ai:
                    # The server let this agent go (its opponents were quiet) or found it silent: the
                    # server's own AI plays the seat from now on.
                    ended = "seat handed to the server"
                    break
                follower = follower or Follower(games.game_name(update.state.match.game))
                if (
                    follower.caught_up(update)
                    and update.state.legal_actions
                    and update.version >= answered
                    and (made := await self._act(seat, level, update.state, follower, arrived)) is not None
                ):
                    answered = made
            self.seats.remove(held)  # before the log line, which says the seat is forgotten
            log.info(ended, extra=where)
        except grpc.aio.AioRpcError as error:
            log.error("match abandoned", extra={**where, "code": error.code().name})
            if error.code() != grpc.StatusCode.UNAVAILABLE:
                self.seats.remove(held)  # nothing to resume: the match or the seat is gone

    async def _act(
        self, seat: Seat, level: str, state: api.MatchState, follower: Follower, started: float
    ) -> int | None:
        """Search (unless only one action is legal) and submit, within the level's time cap from when the
        turn ``started`` (a ``time.monotonic()``), waiting for a worker included; the version the action
        made, or None when the server says the picture was out of date."""
        if len(state.legal_actions) == 1:
            message = state.legal_actions[0]
        else:
            seed = secrets.randbits(63)  # never sent: nobody can rerun the search
            searches = self.searches_for(level)
            self.searching += searches
            try:
                decision = follower.decision(state, level, seed, started)
                action = await decide_in_pool(self.executor, decision, searches)
            finally:
                self.searching -= searches
            message = games.action_message(follower.game, action)
        try:
            response = await seat.submit(message, state.version, uuid.uuid4().hex)
        except grpc.aio.AioRpcError as error:
            if error.code() not in OUTDATED:
                raise
            log.info("action outdated", extra={"match_id": seat.match_id, "reason": error.details()})
            return None
        return int(response.version)

    def searches_for(self, level: str) -> int:
        """How many workers search a move at ``level`` now: as many as it asks for while they are idle,
        else the idle ones, at least one. A busy agent (many matches) thus searches each move once,
        and plays as many moves a second as with single searches."""
        wanted = self.search_workers or level_searches(level)
        return max(1, min(wanted, self.workers - self.searching))


class Follower:
    """What one seat's task knows of its match's stream: the game, how far it has caught up, and
    in Mercado every seat's coins (reconstructed from the public history)."""

    def __init__(self, game: str) -> None:
        self.game = game
        self.tracker: CoinTracker | None = None
        self.observed = 0  # Mercado: the version of the last action observed
        self.latest = 0  # the newest version seen

    def caught_up(self, update: api.MatchUpdate) -> bool:
        """Take in ``update``; whether its state is the match as it stands (nothing older replayed)."""
        self.latest = max(self.latest, update.version)
        if self.game != "mercado":
            return update.version == self.latest
        view = self.view(update.state)
        self.tracker = self.tracker or CoinTracker(len(view["coins"]))
        if update.HasField("action"):
            self.tracker.observe(view, update.seat, action_from_json(action_json(update.action)))
            self.observed = update.version
        return update.version == self.observed

    def view(self, state: api.MatchState) -> dict[str, Any]:
        view = games.view_json(state)
        if view is None:
            raise ValueError("the match state carries no view")
        return view

    def decision(self, state: api.MatchState, level: str, seed: int, started: float) -> Decision:
        """Our seat's decision in ``state`` at ``level``, to search in worker processes, due the level's
        time cap after the turn ``started``."""
        view = self.view(state)
        coins = None if self.tracker is None else self.tracker.completed(view)["coins"]
        config = level_config(self.game, level)
        deadline = None if config.seconds is None else started + config.seconds
        return Decision(self.game, view, config, seed, coins, deadline)
