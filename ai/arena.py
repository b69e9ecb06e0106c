"""Seeded games between bots in this process (no server), and their statistics.

Seats rotate from game to game so that no bot keeps the first seat. Each bot
sees only its own view: in Mercado with coins reconstructed from the public
history as an online agent would; in the other games, the view is all it has.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

from server.games.mercado import Options, apply, legal_actions, new_game, player_view
from server.games.registry import game_named

from .bots import make_bot
from .game_bots import game_bot
from .levels import LEVELS
from .mcts import margins, win_shares
from .observation import CoinTracker, coin_changes

Z95 = 1.96


@dataclass(frozen=True)
class GameOutcome:
    """One game: which bot sat where, and each seat's score, margin and share of the win."""

    seed: int
    bots: tuple[str, ...]  # by seat
    scores: tuple[int, ...]
    margins: tuple[int, ...]  # score minus the best other score
    wins: tuple[float, ...]  # 1 for a sole winner, 1/k for a k-way shared first place
    ranks: tuple[int, ...] = ()  # the game's final ranks: 1-based, ties shared
    choices: tuple[Choices, ...] = ()  # by seat: what it chose, by the action's type


# What a seat chose, by action type: how often, and how often it was the seat's only legal action.
Choices = dict[str, tuple[int, int]]


def count_choice(choices: Choices, kind: str, only: bool) -> None:
    chosen, forced = choices.get(kind, (0, 0))
    choices[kind] = (chosen + 1, forced + only)


def seating(bots: list[str], players: int, game: int) -> list[str]:
    """Seat order for one game: the bot list (last bot repeated to fill it) rotated by the game number."""
    line = (bots + [bots[-1]] * players)[:players]
    shift = game % players
    return line[shift:] + line[:shift]


def play_game(bots: list[str], players: int, seed: int, game: int, money: str = "hidden") -> GameOutcome:
    """One complete game; ``seed`` sets up the game and seeds the bots."""
    names = seating(bots, players, game)
    options = Options(players=players, money="public" if money == "public" else "hidden")
    state = new_game(options, seed)
    # Levels play their iteration budgets without time caps: results do not depend on the machine's load.
    seats = [make_bot(name, seed * 31 + p, timed=False) for p, name in enumerate(names)]
    trackers = [CoinTracker(players) for _ in range(players)]
    views = [player_view(state, seat) for seat in range(players)]
    choices: list[Choices] = [{} for _ in range(players)]
    while not state.is_terminal:
        actor = state.current_player
        action = seats[actor].choose(views[actor], trackers[actor].completed(views[actor])["coins"])
        count_choice(choices[actor], action.type, len(legal_actions(state)) == 1)
        apply(state, action)
        views = [player_view(state, seat) for seat in range(players)]
        # Payments follow from public information alone: worked out once, the same for every seat.
        changes = coin_changes(views[actor], actor, action)
        for tracker, view in zip(trackers, views, strict=True):
            tracker.add(changes, view)
    assert state.result is not None
    return GameOutcome(
        seed=seed,
        bots=tuple(names),
        scores=state.result.scores,
        margins=tuple(margins(state.result.scores)),
        wins=tuple(win_shares(state.result.ranks)),
        ranks=state.result.ranks,
        choices=tuple(choices),
    )


def play_rules_game(name: str, bots: list[str], players: int, seed: int, game: int) -> GameOutcome:
    """One complete game of ``name`` (any game but Mercado, which has :func:`play_game`) between
    :mod:`ai.game_bots` bots; at a sealed step the seats to move act in seat order, each from its view."""
    rules = game_named(name)
    names = seating(bots, players, game)
    state = rules.new_game(rules.options({"players": players}), seed)
    seats = [game_bot(rules, bot, seed * 31 + p, timed=False) for p, bot in enumerate(names)]
    choices: list[Choices] = [{} for _ in range(players)]
    while not rules.is_over(state):
        seat = min(rules.to_move(state))
        action = seats[seat].choose(rules.view(state, seat))
        only = len(rules.legal_actions(state, seat)) == 1
        count_choice(choices[seat], rules.action_to_json(action)["type"], only)
        rules.apply(state, seat, action)
    outcome = rules.outcome(state)
    assert outcome is not None
    return GameOutcome(
        seed=seed,
        bots=tuple(names),
        scores=outcome.scores,
        margins=tuple(margins(outcome.scores)),
        wins=tuple(win_shares(outcome.ranks)),
        ranks=outcome.ranks,
        choices=tuple(choices),
    )


def distinct_seats(bots: list[str], players: int) -> bool:
    """Whether every game seats a different bot in each seat (as a rated match needs), not one bot
    holding several (seating only rotates the line, so one game tells for all)."""
    return len(set(seating(bots, players, 0))) == players


def mcts_level(bot: str) -> str | None:
    """The level of an ``mcts:<level>`` bot (the server's bot level of that name), else None."""
    kind, _, level = bot.partition(":")
    return level if kind == "mcts" and level in LEVELS else None


@dataclass(frozen=True)
class Estimate:
    mean: float
    low: float
    high: float

    def to_json(self) -> dict[str, float | list[float]]:
        return {"mean": round(self.mean, 4), "ci95": [round(self.low, 4), round(self.high, 4)]}


def estimate(values: list[float]) -> Estimate:
    """Mean with a normal-approximation 95% confidence interval."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return Estimate(mean, mean, mean)
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values))
    return Estimate(mean, mean - half, mean + half)


def rate_estimate(values: list[float]) -> Estimate:
    """A rate in [0, 1] with a Wilson 95% interval (sound near 0 and 1, unlike the normal one)."""
    n = len(values)
    p = statistics.fmean(values)
    centre = (p + Z95 * Z95 / (2 * n)) / (1 + Z95 * Z95 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95 * Z95 / (4 * n * n)) / (1 + Z95 * Z95 / n)
    # The Wilson interval always contains p; the clamps only absorb rounding at 0 and 1.
    return Estimate(p, min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half)))


@dataclass(frozen=True)
class BotSummary:
    bot: str
    seats_played: int
    win_rate: Estimate
    score: Estimate
    margin: Estimate
    choices: Choices = field(default_factory=dict)  # over all its seats

    def to_json(self) -> dict[str, object]:
        return {
            "bot": self.bot,
            "seats_played": self.seats_played,
            "win_rate": self.win_rate.to_json(),
            "score": self.score.to_json(),
            "margin": self.margin.to_json(),
            "choices": {
                kind: {"chosen": chosen, "only_choice": forced}
                for kind, (chosen, forced) in sorted(self.choices.items())
            },
        }


def summarize(outcomes: list[GameOutcome]) -> list[BotSummary]:
    """Per bot name (seats of the same bot pooled): win rate (ties shared), score and margin."""
    names: list[str] = []  # in order of first appearance
    for outcome in outcomes:
        for name in outcome.bots:
            if name not in names:
                names.append(name)
    out = []
    for name in names:
        seats = [(o, p) for o in outcomes for p, bot in enumerate(o.bots) if bot == name]
        choices: Choices = {}
        for o, p in seats:
            for kind, (chosen, forced) in (o.choices[p] if o.choices else {}).items():
                before = choices.get(kind, (0, 0))
                choices[kind] = (before[0] + chosen, before[1] + forced)
        out.append(
            BotSummary(
                bot=name,
                seats_played=len(seats),
                win_rate=rate_estimate([o.wins[p] for o, p in seats]),
                score=estimate([float(o.scores[p]) for o, p in seats]),
                margin=estimate([float(o.margins[p]) for o, p in seats]),
                choices=choices,
            )
        )
    return out


@dataclass(frozen=True)
class RatingRow:
    """A player's rating after an arena (``mercado arena --rate``), and its games in this arena."""

    player: str
    mu: float
    sigma: float
    display: float  # mu - 3 sigma, what the leaderboard ranks by
    games: int
    wins: int

    @property
    def interval(self) -> tuple[float, float]:
        """mu's 95% interval."""
        return self.mu - Z95 * self.sigma, self.mu + Z95 * self.sigma

    def to_json(self) -> dict[str, object]:
        return {
            "player": self.player,
            "mu": round(self.mu, 4),
            "sigma": round(self.sigma, 4),
            "ci95": [round(bound, 4) for bound in self.interval],
            "display": round(self.display, 4),
            "games": self.games,
            "wins": self.wins,
        }
