"""Matches that always finish: turn clocks, the AI standing in for absent players, leaving, coming
back, and matches that expire. Clocks here are short (a second or two)."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import time
from dataclasses import replace
from pathlib import Path

import pytest
from authorities import AGENT_KEY, authority, close
from processes import children

from server.games.mercado import Options, legal_actions, new_game
from server.match import (
    AI,
    CANCELLED,
    FINISHED,
    FORFEITED,
    LEFT,
    OWNER,
    PLAYING,
    WAITING,
    Limits,
    Match,
    MatchService,
    TimeControl,
)
from server.match.clocks import stand_in_level
from server.match.errors import NotAllowedNow, Throttled, Unauthenticated
from server.match.inputs import stand_in_request_id

SHORT = TimeControl(turn_seconds=1, reserve_seconds=0)
WAIT_SECONDS = 20.0  # for the AI's first move (its worker process starts) and the like


async def seated(
    service: MatchService, clock: TimeControl | None = SHORT, seed: int = 3
) -> tuple[Match, list[str]]:
    match = await service.create_match(Options(players=2), [], seed, clock=clock, default_clock=False)
    tokens = [(await service.join(match.match_id, f"p{n}")).token for n in range(2)]
    return match, tokens


async def until(condition: object, seconds: float = WAIT_SECONDS) -> None:
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "not in time"
        await asyncio.sleep(0.02)


async def play_seat(service: MatchService, match: Match, seat: int, token: str, rng: random.Random) -> None:
    """Random legal moves for ``seat`` on its turns, until the match ends."""
    while match.status == PLAYING:
        if match.state.current_player == seat and match.record.seats[seat].played_by == OWNER:
            action = rng.choice(legal_actions(match.state))
            await service.submit(match.match_id, token, match.version, f"{seat}-{match.version}", action)
        else:
            await asyncio.sleep(0.01)


async def test_a_seat_that_does_not_move_is_played_by_the_ai_and_the_match_finishes(
    service: MatchService,
) -> None:
    match, tokens = await seated(service)
    absent = match.state.current_player
    present = 1 - absent
    deadline = match.deadline_ms()
    assert deadline is not None and deadline - match.turn_started_ms == 1000
    await until(lambda: match.record.seats[absent].played_by == AI)
    assert match.record.seats[absent].reserve_ms == 0
    await asyncio.wait_for(play_seat(service, match, present, tokens[present], random.Random(1)), 120)
    assert match.status == FINISHED
    ai_moves = [a for a in match.actions if a.seat == absent]
    assert ai_moves and all(a.request_id == stand_in_request_id(a.version) for a in ai_moves)
    # The owner of an AI-played seat cannot act for it until it takes it back.
    assert match.record.seats[present].played_by == OWNER


async def test_the_owner_takes_the_seat_back(service: MatchService) -> None:
    match, tokens = await seated(service, TimeControl(turn_seconds=1, reserve_seconds=0))
    absent = match.state.current_player
    await until(lambda: match.record.seats[absent].played_by == AI)
    await service.reclaim(match.match_id, tokens[absent])
    assert match.record.seats[absent].played_by == OWNER
    with pytest.raises(NotAllowedNow):
        await service.reclaim(match.match_id, tokens[absent])  # it is its owner's already
    with pytest.raises(Unauthenticated):
        await service.reclaim(match.match_id, None)


async def test_forfeited_seats_are_ranked_last(service: MatchService) -> None:
    clock = TimeControl(turn_seconds=1, reserve_seconds=0, on_timeout=FORFEITED)
    match, tokens = await seated(service, clock)
    absent = match.state.current_player
    await until(lambda: match.record.seats[absent].played_by == FORFEITED)
    present = 1 - absent
    await asyncio.wait_for(play_seat(service, match, present, tokens[present], random.Random(2)), 120)
    assert match.status == FINISHED
    assert match.ranks()[absent] == 2 and match.ranks()[present] == 1
    with pytest.raises(NotAllowedNow):
        await service.reclaim(match.match_id, tokens[absent])  # a forfeit is for good


@pytest.mark.parametrize(("on_timeout", "given"), [(AI, LEFT), (FORFEITED, FORFEITED)])
async def test_leaving_a_match_in_play(service: MatchService, on_timeout: str, given: str) -> None:
    clock = TimeControl(turn_seconds=60, reserve_seconds=60, on_timeout=on_timeout)
    match, tokens = await seated(service, clock)
    leaver = match.state.current_player
    await service.leave(match.match_id, tokens[leaver])
    assert match.record.seats[leaver].played_by == given
    await until(lambda: match.version >= 1)  # the AI moved for it at once
    assert match.actions[0].seat == leaver
    with pytest.raises(NotAllowedNow):
        await service.reclaim(match.match_id, tokens[leaver])
    with pytest.raises(NotAllowedNow, match="given up"):
        await service.leave(match.match_id, tokens[leaver])


@pytest.mark.parametrize(
    ("played_by", "reason"), [(AI, "ReclaimSeat takes it back"), (LEFT, "rest of the match")]
)
async def test_a_seat_the_ai_plays_is_refused_saying_whether_it_can_be_taken_back(
    service: MatchService, played_by: str, reason: str
) -> None:
    match, tokens = await seated(service, clock=None)  # no clock: the AI is never woken to move
    mover = match.state.current_player
    match.record.seats[mover] = replace(match.record.seats[mover], played_by=played_by)
    with pytest.raises(NotAllowedNow, match=reason):
        await service.submit(match.match_id, tokens[mover], 0, "mine", legal_actions(match.state)[0])
    assert match.version == 0


async def test_leaving_a_waiting_match_opens_the_seat_again(service: MatchService) -> None:
    match = await service.create_match(Options(players=2), [])
    seated_ = await service.join(match.match_id, "ada")
    await service.leave(match.match_id, seated_.token)
    assert not match.record.seats[seated_.seat].taken
    with pytest.raises(Unauthenticated):
        await service.view(match.match_id, seated_.token)  # that token is no seat any more
    again = await service.join(match.match_id, "bob")
    assert again.seat == seated_.seat and match.status == WAITING


async def test_a_turn_longer_than_its_time_draws_on_the_reserve(service: MatchService, db: Path) -> None:
    match, tokens = await seated(service, TimeControl(turn_seconds=1, reserve_seconds=5))
    mover = match.state.current_player
    await asyncio.sleep(1.6)
    await service.submit(match.match_id, tokens[mover], 0, "slow", legal_actions(match.state)[0])
    reserve = match.record.seats[mover].reserve_ms
    assert 3800 <= reserve <= 4500, reserve  # 5 s less the 0.6 s beyond the turn's second, give or take
    await close(service)
    again = await authority(db)  # the reserve is durable; the turn in progress starts over
    restored = await again.get(match.match_id)
    assert restored.record.seats[mover].reserve_ms == reserve
    deadline = restored.deadline_ms()
    to_move = restored.record.seats[restored.state.current_player]
    assert deadline is not None and deadline - restored.turn_started_ms == 1000 + to_move.reserve_ms
    await close(again)


async def test_a_match_that_waits_too_long_is_cancelled(db: Path) -> None:
    service = await authority(db, Limits(waiting_expiry_seconds=0.3, sweep_seconds=0.05))
    match = await service.create_match(Options(players=2), [], creator="10.0.0.1")
    assert service.waiting == 1
    async with service.following(match.match_id, None, 0) as stream:
        updates = [u async for u in stream.updates]  # where it stands, then the cancellation, then the end
    assert match.status == CANCELLED and service.waiting == 0 and not service.waiting_by
    assert len(updates) == 2
    with pytest.raises(NotAllowedNow, match="cancelled"):
        await service.join(match.match_id, "late")
    await close(service)
    again = await authority(db)
    assert (await again.get(match.match_id)).status == CANCELLED
    await close(again)


async def test_a_bot_seat_no_agent_takes_is_cancelled(db: Path) -> None:
    service = await authority(db, Limits(bot_seat_seconds=0.3, sweep_seconds=0.05))
    match = await service.create_match(Options(players=2), [None, "easy"])
    await until(lambda: match.status == CANCELLED, 5)
    assert service.open_bot_seats["easy"] == 0
    await close(service)


async def test_bot_seats_need_an_agent_with_room(db: Path) -> None:
    service = await authority(db, agents=False)
    with pytest.raises(NotAllowedNow, match="no AI agent"):
        await service.create_match(Options(players=2), [None, "easy"])
    await service.agent_heartbeat(AGENT_KEY, "one", ["hard"], 1)
    with pytest.raises(NotAllowedNow, match="no AI agent"):
        await service.create_match(Options(players=2), [None, "easy"])  # it plays hard only
    await service.create_match(Options(players=2), [None, "hard"])
    with pytest.raises(NotAllowedNow, match="1 bot seats waiting"):
        await service.create_match(Options(players=2), [None, "hard"])  # its one free seat is promised
    await close(service)


@pytest.mark.parametrize("clock", [None, TimeControl(turn_seconds=86_400)], ids=["no-clock", "a-day-a-turn"])
async def test_a_slow_match_lets_its_agent_go_once_its_human_is_quiet(
    db: Path, clock: TimeControl | None
) -> None:
    service = await authority(db, Limits(agent_wait_seconds=0.5), agents=False)
    await service.agent_heartbeat(AGENT_KEY, "one", [], 1)
    seed = next(s for s in range(100) if new_game(Options(players=2), s).current_player == 0)
    match = await service.create_match(Options(players=2), [None, "medium"], seed, "ada", clock, False)
    human = await service.join(match.match_id, "ada")
    bot = await service.claim_bot_seat([], "agent", AGENT_KEY, "one")
    assert (human.seat, bot.seat) == (0, 1)
    assert (stand_in_level(match, 0), stand_in_level(match, 1)) == ("easy", "medium")
    assert service.agents.free(["medium"]) == 0 and service.bot_seats_by.held == {"ada": 1}
    await until(lambda: match.record.seats[1].played_by == AI, 5)
    assert service.agents.free(["medium"]) == 1 and not service.bot_seats_by.held  # free for others
    assert match.record.seats[0].played_by == OWNER and match.version == 0
    with pytest.raises(NotAllowedNow, match="not your turn"):
        await service.submit(match.match_id, bot.token, 0, "agent", legal_actions(match.state)[0])
    with pytest.raises(NotAllowedNow, match="stays with the server's AI"):
        await service.reclaim(match.match_id, bot.token)
    # The human comes back: the server's stand-in answers for the bot seat.
    while match.state.current_player == 0:  # its turn may take several actions
        action = legal_actions(match.state)[0]
        await service.submit(match.match_id, human.token, match.version, f"back{match.version}", action)
    await until(lambda: match.actions[-1].seat == 1)
    assert match.actions[-1].request_id == stand_in_request_id(match.version)
    await close(service)


async def test_a_clockless_match_keeps_its_agent_while_the_human_plays(db: Path) -> None:
    service = await authority(db, Limits(agent_wait_seconds=1.0))
    seed = next(s for s in range(100) if new_game(Options(players=2), s).current_player == 0)
    match = await service.create_match(Options(players=2), [None, "easy"], seed, "ada", None, False)
    human = await service.join(match.match_id, "ada")
    bot = await service.claim_bot_seat([], "agent", AGENT_KEY, "test-agent")
    for version in range(6):  # each action within the wait, longer than the wait in all
        await asyncio.sleep(0.25)
        token = (human if match.state.current_player == 0 else bot).token
        await service.submit(match.match_id, token, version, f"m{version}", legal_actions(match.state)[0])
    assert match.record.seats[1].played_by == OWNER and match.timer is not None  # the wait starts again
    await close(service)


async def test_bot_seats_count_against_their_creators_and_networks_until_let_go(db: Path) -> None:
    limits = Limits(
        bot_seats_per_creator=2, bot_seats_per_network=3, bot_seat_seconds=0.3, sweep_seconds=0.05
    )
    service = await authority(db, limits)

    async def create(seats: list[str | None], creator: str, network: str) -> Match:
        return await service.create_match(
            Options(players=len(seats)), seats, creator=creator, network=network
        )

    first = await create([None, "easy"], "ada", "10.0.0.0")
    assert first.creator == "network:10.0.0.0"  # whose turns it takes with the stand-in
    await create([None, "easy"], "ada", "10.0.0.0")
    with pytest.raises(Throttled, match="you have 2 bot seats waiting for or played by an AI agent already"):
        await create([None, "easy"], "ada", "10.0.0.0")
    await create([None, None], "ada", "10.0.0.0")  # no bot seat: not counted
    with pytest.raises(Throttled, match="your network has 2 bot seats .* of 3; this asks for 2 more"):
        await create([None, "easy", "easy"], "bob", "10.0.0.0")
    elsewhere = await create([None, "easy", "easy"], "bob", "10.9.0.0")
    assert elsewhere.creator == "network:10.9.0.0"
    # Nobody claims them: the matches are cancelled, and their seats count no more.
    await until(lambda: not service.bot_seats_by.held and not service.bot_seats_by.keys_of, 5)
    await create([None, "easy", "easy"], "ada", "10.0.0.0")
    await close(service)


async def test_the_stand_in_moves_even_when_its_search_process_dies(service: MatchService) -> None:
    clock = TimeControl(turn_seconds=1, reserve_seconds=0, fallback_level="expert")  # seconds a move
    match, _ = await seated(service, clock)
    await until(lambda: service.clocks.pool.running)  # a search has begun
    workers = [
        pid for pid in children(os.getpid()) if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()
    ]
    assert workers
    for pid in workers:
        os.kill(pid, signal.SIGKILL)  # as the kernel would, out of memory
    await until(lambda: match.version >= 1)  # a legal action played without the search
    await until(lambda: match.version >= 2)  # the next search, in a new worker process
    assert all(action.request_id == stand_in_request_id(action.version) for action in match.actions)
