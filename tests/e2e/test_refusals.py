"""Every refusal carries its documented status code and a one-line reason, and changes nothing."""

from __future__ import annotations

import base64
import uuid
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from matchplay import (
    Connect,
    announce_agent,
    assert_reason,
    bearer,
    mover,
    play_random_match,
    refusal,
    seated_match,
)
from mercado.v1 import match_pb2 as api
from mercado.v1 import mercado_pb2 as pb
from mercado_client import MercadoClient, Seat
from server_process import AGENT_KEY

Code = grpc.StatusCode
UNKNOWN_MATCH = "0" * 32


@dataclass
class Playing:
    """A 2-player match in play, one action in, with the seat to move and its view."""

    client: MercadoClient
    match_id: str
    seats: list[Seat]
    mover: Seat
    state: api.MatchState

    @property
    def waiter(self) -> Seat:
        return self.seats[1 - self.mover.seat]

    async def views(self) -> list[bytes]:
        """What everyone sees now: each seat and a spectator."""
        tokens: list[str | None] = [s.token for s in self.seats] + [None]
        return [
            (await self.client.view(self.match_id, token)).SerializeToString(deterministic=True)
            for token in tokens
        ]

    async def submit(
        self,
        action: api.Action,
        *,
        version: int | None = None,
        request_id: str | None = None,
        seat: Seat | None = None,
    ) -> Any:
        seat = seat or self.mover
        request = api.SubmitActionRequest(
            match_id=self.match_id,
            expected_version=self.state.version if version is None else version,
            request_id=uuid.uuid4().hex if request_id is None else request_id,
            action=action,
        )
        return await self.client.stub.SubmitAction(request, metadata=bearer(seat.token))


@pytest.fixture
async def playing(connect: Connect) -> Playing:
    client = connect()
    match_id, seats = await seated_match(connect, 2, seed=301)
    seat, first = await mover(seats)
    await seat.submit(first.legal_actions[0], first.version, uuid.uuid4().hex)
    return Playing(client, match_id, seats, *await mover(seats))


async def assert_refused_and_unchanged(playing: Playing, call: Any, code: grpc.StatusCode) -> str:
    before = await playing.views()
    error = await refusal(call)
    assert_reason(error, code)
    assert await playing.views() == before
    reason: str = error.details()
    return reason


def mercado(**fields: Any) -> api.Action:
    return api.Action(mercado=pb.MercadoAction(**fields))


def square(column: int, row: int) -> pb.Square:
    return pb.Square(column=column, row=row)


MALFORMED = {
    "no game": api.Action(),
    "empty action": mercado(),
    "unspecified good": mercado(open_stand=pb.OpenStand(good=pb.GOOD_UNSPECIFIED, square=square(3, 3))),
    "unknown good": mercado(take_offer=pb.TakeOffer(good=pb.Good.ValueType(9))),
    "column out of range": mercado(open_stand=pb.OpenStand(good=pb.GOOD_FISH, square=square(6, 3))),
    "row out of range": mercado(open_stand=pb.OpenStand(good=pb.GOOD_FISH, square=square(3, 0))),
    "no square": mercado(open_stand=pb.OpenStand(good=pb.GOOD_FISH)),
    "unspecified restaurant": mercado(open_restaurant=pb.OpenRestaurant(square=square(2, 2))),
    "unknown restaurant": mercado(
        open_restaurant=pb.OpenRestaurant(restaurant=pb.Restaurant.ValueType(7), square=square(2, 2))
    ),
    "one good": mercado(
        bring_customer=pb.BringCustomer(
            tile=pb.CustomerTile(level=1, goods=[pb.GOOD_FISH]),
            entrance=pb.Entrance(side=pb.SIDE_TOP, line=1),
        )
    ),
    "same good twice": mercado(
        bring_customer=pb.BringCustomer(
            tile=pb.CustomerTile(level=1, goods=[pb.GOOD_FISH, pb.GOOD_FISH]),
            entrance=pb.Entrance(side=pb.SIDE_TOP, line=1),
        )
    ),
    "level out of range": mercado(
        bring_customer=pb.BringCustomer(
            tile=pb.CustomerTile(level=5, goods=[pb.GOOD_FISH, pb.GOOD_MEAT]),
            entrance=pb.Entrance(side=pb.SIDE_TOP, line=1),
        )
    ),
    "no entrance side": mercado(
        bring_customer=pb.BringCustomer(
            tile=pb.CustomerTile(level=1, goods=[pb.GOOD_FISH, pb.GOOD_MEAT]), entrance=pb.Entrance(line=1)
        )
    ),
    "entrance line out of range": mercado(
        bring_customer=pb.BringCustomer(
            tile=pb.CustomerTile(level=1, goods=[pb.GOOD_FISH, pb.GOOD_MEAT]),
            entrance=pb.Entrance(side=pb.SIDE_LEFT, line=6),
        )
    ),
}


@pytest.mark.parametrize("action", MALFORMED.values(), ids=MALFORMED.keys())
async def test_malformed_actions_are_invalid_arguments(playing: Playing, action: api.Action) -> None:
    await assert_refused_and_unchanged(playing, playing.submit(action), Code.INVALID_ARGUMENT)


@pytest.mark.parametrize("request_id", ["", "x" * 129], ids=["empty", "too long"])
async def test_bad_request_ids_are_invalid_arguments(playing: Playing, request_id: str) -> None:
    action = playing.state.legal_actions[0]
    reason = await assert_refused_and_unchanged(
        playing, playing.submit(action, request_id=request_id), Code.INVALID_ARGUMENT
    )
    assert "request_id" in reason
    # A request id of the longest allowed length is accepted.
    response = await playing.submit(action, request_id="y" * 128)
    assert response.version == playing.state.version + 1


@pytest.mark.parametrize("name", ["", "   ", "n" * 41], ids=["empty", "blank", "too long"])
async def test_bad_display_names_are_invalid_arguments(client: MercadoClient, name: str) -> None:
    match_id = await client.create_match(players=2)
    before = await client.view(match_id)
    error = await refusal(client.join(match_id, name))
    assert_reason(error, Code.INVALID_ARGUMENT)
    after = await client.view(match_id)
    assert after == before
    assert not any(s.taken for s in after.match.seats)
    seat = await client.join(match_id, "  " + "n" * 40 + "  ")  # trimmed to 40
    assert (await seat.view()).match.seats[0].display_name == "n" * 40


@pytest.mark.parametrize(
    "create",
    [
        api.CreateMatchRequest(players=1),
        api.CreateMatchRequest(players=5),
        api.CreateMatchRequest(game=api.Game.ValueType(7)),
        api.CreateMatchRequest(players=2, seats=[api.SeatSpec(open=api.SeatSpec.Open())] * 3),
    ],
    ids=["one player", "five players", "unknown game", "more seats than players"],
)
async def test_bad_matches_are_not_created(client: MercadoClient, create: api.CreateMatchRequest) -> None:
    before = await client.list_matches(page_size=100)
    error = await refusal(client.stub.CreateMatch(create))
    assert_reason(error, Code.INVALID_ARGUMENT)
    assert await client.list_matches(page_size=100) == before


async def test_bad_listing_requests_are_invalid_arguments(client: MercadoClient) -> None:
    assert_reason(await refusal(client.list_matches(page_size=101)), Code.INVALID_ARGUMENT)
    assert_reason(await refusal(client.list_matches(page_token="not a token")), Code.INVALID_ARGUMENT)
    forged = base64.urlsafe_b64encode(f"{'9' * 19}:{'0' * 32}".encode()).decode()  # past SQLite's integers
    assert_reason(await refusal(client.list_matches(page_token=forged)), Code.INVALID_ARGUMENT)
    assert len((await client.list_matches(page_size=100)).matches) <= 100


async def test_a_stream_ahead_of_the_match_is_refused(playing: Playing) -> None:
    call = playing.client.stub.StreamEvents(
        api.StreamEventsRequest(match_id=playing.match_id, after_version=playing.state.version + 1)
    )
    error = await refusal(call.read())
    assert_reason(error, Code.INVALID_ARGUMENT)


async def test_unknown_matches_are_not_found(playing: Playing) -> None:
    stub = playing.client.stub
    calls = [
        stub.GetView(api.GetViewRequest(match_id=UNKNOWN_MATCH)),
        stub.JoinMatch(api.JoinMatchRequest(match_id=UNKNOWN_MATCH, display_name="ada")),
        stub.GetReplay(api.GetReplayRequest(match_id=UNKNOWN_MATCH)),
        stub.SubmitAction(
            api.SubmitActionRequest(
                match_id=UNKNOWN_MATCH, request_id="r", action=playing.state.legal_actions[0]
            ),
            metadata=bearer(playing.mover.token),
        ),
        stub.StreamEvents(api.StreamEventsRequest(match_id=UNKNOWN_MATCH)).read(),
    ]
    for call in calls:
        await assert_refused_and_unchanged(playing, call, Code.NOT_FOUND)


async def test_a_seat_beyond_the_match_is_not_found(client: MercadoClient) -> None:
    match_id = await client.create_match(players=2)
    error = await refusal(client.join(match_id, "ada", seat=2))
    assert_reason(error, Code.NOT_FOUND)
    assert error.details() == f"match {match_id} has no seat 3 (it has 2)"  # seats as people count
    assert not any(s.taken for s in (await client.view(match_id)).match.seats)


@pytest.mark.parametrize(
    "metadata",
    [None, (("authorization", "Bearer "),), (("authorization", "Basic abc"),), bearer("no-such-token")],
    ids=["missing", "empty", "not bearer", "unknown"],
)
async def test_acting_needs_a_known_token(playing: Playing, metadata: Any) -> None:
    request = api.SubmitActionRequest(
        match_id=playing.match_id,
        expected_version=playing.state.version,
        request_id=uuid.uuid4().hex,
        action=playing.state.legal_actions[0],
    )
    call = playing.client.stub.SubmitAction(request, metadata=metadata)
    await assert_refused_and_unchanged(playing, call, Code.UNAUTHENTICATED)


async def test_a_token_of_another_match_is_denied(playing: Playing, connect: Connect) -> None:
    _, others = await seated_match(connect, 2)
    stranger = Seat(playing.client, playing.match_id, playing.mover.seat, others[playing.mover.seat].token)
    call = playing.submit(playing.state.legal_actions[0], seat=stranger)
    await assert_refused_and_unchanged(playing, call, Code.PERMISSION_DENIED)
    # Reading and following with it are denied as well.
    assert_reason(
        await refusal(playing.client.view(playing.match_id, stranger.token)), Code.PERMISSION_DENIED
    )
    follow = playing.client.follow(playing.match_id, stranger.token)
    assert_reason(await refusal(anext(follow)), Code.PERMISSION_DENIED)


async def test_a_bot_seat_cannot_be_joined(client: MercadoClient) -> None:
    await announce_agent(client)
    match_id = await client.create_match(players=2, seats=[None, "hard"])
    before = await client.view(match_id)
    assert_reason(await refusal(client.join(match_id, "ada", seat=1)), Code.PERMISSION_DENIED)
    assert await client.view(match_id) == before


async def test_not_your_turn(playing: Playing) -> None:
    call = playing.submit(playing.state.legal_actions[0], seat=playing.waiter)
    reason = await assert_refused_and_unchanged(playing, call, Code.FAILED_PRECONDITION)
    assert "turn" in reason


async def test_illegal_actions_are_failed_preconditions(playing: Playing) -> None:
    legal = list(playing.state.legal_actions)
    candidates = [mercado(take_offer=pb.TakeOffer(good=pb.Good.ValueType(good))) for good in range(1, 6)] + [
        mercado(open_restaurant=pb.OpenRestaurant(restaurant=pb.RESTAURANT_PUB, square=square(3, 3))),
        mercado(redraw_hand=pb.RedrawHand()),
        mercado(refresh_offer=pb.RefreshOffer()),
    ]
    illegal = [a for a in candidates if a not in legal]
    assert len(illegal) >= 5
    for action in illegal:
        await assert_refused_and_unchanged(playing, playing.submit(action), Code.FAILED_PRECONDITION)


async def test_a_waiting_match_refuses_actions_and_offers_none(client: MercadoClient) -> None:
    match_id = await client.create_match(players=3)
    seats = [await client.join(match_id, f"p{n}") for n in range(2)]
    spectator = await client.view(match_id)
    assert spectator.match.status == api.MATCH_STATUS_WAITING
    # Nobody is to move and nobody may act before every seat is taken.
    assert not spectator.HasField("to_move")
    for seat in seats:
        state = await seat.view()
        assert not state.legal_actions
        assert not state.HasField("to_move")
    take_coin = mercado(take_coin=pb.TakeCoin())
    for seat in seats:
        error = await refusal(seat.submit(take_coin, 0, uuid.uuid4().hex))
        assert_reason(error, Code.FAILED_PRECONDITION)
        assert "waiting" in error.details()
    assert await client.view(match_id) == spectator
    assert_reason(await refusal(client.replay(match_id)), Code.FAILED_PRECONDITION)


async def test_stale_versions_are_aborted(playing: Playing) -> None:
    action = playing.state.legal_actions[0]
    for version in (playing.state.version - 1, playing.state.version + 1, 0, 2**63):
        await assert_refused_and_unchanged(playing, playing.submit(action, version=version), Code.ABORTED)


async def test_a_taken_seat_already_exists(playing: Playing) -> None:
    for seat in (0, 1):
        call = playing.client.join(playing.match_id, "late", seat=seat)
        await assert_refused_and_unchanged(playing, call, Code.ALREADY_EXISTS)


async def test_no_open_seat_left_is_resource_exhausted(playing: Playing, client: MercadoClient) -> None:
    await assert_refused_and_unchanged(
        playing, client.join(playing.match_id, "late"), Code.RESOURCE_EXHAUSTED
    )
    # Seats reserved for bots are not open seats.
    await announce_agent(client)
    match_id = await client.create_match(players=2, seats=[None, "easy"])
    await client.join(match_id, "ada")
    before = await client.view(match_id)
    assert_reason(await refusal(client.join(match_id, "bob")), Code.RESOURCE_EXHAUSTED)
    assert await client.view(match_id) == before


async def test_no_bot_seat_left_is_resource_exhausted(connect_own: Connect) -> None:
    client = connect_own()
    await announce_agent(client)
    match_id = await client.create_match(players=2, seats=[None, "hard"])
    error = await refusal(client.claim_bot_seat("agent", ["easy", "medium"], agent_key=AGENT_KEY))
    assert_reason(error, Code.RESOURCE_EXHAUSTED)
    assert not (await client.view(match_id)).match.seats[1].taken
    await client.claim_bot_seat("agent", ["hard"], agent_key=AGENT_KEY)
    assert_reason(await refusal(client.claim_bot_seat("agent", agent_key=AGENT_KEY)), Code.RESOURCE_EXHAUSTED)


async def test_replay_before_the_end_is_a_failed_precondition(playing: Playing) -> None:
    await assert_refused_and_unchanged(
        playing, playing.client.replay(playing.match_id), Code.FAILED_PRECONDITION
    )


@pytest.mark.parametrize("money", ["hidden", "public"])
async def test_a_spectator_sees_no_seat_no_legal_actions_and_coins_only_when_public(
    connect: Connect, money: str
) -> None:
    client = connect()
    match_id, seats = await seated_match(connect, 3, money=money, seed=302)
    spectator = await client.view(match_id)
    assert not spectator.HasField("your_seat")
    assert not spectator.legal_actions
    assert spectator.HasField("to_move")
    assert spectator.match.status == api.MATCH_STATUS_PLAYING
    players = spectator.view.mercado.players
    assert [p.HasField("coins") for p in players] == [money == "public"] * 3
    # Reading with an unknown or malformed token is refused, not answered as a spectator.
    for token in ("no-such-token", "x" * 43):
        assert_reason(await refusal(client.view(match_id, token)), Code.UNAUTHENTICATED)
    # Seats see their own coins, and the mover its legal actions.
    for seat in seats:
        state = await seat.view()
        assert state.your_seat == seat.seat
        assert bool(state.legal_actions) == (seat.seat == spectator.to_move)
        shown = [p.HasField("coins") for p in state.view.mercado.players]
        assert shown == [money == "public" or p == seat.seat for p in range(3)]


async def test_refusals_leave_a_finished_match_finished(connect: Connect) -> None:
    client = connect()
    match_id, seats = await seated_match(connect, 2, seed=303)
    await play_random_match(seats, seed=303)
    before = await client.view(match_id)
    replay = await client.replay(match_id)
    for seat in seats:
        error = await refusal(seat.submit(mercado(take_coin=pb.TakeCoin()), before.version, uuid.uuid4().hex))
        assert_reason(error, Code.FAILED_PRECONDITION)
    assert_reason(await refusal(client.join(match_id, "late")), Code.RESOURCE_EXHAUSTED)
    assert await client.view(match_id) == before
    assert await client.replay(match_id) == replay
