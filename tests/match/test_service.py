"""The match authority without any transport: seats, tokens, versions, exactly-once, streams, reloading."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.engine import Action, Options, apply, legal_actions, new_game, parse_action, replay
from server.match import FINISHED, PLAYING, WAITING, Match, MatchService, Update
from server.match.errors import (
    InvalidRequest,
    MatchError,
    NoSeatLeft,
    NotAllowedNow,
    NotFound,
    PermissionDenied,
    SeatTaken,
    ShuttingDown,
    StaleVersion,
    Unauthenticated,
)
from server.match.service import hash_token
from server.store.sqlite import SqliteStore


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "mercado.db"


@pytest.fixture
def service(db: Path) -> Iterator[MatchService]:
    running = MatchService(SqliteStore(db))
    yield running
    running.close_streams()
    running.store.close()


def reload(db: Path) -> MatchService:
    """A new authority on the same file, as after a restart."""
    return MatchService(SqliteStore(db))


def seated(service: MatchService, players: int = 2, seed: int = 1) -> tuple[Match, list[str]]:
    match = service.create_match(Options(players=players), [], seed)
    tokens = [service.join(match.match_id, f"p{n}").token for n in range(players)]
    return match, tokens


async def play(
    service: MatchService, match: Match, tokens: list[str], rng: random.Random, steps: int
) -> list[Action]:
    """Up to ``steps`` random legal actions, each by the seat to move; returns them."""
    played: list[Action] = []
    for _ in range(steps):
        if match.state.is_terminal:
            break
        action = rng.choice(legal_actions(match.state))
        seat = match.state.current_player
        await service.submit(match.match_id, tokens[seat], match.version, f"r{match.version}", action)
        played.append(action)
    return played


def mover(match: Match, tokens: list[str]) -> tuple[str, str]:
    """The tokens of the seat to move and of another seat."""
    seat = match.state.current_player
    return tokens[seat], tokens[(seat + 1) % len(tokens)]


# --- creating and seating ------------------------------------------------------------------------


def test_a_new_match_waits_for_its_seats(service: MatchService) -> None:
    options = Options(players=3, money="public")
    match = service.create_match(options, [None, "hard"], seed=77)
    assert match.status == WAITING
    assert match.version == 0
    assert match.state == new_game(options, 77)
    assert [(s.seat, s.bot_level, s.taken) for s in match.record.seats] == [
        (0, None, False),
        (1, "hard", False),
        (2, None, False),
    ]
    assert service.get(match.match_id) is match
    other = service.create_match(options, [])
    assert other.match_id != match.match_id
    assert other.record.seed != match.record.seed  # drawn at random


@pytest.mark.parametrize("seats", [[None, None, None], ["grandmaster"]], ids=["too many", "unknown level"])
def test_bad_seat_specs_are_refused(service: MatchService, seats: list[str | None]) -> None:
    with pytest.raises(InvalidRequest):
        service.create_match(Options(players=2), seats)
    assert service.matches == {}


def test_joining_takes_the_first_open_seat_and_returns_a_secret_token(
    service: MatchService, db: Path
) -> None:
    match = service.create_match(Options(players=3), ["easy"])
    first = service.join(match.match_id, "  ada  ")
    second = service.join(match.match_id, "bob")
    assert (first.seat, second.seat) == (1, 2)
    assert first.token != second.token
    assert match.record.seats[1].display_name == "ada"
    assert match.record.seats[1].token_hash == hash_token(first.token)
    assert service.seat_of(match, first.token) == 1
    # Tokens are kept only as hashes, in memory and on disk.
    service.store.close()
    raw = db.read_bytes() + (
        db.with_name(db.name + "-wal").read_bytes() if db.with_name(db.name + "-wal").exists() else b""
    )
    assert first.token.encode() not in raw
    assert hash_token(first.token).encode() in raw


def test_join_refusals_change_nothing(service: MatchService) -> None:
    match = service.create_match(Options(players=2), [None, "medium"])
    service.join(match.match_id, "ada")
    seats = [(s.display_name, s.token_hash) for s in match.record.seats]
    cases: list[tuple[type[MatchError], str, int | None, str]] = [
        (SeatTaken, match.match_id, 0, "bob"),
        (PermissionDenied, match.match_id, 1, "bob"),
        (NotFound, match.match_id, 2, "bob"),
        (NoSeatLeft, match.match_id, None, "bob"),
        (NotFound, "nope", None, "bob"),
        (InvalidRequest, match.match_id, None, ""),
        (InvalidRequest, match.match_id, None, "   "),
        (InvalidRequest, match.match_id, None, "x" * 41),
    ]
    for kind, match_id, seat, name in cases:
        with pytest.raises(kind) as caught:
            service.join(match_id, name, seat)
        assert type(caught.value) is kind
        assert caught.value.reason and "\n" not in caught.value.reason
    assert [(s.display_name, s.token_hash) for s in match.record.seats] == seats
    assert match.status == WAITING


def test_bot_seats_are_claimed_oldest_first_by_level(service: MatchService) -> None:
    older = service.create_match(Options(players=3), ["easy", "hard"])
    newer = service.create_match(Options(players=2), ["hard"])
    newer.record.created_ms = older.record.created_ms + 1
    hard = service.claim_bot_seat(["hard"], "agent")
    assert (hard.match, hard.seat) == (older, 1)
    assert older.record.seats[1].display_name == "agent"
    anything = service.claim_bot_seat([], "")
    assert (anything.match, anything.seat, older.record.seats[0].display_name) == (older, 0, "bot")
    with pytest.raises(NoSeatLeft):
        service.claim_bot_seat(["easy", "medium"], "agent")
    with pytest.raises(InvalidRequest):
        service.claim_bot_seat(["grandmaster"], "agent")
    last = service.claim_bot_seat(["hard"], "agent")
    assert (last.match, last.seat) == (newer, 0)
    assert newer.status == WAITING  # seat 1 is open
    service.join(newer.match_id, "ada")
    assert newer.status == PLAYING


def test_seat_of_a_token(service: MatchService) -> None:
    match, tokens = seated(service)
    other, other_tokens = seated(service)
    assert [service.seat_of(match, t) for t in tokens] == [0, 1]
    assert service.seat_of(match, None) is None
    assert service.seat_of(match, "") is None
    assert service.seat_of(match, "unknown") is None
    assert service.seat_of(match, other_tokens[0]) is None


# --- acting --------------------------------------------------------------------------------------


async def test_an_action_is_applied_once_and_recorded(service: MatchService) -> None:
    match, tokens = seated(service, seed=5)
    assert match.status == PLAYING
    expected = new_game(Options(), 5)
    action = legal_actions(expected)[0]
    seat = expected.current_player
    got_seat, update = await service.submit(match.match_id, tokens[seat], 0, "first", action)
    assert got_seat == seat
    assert update.version == match.version == 1
    assert update.record is not None
    assert (update.record.seat, update.record.action, update.record.request_id) == (seat, action, "first")
    assert update.record.events == apply(expected, action)
    assert match.state == expected
    assert update.state == expected
    assert match.actions == [update.record]
    assert match.current is update


async def test_a_retried_request_returns_the_first_update(service: MatchService) -> None:
    match, tokens = seated(service, seed=6)
    mine, theirs = mover(match, tokens)
    actions = legal_actions(match.state)
    _, first = await service.submit(match.match_id, mine, 0, "once", actions[0])
    state = match.state.clone()
    # Same id and action: the same update, whatever version comes with it, and nothing applied again.
    for version in (0, 1, 99):
        _, again = await service.submit(match.match_id, mine, version, "once", actions[0])
        assert again is first
    assert match.version == 1
    assert match.state == state
    # The same id for something else is no retry.
    with pytest.raises(InvalidRequest, match="different action"):
        await service.submit(match.match_id, mine, 1, "once", actions[-1])
    with pytest.raises(InvalidRequest, match="another seat"):
        await service.submit(match.match_id, theirs, 1, "once", actions[0])
    assert match.version == 1
    assert match.state == state


async def test_a_late_retry_returns_the_state_of_its_own_version(service: MatchService) -> None:
    match, tokens = seated(service, seed=8)
    mine, _ = mover(match, tokens)
    action = legal_actions(match.state)[0]
    _, first = await service.submit(match.match_id, mine, 0, "early", action)
    await play(service, match, tokens, random.Random(9), 6)
    assert match.version > 1
    _, again = await service.submit(match.match_id, mine, 0, "early", action)
    assert again is not first  # rebuilt: only the current state is kept
    assert (again.version, again.record, again.state) == (1, first.record, first.state)


async def test_updates_replay_every_state_the_match_went_through(service: MatchService) -> None:
    match, tokens = seated(service, players=3, seed=12)
    rng = random.Random(13)
    states = []
    while not match.state.is_terminal:
        await play(service, match, tokens, rng, 1)
        states.append(match.state.clone())
    replayed = list(match.updates(match.actions))
    assert [u.version for u in replayed] == list(range(1, match.version + 1))
    assert [u.state for u in replayed] == states
    assert replayed[-1] is match.current
    # From the middle on, too.
    assert [u.state for u in match.updates(match.actions[5:])] == states[5:]


async def test_concurrent_submissions_for_one_version_accept_one(service: MatchService) -> None:
    match, tokens = seated(service, seed=7)
    mine, _ = mover(match, tokens)
    actions = legal_actions(match.state)
    results = await asyncio.gather(
        *(service.submit(match.match_id, mine, 0, f"id{n}", actions[n % len(actions)]) for n in range(4)),
        return_exceptions=True,
    )
    accepted = [r for r in results if isinstance(r, tuple)]
    assert len(accepted) == 1
    assert all(isinstance(r, StaleVersion) for r in results if not isinstance(r, tuple))
    assert match.version == 1


async def test_concurrent_retries_apply_once(service: MatchService) -> None:
    match, tokens = seated(service, seed=8)
    mine, _ = mover(match, tokens)
    action = legal_actions(match.state)[0]
    results = await asyncio.gather(
        *(service.submit(match.match_id, mine, 0, "same", action) for _ in range(5))
    )
    assert len({id(update) for _, update in results}) == 1
    assert match.version == 1


async def test_refused_submissions_change_nothing(service: MatchService) -> None:
    match, tokens = seated(service, seed=9)
    other, other_tokens = seated(service, seed=9)
    await play(service, match, tokens, random.Random(1), 3)
    mine, theirs = mover(match, tokens)
    legal = legal_actions(match.state)
    illegal = next(
        a
        for a in (parse_action(s) for s in ("take_offer fish", "refresh_offer", "redraw_hand"))
        if a not in legal
    )
    v = match.version
    cases: list[tuple[type[MatchError], str, str | None, int, str, Action]] = [
        (NotFound, "nope", mine, v, "a", legal[0]),
        (Unauthenticated, match.match_id, None, v, "a", legal[0]),
        (Unauthenticated, match.match_id, "", v, "a", legal[0]),
        (Unauthenticated, match.match_id, "unknown", v, "a", legal[0]),
        (PermissionDenied, match.match_id, other_tokens[0], v, "a", legal[0]),
        (InvalidRequest, match.match_id, mine, v, "", legal[0]),
        (InvalidRequest, match.match_id, mine, v, "x" * 129, legal[0]),
        (StaleVersion, match.match_id, mine, v - 1, "a", legal[0]),
        (StaleVersion, match.match_id, mine, v + 1, "a", legal[0]),
        (NotAllowedNow, match.match_id, theirs, v, "a", legal[0]),
        (NotAllowedNow, match.match_id, mine, v, "a", illegal),
    ]
    state, actions = match.state.clone(), list(match.actions)
    for kind, match_id, token, version, request_id, action in cases:
        with pytest.raises(kind) as caught:
            await service.submit(match_id, token, version, request_id, action)
        assert type(caught.value) is kind, caught.value
        assert caught.value.reason and "\n" not in caught.value.reason
        assert match.state == state and match.actions == actions
    # None of the refused request ids was used up.
    _, update = await service.submit(match.match_id, mine, v, "a", legal[0])
    assert update.version == v + 1
    assert other.version == 0


async def test_waiting_and_finished_matches_refuse_actions(service: MatchService) -> None:
    match = service.create_match(Options(players=2), [], seed=10)
    token = service.join(match.match_id, "ada").token
    action = legal_actions(match.state)[0]
    with pytest.raises(NotAllowedNow, match="waiting"):
        await service.submit(match.match_id, token, 0, "r", action)
    tokens = [token, service.join(match.match_id, "bob").token]
    await play(service, match, tokens, random.Random(2), 500)
    assert match.status == FINISHED
    with pytest.raises(NotAllowedNow, match="finished"):
        await service.submit(match.match_id, tokens[0], match.version, "late", parse_action("take_coin"))


# --- streams -------------------------------------------------------------------------------------


async def _take(stream: object, n: int) -> list[Update]:
    out: list[Update] = []
    async for update in stream:  # type: ignore[attr-defined]
        out.append(update)
        if len(out) == n:
            break
    return out


async def test_follow_gives_the_backlog_then_live_updates_then_ends(service: MatchService) -> None:
    match, tokens = seated(service, seed=11)
    rng = random.Random(3)
    await play(service, match, tokens, rng, 4)
    stream = service.follow(match.match_id, 2)
    backlog = await _take(stream, 2)
    assert [u.version for u in backlog] == [3, 4]
    assert [u.record for u in backlog] == match.actions[2:4]
    live = asyncio.ensure_future(_take(stream, 2))
    await play(service, match, tokens, rng, 2)
    assert [u.version for u in await live] == [5, 6]
    # To the end: the stream stops by itself.
    rest = asyncio.ensure_future(_take(stream, 10_000))
    await play(service, match, tokens, rng, 500)
    assert match.status == FINISHED
    rest_versions = [u.version for u in await asyncio.wait_for(rest, 5)]
    assert rest_versions == list(range(7, match.version + 1))
    # A finished match's stream is its whole history, then the end.
    assert [u.version for u in await _take(service.follow(match.match_id, 0), 10_000)] == list(
        range(1, match.version + 1)
    )


async def test_follow_sees_seat_changes_and_refuses_to_start_ahead(service: MatchService) -> None:
    match = service.create_match(Options(players=2), [])
    stream = service.follow(match.match_id, 0)
    first = asyncio.ensure_future(_take(stream, 3))
    await asyncio.sleep(0)
    service.join(match.match_id, "ada")
    service.join(match.match_id, "bob")
    # Where the waiting match stands, then each seat change: no version marks them.
    changes = await asyncio.wait_for(first, 5)
    assert [(u.version, u.record) for u in changes] == [(0, None)] * 3
    assert changes[-1].state == match.state
    with pytest.raises(InvalidRequest):
        await _take(service.follow(match.match_id, 1), 1)
    with pytest.raises(NotFound):
        await _take(service.follow("nope", 0), 1)


async def test_close_streams_ends_every_follower(service: MatchService) -> None:
    match, _ = seated(service)
    followers = [asyncio.ensure_future(_take(service.follow(match.match_id, 0), 1)) for _ in range(3)]
    await asyncio.sleep(0)
    service.close_streams()
    # Not the end of the match: the followers are told to come back.
    results = await asyncio.wait_for(asyncio.gather(*followers, return_exceptions=True), 5)
    assert all(isinstance(r, ShuttingDown) for r in results), results
    assert match.watchers == set()


# --- listing -------------------------------------------------------------------------------------


def test_listing_is_newest_first_filtered_and_paged(service: MatchService) -> None:
    created = []
    for n in range(5):
        match = service.create_match(Options(players=2), [])
        match.record.created_ms = 1000 + n
        created.append(match)
    service.join(created[1].match_id, "a")
    service.join(created[1].match_id, "b")
    newest_first = created[::-1]
    assert service.list_matches(None, 10, None) == newest_first
    assert service.list_matches(PLAYING, 10, None) == [created[1]]
    assert service.list_matches(WAITING, 10, None) == [m for m in newest_first if m is not created[1]]
    page = service.list_matches(None, 2, None)
    after = (page[-1].record.created_ms, page[-1].match_id)
    assert page + service.list_matches(None, 10, after) == newest_first


# --- reloading -----------------------------------------------------------------------------------


async def test_a_reloaded_service_is_the_same_authority(service: MatchService, db: Path) -> None:
    match, tokens = seated(service, players=3, seed=12)
    waiting = service.create_match(Options(players=2, money="public"), ["easy"], seed=13)
    half = service.join(waiting.match_id, "ada")
    played = await play(service, match, tokens, random.Random(4), 15)
    service.store.close()

    again = reload(db)
    assert set(again.matches) == {match.match_id, waiting.match_id}
    restored = again.get(match.match_id)
    assert restored.record == match.record
    assert restored.version == match.version == 15
    assert restored.state == match.state
    assert restored.actions == match.actions
    assert [u.state for u in restored.updates(restored.actions)] == [
        u.state for u in match.updates(match.actions)
    ]
    assert again.get(waiting.match_id).record == waiting.record
    assert again.get(waiting.match_id).status == WAITING
    # Tokens still work; request ids are still remembered.
    assert [again.seat_of(restored, t) for t in tokens] == [0, 1, 2]
    assert again.seat_of(again.get(waiting.match_id), half.token) == half.seat
    last = match.actions[-1]
    _, retried = await again.submit(match.match_id, tokens[last.seat], 0, last.request_id, last.action)
    assert retried.version == 15 and retried.record == last
    assert restored.version == 15
    # And play goes on to the end, exactly as the engine says.
    played += await play(again, restored, tokens, random.Random(5), 500)
    assert restored.status == FINISHED
    assert restored.state == replay(Options(players=3), 12, played)
    again.store.close()


async def test_a_cancelled_submission_leaves_memory_and_disk_agreeing(
    service: MatchService, db: Path
) -> None:
    """A caller that goes away mid-submit must not leave the store ahead of (or behind) the match."""
    match, tokens = seated(service, seed=14)
    mine, _ = mover(match, tokens)
    action = legal_actions(match.state)[0]
    for delay in range(4):
        task = asyncio.ensure_future(
            service.submit(match.match_id, mine, match.version, f"gone{delay}", action)
        )
        for _ in range(delay):
            await asyncio.sleep(0)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await asyncio.sleep(0.05)  # let any write in progress finish
        if match.version == 1:
            break
    # Whatever happened, the match goes on, and a reload agrees with memory.
    await asyncio.wait_for(play(service, match, tokens, random.Random(6), 3), 5)
    service.store.close()
    again = reload(db)
    assert again.get(match.match_id).version == match.version
    assert again.get(match.match_id).state == match.state
    again.store.close()
