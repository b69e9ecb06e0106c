"""Reporting a round robin: its ratings and win-rate matrix as tables, JSON and a plot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from .arena import RatingRow, summarize
from .arena_report import Rater, best_first, ratings_table
from .round_robin import HeadToHead, play_round_robin, win_matrix


def matrix_table(bots: list[str], matrix: list[HeadToHead]) -> Table:
    """The row's bot's win rate against the column's, with its 95% interval."""
    cells = {(h.bot, h.opponent): h.win_rate for h in matrix}
    table = Table(title="win rate of the row's bot against the column's (95% CI)")
    table.add_column("bot")
    for bot in bots:
        table.add_column(bot, justify="right")
    for bot in bots:
        row = [bot]
        for opponent in bots:
            rate = cells.get((bot, opponent))
            row.append("-" if rate is None else f"{rate.mean:.0%} ({rate.low:.0%} to {rate.high:.0%})")
        table.add_row(*row)
    return table


def plot_round_robin(ratings: list[RatingRow], matrix: list[HeadToHead], path: Path, title: str) -> None:
    """The ratings with their 95% intervals (best on top) beside the win-rate matrix, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rising = sorted(ratings, key=lambda r: (r.mu, r.player))
    strongest_first = [r.player for r in reversed(rising)]
    size = len(ratings)
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 2.5 + 0.5 * size))
    rows = range(size)
    left.errorbar(
        [r.mu for r in rising],
        rows,
        xerr=[r.mu - r.interval[0] for r in rising],
        fmt="o",
        capsize=5,
        color="#4878a8",
        label="mu, 95% interval",
    )
    left.scatter(
        [r.display for r in rising], rows, marker="|", s=200, color="#a84848", label="display (mu - 3 sigma)"
    )
    left.set_yticks(list(rows), [r.player for r in rising])
    left.set_xlabel("OpenSkill rating")
    left.set_title("rating, 95% interval")
    left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2, fontsize="small")

    cells = {(h.bot, h.opponent): h.win_rate.mean for h in matrix}
    grid = [
        [cells.get((bot, opponent), float("nan")) for opponent in strongest_first] for bot in strongest_first
    ]
    right.imshow(grid, cmap="RdBu", vmin=0, vmax=1)
    for i, line in enumerate(grid):
        for j, rate in enumerate(line):
            if i != j:
                colour = "white" if abs(rate - 0.5) > 0.3 else "black"  # readable on the darkest cells
                right.text(j, i, f"{rate:.0%}", ha="center", va="center", color=colour)
    right.set_xticks(list(rows), strongest_first, rotation=30, ha="right")
    right.set_yticks(list(rows), strongest_first)
    right.set_title("win rate of the row's bot against the column's")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run_round_robin(
    bots: list[str],
    games: int,
    jobs: int,
    seed: int,
    money: str,
    plot: Path | None,
    console: Console,
    rate: Rater,
    name: str = "mercado",
) -> dict[str, Any]:
    """Play ``games`` games of ``name`` between every pair of ``bots``, rate them all with ``rate``
    (in the rounds :func:`play_round_robin` returns), print the ratings and the matrix on
    ``console``, optionally plot them; return the JSON report."""
    outcomes = play_round_robin(bots, games, jobs, seed, money, name)
    ratings = rate(outcomes)
    matrix = win_matrix(bots, outcomes)
    console.print(ratings_table(ratings))
    console.print(matrix_table(bots, matrix))
    if plot:
        title = f"{name}, round robin, {games} games a pair: {', '.join(bots)}"
        plot_round_robin(ratings, matrix, plot, title)
    return {
        "game": name,
        "round_robin": True,
        "players": 2,
        "games_per_pair": games,
        "games": len(outcomes),
        "bots": bots,
        "seed": seed,
        "money": money,
        "ratings": [row.to_json() for row in best_first(ratings)],
        "matrix": [h.to_json() for h in matrix],
        "results": [s.to_json() for s in summarize(outcomes)],
    }
