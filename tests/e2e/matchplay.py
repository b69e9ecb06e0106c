"""Helpers of the end-to-end tests: matches set up over gRPC, played by random-move clients, replayed."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf.message import Message
from google.protobuf.unknown_fields import UnknownFieldSet
from mercado.v1 import match_pb2 as api
from mercado_client import MercadoClient, Seat

from server.games.mercado import Event, GameState, Options, apply, new_game
from server.rpc.wires.mercado import action_from_message, options_from_request

MATCH_SECONDS = 30.0

Connect = Callable[..., MercadoClient]  # the conftest's client factories: connect(reconnect_seconds=...)


async def seated_match(
    connect: Callable[[], MercadoClient],
    players: int,
    money: str = "hidden",
    seed: int | None = None,
) -> tuple[str, list[Seat]]:
    """A new match with every seat taken, each by its own client (connection) and token."""
    match_id = await connect().create_match(players=players, money=money, seed=seed)
    seats = [await connect().join(match_id, f"player {n}") for n in range(players)]
    assert [s.seat for s in seats] == list(range(players))
    assert len({s.token for s in seats}) == players
    return match_id, seats


async def mover(seats: Sequence[Seat]) -> tuple[Seat, api.MatchState]:
    """The seat to move and its view."""
    to_move = (await seats[0].view()).to_move
    seat = seats[to_move]
    return seat, await seat.view()


@dataclass
class Received:
    """Everything one caller got from the server during a match, in order of arrival."""

    seat: int | None
    followed_after: int = 0  # the stream's after_version
    views: list[api.MatchState] = field(default_factory=list)  # GetView answers
    updates: list[api.MatchUpdate] = field(default_factory=list)  # from StreamEvents
    responses: list[api.SubmitActionResponse] = field(default_factory=list)
    actions: list[api.Action] = field(default_factory=list)  # submitted, one per response

    def states(self) -> Iterator[api.MatchState]:
        yield from self.views
        yield from (u.state for u in self.updates)
        yield from (r.state for r in self.responses)

    def events(self) -> Iterator[api.Event]:
        for update in self.updates:
            yield from update.events
        for response in self.responses:
            yield from response.events

    def messages(self) -> Iterator[Message]:
        yield from self.views
        yield from self.updates
        yield from self.responses


async def random_player(seat: Seat, rng: random.Random, received: Received) -> None:
    """Play uniformly random legal moves for ``seat`` until the match ends, driven by its event stream."""

    async def act(state: api.MatchState) -> None:
        action = rng.choice(list(state.legal_actions))
        try:
            response = await seat.submit(action, state.version, uuid.uuid4().hex)
        except grpc.aio.AioRpcError as error:
            # Others chose at the same time and the step is over: a later update says what is next.
            if error.code() != grpc.StatusCode.ABORTED:
                raise
            return
        received.actions.append(action)
        received.responses.append(response)

    def acted_since(version: int) -> bool:
        return any(r.version > version for r in received.responses)

    state = await seat.view()
    received.views.append(state)
    if state.legal_actions:
        await act(state)
    received.followed_after = state.version
    async for update in seat.follow(after_version=state.version):
        received.updates.append(update)
        # Seat changes repeat the version: only an action gives the next mover its turn. When seats
        # choose at once, an update may come after this seat's own later choice: it is no turn.
        if update.HasField("seat") and update.state.legal_actions and not acted_since(update.version):
            await act(update.state)
    received.views.append(await seat.view())


async def spectator(client: MercadoClient, match_id: str, received: Received) -> None:
    """Follow the match without a token until it ends."""
    async for update in client.follow(match_id):
        received.updates.append(update)
    received.views.append(await client.view(match_id))


async def play_random_match(
    seats: list[Seat], seed: int, watcher: MercadoClient | None = None
) -> dict[int | None, Received]:
    """Play the match to its end with one random player per seat (and a spectator when ``watcher``)."""
    received: dict[int | None, Received] = {s.seat: Received(s.seat) for s in seats}
    tasks: list[Awaitable[None]] = [
        random_player(s, random.Random(seed * 10 + s.seat), received[s.seat]) for s in seats
    ]
    if watcher is not None:
        received[None] = Received(None)
        tasks.append(spectator(watcher, seats[0].match_id, received[None]))
    await asyncio.wait_for(asyncio.gather(*tasks), MATCH_SECONDS)
    return received


# --- replaying -----------------------------------------------------------------------------------


def replay_options(replay: api.Replay) -> Options:
    return options_from_request(replay.players, replay.mercado)


def replay_history(replay: api.Replay) -> list[tuple[GameState, list[Event]]]:
    """Per version (index 0: the set-up), the true state and the events of the action that made it."""
    state = new_game(replay_options(replay), replay.seed)
    history: list[tuple[GameState, list[Event]]] = [(state.clone(), [])]
    for version, step in enumerate(replay.steps, start=1):
        assert step.version == version
        assert step.seat == state.current_player, f"version {version} was played out of turn"
        events = apply(state, action_from_message(step.action))
        history.append((state.clone(), events))
    return history


# --- checking messages -------------------------------------------------------------------------


def unknown_fields(message: Message, path: str = "") -> list[str]:
    """Where ``message`` (recursively) holds fields its schema does not know: bytes we cannot see."""
    found = (
        [f"{path or message.DESCRIPTOR.name}: {len(UnknownFieldSet(message))} unknown"]
        if len(UnknownFieldSet(message))
        else []
    )
    for descriptor, value in message.ListFields():
        if descriptor.message_type is None:
            continue
        children: Any = value if descriptor.label == descriptor.LABEL_REPEATED else [value]
        if descriptor.message_type.GetOptions().map_entry:
            continue
        for n, child in enumerate(children):
            found += unknown_fields(child, f"{path}.{descriptor.name}[{n}]")
    return found


async def refusal(call: Awaitable[Any]) -> grpc.aio.AioRpcError:
    """The error of a call that must be refused."""
    try:
        await call
    except grpc.aio.AioRpcError as error:
        return error
    raise AssertionError("the call was not refused")


def assert_reason(error: grpc.aio.AioRpcError, code: grpc.StatusCode) -> None:
    """The refusal has ``code`` and a one-line reason."""
    assert error.code() == code, f"{error.code()} {error.details()!r}, expected {code}"
    reason = error.details()
    assert reason and reason.strip() == reason and "\n" not in reason, repr(reason)


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


async def announce_agent(client: MercadoClient, free_slots: int = 100) -> None:
    """Tell the server, as an AI agent would, that bot seats can be taken (the test takes them itself)."""
    from server_process import AGENT_KEY

    await client.agent_heartbeat("test-agent", [], free_slots, agent_key=AGENT_KEY)
