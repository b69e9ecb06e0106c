"""Ratings: OpenSkill's Weng-Lin Plackett-Luce model, and which matches count.

A finished match is rated when it was not created unrated or hot-seat, its
seed was drawn by the server, and every seat is bound to a different player (a
bot level is one player). A seat *gave up* when its player left or forfeited,
or let the AI play more than half of its turns after its time ran out: it does
not make the match unrated but is ranked last, so neither leaving nor going
idle saves a rating. Unless the match was not played: it is unrated when every
seat gave up, or when one gave up before its opening (its game's
``opening_actions`` of its own). And a seat that gave up while its player was
new to the game moves that player's rating alone: the others are rated among
themselves, so that a throwaway account cannot hand out wins.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from openskill.models import PlackettLuce

from server.games.registry import game_named
from server.match import Match
from server.match.records import FORFEITED, LEFT, MatchRecord, ranked_last
from server.store.records import PlayerRecord

MODEL = PlackettLuce()
# A player with fewer rated matches of a game is new to it (FIDE, likewise, gives a first rating
# after five games): a win over it, when it gave up, says too little to count.
NEW_PLAYER_MATCHES = 5


@dataclass(frozen=True)
class Played:
    """How each seat played a finished match: its actions, and how many of them it made itself (the
    others are the AI's, standing in for it)."""

    turns: Sequence[int]
    own: Sequence[int]


def played(match: Match) -> Played:
    """How ``match`` (finished) was played."""
    return Played(match.turns(), match.own_turns())


def gave_up(record: MatchRecord, turns: Sequence[int]) -> set[int]:
    """The seats that gave the match up: left, forfeited, or went idle (the AI played more than half
    of their turns after their time ran out)."""
    return {
        seat.seat
        for seat in record.seats
        if seat.played_by in (LEFT, FORFEITED) or seat.ai_turns * 2 > turns[seat.seat]
    }


def unrated_because(record: MatchRecord, play: Played | None) -> str | None:
    """Why the match does not count, or None. ``play`` (once finished) checks how it was played;
    without it, whether its set-up and players let it count."""
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
    if play is None:
        return None
    out = gave_up(record, play.turns)
    if len(out) == len(record.seats):
        return "every seat gave up (left, forfeited, or let the AI play most of its turns)"
    opening = game_named(record.game).opening_actions
    for seat in sorted(out):
        if play.own[seat] < opening:
            return f"seat {seat} gave up before making its first {opening} moves"
    return None


def final_ranks(record: MatchRecord, ranks: Sequence[int], turns: Sequence[int]) -> list[int]:
    """The ranks the ratings use: the game's, with the seats that gave up last (tied)."""
    return ranked_last(list(ranks), gave_up(record, turns))


def rated_players(
    record: MatchRecord, players: Sequence[PlayerRecord], ranks: Sequence[int], play: Played
) -> list[PlayerRecord]:
    """The players whose ratings a rated match moves, as they are after it (``players`` and the game's
    ``ranks`` by seat). A seat that gave up while its player was new to the game is rated last
    against everyone, and left out of the others' ratings: they are rated by their ranks among
    themselves (in a match of two, not at all)."""
    final = final_ranks(record, ranks, play.turns)
    everyone = rate(players, final)
    new = {seat for seat in gave_up(record, play.turns) if players[seat].rated_matches < NEW_PLAYER_MATCHES}
    if not new:
        return everyone
    others = [seat for seat in range(len(players)) if seat not in new]
    among = ranked_last(final, new)  # the others' ranks among themselves
    rated_others = rate([players[s] for s in others], [among[s] for s in others]) if len(others) > 1 else []
    return [everyone[seat] for seat in sorted(new)] + rated_others


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


# A ratings file (``mercado arena --rate``, one game's), and a folder of them, ``<game>.json`` each
# (``mercado serve --bot-ratings``; ``ai/bot-ratings/``):
# {"ratings": {"bot:easy": {"mu": 22.1, "sigma": 1.3}, ...}, "games": 200}
# Ratings by game, then by player: each a (mu, sigma).
GameRatings = dict[str, dict[str, tuple[float, float]]]


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


def load_game_ratings(path: Path) -> GameRatings:
    """The ratings of a folder of ratings files by game (``<game>.json``, any game may be missing;
    ValueError for a file named after no game), or of one file: Mercado's."""
    if not path.is_dir():
        return {"mercado": load_ratings(path)}
    ratings: GameRatings = {}
    for file in sorted(path.glob("*.json")):
        try:
            game_named(file.stem)
        except ValueError as error:
            raise ValueError(f"{file}: {error}") from None
        ratings[file.stem] = load_ratings(file)
    return ratings


def save_ratings(path: Path, ratings: Mapping[str, PlayerRecord], games: int) -> None:
    entries = {p: {"mu": r.mu, "sigma": r.sigma, "display": r.display_rating} for p, r in ratings.items()}
    path.write_text(json.dumps({"ratings": entries, "games": games}, indent=1) + "\n", encoding="utf-8")
