"""The shared conformance scenarios (clients/conformance/scenarios.json), run by the Python client.

The Go and TypeScript clients run the same list; each fails if a scenario has no implementation.
"""

from __future__ import annotations

import asyncio
import json
import random
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import aclosing
from pathlib import Path

import grpc
import pytest
from matchplay import assert_reason, mover, refusal
from mercado.v1 import match_pb2 as api
from mercado_client import (
    GAMES,
    MercadoClient,
    Seat,
    bid_action,
    bid_options,
    is_my_turn,
    legal_moves,
    match_result,
    preview_of,
)
from mercado_client import retry_after as read_retry_after
from server_process import ServerProcess
from tls_cert import make_certificates

SCENARIOS_FILE = Path(__file__).resolve().parents[2] / "clients" / "conformance" / "scenarios.json"
SCENARIOS = [s["name"] for s in json.loads(SCENARIOS_FILE.read_text(encoding="utf-8"))["scenarios"]]

StartServer = Callable[..., ServerProcess]  # a server of the scenario's own, started with these flags
Scenario = Callable[[MercadoClient, StartServer], Awaitable[None]]
IMPLEMENTED: dict[str, Scenario] = {}


def scenario(function: Scenario) -> Scenario:
    IMPLEMENTED[function.__name__] = function
    return function


@pytest.fixture
async def client(server: ServerProcess) -> AsyncIterator[MercadoClient]:
    async with MercadoClient(server.target, reconnect_seconds=10) as connected:
        yield connected


@pytest.fixture
def start_server(tmp_path: Path) -> Iterator[StartServer]:
    started: list[ServerProcess] = []

    def start(*args: str) -> ServerProcess:
        running = ServerProcess(tmp_path / f"own-{len(started)}.db", args=list(args)).start()
        started.append(running)
        return running

    yield start
    for running in started:
        running.stop_cleanly()


async def _playing_match(client: MercadoClient, seed: int = 11) -> tuple[Seat, Seat]:
    match_id = await client.create_match(players=2, seed=seed)
    return await client.join(match_id, "ada"), await client.join(match_id, "bo")


@scenario
async def create_and_join(client: MercadoClient, start_server: StartServer) -> None:
    first, second = await _playing_match(client)
    assert (first.seat, second.seat) == (0, 1)
    assert first.token and second.token and first.token != second.token
    state = await first.view()
    assert state.match.status == api.MATCH_STATUS_PLAYING
    assert state.version == 0
    assert state.your_seat == 0


@scenario
async def bad_token(client: MercadoClient, start_server: StartServer) -> None:
    first, _ = await _playing_match(client)
    other, _ = await _playing_match(client, seed=12)
    take_coin = api.Action()
    take_coin.mercado.take_coin.SetInParent()
    for token, code in (
        ("", grpc.StatusCode.UNAUTHENTICATED),
        ("not-a-token", grpc.StatusCode.UNAUTHENTICATED),
        (other.token, grpc.StatusCode.PERMISSION_DENIED),
    ):
        impostor = Seat(client, first.match_id, 0, token)
        assert_reason(await refusal(impostor.submit(take_coin, 0, uuid.uuid4().hex)), code)
    spectator = await client.view(first.match_id)
    assert not spectator.HasField("your_seat")
    assert not spectator.legal_actions
    assert_reason(await refusal(client.view(first.match_id, other.token)), grpc.StatusCode.PERMISSION_DENIED)
    assert (await first.view()).version == 0


@scenario
async def illegal_action(client: MercadoClient, start_server: StartServer) -> None:
    seats = await _playing_match(client)
    seat, state = await mover(seats)
    restaurant = api.Action()
    restaurant.mercado.open_restaurant.restaurant = 1
    restaurant.mercado.open_restaurant.square.column = 1
    restaurant.mercado.open_restaurant.square.row = 1
    assert restaurant not in state.legal_actions  # nobody holds a restaurant at the start of a 2-player game
    error = await refusal(seat.submit(restaurant, state.version, uuid.uuid4().hex))
    assert_reason(error, grpc.StatusCode.FAILED_PRECONDITION)
    waiting = seats[1 - seat.seat]
    error = await refusal(waiting.submit(state.legal_actions[0], state.version, uuid.uuid4().hex))
    assert_reason(error, grpc.StatusCode.FAILED_PRECONDITION)
    assert (await seat.view()).version == state.version


@scenario
async def stale_version(client: MercadoClient, start_server: StartServer) -> None:
    seats = await _playing_match(client)
    seat, state = await mover(seats)
    await seat.submit(state.legal_actions[0], state.version, uuid.uuid4().hex)
    seat, state = await mover(seats)
    error = await refusal(seat.submit(state.legal_actions[0], state.version - 1, uuid.uuid4().hex))
    assert_reason(error, grpc.StatusCode.ABORTED)
    assert (await seat.view()) == state


@scenario
async def retry_same_request_id(client: MercadoClient, start_server: StartServer) -> None:
    seats = await _playing_match(client)
    seat, state = await mover(seats)
    request_id = uuid.uuid4().hex
    first = await seat.submit(state.legal_actions[0], state.version, request_id)
    again = await seat.submit(state.legal_actions[0], state.version, request_id)
    assert again == first
    assert first.version == state.version + 1
    assert (await seat.view()).version == state.version + 1


@scenario
async def resume_stream(client: MercadoClient, start_server: StartServer) -> None:
    seats = await _playing_match(client)
    for _ in range(6):
        seat, state = await mover(seats)
        await seat.submit(state.legal_actions[0], state.version, uuid.uuid4().hex)
    seen: list[tuple[int, bool]] = []  # (version, an action?)
    async for update in seats[0].follow(after_version=0):
        seen.append((update.version, update.HasField("action")))
        if len(seen) == 3:
            break  # drop the stream
    async for update in seats[0].follow(after_version=seen[-1][0]):
        seen.append((update.version, update.HasField("action")))
        if update.version == 6 and update.HasField("action"):
            break
    assert seen == [(6, False), (1, True), (2, True), (6, False), (3, True), (4, True), (5, True), (6, True)]


@scenario
async def stream_starts_with_the_match(client: MercadoClient, start_server: StartServer) -> None:
    match_id = await client.create_match(players=2)
    first = await client.join(match_id, "ada")
    assert (await first.view()).match.status == api.MATCH_STATUS_WAITING
    await client.join(match_id, "bo")
    update = await asyncio.wait_for(anext(aiter(first.follow(after_version=0))), 5)
    assert not update.HasField("action") and update.version == 0
    assert update.state.match.status == api.MATCH_STATUS_PLAYING


@scenario
async def sealed_choice_in_watch(client: MercadoClient, start_server: StartServer) -> None:
    match_id = await client.create_match(players=3, game="leilao")
    ana = await client.join(match_id, "ana")
    async with aclosing(ana.watch()) as watching:
        assert (await anext(watching)).state.match.status == api.MATCH_STATUS_WAITING
        bea, _ = await client.join(match_id, "bea"), await client.join(match_id, "cid")
        update = await anext(watching)
        while update.state.match.status != api.MATCH_STATUS_PLAYING:
            update = await anext(watching)
        assert is_my_turn(update.state) and update.version == 0  # every seat bids at once

        beas = await bea.view()
        await bea.act(beas.legal_actions[0], beas.version)
        answer = await ana.act(
            update.state.legal_actions[0], update.state.version
        )  # the step's versions are current
        assert answer.version == 2 and list(answer.state.view.leilao.acted) == [0, 1]
        assert not answer.state.legal_actions and ana.latest == answer.state

        beas_bid = await anext(watching)
        assert (beas_bid.version, beas_bid.seat, beas_bid.HasField("action")) == (1, 1, False)
        assert beas_bid.events  # seat 1 has bid
        assert beas_bid.state.version == 2 and not is_my_turn(
            beas_bid.state
        )  # the newest state, not version 1's
        anas_bid = await anext(watching)
        assert (anas_bid.version, anas_bid.seat, anas_bid.state.version) == (2, 0, 2)


async def _play_with_the_helpers(seat: Seat, rng: random.Random) -> api.MatchState:
    """Play ``seat`` to the end as the README shows: whenever its watch says it is its turn, a random
    legal move (in Leilão's bid steps a card of the bid options, sometimes with an extra card), each
    with its preview. Returns the final state."""
    final = None
    async for update in seat.watch():
        final = update.state
        if not is_my_turn(update.state):
            continue
        options = bid_options(update.state)
        if options is not None:
            choice = rng.choice(options.cards)
            extra = rng.choice(choice.extras) if choice.extras and rng.random() < 0.3 else None
            action = bid_action(update.state, choice.card, extra)
            assert action is not None, "a bid of the bid options is a legal action"
        else:
            action = rng.choice(legal_moves(update.state)).action
        assert preview_of(update.state, action) is not None, "every legal move has its preview"
        await seat.act(action, update.state.version)
    assert final is not None
    return final


@scenario
async def every_game_with_the_helpers(client: MercadoClient, start_server: StartServer) -> None:
    rng = random.Random(20_250_701)
    for game in GAMES:
        match_id = await client.create_match(players=2, game=game)
        seats = [await client.join(match_id, "ana"), await client.join(match_id, "bea")]
        finals = await asyncio.gather(*(_play_with_the_helpers(seat, rng) for seat in seats))
        result = match_result(finals[0])
        assert result is not None, f"{game}: the match finished"
        assert result.ranks == list(finals[0].match.ranks)
        assert match_result(finals[1]) == result, "every seat sees the same result"
        assert [parts.seat for parts in result.parts] == [0, 1]
        for parts in result.parts:
            assert sum(part.points for part in parts.parts) == parts.total == result.scores[parts.seat]
            named = ", ".join(f"{part.label} {part.points}" for part in parts.parts)
            print(f"{game}, seat {parts.seat + 1}: {named} = {parts.total} (rank {result.ranks[parts.seat]})")


@scenario
async def retry_after(client: MercadoClient, start_server: StartServer) -> None:
    throttled = start_server("--rate-limit", "CreateMatch=1/1")
    async with MercadoClient(throttled.target, reconnect_seconds=10) as patient:
        started = time.monotonic()
        first, second = await patient.create_match(), await patient.create_match()
        assert first != second and time.monotonic() - started >= 0.9  # it waited as the server asked
        error = await refusal(patient.stub.CreateMatch(api.CreateMatchRequest()))
        assert_reason(error, grpc.StatusCode.RESOURCE_EXHAUSTED)
        assert ("retry-after", "1") in list(error.trailing_metadata() or ())
        assert read_retry_after(error) == 1.0


@scenario
async def tls(client: MercadoClient, start_server: StartServer) -> None:
    with tempfile.TemporaryDirectory() as directory:
        certificates = make_certificates(Path(directory))
        secure = start_server("--tls-cert", str(certificates.cert), "--tls-key", str(certificates.key))
        async with MercadoClient(secure.target, reconnect_seconds=1, ca_file=certificates.ca) as trusting:
            seats = await _playing_match(trusting)
            assert (await seats[0].view()).match.status == api.MATCH_STATUS_PLAYING
    for options in ({"tls": True}, {}):  # the system's roots do not know the test CA; plain text is no TLS
        async with MercadoClient(secure.target, reconnect_seconds=1, **options) as untrusting:
            assert (await refusal(untrusting.list_matches())).code() == grpc.StatusCode.UNAVAILABLE


def test_every_scenario_is_implemented() -> None:
    assert sorted(IMPLEMENTED) == sorted(SCENARIOS)


@pytest.mark.parametrize("name", SCENARIOS)
async def test_scenario(name: str, client: MercadoClient, start_server: StartServer) -> None:
    if name not in IMPLEMENTED:
        pytest.fail(f"conformance scenario {name!r} has no implementation in the Python client")
    await IMPLEMENTED[name](client, start_server)
