"""A round robin: every pair of a list of bots plays the same number of two-player games, each game
with a seed of its own; and each bot's win rate against each other bot."""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

from .arena import Estimate, GameOutcome, rate_estimate
from .arena_report import play_all, play_arena_game


def pairings(bots: list[str]) -> list[tuple[str, str]]:
    """Every unordered pair of ``bots``, in list order."""
    return list(itertools.combinations(bots, 2))


def play_pairing_game(
    name: str, pairs: list[tuple[str, str]], games: int, seed: int, money: str, index: int
) -> GameOutcome:
    """Game ``index % games`` of pair ``index // games``: that pair's arena seeded from
    ``seed + pair * games`` (seats alternating), so the game's seed is ``seed + index``."""
    pair, game = divmod(index, games)
    return play_arena_game(name, list(pairs[pair]), 2, seed + pair * games, money, game)


def play_round_robin(
    bots: list[str], games: int, jobs: int, seed: int, money: str, name: str = "mercado"
) -> list[GameOutcome]:
    """``games`` games of every pair of ``bots``, in parallel over ``jobs`` processes, returned in
    rounds whatever order they finished in: every pair's first game (pairs in list order), then
    every pair's second, and so on."""
    pairs = pairings(bots)
    play = functools.partial(play_pairing_game, name, pairs, games, seed, money)
    by_seed = play_all(play, len(pairs) * games, jobs)  # game `index` has seed `seed + index`
    return [by_seed[pair * games + game] for game in range(games) for pair in range(len(pairs))]


@dataclass(frozen=True)
class HeadToHead:
    """One bot's results against another: its win rate in the games the two played, ties shared."""

    bot: str
    opponent: str
    games: int
    win_rate: Estimate

    def to_json(self) -> dict[str, object]:
        return {
            "bot": self.bot,
            "opponent": self.opponent,
            "games": self.games,
            "win_rate": self.win_rate.to_json(),
        }


def win_matrix(bots: list[str], outcomes: list[GameOutcome]) -> list[HeadToHead]:
    """Each bot against each other bot (both ways round), in list order."""
    matrix = []
    for bot, opponent in itertools.permutations(bots, 2):
        shares = [o.wins[o.bots.index(bot)] for o in outcomes if set(o.bots) == {bot, opponent}]
        matrix.append(HeadToHead(bot, opponent, len(shares), rate_estimate(shares)))
    return matrix
