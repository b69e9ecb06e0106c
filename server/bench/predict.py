"""``mercado bench predict``: how often a rival foresees the AI's sealed choices.

A real server runs on loopback. In each 2-player match one player leaves at
once, so that the server's AI (its stand-in, at ``level``) plays that seat; the
rival, a client in the other seat, follows the match's stream and waits, at
each sealed step, for the AI to choose first. Then, before choosing itself, it
rebuilds the view the AI chose from (in Leilão a seat's view shows everything
but its own sealed choice: :func:`seat_view`) and runs the project's AI on it, at
the same level with the level's whole iteration budget, two ways:

- ``same seed``: once, seeded as the stand-in's searches were before their
  seeds were drawn in secret, with a CRC-32 of the match id, the version and the
  seat, which anyone can compute (:func:`public_seed`);
- ``most frequent``: ``samples`` times with seeds of its own, predicting the
  choice that came up most often: the best that knowing the code can do
  against a choice drawn at random.

The step's reveal tells whether each prediction was the AI's choice.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import tempfile
import time
import uuid
import zlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ai.arena import rate_estimate
from ai.levels import level_config
from ai.parallel import Decision, canonical, decide_in_turn
from server.games.registry import game_named

from .ai import machine
from .process import ServerProcess

# The games whose seats' views a rival can rebuild: every holding is public but the sealed choices.
GAMES = ("leilao",)
TURN_SECONDS = 600  # the rival's clock: never the limit, however long its predictions take


@dataclass(frozen=True)
class Prediction:
    """One sealed choice of the AI: what it chose, and what the rival predicted each way."""

    version: int  # the version the AI chose at
    actual: dict[str, Any]
    same_seed: dict[str, Any]
    most_frequent: dict[str, Any]


def public_seed(match_id: str, version: int, seat: int) -> int:
    """A seed anyone can compute from what every seat sees."""
    return zlib.crc32(f"{match_id}:{version}:{seat}".encode())


def seat_view(game: str, view: Mapping[str, Any], seat: int) -> dict[str, Any]:
    """The view of ``seat``, which has yet to choose in this step, rebuilt from another seat's ``view``:
    every hand is public (deduced from the played piles), so only the viewer's own sealed choice, if
    it made one, goes back into its hand as everyone else sees it."""
    rules = game_named(game)
    hands = [list(hand) for hand in view["hands"]]
    sealed = view["sealed"]
    if sealed is not None:
        own = hands[view["seat"]]
        own.extend(card for card in (sealed["card"], sealed.get("extra")) if card is not None)
        own.sort()
    data = {**view, "seat": seat, "sealed": None, "hands": hands}
    return rules.view(rules.determinize(data, random.Random(0)), seat)


def predict(
    game: str, view: dict[str, Any], level: str, seed: int, samples: int, rng: random.Random
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The AI's choice in ``view`` at ``level`` (its iterations, no time cap) with ``seed``, and the most
    frequent of ``samples`` choices with seeds from ``rng``."""
    config = dataclasses.replace(level_config(game, level), seconds=None)
    same = decide_in_turn(Decision(game, view, config, seed), 1)
    counts = Counter(
        canonical(decide_in_turn(Decision(game, view, config, rng.getrandbits(63)), 1))
        for _ in range(samples)
    )
    most: dict[str, Any] = json.loads(counts.most_common(1)[0][0])
    return same, most


def revealed(event: Mapping[str, Any], seat: int) -> dict[str, Any] | None:
    """``seat``'s sealed choice as a Leilão reveal event shows it (None for any other event)."""
    if event["type"] != "reveal":
        return None
    for bid in event.get("bids", []):
        if bid["seat"] == seat:
            return {"type": "bid", "card": bid["card"], "extra": bid["extra"]}
    for rebid in event.get("rebids", []):
        if rebid["seat"] == seat:
            return {"type": "rebid", "card": rebid["card"]}
    return None


async def rival(
    target: str, game: str, level: str, seed: int, samples: int, limit: int | None = None
) -> list[Prediction]:
    """One match against the stand-in at ``level`` on the server at ``target`` (which allows chosen
    seeds): the rival's predictions of its sealed choices, up to ``limit`` of them (None: the match's)."""
    from mercado.v1 import match_pb2 as api
    from mercado_client import MercadoClient, games
    from mercado_client.wire import BOT_LEVELS

    rng = random.Random(seed)
    clock = api.TimeControl(
        turn_seconds=TURN_SECONDS, on_timeout=api.ON_TIMEOUT_AI, fallback_level=BOT_LEVELS[level]
    )
    found: list[Prediction] = []
    async with MercadoClient(target) as client:
        match_id = await client.create_match(players=2, seed=seed, clock=clock, game=game)
        mine = await client.join(match_id, "rival")
        victim = await client.join(match_id, "victim")
        stream = mine.follow()
        before = await anext(stream)  # the match as it stands, before the AI plays a seat
        await victim.leave()
        guess: tuple[int, dict[str, Any], dict[str, Any]] | None = None
        acted = -1
        async for update in stream:
            for event in map(games.event_json, update.events):
                actual = revealed(event, victim.seat)
                if actual is not None and guess is not None:
                    found.append(Prediction(guess[0], actual, guess[1], guess[2]))
                    guess = None
            state = update.state
            if state.match.status != api.MATCH_STATUS_PLAYING or (limit is not None and len(found) >= limit):
                break
            view = games.view_json(state)
            assert view is not None
            if update.seat == victim.seat and victim.seat in view["acted"]:  # the AI's sealed choice
                assert before.version == update.version - 1, "an update of the stream is missing"
                chose_from = seat_view(game, games.view_json(before.state) or {}, victim.seat)
                seed_of_ai = public_seed(match_id, before.version, victim.seat)
                same, most = await asyncio.to_thread(
                    predict, game, chose_from, level, seed_of_ai, samples, rng
                )
                guess = (before.version, same, most)
            if state.legal_actions and victim.seat not in view["to_move"] and state.version > acted:
                await mine.submit(rng.choice(list(state.legal_actions)), state.version, uuid.uuid4().hex)
                acted = state.version
            before = update
    return found


def rates(found: list[Prediction]) -> dict[str, Any]:
    """Each way's share of right predictions, with its Wilson 95% interval."""
    report: dict[str, Any] = {"sealed_choices": len(found)}
    for way in ("same_seed", "most_frequent"):
        hits = [float(getattr(p, way) == p.actual) for p in found]
        report[way] = {"predicted": int(sum(hits)), "rate": rate_estimate(hits).to_json()} if hits else None
    return report


def run(game: str, level: str, matches: int, samples: int, seed: int) -> dict[str, Any]:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mercado-predict-") as tmp:
        directory = Path(tmp)
        args = ["-m", "server", "serve", "--allow-anonymous", "--allow-chosen-seeds", "--port", "0"]
        args += ["--web-port", "-1", "--db", str(directory / "a.db"), "--rate-limit-exempt", "127.0.0.0/8"]
        server = ServerProcess(args, directory / "server.log").start()
        try:
            found = [
                prediction
                for match in range(matches)
                for prediction in asyncio.run(rival(server.target, game, level, seed + match, samples))
            ]
        finally:
            server.stop()
    return {
        "game": game,
        "level": level,
        "matches": matches,
        "samples": samples,
        "seed": seed,
        "machine": machine(),
        **rates(found),
        "seconds": round(time.perf_counter() - started, 1),
    }
