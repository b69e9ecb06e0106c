"""Check a finished match: the seed the server revealed is the one it committed to before the first
move, and every action of the replay was legal for the seat that made it, up to the result.

The commitment to check against is the one seen while the match was played (``mercado play``
prints it at the start); a commitment read afterwards only shows that the server is consistent.
Replaying needs the rules engine (``server.games.mercado``, in the ``mercado`` distribution).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mercado.v1 import match_pb2 as api
from mercado.v1 import mercado_pb2 as pb

from .fairness import seed_commitment
from .wire import WireError, action_json


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


def verify_replay(
    replay: api.Replay, committed: str | None = None, result: pb.MercadoResult | None = None
) -> Verdict:
    """Check ``replay`` against its commitment (``committed``, when given, must be the same one) and
    replay it through the rules; ``result``, when given, must be the one the replay leads to."""
    from server.games.mercado import Options, RulesError, action_from_json, apply, new_game, why_illegal

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
    options = Options(
        players=replay.players,
        money="public" if replay.mercado.money == pb.MONEY_PUBLIC else "hidden",
        face_down_counts_as_available=replay.mercado.face_down_counts_as_available,
    )
    state = new_game(options, replay.seed)
    for step in replay.steps:
        where = f"version {step.version}"
        if step.version != verdict.actions + 1:
            problems.append(f"{where} is out of order")
            return verdict
        try:
            action = action_from_json(action_json(step.action))
        except (WireError, RulesError) as error:
            problems.append(f"{where}: the action is malformed ({error})")
            return verdict
        if state.is_terminal or step.seat != state.current_player:
            problems.append(f"{where}: seat {step.seat} acted out of turn")
            return verdict
        reason = why_illegal(state, action)
        if reason is not None:
            problems.append(f"{where}: the action was illegal ({reason})")
            return verdict
        apply(state, action)
        verdict.actions += 1
    if state.result is None:
        problems.append("the replay ends before the game does")
        return verdict
    verdict.scores = list(state.result.scores)
    if result is not None and list(result.scores) != verdict.scores:
        problems.append(
            f"the server's final scores {list(result.scores)} are not the replay's {verdict.scores}"
        )
    return verdict
