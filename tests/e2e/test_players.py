"""Players against a real server: guest accounts, frontend tokens, seats bound to players, "my games",
ratings and the leaderboard, matchmaking."""

from __future__ import annotations

import asyncio
import base64
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import jwt
import pytest
from matchplay import announce_agent, assert_reason, bearer, refusal
from mercado.v1 import match_pb2 as api
from mercado.v1 import match_pb2_grpc as api_grpc
from mercado.v1 import players_pb2 as players_api
from mercado_client import MercadoClient
from openskill.models import PlackettLuce
from server_process import ServerProcess, Start

ISSUER, AUDIENCE, SECRET = "https://frontend.example", "mercado-test", "f" * 40


@pytest.fixture
async def stub(server: ServerProcess) -> AsyncIterator[api_grpc.MatchServiceStub]:
    async with grpc.aio.insecure_channel(server.target) as channel:
        yield api_grpc.MatchServiceStub(channel)


async def guest(stub: api_grpc.MatchServiceStub, name: str) -> tuple[str, str]:
    """A new guest player: (player id, token)."""
    made = await stub.CreatePlayer(players_api.CreatePlayerRequest(display_name=name))
    return made.player.player_id, made.player_token


async def play_to_the_end(
    stub: api_grpc.MatchServiceStub, match_id: str, tokens: dict[int, str]
) -> api.MatchState:
    """Each seat's player takes its last legal action until the match ends (coins: a short match)."""
    while True:
        state = await stub.GetView(api.GetViewRequest(match_id=match_id))
        if state.match.status == api.MATCH_STATUS_FINISHED:
            return state
        token = tokens[state.to_move]
        view = await stub.GetView(api.GetViewRequest(match_id=match_id), metadata=bearer(token))
        await stub.SubmitAction(
            api.SubmitActionRequest(
                match_id=match_id,
                expected_version=view.version,
                request_id=f"r{view.version}",
                action=view.legal_actions[-1],
            ),
            metadata=bearer(token),
        )


async def test_a_guest_plays_its_seat_from_any_client_and_finds_it_in_its_games(
    server: ServerProcess, stub: api_grpc.MatchServiceStub
) -> None:
    ana, ana_token = await guest(stub, "Ana")
    me = await stub.GetPlayer(players_api.GetPlayerRequest(), metadata=bearer(ana_token))
    assert (me.player_id, me.display_name, me.kind) == (ana, "Ana", players_api.PLAYER_KIND_GUEST)
    assert (me.rating.mu, round(me.rating.display, 9), me.rated_matches) == (25.0, 0.0, 0)
    created = await stub.CreateMatch(api.CreateMatchRequest(players=2), metadata=bearer(ana_token))
    joined = await stub.JoinMatch(api.JoinMatchRequest(match_id=created.match_id), metadata=bearer(ana_token))
    assert joined.match.seats[joined.seat].player_id == ana
    assert joined.match.seats[joined.seat].display_name == "Ana"  # its own name when none is given
    # One seat per player and match.
    error = await refusal(
        stub.JoinMatch(api.JoinMatchRequest(match_id=created.match_id), metadata=bearer(ana_token))
    )
    assert_reason(error, grpc.StatusCode.ALREADY_EXISTS)
    assert error.details().startswith("you hold seat 1 of this match already")  # seats as people count
    # From another device (another connection), the player credential alone acts for the seat.
    async with grpc.aio.insecure_channel(server.target) as other:
        phone = api_grpc.MatchServiceStub(other)
        bea, bea_token = await guest(phone, "Bea")
        await phone.JoinMatch(api.JoinMatchRequest(match_id=created.match_id), metadata=bearer(bea_token))
        view = await phone.GetView(api.GetViewRequest(match_id=created.match_id), metadata=bearer(ana_token))
        assert view.your_seat == joined.seat
    # My games: unfinished ones included; another player's list does not show it.
    mine = await stub.ListMatches(api.ListMatchesRequest(player_id=ana))
    assert [m.match_id for m in mine.matches] == [created.match_id]
    assert mine.matches[0].status == api.MATCH_STATUS_PLAYING and mine.matches[0].rated
    stranger, stranger_token = await guest(stub, "Cy")
    assert not (await stub.ListMatches(api.ListMatchesRequest(player_id=stranger))).matches
    # A player with no seat in a match watches it as a spectator and cannot act.
    spectator = await stub.GetView(
        api.GetViewRequest(match_id=created.match_id), metadata=bearer(stranger_token)
    )
    assert not spectator.HasField("your_seat") and not spectator.legal_actions
    error = await refusal(
        stub.LeaveMatch(api.LeaveMatchRequest(match_id=created.match_id), metadata=bearer(stranger_token))
    )
    assert_reason(error, grpc.StatusCode.PERMISSION_DENIED)
    error = await refusal(stub.ListMatches(api.ListMatchesRequest(player_id="nobody")))
    assert_reason(error, grpc.StatusCode.INVALID_ARGUMENT)


async def test_a_hot_seat_match_lets_one_player_hold_every_seat_and_is_unrated(
    stub: api_grpc.MatchServiceStub,
) -> None:
    ana, token = await guest(stub, "Ana")
    created = await stub.CreateMatch(api.CreateMatchRequest(players=2, hot_seat=True), metadata=bearer(token))
    for _ in range(2):
        await stub.JoinMatch(api.JoinMatchRequest(match_id=created.match_id), metadata=bearer(token))
    state = await stub.GetView(api.GetViewRequest(match_id=created.match_id), metadata=bearer(token))
    assert state.your_seat == state.to_move  # the player acts for whichever of its seats is to move
    assert state.match.hot_seat and not state.match.rated
    finished = await play_to_the_end(stub, created.match_id, {0: token, 1: token})
    assert not finished.match.rated
    assert (await stub.GetPlayer(players_api.GetPlayerRequest(player_id=ana))).rated_matches == 0


async def test_a_finished_rated_match_moves_ratings_as_openskill_does_and_the_leaderboard_shows_them(
    start: Start,
) -> None:
    server = start()
    async with grpc.aio.insecure_channel(server.target) as channel:
        stub = api_grpc.MatchServiceStub(channel)
        players = [await guest(stub, name) for name in ("Ana", "Bea", "Cy")]
        created = await stub.CreateMatch(api.CreateMatchRequest(players=3), metadata=bearer(players[0][1]))
        tokens = {}
        for _, token in players:
            joined = await stub.JoinMatch(
                api.JoinMatchRequest(match_id=created.match_id), metadata=bearer(token)
            )
            tokens[joined.seat] = token
        finished = await play_to_the_end(stub, created.match_id, tokens)
        seat_players = [seat.player_id for seat in finished.match.seats]
        model = PlackettLuce()
        expected = model.rate(
            [[model.rating()] for _ in seat_players], ranks=[float(r) for r in finished.match.ranks]
        )
        deadline = time.monotonic() + 10
        while (
            await stub.GetPlayer(players_api.GetPlayerRequest(player_id=seat_players[0]))
        ).rated_matches == 0:
            assert time.monotonic() < deadline, "the match was not rated"
            await asyncio.sleep(0.1)
        for player_id, (rating,), rank in zip(seat_players, expected, finished.match.ranks, strict=True):
            player = await stub.GetPlayer(players_api.GetPlayerRequest(player_id=player_id))
            assert player.rating.mu == pytest.approx(rating.mu)
            assert player.rating.sigma == pytest.approx(rating.sigma)
            assert (player.rated_matches, player.wins) == (1, int(rank == 1))
        summary = (await stub.ListMatches(api.ListMatchesRequest(player_id=seat_players[0]))).matches[0]
        assert summary.rated
        # The leaderboard: best display rating first, two to a page, ranks running on across pages.
        first = await stub.GetLeaderboard(players_api.GetLeaderboardRequest(page_size=2))
        second = await stub.GetLeaderboard(
            players_api.GetLeaderboardRequest(page_size=2, page_token=first.next_page_token)
        )
        entries = [*first.entries, *second.entries]
        assert [e.rank for e in entries] == [1, 2, 3] and not second.next_page_token
        assert {e.player.player_id for e in entries} == set(seat_players)  # bots have not played yet
        shown = [e.player.rating.display for e in entries]
        assert shown == sorted(shown, reverse=True)
        for rating in ("nope", "1.2.3", "e", "-"):  # the last three once passed for ratings
            forged = base64.urlsafe_b64encode(f"{rating}:{'0' * 32}:5".encode()).decode()
            error = await refusal(stub.GetLeaderboard(players_api.GetLeaderboardRequest(page_token=forged)))
            assert_reason(error, grpc.StatusCode.INVALID_ARGUMENT)


async def test_an_unrated_or_anonymous_match_leaves_ratings_alone(stub: api_grpc.MatchServiceStub) -> None:
    ana, ana_token = await guest(stub, "Ana")
    created = await stub.CreateMatch(
        api.CreateMatchRequest(players=2, unrated=True), metadata=bearer(ana_token)
    )
    seat = (
        await stub.JoinMatch(api.JoinMatchRequest(match_id=created.match_id), metadata=bearer(ana_token))
    ).seat
    anonymous = await stub.JoinMatch(api.JoinMatchRequest(match_id=created.match_id, display_name="anon"))
    assert not anonymous.match.rated
    await play_to_the_end(stub, created.match_id, {seat: ana_token, anonymous.seat: anonymous.seat_token})
    await asyncio.sleep(0.5)
    assert (await stub.GetPlayer(players_api.GetPlayerRequest(player_id=ana))).rated_matches == 0


async def test_without_allow_anonymous_seats_need_a_player(start: Start) -> None:
    server = start("--no-allow-anonymous")
    async with grpc.aio.insecure_channel(server.target) as channel:
        stub = api_grpc.MatchServiceStub(channel)
        error = await refusal(stub.CreateMatch(api.CreateMatchRequest(players=2)))
        assert_reason(error, grpc.StatusCode.UNAUTHENTICATED)
        _, token = await guest(stub, "Ana")
        created = await stub.CreateMatch(api.CreateMatchRequest(players=2), metadata=bearer(token))
        error = await refusal(
            stub.JoinMatch(api.JoinMatchRequest(match_id=created.match_id, display_name="x"))
        )
        assert_reason(error, grpc.StatusCode.UNAUTHENTICATED)
        joined = await stub.JoinMatch(api.JoinMatchRequest(match_id=created.match_id), metadata=bearer(token))
        # The seat token a player's join returns acts for that seat too.
        view = await stub.GetView(
            api.GetViewRequest(match_id=created.match_id), metadata=bearer(joined.seat_token)
        )
        assert view.your_seat == joined.seat


async def test_a_frontends_users_sign_in_with_its_jwts(start: Start, tmp_path: Path) -> None:
    secret_file = tmp_path / "secret"
    secret_file.write_text(SECRET)
    server = start(
        "--no-allow-anonymous",
        "--jwt-issuer", ISSUER,
        "--jwt-audience", AUDIENCE,
        "--jwt-secret-file", str(secret_file),
    )  # fmt: skip

    def token(**changes: object) -> str:
        claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": "u-1", "name": "Dee", "exp": int(time.time()) + 600}
        return jwt.encode({**claims, **changes}, SECRET, "HS256")

    async with grpc.aio.insecure_channel(server.target) as channel:
        stub = api_grpc.MatchServiceStub(channel)
        me = await stub.GetPlayer(players_api.GetPlayerRequest(), metadata=bearer(token()))
        assert (me.display_name, me.kind) == ("Dee", players_api.PLAYER_KIND_EXTERNAL)
        # A new token of the same user, with a new name: the same player, renamed.
        again = await stub.GetPlayer(players_api.GetPlayerRequest(), metadata=bearer(token(name="Dee D.")))
        assert (again.player_id, again.display_name) == (me.player_id, "Dee D.")
        created = await stub.CreateMatch(api.CreateMatchRequest(players=2), metadata=bearer(token()))
        joined = await stub.JoinMatch(
            api.JoinMatchRequest(match_id=created.match_id), metadata=bearer(token())
        )
        assert joined.match.seats[joined.seat].player_id == me.player_id
        refusals = {
            "it has expired": token(exp=int(time.time()) - 3600),
            "it is not valid yet": token(nbf=int(time.time()) + 3600),
            "wrong audience": token(aud="another"),
            "bad signature": jwt.encode(
                {"iss": ISSUER, "aud": AUDIENCE, "sub": "u", "exp": 2**31}, "x" * 40, "HS256"
            ),
            "not one this server trusts": token(iss="https://evil.example"),
            "the algorithm is not allowed": jwt.encode(
                {"iss": ISSUER, "aud": AUDIENCE, "sub": "u", "exp": 2**31},
                None,  # type: ignore[arg-type]
                "none",
            ),
        }
        for reason, bad in refusals.items():
            error = await refusal(stub.GetPlayer(players_api.GetPlayerRequest(), metadata=bearer(bad)))
            assert_reason(error, grpc.StatusCode.UNAUTHENTICATED)
            assert reason in (error.details() or ""), (reason, error.details())


async def test_a_guest_rotates_its_token_and_every_earlier_one_is_refused_ever_after(
    start: Start, tmp_path: Path
) -> None:
    secret_file = tmp_path / "secret"
    secret_file.write_text(SECRET)
    frontend = ["--jwt-issuer", ISSUER, "--jwt-audience", AUDIENCE, "--jwt-secret-file", str(secret_file)]
    server = start("--no-allow-anonymous", *frontend)
    rotate = players_api.RotatePlayerTokenRequest()

    async def refused(call: object, code: grpc.StatusCode = grpc.StatusCode.UNAUTHENTICATED) -> str:
        error = await refusal(call)  # type: ignore[arg-type]
        assert_reason(error, code)
        return error.details() or ""

    async with grpc.aio.insecure_channel(server.target) as channel:
        stub = api_grpc.MatchServiceStub(channel)
        ana, first = await guest(stub, "Ana")
        created = await stub.CreateMatch(api.CreateMatchRequest(players=2), metadata=bearer(first))
        joined = await stub.JoinMatch(api.JoinMatchRequest(match_id=created.match_id), metadata=bearer(first))
        rotated = await stub.RotatePlayerToken(rotate, metadata=bearer(first))
        second = rotated.player_token
        assert (rotated.player.player_id, rotated.player.display_name) == (ana, "Ana")
        assert second != first
        # The first token is refused for every call; the new one is the same player, in its seat.
        view = api.GetViewRequest(match_id=created.match_id)
        reason = await refused(stub.GetPlayer(players_api.GetPlayerRequest(), metadata=bearer(first)))
        assert "it has been replaced by a newer one" in reason
        await refused(stub.GetView(view, metadata=bearer(first)))
        await refused(stub.CreateMatch(api.CreateMatchRequest(players=2), metadata=bearer(first)))
        await refused(stub.RotatePlayerToken(rotate, metadata=bearer(first)))
        assert (await stub.GetView(view, metadata=bearer(second))).your_seat == joined.seat
        # The seat token the join gave acts for the seat still.
        assert (await stub.GetView(view, metadata=bearer(joined.seat_token))).your_seat == joined.seat
        # The same token rotated twice at once: one call gets the next token, the other is refused.
        both = await asyncio.gather(
            *(stub.RotatePlayerToken(rotate, metadata=bearer(second)) for _ in range(2)),
            return_exceptions=True,
        )
        (third,) = [
            made.player_token for made in both if isinstance(made, players_api.RotatePlayerTokenResponse)
        ]
        (lost,) = [error for error in both if isinstance(error, grpc.aio.AioRpcError)]
        assert_reason(lost, grpc.StatusCode.UNAUTHENTICATED)
        await refused(stub.GetPlayer(players_api.GetPlayerRequest(), metadata=bearer(second)))
        # Only a guest's token is rotated, and only with a player credential.
        user = jwt.encode(
            {"iss": ISSUER, "aud": AUDIENCE, "sub": "u", "exp": int(time.time()) + 600}, SECRET, "HS256"
        )
        await refused(
            stub.RotatePlayerToken(rotate, metadata=bearer(user)), grpc.StatusCode.FAILED_PRECONDITION
        )
        await refused(stub.RotatePlayerToken(rotate, metadata=bearer(joined.seat_token)))
        await refused(stub.RotatePlayerToken(rotate))

    server.restart()  # the database is what remembers
    async with grpc.aio.insecure_channel(server.target) as channel:
        stub = api_grpc.MatchServiceStub(channel)
        for old in (first, second):
            await refused(stub.GetPlayer(players_api.GetPlayerRequest(), metadata=bearer(old)))
        assert (await stub.GetPlayer(players_api.GetPlayerRequest(), metadata=bearer(third))).player_id == ana


async def test_rate_limits_count_per_player(start: Start) -> None:
    server = start("--rate-limit", "GetPlayer=0.01/3", "--rate-limit", "CreatePlayer=off")
    async with grpc.aio.insecure_channel(server.target) as channel:
        stub = api_grpc.MatchServiceStub(channel)
        (_, ana), (_, bea) = await guest(stub, "Ana"), await guest(stub, "Bea")
        for _ in range(3):
            await stub.GetPlayer(players_api.GetPlayerRequest(), metadata=bearer(ana))
        error = await refusal(stub.GetPlayer(players_api.GetPlayerRequest(), metadata=bearer(ana)))
        assert_reason(error, grpc.StatusCode.RESOURCE_EXHAUSTED)
        # Another player on the same address has a budget of its own.
        await stub.GetPlayer(players_api.GetPlayerRequest(), metadata=bearer(bea))


async def find(stub: api_grpc.MatchServiceStub, token: str, **request: object) -> api.MatchFound:
    async for update in stub.FindMatch(api.FindMatchRequest(**request), metadata=bearer(token)):  # type: ignore[arg-type]
        if update.HasField("found"):
            return update.found
    raise AssertionError("the stream ended without a match")


async def test_matchmaking_pairs_two_players_in_one_match(stub: api_grpc.MatchServiceStub) -> None:
    (ana, ana_token), (bea, bea_token) = await guest(stub, "Ana"), await guest(stub, "Bea")
    first, second = await asyncio.gather(find(stub, ana_token, players=2), find(stub, bea_token, players=2))
    assert first.match_id == second.match_id and {first.seat, second.seat} == {0, 1}
    # Each hears of the match once everyone is seated: it is playing.
    assert first.match.status == second.match.status == api.MATCH_STATUS_PLAYING
    state = await stub.GetView(api.GetViewRequest(match_id=first.match_id), metadata=bearer(first.seat_token))
    assert {s.player_id for s in state.match.seats} == {ana, bea} and state.match.rated


async def test_a_player_queues_once_and_leaves_the_queue_by_closing_its_stream(
    stub: api_grpc.MatchServiceStub,
) -> None:
    (_, ana), (_, bea) = await guest(stub, "Ana"), await guest(stub, "Bea")
    waiting = stub.FindMatch(api.FindMatchRequest(players=4), metadata=bearer(ana))
    queued = await waiting.read()
    assert queued.queued.queued_players == 1
    error = await refusal(find(stub, ana, players=3))
    assert_reason(error, grpc.StatusCode.ALREADY_EXISTS)
    other = stub.FindMatch(api.FindMatchRequest(players=4), metadata=bearer(bea))
    assert (await other.read()).queued.queued_players == 2
    waiting.cancel()
    deadline = time.monotonic() + 10
    while (await other.read()).queued.queued_players != 1:
        assert time.monotonic() < deadline, "the closed stream's player is still queued"
    other.cancel()


async def test_matchmaking_fills_with_bots_when_allowed(start: Start, tmp_path: Path) -> None:
    ratings = tmp_path / "ratings.json"
    ratings.write_text(json.dumps({"ratings": {"bot:hard": {"mu": 31.0, "sigma": 1.5}}}))
    server = start("--matchmaking-ai-wait", "1", "--bot-ratings", str(ratings))
    async with grpc.aio.insecure_channel(server.target) as channel, MercadoClient(server.target) as client:
        stub = api_grpc.MatchServiceStub(channel)
        hard = await stub.GetPlayer(players_api.GetPlayerRequest(player_id="bot:hard"))
        assert (hard.rating.mu, hard.rating.sigma, hard.kind) == (31.0, 1.5, players_api.PLAYER_KIND_BOT)
        await announce_agent(client)
        _, token = await guest(stub, "Ana")
        started = time.monotonic()
        found = await find(stub, token, players=3, allow_ai=True)
        assert time.monotonic() - started >= 1.0
        seats = found.match.seats
        assert [s.bot for s in seats].count(True) == 2
        # A new player's mean is 25: the bots nearest are the uncalibrated levels at 25, not hard.
        assert {s.bot_level for s in seats if s.bot} <= {api.BOT_LEVEL_EASY, api.BOT_LEVEL_MEDIUM}
        # Without "allow AI", nobody is matched with bots.
        _, lonely = await guest(stub, "Bo")
        alone = stub.FindMatch(api.FindMatchRequest(players=2), metadata=bearer(lonely))
        for _ in range(3):
            assert (await alone.read()).HasField("queued")
        alone.cancel()


async def test_each_game_s_bots_start_at_their_ratings_in_that_game(start: Start, tmp_path: Path) -> None:
    """A folder of ratings files, one a game (ai/bot-ratings/): each game's ladder gets its own."""
    folder = tmp_path / "bot-ratings"
    folder.mkdir()
    for game, mu in (("mercado", 31.0), ("leilao", 28.5)):
        ratings = {"bot:hard": {"mu": mu, "sigma": 1.5}, "bot:easy": {"mu": mu - 20, "sigma": 2.0}}
        (folder / f"{game}.json").write_text(json.dumps({"ratings": ratings}))
    server = start("--bot-ratings", str(folder))
    async with grpc.aio.insecure_channel(server.target) as channel:
        stub = api_grpc.MatchServiceStub(channel)

        async def rating(player: str, game: str) -> tuple[float, float]:
            found = await stub.GetPlayer(players_api.GetPlayerRequest(player_id=player, game=game))
            return found.rating.mu, found.rating.sigma

        assert await rating("bot:hard", "mercado") == (31.0, 1.5)
        assert await rating("bot:hard", "leilao") == (28.5, 1.5)
        assert await rating("bot:easy", "leilao") == (8.5, 2.0)
        newcomer = await rating("bot:medium", "mercado")
        assert await rating("bot:hard", "oregano") == newcomer  # no file: where a newcomer starts
        assert await rating("bot:medium", "leilao") == newcomer


async def test_a_match_against_a_bot_rates_the_bot_level_on_the_same_ladder(start: Start) -> None:
    from server_process import AGENT_KEY

    server = start()
    async with grpc.aio.insecure_channel(server.target) as channel, MercadoClient(server.target) as client:
        stub = api_grpc.MatchServiceStub(channel)
        await announce_agent(client)
        ana, token = await guest(stub, "Ana")
        bot_seat = api.SeatSpec(bot=api.SeatSpec.Bot(level=api.BOT_LEVEL_MEDIUM))
        created = await stub.CreateMatch(
            api.CreateMatchRequest(players=2, seats=[api.SeatSpec(open=api.SeatSpec.Open()), bot_seat]),
            metadata=bearer(token),
        )
        await stub.JoinMatch(api.JoinMatchRequest(match_id=created.match_id), metadata=bearer(token))
        # The test plays the bot's seat itself, with the agent key's claim.
        claimed = await stub.ClaimBotSeat(
            api.ClaimBotSeatRequest(agent_name="bot"), metadata=bearer(AGENT_KEY)
        )
        assert claimed.match.seats[1].player_id == "bot:medium"
        finished = await play_to_the_end(stub, created.match_id, {0: token, 1: claimed.seat_token})
        assert finished.match.rated
        deadline = time.monotonic() + 10
        while (await stub.GetPlayer(players_api.GetPlayerRequest(player_id="bot:medium"))).rated_matches != 1:
            assert time.monotonic() < deadline, "the bot was not rated"
            await asyncio.sleep(0.1)
        assert (await stub.GetPlayer(players_api.GetPlayerRequest(player_id=ana))).rated_matches == 1
        board = await stub.GetLeaderboard(players_api.GetLeaderboardRequest())
        assert {e.player.player_id for e in board.entries} == {ana, "bot:medium"}


@pytest.mark.slow
async def test_a_match_the_ai_played_mostly_for_an_absent_player_is_unrated(start: Start) -> None:
    server = start()
    async with grpc.aio.insecure_channel(server.target) as channel:
        stub = api_grpc.MatchServiceStub(channel)
        (ana, ana_token), (bea, bea_token) = await guest(stub, "Ana"), await guest(stub, "Bea")
        clock = api.TimeControl(turn_seconds=1, reserve_seconds=0, on_timeout=api.ON_TIMEOUT_AI)
        created = await stub.CreateMatch(
            api.CreateMatchRequest(players=2, time_control=clock), metadata=bearer(ana_token)
        )
        seats = {}
        for player, token in ((ana, ana_token), (bea, bea_token)):
            joined = await stub.JoinMatch(
                api.JoinMatchRequest(match_id=created.match_id), metadata=bearer(token)
            )
            seats[player] = joined.seat
        # Ana plays her turns at once; Bea never does: the AI plays every one of hers.
        deadline = time.monotonic() + 240
        while True:
            state = await stub.GetView(
                api.GetViewRequest(match_id=created.match_id), metadata=bearer(ana_token)
            )
            if state.match.status == api.MATCH_STATUS_FINISHED:
                break
            assert time.monotonic() < deadline, "the match did not finish"
            if state.legal_actions:
                await stub.SubmitAction(
                    api.SubmitActionRequest(
                        match_id=created.match_id,
                        expected_version=state.version,
                        request_id=f"r{state.version}",
                        action=state.legal_actions[-1],
                    ),
                    metadata=bearer(ana_token),
                )
            else:
                await asyncio.sleep(0.1)
        assert state.match.seats[seats[bea]].played_by_ai
        await asyncio.sleep(1)
        final = await stub.GetView(api.GetViewRequest(match_id=created.match_id))
        assert not final.match.rated
        for player in (ana, bea):
            assert (await stub.GetPlayer(players_api.GetPlayerRequest(player_id=player))).rated_matches == 0
