"""Ratings: OpenSkill's Weng-Lin Plackett-Luce model, and which matches count.

A finished match is rated when it was not created unrated or hot-seat, its
seed was drawn by the server, every seat is bound to a different player (a bot
level is one player), and no seat had more than half of its turns played by
the AI after its time ran out (its player was away: the result says little of
them). A seat whose player left or forfeited does not make a match unrated:
it is ranked last, so leaving never saves a rating.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from openskill.models import PlackettLuce

from server.match.records import FORFEITED, LEFT, MatchRecord, ranked_last
from server.store.records import PlayerRecord

MODEL = PlackettLuce()


def unrated_because(record: MatchRecord, turns: Sequence[int] | None) -> str | None:
    """Why the match does not count, or None. ``turns`` (each seat's turns, once finished) checks the
    AI's share; without it, whether the match can still count as it stands."""
    if record.unrated:
        return "it was created unrated"
    if record.hot_seat:
        return "it is a hot-seat match"
    if record.seed_chosen:
        return "its seed was chosen by a client"
    players = [seat.player_id for seat in record.seats if seat.taken]
    if len(players) != sum(player is not None for player in players):
        return "a seat is played without a player (anonymous)"
    if len(set(players)) != len(players):
        return "a player holds two seats"
    for seat in record.seats:
        if turns is not None and seat.ai_turns * 2 > turns[seat.seat]:
            return f"the AI played most of seat {seat.seat}'s turns after its time ran out"
    return None


def final_ranks(record: MatchRecord, ranks: Sequence[int]) -> list[int]:
    """The ranks the ratings use: the game's, with seats that left or forfeited last (tied)."""
    return ranked_last(
        list(ranks), {seat.seat for seat in record.seats if seat.played_by in (LEFT, FORFEITED)}
    )


def rate(players: Sequence[PlayerRecord], ranks: Sequence[int]) -> list[PlayerRecord]:
    """Each seat's player after a rated match, in seat order; ``ranks`` 1-based, ties shared."""
    teams = [[MODEL.rating(mu=player.mu, sigma=player.sigma)] for player in players]
    rated = MODEL.rate(teams, ranks=[float(rank) for rank in ranks])
    return [
        replace(
            player,
            mu=team[0].mu,
            sigma=team[0].sigma,
            rated_matches=player.rated_matches + 1,
            wins=player.wins + (rank == 1),
        )
        for player, team, rank in zip(players, rated, ranks, strict=True)
    ]


# A ratings file (``mercado arena --rate``, ``mercado serve --bot-ratings``):
# {"ratings": {"bot:easy": {"mu": 22.1, "sigma": 1.3}, ...}, "games": 200}


def load_ratings(path: Path) -> dict[str, tuple[float, float]]:
    """The (mu, sigma) of each player in a ratings file; ValueError when it is not one."""
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))["ratings"]
        ratings = {str(player): (float(r["mu"]), float(r["sigma"])) for player, r in entries.items()}
    except (KeyError, TypeError, AttributeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path} is not a ratings file ({error})") from None
    if any(not (sigma > 0 and abs(mu) < 1e6) for mu, sigma in ratings.values()):
        raise ValueError(f"{path} has a rating out of range")
    return ratings


def save_ratings(path: Path, ratings: Mapping[str, PlayerRecord], games: int) -> None:
    entries = {p: {"mu": r.mu, "sigma": r.sigma, "display": r.display_rating} for p, r in ratings.items()}
    path.write_text(json.dumps({"ratings": entries, "games": games}, indent=1) + "\n", encoding="utf-8")
