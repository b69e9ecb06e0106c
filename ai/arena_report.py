"""Running an arena over worker processes with a progress bar; reporting it as a table, JSON, a plot."""

from __future__ import annotations

import functools
from collections.abc import Callable
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from .arena import BotSummary, GameOutcome, RatingRow, play_game, play_rules_game, summarize

# What ``--rate`` does with the games once played: rates them, and gives each player's rating.
Rater = Callable[[list[GameOutcome]], list[RatingRow]]


def play_arena_game(
    name: str, bots: list[str], players: int, seed: int, money: str, game: int
) -> GameOutcome:
    """Game number ``game`` of an arena of ``name`` seeded from ``seed`` (its seed is ``seed + game``)."""
    if name == "mercado":
        return play_game(bots, players, seed + game, game, money)
    return play_rules_game(name, bots, players, seed + game, game)


def play_all(play: Callable[[int], GameOutcome], count: int, jobs: int) -> list[GameOutcome]:
    """``play(0)`` to ``play(count - 1)``, in parallel over ``jobs`` processes (``play`` must pickle),
    with a progress bar on stderr; by seed, whatever order they finished in."""
    columns = (
        TextColumn("games"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    outcomes: list[GameOutcome] = []
    with Progress(*columns, console=Console(stderr=True)) as progress:
        task = progress.add_task("games", total=count)
        if jobs == 1:
            for index in range(count):
                outcomes.append(play(index))
                progress.advance(task)
        else:
            with get_context("spawn").Pool(jobs) as pool:
                for outcome in pool.imap_unordered(play, range(count)):
                    outcomes.append(outcome)
                    progress.advance(task)
    return sorted(outcomes, key=lambda o: o.seed)


def play_games(
    bots: list[str], players: int, games: int, jobs: int, seed: int, money: str, name: str = "mercado"
) -> list[GameOutcome]:
    """Every game of ``name``, in parallel over ``jobs`` processes, with a progress bar on stderr."""
    return play_all(functools.partial(play_arena_game, name, bots, players, seed, money), games, jobs)


def results_table(summaries: list[BotSummary]) -> Table:
    table = Table(title="arena")
    for column in ("bot", "seats", "win rate", "95% CI", "score", "margin", "95% CI"):
        table.add_column(column, justify="right")
    for s in summaries:
        table.add_row(
            s.bot,
            str(s.seats_played),
            f"{s.win_rate.mean:.1%}",
            f"{s.win_rate.low:.1%} to {s.win_rate.high:.1%}",
            f"{s.score.mean:.1f}",
            f"{s.margin.mean:+.1f}",
            f"{s.margin.low:+.1f} to {s.margin.high:+.1f}",
        )
    return table


def choices_table(summaries: list[BotSummary]) -> Table:
    """What each bot chose, by action type: how often, and how often it had no other legal action."""
    table = Table(title="choices")
    for column in ("bot", "action", "chosen", "share", "its only choice"):
        table.add_column(column, justify="right")
    for s in summaries:
        total = sum(chosen for chosen, _ in s.choices.values())
        for kind, (chosen, forced) in sorted(s.choices.items()):
            table.add_row(s.bot, kind, str(chosen), f"{chosen / total:.1%}", str(forced))
    return table


def best_first(rows: list[RatingRow]) -> list[RatingRow]:
    """By display rating, the ladder's order."""
    return sorted(rows, key=lambda r: (-r.display, r.player))


def ratings_table(rows: list[RatingRow]) -> Table:
    """The ratings after the arena, best (by display rating) first."""
    table = Table(title="ratings")
    for column in ("player", "games", "wins", "mu", "sigma", "mu's 95% CI", "display"):
        table.add_column(column, justify="right")
    for row in best_first(rows):
        low, high = row.interval
        table.add_row(
            row.player,
            str(row.games),
            str(row.wins),
            f"{row.mu:.2f}",
            f"{row.sigma:.2f}",
            f"{low:.2f} to {high:.2f}",
            f"{row.display:.2f}",
        )
    return table


def plot_results(summaries: list[BotSummary], path: Path, title: str) -> None:
    """Win rate and score margin per bot, with 95% intervals, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [s.bot for s in summaries]
    fig, (wins, margins) = plt.subplots(1, 2, figsize=(9, 3.5))
    for axis, values, label in (
        (wins, [s.win_rate for s in summaries], "win rate (ties shared)"),
        (margins, [s.margin for s in summaries], "score margin"),
    ):
        means = [v.mean for v in values]
        errors = [[v.mean - v.low for v in values], [v.high - v.mean for v in values]]
        axis.bar(names, means, yerr=errors, capsize=6, color="#4878a8")
        axis.set_title(label)
        axis.axhline(0, color="black", linewidth=0.6)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run_arena(
    bots: list[str],
    players: int,
    games: int,
    jobs: int,
    seed: int,
    money: str,
    plot: Path | None,
    console: Console,
    rate: Rater | None = None,
    name: str = "mercado",
    show_choices: bool = False,
) -> dict[str, Any]:
    """Play ``name``, print the table on ``console`` (and with ``show_choices`` the bots' choices by
    action type), optionally plot and rate the games; return the JSON report (``money`` is Mercado's
    option, ignored by the other games)."""
    outcomes = play_games(bots, players, games, jobs, seed, money, name)
    summaries = summarize(outcomes)
    console.print(results_table(summaries))
    if show_choices:
        console.print(choices_table(summaries))
    ratings = rate(outcomes) if rate else None
    if ratings is not None:
        console.print(ratings_table(ratings))
    title = f"{name}, {players} players, {games} games: {', '.join(bots)}"
    if plot:
        plot_results(summaries, plot, title)
    report: dict[str, Any] = {
        "game": name,
        "players": players,
        "games": games,
        "bots": bots,
        "seed": seed,
        "money": money,
        "results": [s.to_json() for s in summaries],
    }
    if ratings is not None:
        report["ratings"] = [row.to_json() for row in best_first(ratings)]
    return report
