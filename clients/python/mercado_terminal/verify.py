"""Check a finished match: the seed the server revealed is the one it committed to before the first
move, and every action of the replay was legal for the seat that made it, up to the result.

The commitment to check against is the one seen while the match was played (``mercado play``
prints it at the start); a commitment read afterwards only shows that the server is consistent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mercado.v1 import match_pb2 as api
from mercado.v1 import mercado_pb2 as pb
from mercado_client import games
from mercado_client.fairness import seed_commitment

from server.games.registry import game_named


@dataclass
class Verdict:
    """What the check found; the match is fair when ``problems`` is empty."""

    match_id: str
    actions: int = 0
    seed_chosen: bool = False
    scores: list[int] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def fair(self) -> bool:
        return not self.problems


def final_scores(final: api.MatchState) -> list[int] | None:
    """The final scores a finished match's view shows, whatever its game; None before its end."""
    if final.view.WhichOneof("game") == "mercado":
        mercado = final.view.mercado
        return list(mercado.result.scores) if mercado.HasField("result") else None
    view = games.view_json(final)
    result = None if view is None else view.get("result")
    return None if not result else list(result["scores"])


def verify_replay(
    replay: api.Replay,
    committed: str | None = None,
    result: pb.MercadoResult | Sequence[int] | None = None,
) -> Verdict:
    """Check ``replay`` against its commitment (``committed``, when given, must be the same one) and
    replay it through its game's rules; ``result`` (the final scores, or Mercado's result), when
    given, must be the one the replay leads to."""
    verdict = Verdict(replay.match_id, seed_chosen=replay.seed_chosen)
    problems = verdict.problems
    if not replay.seed_commitment:
        problems.append("the match has no seed commitment: it was created before the server made them")
    elif seed_commitment(replay.seed, replay.seed_salt) != replay.seed_commitment:
        problems.append("the revealed seed and salt do not match the seed commitment")
    if committed is not None and committed.lower() != replay.seed_commitment:
        problems.append("the seed commitment is not the one published when the match was played")
    if replay.seed_chosen:
        problems.append("the creator chose the seed, so the set-up was known to it")
    try:
        name = games.game_name(replay.game)
        rules = game_named(name)
        options = rules.options({**_options(replay, name), "players": replay.players})
        state = rules.new_game(options, replay.seed)
    except ValueError as error:
        problems.append(f"the replay's set-up is not valid ({error})")
        return verdict
    for step in replay.steps:
        where = f"version {step.version}"
        if step.version != verdict.actions + 1:
            problems.append(f"{where} is out of order")
            return verdict
        try:
            action = rules.action_from_json(games.action_json(step.action))
        except ValueError as error:
            problems.append(f"{where}: the action is malformed ({error})")
            return verdict
        if step.seat not in rules.to_move(state):
            problems.append(f"{where}: seat {step.seat} acted out of turn")
            return verdict
        reason = rules.why_illegal(state, step.seat, action)
        if reason is not None:
            problems.append(f"{where}: the action was illegal ({reason})")
            return verdict
        rules.apply(state, step.seat, action)
        verdict.actions += 1
    outcome = rules.outcome(state)
    if outcome is None:
        problems.append("the replay ends before the game does")
        return verdict
    verdict.scores = list(outcome.scores)
    shown = list(result.scores if isinstance(result, pb.MercadoResult) else result or [])
    if result is not None and shown != verdict.scores:
        problems.append(f"the server's final scores {shown} are not the replay's {verdict.scores}")
    return verdict


def _options(replay: api.Replay, name: str) -> dict[str, Any]:
    """The replay's rule options as JSON (players aside)."""
    if name == "mercado":
        options = replay.mercado
        return {
            "money": "public" if options.money == pb.MONEY_PUBLIC else "hidden",
            "face_down_counts_as_available": options.face_down_counts_as_available,
        }
    return games.options_json(name, getattr(replay, name))
