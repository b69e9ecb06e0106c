"""The serialized messages render.py builds are the messages protobuf itself would build."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from mercado.v1 import match_pb2 as api

from server.games.mercado import Options, legal_actions
from server.match import PLAYING, MatchService, Policy, TimeControl
from server.rpc import convert, render
from server.rpc.encoding import embedded, field_key
from server.store.sqlite import SqliteStore


@pytest.mark.parametrize("size", [0, 1, 100, 127, 128, 300, 16_383, 16_384, 70_000])
def test_an_embedded_state_is_encoded_as_protobuf_encodes_it(size: int) -> None:
    state = api.MatchState(match=api.MatchSummary(match_id="x" * size)) if size else api.MatchState()
    by_hand = embedded(field_key(api.MatchUpdate.DESCRIPTOR, "state"), state.SerializeToString())
    assert by_hand == api.MatchUpdate(state=state).SerializeToString()
    assert api.MatchUpdate.FromString(by_hand).state == state


async def test_every_seats_update_and_answer_parse_to_what_they_carry(tmp_path: Path) -> None:
    policy = Policy(allow_chosen_seeds=True, default_clock=None)
    service = MatchService(SqliteStore(tmp_path / "m.db"), policy=policy)
    try:
        # Money is hidden by default: each seat's view and events differ.
        match = await service.create_match(Options(players=3), [None] * 3, seed=7)
        tokens = [(await service.join(match.match_id, f"p{seat}")).token for seat in range(3)]
        rng = random.Random(7)
        for version in range(12):
            seat = match.state.current_player
            action = rng.choice(legal_actions(match.state))
            _, _, update = await service.submit(match.match_id, tokens[seat], version, str(version), action)
            for viewer in (None, 0, 1, 2):
                sent = api.MatchUpdate.FromString(render.update_bytes(match, update, viewer))
                assert sent.version == version + 1 and sent.seat == seat
                assert sent.state == render.match_state(match, update, viewer)
                assert sent.state.version == version + 1
                assert bool(sent.state.legal_actions) == (viewer == match.state.current_player)
            answer = api.SubmitActionResponse.FromString(render.submit_response(match, update, seat))
            own = api.MatchUpdate.FromString(render.update_bytes(match, update, seat))
            assert answer.version == version + 1
            assert list(answer.events) == list(own.events) and answer.events
            assert answer.state == own.state
    finally:
        service.store.close()


async def test_each_updates_summary_is_the_matchs_summary_as_of_that_update(tmp_path: Path) -> None:
    service = MatchService(SqliteStore(tmp_path / "m.db"), policy=Policy(allow_chosen_seeds=True))
    try:
        match = await service.create_match(Options(players=3), [None] * 3, seed=3, clock=TimeControl())
        tokens = []
        for seat in range(2):
            tokens.append((await service.join(match.match_id, f"p{seat}")).token)
            waiting = render.match_state(match, match.latest(), None).match
            assert waiting == convert.summary(match) and waiting.seats[seat].taken
        tokens.append((await service.join(match.match_id, "p2")).token)
        playing = render.match_state(match, match.latest(), 0).match
        assert playing == convert.summary(match) and playing.seats[1].taken
        assert playing.status == api.MATCH_STATUS_PLAYING and playing.HasField("deadline_unix_ms")
        rng = random.Random(3)
        while match.status == PLAYING:
            seat, version = match.state.current_player, match.version
            action = rng.choice(legal_actions(match.state))
            _, _, update = await service.submit(match.match_id, tokens[seat], version, str(version), action)
            for viewer in (None, 0, 1, 2):
                assert render.match_state(match, update, viewer).match == convert.summary(match)
        assert playing.ranks == [] and len(convert.summary(match).ranks) == 3
        # A stream resuming from far back: an earlier update's turn is over, its match not finished.
        earlier = render.match_state(match, next(match.updates(match.actions[4:5])), 1).match
        expected = convert.summary(match)
        assert earlier.version == 5 and earlier.status == api.MATCH_STATUS_PLAYING
        assert not earlier.HasField("deadline_unix_ms") and not earlier.ranks
        assert earlier.seats == expected.seats and earlier.seed_commitment == expected.seed_commitment
    finally:
        service.store.close()
