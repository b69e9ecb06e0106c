"""The agent in games other than Mercado, against a stand-in for the server's match stream that runs
the real rules: it acts whenever its seat has legal actions, sealed steps included, and only on the
match as it stands."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc.aio import Metadata
from mercado.v1 import leilao_pb2
from mercado.v1 import match_pb2 as api
from mercado_client import Endpoint, games
from mercado_terminal.held import HeldSeat, SeatFile

from ai.agent import Agent, Follower
from ai.levels import game_levels
from ai.parallel import decide_in_turn
from server.games.registry import game_named

GAME = "leilao"
RULES = game_named(GAME)


class LocalMatch:
    """One Leilão match as the server would stream it to ``seat``; the other seat plays at random,
    first whenever both are to move (or, ``late``, just before our choice reaches the match: while
    we searched). The stream ends after ``our_actions`` of ours. Like the server, it refuses an
    action on an out-of-date version (ABORTED), but for a sealed choice sent during its step."""

    def __init__(self, seat: int, seed: int, our_actions: int, late: bool = False) -> None:
        self.seat = seat
        self.rules = RULES
        self.state = RULES.new_game(RULES.options({"players": 2}), seed)
        self.rng = random.Random(seed)
        self.version = 0
        self.history: list[api.MatchUpdate] = []
        self.updates: asyncio.Queue[api.MatchUpdate | None] = asyncio.Queue()
        self.left = our_actions
        self.ours: list[tuple[frozenset[int], dict[str, Any]]] = []  # who was to move, what we did
        self.refused = 0  # our actions refused as out of date
        self.late = late
        self.step_began = 0  # the version at which the current step began
        self.match_id = "local"
        self.opponents_move()

    def match_state(self) -> api.MatchState:
        view = RULES.view(self.state, self.seat)
        return api.MatchState(
            match=api.MatchSummary(
                match_id=self.match_id,
                game=games.game_enum(GAME),
                players=2,
                seats=[api.SeatInfo(seat=seat, taken=True) for seat in range(2)],
            ),
            version=self.version,
            your_seat=self.seat,
            view=api.View(leilao=leilao_pb2.LeilaoView(view=games.json_struct(view))),
            legal_actions=[games.action_message(GAME, a) for a in view.get("legal_actions", [])],
            seats_to_move=sorted(RULES.to_move(self.state)),
        )

    def record(self, seat: int, action: Any) -> None:
        RULES.apply(self.state, seat, action)
        self.version += 1
        update = api.MatchUpdate(version=self.version, seat=seat, state=self.match_state())
        self.history.append(update)
        self.updates.put_nowait(update)

    def opponents_move(self) -> None:
        while not RULES.is_over(self.state) and self.seat not in RULES.to_move(self.state):
            other = min(RULES.to_move(self.state))
            self.record(other, self.rng.choice(RULES.legal_actions(self.state, other)))
        self.step_began = self.version
        if not self.late:  # in a sealed step the other seat bids first: ours waits on a step it is in
            self.others_choose()

    def others_choose(self) -> None:
        for other in sorted(RULES.to_move(self.state) - {self.seat}):
            self.record(other, self.rng.choice(RULES.legal_actions(self.state, other)))

    async def follow(self, after_version: int = 0) -> AsyncIterator[api.MatchUpdate]:
        yield api.MatchUpdate(version=self.version, state=self.match_state())
        for update in list(self.history):  # the history, replayed
            yield update
        while (update := await self.updates.get()) is not None:
            yield update

    async def submit(self, action: api.Action, version: int, request_id: str) -> api.SubmitActionResponse:
        sealed = len(RULES.to_move(self.state)) > 1
        if self.late:
            self.others_choose()
        current = version >= self.step_began if sealed else version == self.version
        if not current or self.seat not in RULES.to_move(self.state):  # an older picture of the match
            self.refused += 1
            raise grpc.aio.AioRpcError(grpc.StatusCode.ABORTED, Metadata(), Metadata(), "out of date")
        self.ours.append((RULES.to_move(self.state), games.action_json(action)))
        self.left -= 1
        if self.left == 0:  # the stream ends before our action's update, which may ask for another
            self.updates.put_nowait(None)
        self.record(self.seat, RULES.action_from_json(games.action_json(action)))
        made = self.version
        if RULES.is_over(self.state) and self.left > 0:
            self.updates.put_nowait(None)
        elif self.left > 0:
            self.opponents_move()
        return api.SubmitActionResponse(version=made)


@pytest.mark.parametrize("search_workers", [None, 2])
def test_the_agent_bids_in_sealed_steps_and_picks_in_turn(tmp_path: Path, search_workers: int | None) -> None:
    async def main() -> LocalMatch:
        match = LocalMatch(seat=1, seed=3, our_actions=6)
        seats = SeatFile(tmp_path / "seats.json")
        held = HeldSeat("local", match.match_id, match.seat, "token", "bot", "easy")
        seats.add(held)
        with ThreadPoolExecutor(2) as executor:
            agent = Agent(
                Endpoint("local"),
                "key",
                ["easy"],
                1,
                seats,
                executor=executor,
                workers=2,
                search_workers=search_workers,
            )
            await asyncio.wait_for(agent.play(match, held), 60)  # type: ignore[arg-type]
        assert seats.held("local") == []  # the match is over for it: the seat is forgotten
        return match

    match = asyncio.run(main())
    assert len(match.ours) == 6
    kinds = [action["type"] for _, action in match.ours]
    assert "bid" in kinds and "pick" in kinds
    assert any(
        len(movers) == 1 and kind == "bid" for (movers, _), kind in zip(match.ours, kinds, strict=True)
    )


def test_the_agent_does_not_act_again_on_a_picture_from_before_its_sealed_choice(tmp_path: Path) -> None:
    """The other seat's bid, made while ours was searched, comes after ours was sent: its update still
    shows our seat to bid, but that is the match from before our bid, not a new turn."""

    async def main() -> LocalMatch:
        match = LocalMatch(seat=1, seed=3, our_actions=8, late=True)
        seats = SeatFile(tmp_path / "seats.json")
        held = HeldSeat("local", match.match_id, match.seat, "token", "bot", "easy")
        seats.add(held)
        with ThreadPoolExecutor(2) as executor:
            agent = Agent(Endpoint("local"), "key", ["easy"], 1, seats, executor=executor, workers=2)
            await asyncio.wait_for(agent.play(match, held), 60)  # type: ignore[arg-type]
        return match

    match = asyncio.run(main())
    assert len(match.ours) == 8
    assert any(action["type"] == "bid" for _, action in match.ours)
    assert match.refused == 0  # no search wasted on a turn that was not one


def test_a_follower_acts_only_on_the_match_as_it_stands() -> None:
    match = LocalMatch(seat=0, seed=5, our_actions=1)
    follower = Follower(GAME)
    latest = match.version
    assert follower.caught_up(api.MatchUpdate(version=latest, state=match.match_state()))
    assert not any(follower.caught_up(update) for update in match.history[:-1])
    started = time.monotonic()
    decision = follower.decision(match.match_state(), "easy", 4, started)
    assert decision.deadline == started + game_levels(GAME)["easy"].seconds  # the level's cap from the start
    assert decide_in_turn(decision, 1) in RULES.view(match.state, 0)["legal_actions"]
