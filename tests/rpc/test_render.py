"""The serialized messages render.py builds are the messages protobuf itself would build."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from mercado.v1 import match_pb2 as api

from server.games.mercado import Options, legal_actions
from server.match import MatchService, Policy
from server.rpc import render
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
