"""Every game's scores on the wire (proto/mercado/v1/score.proto): the score parts of MatchState and
of a finished game's result, from the rules' ``score_parts``."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from mercado.v1 import match_pb2 as api
from mercado.v1 import score_pb2 as pb

from server.games.interface import ScoreParts


def score_parts_message(score: ScoreParts) -> pb.ScoreParts:
    message = pb.ScoreParts(seat=score.seat, total=score.total)
    for part in score.parts:
        added = message.parts.add(name=part.name, label=part.label, points=part.points)
        if part.counted is not None:
            added.count = part.counted
    message.tie_breaks.extend(
        pb.TieBreak(name=tie.name, label=tie.label, value=tie.value) for tie in score.tie_breaks
    )
    return message


def game_result(scores: Sequence[ScoreParts], ranks: Sequence[int]) -> pb.GameResult:
    """A finished game's result: its final scores (every seat's) and the rules' ranks."""
    return pb.GameResult(scores=[score_parts_message(score) for score in scores], ranks=ranks)


@functools.lru_cache(maxsize=8192)  # an action changes few seats' scores: most repeat
def score_fragment(score: ScoreParts) -> bytes:
    """A serialized MatchState fragment holding one seat's score parts (concatenated, they append)."""
    return api.MatchState(score_parts=[score_parts_message(score)]).SerializeToString()
