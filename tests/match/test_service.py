"""The match authority without any transport: seats, tokens, versions, exactly-once, streams, reloading."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import itertools
import random
import weakref
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from authorities import AGENT_KEY, authority, close

from server.games.mercado import Action, Options, apply, legal_actions, new_game, parse_action, replay
from server.match import FINISHED, PLAYING, WAITING, Limits, Match, MatchService, Policy, Seated, Update
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
    Throttled,
    Unauthenticated,
)
from server.match.inputs import stand_in_request_id
from server.match.service import _to_the_end, hash_token

NO_CLOCK = Policy(agent_key=AGENT_KEY, allow_chosen_seeds=True, default_clock=None)  # nothing pins a match
UNKNOWN = "0" * 32  # a well-formed match id of no match


async def seated(service: MatchService, players: int = 2, seed: int = 1) -> tuple[Match, list[str]]:
    match = await service.create_match(Options(players=players), [], seed)
    tokens = [(await service.join(match.match_id, f"p{n}")).token for n in range(players)]
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


async def test_a_new_match_waits_for_its_seats(service: MatchService) -> None:
    options = Options(players=3, money="public")
    match = await service.create_match(options, [None, "hard"], seed=77)
    assert match.status == WAITING
    assert match.version == 0
    assert match.state == new_game(options, 77)
    assert [(s.seat, s.bot_level, s.taken) for s in match.record.seats] == [
        (0, None, False),
        (1, "hard", False),
        (2, None, False),
    ]
    assert await service.get(match.match_id) is match
    assert match.record.seed_chosen and len(match.record.salt) == 32
    other = await service.create_match(options, [])
    assert other.match_id != match.match_id
    assert other.record.seed != match.record.seed  # drawn at random
    assert not other.record.seed_chosen and other.record.salt != match.record.salt


@pytest.mark.parametrize("seats", [[None, None, None], ["grandmaster"]], ids=["too many", "unknown level"])
async def test_bad_seat_specs_are_refused(service: MatchService, seats: list[str | None]) -> None:
    with pytest.raises(InvalidRequest):
        await service.create_match(Options(players=2), seats)
    assert len(service.cache) == 0 and service.waiting == 0


async def test_chosen_seeds_and_bot_seats_take_what_the_operator_allows(db: Path) -> None:
    strict = await authority(db, policy=Policy())
    with pytest.raises(PermissionDenied, match="seed"):
        await strict.create_match(Options(), [], seed=1)
    with pytest.raises(NotAllowedNow, match="agent key"):
        await strict.create_match(Options(), [None, "easy"])
    drawn = await strict.create_match(Options(), [])
    assert not drawn.record.seed_chosen
    for key in (None, "", "wrong-key-0123456789"):
        with pytest.raises(PermissionDenied, match="agent key"):
            await strict.claim_bot_seat([], "agent", key)
    await close(strict)


async def test_a_bot_seat_needs_the_agent_key(service: MatchService) -> None:
    match = await service.create_match(Options(), [None, "easy"])
    for key in (None, "", AGENT_KEY[:-1], AGENT_KEY + "x"):
        with pytest.raises(PermissionDenied):
            await service.claim_bot_seat([], "agent", key)
    assert not match.record.seats[1].taken
    claimed = await service.claim_bot_seat([], "agent", AGENT_KEY)
    assert (claimed.match, claimed.seat) == (match, 1)


async def test_joining_takes_the_first_open_seat_and_returns_a_secret_token(
    service: MatchService, db: Path
) -> None:
    match = await service.create_match(Options(players=3), ["easy"])
    first = await service.join(match.match_id, "  ada  ")
    second = await service.join(match.match_id, "bob")
    assert (first.seat, second.seat) == (1, 2)
    assert first.token != second.token
    assert match.record.seats[1].display_name == "ada"
    assert match.record.seats[1].token_hash == hash_token(first.token)
    assert (await service.view(match.match_id, first.token))[1] == 1
    # Tokens are kept only as hashes, in memory and on disk.
    service.store.close()
    raw = db.read_bytes() + (
        db.with_name(db.name + "-wal").read_bytes() if db.with_name(db.name + "-wal").exists() else b""
    )
    assert first.token.encode() not in raw
    assert hash_token(first.token).encode() in raw


async def test_join_refusals_change_nothing(service: MatchService) -> None:
    match = await service.create_match(Options(players=2), [None, "medium"])
    await service.join(match.match_id, "ada")
    seats = [(s.display_name, s.token_hash) for s in match.record.seats]
    cases: list[tuple[type[MatchError], str, int | None, str]] = [
        (SeatTaken, match.match_id, 0, "bob"),
        (PermissionDenied, match.match_id, 1, "bob"),
        (NotFound, match.match_id, 2, "bob"),
        (NoSeatLeft, match.match_id, None, "bob"),
        (NotFound, UNKNOWN, None, "bob"),
        (InvalidRequest, "nope", None, "bob"),
        (InvalidRequest, match.match_id.upper(), None, "bob"),
        (InvalidRequest, match.match_id, None, ""),
        (InvalidRequest, match.match_id, None, "   "),
        (InvalidRequest, match.match_id, None, "x" * 41),
        (InvalidRequest, match.match_id, None, "bo\x1b[2Jb"),  # a terminal escape
        (InvalidRequest, match.match_id, None, "bob\u202egnp.exe"),  # a bidi override
        (InvalidRequest, match.match_id, None, "b\u200bob"),  # a zero-width space
        (InvalidRequest, match.match_id, None, "bob\nalice"),
        (InvalidRequest, match.match_id, None, "z\u0301\u0302\u0303\u0304"),  # stacked combining marks
    ]
    for kind, match_id, seat, name in cases:
        with pytest.raises(kind) as caught:
            await service.join(match_id, name, seat)
        assert type(caught.value) is kind, (match_id, name)
        assert caught.value.reason and "\n" not in caught.value.reason
    assert [(s.display_name, s.token_hash) for s in match.record.seats] == seats
    assert match.status == WAITING


async def test_a_join_retried_with_its_request_id_gets_the_seat_and_token_it_took(
    service: MatchService, db: Path
) -> None:
    match = await service.create_match(Options(players=3), [])
    first = await service.join(match.match_id, "ada", request_id="join-1")
    again = await service.join(match.match_id, " ada", request_id="join-1")
    assert (again.seat, again.token) == (first.seat, first.token) == (0, first.token)
    assert [seat.taken for seat in match.record.seats] == [True, False, False]
    # Another join unlike the first under its id is refused, and so is a malformed id.
    for name, seat, request_id in [("bob", None, "join-1"), ("ada", 1, "join-1"), ("ada", None, "join 2")]:
        with pytest.raises(InvalidRequest):
            await service.join(match.match_id, name, seat, request_id=request_id)
    # Another id, or none, takes another seat.
    assert (await service.join(match.match_id, "bob", request_id="join-2")).seat == 1
    # The seat and its token are the id's after a restart too.
    await close(service)
    service = await authority(db)
    later = await service.join(match.match_id, "ada", request_id="join-1")
    assert (later.seat, later.token) == (first.seat, first.token)
    # A seat given up while the match waits is no longer the id's: it takes an open seat anew.
    await service.leave(match.match_id, first.token)
    assert (await service.join(match.match_id, "ada", 2, request_id="join-1")).seat == 2
    await close(service)


async def test_display_names_are_normalised(service: MatchService) -> None:
    match = await service.create_match(Options(players=3), [])
    decomposed = await service.join(match.match_id, "Jose\u0301 ")  # e + combining acute
    assert match.record.seats[decomposed.seat].display_name == "Jos\u00e9"
    await service.join(match.match_id, "Łódź 2 ✓")
    assert match.record.seats[1].display_name == "Łódź 2 ✓"


async def test_bot_seats_are_claimed_oldest_first_by_level(service: MatchService) -> None:
    older = await service.create_match(Options(players=3), ["easy", "hard"])
    newer = await service.create_match(Options(players=2), ["hard"])
    hard = await service.claim_bot_seat(["hard"], "agent", AGENT_KEY)
    assert (hard.match, hard.seat) == (older, 1)
    assert older.record.seats[1].display_name == "Hard AI"  # its level's name, not the agent's
    anything = await service.claim_bot_seat([], "", AGENT_KEY)
    assert (anything.match, anything.seat, older.record.seats[0].display_name) == (older, 0, "Easy AI")
    with pytest.raises(NoSeatLeft):
        await service.claim_bot_seat(["easy", "medium"], "agent", AGENT_KEY)
    with pytest.raises(InvalidRequest):
        await service.claim_bot_seat(["grandmaster"], "agent", AGENT_KEY)
    last = await service.claim_bot_seat(["hard"], "agent", AGENT_KEY)
    assert (last.match, last.seat) == (newer, 0)
    assert newer.status == WAITING  # seat 1 is open
    await service.join(newer.match_id, "ada")
    assert newer.status == PLAYING


async def test_concurrent_claims_take_different_seats(service: MatchService) -> None:
    matches = [await service.create_match(Options(), [None, "easy"]) for _ in range(3)]
    claims = await asyncio.gather(
        *(service.claim_bot_seat([], f"a{n}", AGENT_KEY) for n in range(5)), return_exceptions=True
    )
    claimed = [c for c in claims if isinstance(c, Seated)]
    assert sorted((c.match.match_id, c.seat) for c in claimed) == sorted((m.match_id, 1) for m in matches)
    assert [type(c) for c in claims if not isinstance(c, Seated)] == [NoSeatLeft, NoSeatLeft]


async def test_the_viewer_of_a_token(service: MatchService) -> None:
    match, tokens = await seated(service)
    _, other_tokens = await seated(service)
    assert [(await service.view(match.match_id, t))[1] for t in tokens] == [0, 1]
    assert (await service.view(match.match_id, None))[1] is None
    with pytest.raises(Unauthenticated, match="malformed"):
        await service.view(match.match_id, "unknown")
    with pytest.raises(Unauthenticated, match="unknown"):
        await service.view(match.match_id, "x" * 43)
    with pytest.raises(PermissionDenied):
        await service.view(match.match_id, other_tokens[0])


# --- fair use ------------------------------------------------------------------------------------


async def test_waiting_matches_are_capped_per_creator_and_in_all(db: Path) -> None:
    service = await authority(db, Limits(waiting=3, waiting_per_creator=2))
    mine = [await service.create_match(Options(), [], creator="10.0.0.1") for _ in range(2)]
    with pytest.raises(Throttled) as caught:
        await service.create_match(Options(), [], creator="10.0.0.1")
    assert caught.value.retry_after > 0
    await service.create_match(Options(), [], creator="10.0.0.2")
    with pytest.raises(Throttled, match="server"):
        await service.create_match(Options(), [], creator="10.0.0.3")
    # A match that starts no longer counts: its creator may create another.
    for name in ("a", "b"):
        await service.join(mine[0].match_id, name)
    assert service.waiting == 2
    await service.create_match(Options(), [], creator="10.0.0.1")
    await close(service)
    # After a restart the server-wide count is read back from the store.
    again = await authority(db, Limits(waiting=3, waiting_per_creator=2))
    assert again.waiting == 3
    await close(again)


# --- memory --------------------------------------------------------------------------------------


async def test_matches_leave_memory_and_come_back_from_the_store(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("server.match.cache.RESIDENT_SECONDS", 0.0)
    service = await authority(db, Limits(cached=2), NO_CLOCK)
    played = []
    for seed in range(5):
        match, tokens = await seated(service, seed=seed)
        await play(service, match, tokens, random.Random(seed), 10)
        played.append((match, tokens))
    assert len(service.cache) <= 2
    for match, tokens in played:
        again = await service.get(match.match_id)
        assert (again.record, again.state, again.actions) == (match.record, match.state, match.actions)
        await play(service, again, tokens, random.Random(7), 2)  # it plays on, from the store's copy
    await close(service)


async def test_a_followed_match_stays_in_memory(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("server.match.cache.RESIDENT_SECONDS", 0.0)
    service = await authority(db, Limits(cached=1), NO_CLOCK)
    watched, tokens = await seated(service, seed=3)
    async with service.following(watched.match_id, None, 0) as stream:
        assert (await anext(stream.updates)).version == 0  # where it stands
        first = asyncio.ensure_future(anext(stream.updates))
        for seed in range(4):
            await seated(service, seed=seed)
        assert await service.get(watched.match_id) is watched
        await play(service, watched, tokens, random.Random(1), 1)
        assert (await asyncio.wait_for(first, 5)).version == 1
    await close(service)


# --- acting --------------------------------------------------------------------------------------


async def test_an_action_is_applied_once_and_recorded(service: MatchService) -> None:
    match, tokens = await seated(service, seed=5)
    assert match.status == PLAYING
    expected = new_game(Options(), 5)
    action = legal_actions(expected)[0]
    seat = expected.current_player
    _, got_seat, update = await service.submit(match.match_id, tokens[seat], 0, "first", action)
    assert got_seat == seat
    assert update.version == match.version == 1
    assert update.record is not None
    assert (update.record.seat, update.record.action, update.record.request_id) == (seat, action, "first")
    assert update.events == apply(expected, action)
    assert match.state == expected
    assert update.state == expected
    assert match.actions == [update.record]
    assert match.current is update


async def test_a_retried_request_returns_the_first_update(service: MatchService) -> None:
    match, tokens = await seated(service, seed=6)
    mine, theirs = mover(match, tokens)
    actions = legal_actions(match.state)
    _, _, first = await service.submit(match.match_id, mine, 0, "once", actions[0])
    state = match.state.clone()
    # Same id and action: the same update, whatever version comes with it, and nothing applied again.
    for version in (0, 1, 99):
        _, _, again = await service.submit(match.match_id, mine, version, "once", actions[0])
        assert again is first
    assert match.version == 1
    assert match.state == state
    # The same id for something else is no retry.
    with pytest.raises(InvalidRequest, match="different action"):
        await service.submit(match.match_id, mine, 1, "once", actions[-1])
    # Another seat learns nothing of the action from the id: the same refusal whatever it sends.
    for action in (actions[0], actions[-1]):
        with pytest.raises(InvalidRequest, match="another seat"):
            await service.submit(match.match_id, theirs, 1, "once", action)
    assert match.version == 1
    assert match.state == state


async def test_no_seat_can_take_the_request_id_of_the_ais_next_move(service: MatchService) -> None:
    match, tokens = await seated(service, seed=6)
    mine, _ = mover(match, tokens)
    with pytest.raises(InvalidRequest, match="request_id must be"):
        await service.submit(match.match_id, mine, 0, stand_in_request_id(2), legal_actions(match.state)[0])
    assert match.version == 0


async def test_a_late_retry_returns_the_state_of_its_own_version(service: MatchService) -> None:
    match, tokens = await seated(service, seed=8)
    mine, _ = mover(match, tokens)
    action = legal_actions(match.state)[0]
    _, _, first = await service.submit(match.match_id, mine, 0, "early", action)
    await play(service, match, tokens, random.Random(9), 6)
    assert match.version > 1
    _, _, again = await service.submit(match.match_id, mine, 0, "early", action)
    assert again is not first  # rebuilt: only the current state is kept
    assert (again.version, again.record, again.state) == (1, first.record, first.state)


async def test_updates_replay_every_state_the_match_went_through(service: MatchService) -> None:
    match, tokens = await seated(service, players=3, seed=12)
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
    match, tokens = await seated(service, seed=7)
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
    match, tokens = await seated(service, seed=8)
    mine, _ = mover(match, tokens)
    action = legal_actions(match.state)[0]
    results = await asyncio.gather(
        *(service.submit(match.match_id, mine, 0, "same", action) for _ in range(5))
    )
    assert len({id(update) for _, _, update in results}) == 1
    assert match.version == 1


async def test_refused_submissions_change_nothing(service: MatchService) -> None:
    match, tokens = await seated(service, seed=9)
    other, other_tokens = await seated(service, seed=9)
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
        (NotFound, UNKNOWN, mine, v, "a", legal[0]),
        (InvalidRequest, "nope", mine, v, "a", legal[0]),
        (Unauthenticated, match.match_id, None, v, "a", legal[0]),
        (Unauthenticated, match.match_id, "", v, "a", legal[0]),
        (Unauthenticated, match.match_id, "unknown", v, "a", legal[0]),
        (Unauthenticated, match.match_id, "y" * 43, v, "a", legal[0]),
        (PermissionDenied, match.match_id, other_tokens[0], v, "a", legal[0]),
        (InvalidRequest, match.match_id, mine, v, "", legal[0]),
        (InvalidRequest, match.match_id, mine, v, "x" * 129, legal[0]),
        (InvalidRequest, match.match_id, mine, v, "a b", legal[0]),
        (InvalidRequest, match.match_id, mine, v, "é", legal[0]),
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
    _, _, update = await service.submit(match.match_id, mine, v, "a", legal[0])
    assert update.version == v + 1
    assert other.version == 0


async def test_waiting_and_finished_matches_refuse_actions(service: MatchService) -> None:
    match = await service.create_match(Options(players=2), [], seed=10)
    token = (await service.join(match.match_id, "ada")).token
    action = legal_actions(match.state)[0]
    with pytest.raises(NotAllowedNow, match="waiting"):
        await service.submit(match.match_id, token, 0, "r", action)
    tokens = [token, (await service.join(match.match_id, "bob")).token]
    await play(service, match, tokens, random.Random(2), 500)
    assert match.status == FINISHED
    with pytest.raises(NotAllowedNow, match="finished"):
        await service.submit(match.match_id, tokens[0], match.version, "late", parse_action("take_coin"))


# --- streams -------------------------------------------------------------------------------------


async def _take(stream: AsyncIterator[Update], n: int) -> list[Update]:
    out: list[Update] = []
    async for update in stream:
        out.append(update)
        if len(out) == n:
            break
    return out


async def _follow(service: MatchService, match_id: str, after: int, n: int) -> list[Update]:
    async with service.following(match_id, None, after) as stream:
        return await _take(stream.updates, n)


async def test_follow_gives_the_backlog_then_live_updates_then_ends(service: MatchService) -> None:
    match, tokens = await seated(service, seed=11)
    rng = random.Random(3)
    await play(service, match, tokens, rng, 4)
    async with service.following(match.match_id, tokens[0], 2) as stream:
        assert stream.seat == 0 and stream.match is match
        first, *backlog = await _take(stream.updates, 3)
        assert (first.version, first.record, first.state) == (4, None, match.state)  # where it stands
        assert [u.version for u in backlog] == [3, 4]
        assert [u.record for u in backlog] == match.actions[2:4]
        live = asyncio.ensure_future(_take(stream.updates, 2))
        await play(service, match, tokens, rng, 2)
        assert [u.version for u in await live] == [5, 6]
        # To the end: the stream stops by itself.
        rest = asyncio.ensure_future(_take(stream.updates, 10_000))
        await play(service, match, tokens, rng, 500)
        assert match.status == FINISHED
        rest_versions = [u.version for u in await asyncio.wait_for(rest, 5)]
        assert rest_versions == list(range(7, match.version + 1))
    # A finished match's stream is where it stands, its whole history, then the end.
    history = await _follow(service, match.match_id, 0, 10_000)
    assert [u.version for u in history] == [match.version, *range(1, match.version + 1)]


async def test_a_stream_resumed_from_far_back_gets_the_events_each_action_made(
    service: MatchService,
) -> None:
    # A match keeps its actions without their events: those of an earlier one are made again by
    # replaying it, the same as the live stream carried.
    match, tokens = await seated(service, seed=11)
    async with service.following(match.match_id, tokens[0], 0) as stream:
        await anext(stream.updates)  # where it stands
        await play(service, match, tokens, random.Random(5), 4)
        carried = [update.events for update in await _take(stream.updates, 4)]
    assert all(carried)
    resumed = (await _follow(service, match.match_id, 0, 5))[1:]
    assert [update.version for update in resumed] == [1, 2, 3, 4]
    assert [update.events for update in resumed] == carried
    assert all(not hasattr(action, "events") for action in match.actions)


async def test_a_stream_lets_go_of_what_it_sent_first(service: MatchService) -> None:
    # A stream lives as long as its player: the match as it stood when it opened need not.
    match, tokens = await seated(service, seed=11)
    async with service.following(match.match_id, tokens[0], 0) as stream:
        opened = weakref.ref(await anext(stream.updates))
        await play(service, match, tokens, random.Random(5), 1)
        assert (await anext(stream.updates)).version == 1
        gc.collect()
        assert opened() is None


async def test_follow_sees_seat_changes_and_refuses_to_start_ahead(service: MatchService) -> None:
    match = await service.create_match(Options(players=2), [])
    first = asyncio.ensure_future(_follow(service, match.match_id, 0, 3))
    await asyncio.sleep(0.01)
    await service.join(match.match_id, "ada")
    await service.join(match.match_id, "bob")
    # Where the waiting match stands, then each seat change: no version marks them.
    changes = await asyncio.wait_for(first, 5)
    assert [(u.version, u.record) for u in changes] == [(0, None)] * 3
    assert changes[-1].state == match.state
    with pytest.raises(InvalidRequest):
        await _follow(service, match.match_id, 1, 1)
    with pytest.raises(NotFound):
        await _follow(service, UNKNOWN, 0, 1)


async def test_close_streams_ends_every_follower(service: MatchService) -> None:
    match, _ = await seated(service)
    followers = [asyncio.ensure_future(_follow(service, match.match_id, 0, 2)) for _ in range(3)]
    await asyncio.sleep(0.01)
    service.close_streams()
    # Not the end of the match: the followers are told to come back.
    results = await asyncio.wait_for(asyncio.gather(*followers, return_exceptions=True), 5)
    assert all(isinstance(r, ShuttingDown) for r in results), results
    assert match.watchers == set()
    # A stream opened after that gets the match as it stands, and is ended the same way.
    async with service.following(match.match_id, None, 0) as stream:
        first = await anext(stream.updates)
        assert first.state == match.state
        with pytest.raises(ShuttingDown):
            await asyncio.wait_for(anext(stream.updates), 5)
    assert match.watchers == set()


# --- listing -------------------------------------------------------------------------------------


async def test_listing_is_newest_first_filtered_and_paged(
    service: MatchService, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = itertools.count(1_000_000)
    monkeypatch.setattr("server.match.service.time.time", lambda: next(clock) / 1000)
    created = [await service.create_match(Options(players=2), []) for _ in range(5)]
    await service.join(created[1].match_id, "a")
    await service.join(created[1].match_id, "b")

    async def listed(status: str | None, limit: int, after: tuple[int, str] | None = None) -> list[str]:
        return [m.record.match_id for m in await service.list_matches(status, limit, after)]

    newest_first = [m.match_id for m in created[::-1]]
    assert await listed(None, 10) == newest_first
    assert await listed(PLAYING, 10) == [created[1].match_id]
    assert await listed(WAITING, 10) == [i for i in newest_first if i != created[1].match_id]
    page = await service.list_matches(None, 2, None)
    after = (page[-1].record.created_ms, page[-1].record.match_id)
    assert [m.record.match_id for m in page] + await listed(None, 10, after) == newest_first
    listing = (await service.list_matches(PLAYING, 1, None))[0]
    assert (listing.status, listing.version, listing.record) == (PLAYING, 0, created[1].record)


# --- reloading -----------------------------------------------------------------------------------


async def test_a_reloaded_service_is_the_same_authority(service: MatchService, db: Path) -> None:
    match, tokens = await seated(service, players=3, seed=12)
    waiting = await service.create_match(Options(players=2, money="public"), ["easy"], seed=13)
    half = await service.join(waiting.match_id, "ada")
    played = await play(service, match, tokens, random.Random(4), 15)
    await close(service)

    again = await authority(db)
    # Only the match whose clock runs is in memory; any other is loaded when asked for.
    assert [m.match_id for m in again.cache.matches()] == [match.match_id]
    restored = await again.get(match.match_id)
    assert restored.record == match.record
    assert restored.version == match.version == 15
    assert restored.state == match.state
    assert restored.actions == match.actions
    assert [u.state for u in restored.updates(restored.actions)] == [
        u.state for u in match.updates(match.actions)
    ]
    assert (await again.get(waiting.match_id)).record == waiting.record
    assert (await again.get(waiting.match_id)).status == WAITING
    assert again.waiting == 1
    # Tokens still work; request ids are still remembered.
    assert [(await again.view(match.match_id, t))[1] for t in tokens] == [0, 1, 2]
    assert (await again.view(waiting.match_id, half.token))[1] == half.seat
    last = match.actions[-1]
    _, _, retried = await again.submit(match.match_id, tokens[last.seat], 0, last.request_id, last.action)
    assert retried.version == 15 and retried.record == last
    assert restored.version == 15
    # And play goes on to the end, exactly as the engine says.
    played += await play(again, restored, tokens, random.Random(5), 500)
    assert restored.status == FINISHED
    assert restored.state == replay(Options(players=3), 12, played)
    await close(again)


async def test_a_cancelled_submission_leaves_memory_and_disk_agreeing(
    service: MatchService, db: Path
) -> None:
    """A caller that goes away mid-submit must not leave the store ahead of (or behind) the match."""
    match, tokens = await seated(service, seed=14)
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
    await close(service)
    again = await authority(db)
    assert (await again.get(match.match_id)).version == match.version
    assert (await again.get(match.match_id)).state == match.state
    await close(again)


async def test_a_write_that_ends_as_its_caller_is_cancelled_is_still_followed_through() -> None:
    """The write is committed and its caller cancelled before it resumes: what follows the write (the
    match recording and publishing the action) must still run, or memory would be behind the store."""
    write: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    outcomes: list[tuple[str, bool]] = []

    async def caller() -> None:
        outcomes.append(await _to_the_end(write))

    task = asyncio.ensure_future(caller())
    await asyncio.sleep(0)  # the caller waits for the write
    write.set_result("committed")
    task.cancel()  # in the same turn of the loop, before the caller resumes
    await asyncio.gather(task, return_exceptions=True)
    assert outcomes == [("committed", True)]


async def test_concurrent_creations_cannot_pass_the_cap_together(db: Path) -> None:
    service = await authority(db, Limits(waiting=100, waiting_per_creator=3))
    outcomes = await asyncio.gather(
        *(service.create_match(Options(), [], creator="10.0.0.9") for _ in range(10)), return_exceptions=True
    )
    assert sum(isinstance(o, Match) for o in outcomes) == 3
    assert all(isinstance(o, Throttled) for o in outcomes if not isinstance(o, Match))
    assert service.waiting == 3
    await close(service)
