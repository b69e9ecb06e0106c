"""``mercado bench``: performance figures, printed as JSON."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import click

from server.games.registry import GAMES

from .ai import BOT_LEVELS


@click.group()
def bench() -> None:
    """Measure the engine, the server, the AI and matchmaking."""


@bench.command()
@click.option(
    "--games", type=click.IntRange(min=1), default=1000, show_default=True, help="Games per player count."
)
def engine(games: int) -> None:
    """Random games per second, microseconds per legal-action generation and per apply, peak memory."""
    from server.bench.engine import run

    click.echo(json.dumps(run(games), indent=2))


@bench.command()
@click.option(
    "--matches", type=click.IntRange(min=1), default=200, show_default=True, help="Matches per player count."
)
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the matches and actions.")
def memory(matches: int, seed: int) -> None:
    """Memory a match holds in the server's cache: in play (30 actions, streamed) and finished."""
    from server.bench.memory import run

    click.echo(json.dumps(run(matches, seed), indent=2))


@bench.command()
@click.option(
    "--matches", type=click.IntRange(min=1), default=200, show_default=True, help="Matches in play at once."
)
@click.option(
    "--actions",
    type=click.IntRange(min=1),
    default=20_000,
    show_default=True,
    help="Actions per player count.",
)
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the matches and actions.")
def actions(matches: int, actions: int, seed: int) -> None:
    """The server's own CPU per accepted action (submitted, committed, rendered for every seat),
    in-process and without gRPC: steadier than `bench server` for comparing builds."""
    from server.bench.actions import run

    click.echo(json.dumps(run(matches, actions, seed), indent=2))


@bench.command(name="server")
@click.option(
    "--matches",
    type=click.IntRange(min=1),
    default=200,
    show_default=True,
    help="Matches kept in play at once (and baseline callers).",
)
@click.option(
    "--duration",
    type=click.FloatRange(min=0.5),
    default=20.0,
    show_default=True,
    help="Seconds of each phase: the baseline, then the matches.",
)
@click.option(
    "--clients",
    type=click.IntRange(min=1),
    default=2,
    show_default=True,
    help="Load-generating client processes.",
)
@click.option("--seed", type=int, default=None, help="Seed of the matches and of the actions chosen.")
@click.option(
    "--rate",
    type=click.FloatRange(min=0),
    default=0.0,
    show_default=True,
    help="Offered actions per second over all matches, paced per match; 0: as fast as answered.",
)
@click.option(
    "--profile",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    default=None,
    help="Run the server under cProfile and write its statistics to this file.",
)
@click.option(
    "--floor",
    is_flag=True,
    help="Measure a server that plays no game (canned answers, no database) instead: "
    "the most the transport and this harness allow.",
)
@click.option(
    "--bare",
    is_flag=True,
    help="Run the real server with its rate limits and metrics off, to measure what they cost.",
)
@click.option(
    "--db",
    type=click.Choice(["sqlite", "postgres"]),
    default="sqlite",
    show_default=True,
    help="postgres: measure SQLite with 1 server (and --nodes), then a throwaway PostgreSQL with 1 and "
    "with --nodes servers, in one run (a table of them goes to stderr).",
)
@click.option(
    "--nodes",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Servers; the matches are spread over them. On PostgreSQL they share its database; on SQLite "
    "each has a file of its own and they share nothing: the most that many processes do on this machine "
    "(`mercado serve --workers` needs PostgreSQL).",
)
@click.option(
    "--beside-floor",
    "beside_floor",
    type=click.IntRange(min=0),
    default=0,
    metavar="ROUNDS",
    help="Measure the server then the floor (--floor), ROUNDS times in turn, and report the server's "
    "figures as fractions of the floor's, round by round (a table of them goes to stderr).",
)
def server_load(
    matches: int,
    duration: float,
    clients: int,
    seed: int | None,
    rate: float,
    profile: Path | None,
    floor: bool,
    bare: bool,
    db: str,
    nodes: int,
    beside_floor: int,
) -> None:
    """A real server under concurrent matches from client processes, against a bare-RPC baseline."""
    from server.bench.server import floor_table, run, table

    if nodes > 1 and (floor or beside_floor):
        raise click.UsageError("the floor is one server: no --nodes above 1 with --floor or --beside-floor")
    if db == "postgres" and (floor or beside_floor):
        raise click.UsageError("the floor plays no game and stores nothing: it has no --db postgres")
    if beside_floor and (floor or profile):
        raise click.UsageError(
            "--beside-floor runs both servers itself, unprofiled: not with --floor or --profile"
        )
    try:
        report = run(
            matches=matches,
            duration=duration,
            clients=clients,
            seed=seed,
            rate=rate,
            profile=profile,
            floor=floor,
            bare=bare,
            db=db,
            nodes=nodes,
            beside_floor=beside_floor,
        )
    except RuntimeError as error:
        raise click.ClickException(str(error)) from None
    click.echo(json.dumps(report, indent=2))
    if "configurations" in report:
        click.echo(table(report), err=True)
    if "rounds" in report:
        click.echo(floor_table(report), err=True)


@bench.command()
@click.option(
    "--storage",
    type=click.Choice(["memory", "disk"]),
    default="memory",
    show_default=True,
    help="memory: matches kept in the process; disk: boardgame.io's FlatFile, "
    "which writes each update after sending it.",
)
@click.option(
    "--matches", type=click.IntRange(min=1), default=200, show_default=True, help="Matches in play at once."
)
@click.option(
    "--duration", type=click.FloatRange(min=0.5), default=20.0, show_default=True, help="Seconds measured."
)
@click.option(
    "--clients", type=click.IntRange(min=1), default=2, show_default=True, help="Load-generating processes."
)
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the moves chosen.")
def peer(storage: str, matches: int, duration: float, clients: int, seed: int) -> None:
    """boardgame.io (Node.js) under the load of `bench server`: moves per second, server CPU per move,
    latency. Needs Node.js and npm; installs the pinned boardgame.io on first use."""
    from server.bench.peer import run

    try:
        report = run(storage, matches, duration, clients, seed)
    except (RuntimeError, OSError, subprocess.CalledProcessError) as error:
        raise click.ClickException(str(error)) from None
    click.echo(json.dumps(report, indent=2))


@bench.command()
@click.option(
    "--matches",
    "sizes",
    type=click.IntRange(min=100),
    multiple=True,
    default=[1_000, 100_000],
    show_default=True,
    help="Stored matches (repeatable: one run per size).",
)
@click.option("--calls", type=click.IntRange(min=1), default=200, show_default=True, help="Calls per figure.")
@click.option(
    "--touch", type=click.IntRange(min=0), default=5000, show_default=True, help="Matches viewed at the end."
)
def scale(sizes: tuple[int, ...], calls: int, touch: int) -> None:
    """A server over a database of many stored matches: start-up time, memory, listing, claim, view."""
    from server.bench.scale import run

    try:
        report = run(list(sizes), calls, touch)
    except RuntimeError as error:
        raise click.ClickException(str(error)) from None
    click.echo(json.dumps(report, indent=2))


@bench.command()
@click.option("--level", type=click.Choice(BOT_LEVELS), default="easy", show_default=True)
@click.option("--matches", type=click.IntRange(min=1), default=8, show_default=True, help="Matches at once.")
@click.option("--duration", type=click.FloatRange(min=1), default=30.0, show_default=True, help="Seconds.")
def agent(level: str, matches: int, duration: float) -> None:
    """One AI agent against many matches whose other seat answers at once: its moves per second and
    reply latency, and how many matches with people it keeps up with."""
    from server.bench.agent import run

    try:
        report = run(level, matches, duration)
    except RuntimeError as error:
        raise click.ClickException(str(error)) from None
    click.echo(json.dumps(report, indent=2))


@bench.command(name="ai")
@click.option(
    "--seconds", type=click.FloatRange(min=0.1), default=3.0, show_default=True, help="Per speed sample."
)
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True)
@click.option("--game", "game_name", type=click.Choice(list(GAMES)), default="mercado", show_default=True)
@click.option(
    "--level",
    "levels",
    multiple=True,
    type=click.Choice(BOT_LEVELS),
    help="Time the moves of this level only (repeatable); default: every level.",
)
@click.option(
    "--workers",
    multiple=True,
    type=click.IntRange(min=1),
    help="Search a move root-parallel over this many processes (repeatable); default: 1 and 2.",
)
def ai_bench(
    seconds: float, seed: int, game_name: str, levels: tuple[str, ...], workers: tuple[int, ...]
) -> None:
    """Search iterations per second at the start, middle and end of a game, time per move per level,
    and per level a move's time and iterations searched by 1, 2, ... worker processes."""
    from server.bench.ai import run, run_game

    chosen = levels or BOT_LEVELS
    counts = workers or (1, 2)
    if game_name == "mercado":
        report = run(seconds, seed, chosen, counts)
    else:
        report = run_game(game_name, seconds, seed, chosen, counts)
    click.echo(json.dumps(report, indent=2))


@bench.command()
@click.option("--game", "game_name", type=click.Choice(["leilao"]), default="leilao", show_default=True)
@click.option("--level", type=click.Choice(BOT_LEVELS), default="easy", show_default=True)
@click.option(
    "--matches", type=click.IntRange(min=1), default=1, show_default=True, help="Full matches against the AI."
)
@click.option(
    "--samples",
    type=click.IntRange(min=1),
    default=8,
    show_default=True,
    help="Searches with seeds of the rival's own per choice, whose most frequent answer it predicts.",
)
@click.option(
    "--seed", type=click.IntRange(min=0), default=1, show_default=True, help="Of the matches' set-up."
)
def predict(game_name: str, level: str, matches: int, samples: int, seed: int) -> None:
    """How often a rival who rebuilds the AI's view and runs the AI on it predicts the AI's sealed choices,
    against a real server's stand-in."""
    from server.bench.predict import run

    try:
        report = run(game_name, level, matches, samples, seed)
    except RuntimeError as error:
        raise click.ClickException(str(error)) from None
    click.echo(json.dumps(report, indent=2))


@bench.command()
@click.option(
    "--players", type=click.IntRange(min=1), default=1000, show_default=True, help="Players who queue."
)
@click.option(
    "--span",
    type=click.FloatRange(min=0),
    default=60.0,
    show_default=True,
    help="Simulated seconds over which they arrive (a Poisson process).",
)
@click.option(
    "--size",
    type=click.Choice(["2", "3", "4", "mix"]),
    default="2",
    show_default=True,
    help="The match size they ask for (mix: 2, 3 or 4, drawn for each player).",
)
@click.option(
    "--allow-ai-share",
    type=click.FloatRange(0, 1),
    default=0.25,
    show_default=True,
    help="The share of players who accept bots in their match.",
)
@click.option(
    "--ai-wait",
    type=click.FloatRange(min=0),
    default=15.0,
    show_default=True,
    help="Seconds such a player waits before bots fill its match (mercado serve --matchmaking-ai-wait).",
)
@click.option(
    "--bot-ratings",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="The bot levels' ratings (mercado arena --rate); default: a new ladder's.",
)
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True)
def matchmaking(
    players: int,
    span: float,
    size: str,
    allow_ai_share: float,
    ai_wait: float,
    bot_ratings: Path | None,
    seed: int,
) -> None:
    """The matchmaker's grouping on a simulated clock (no server): time to a match, rating spread,
    share matched with bots, and the wall time the grouping took."""
    from server.bench.matchmaking import bot_means, run
    from server.players.ratings import load_ratings

    try:
        means = bot_means(load_ratings(bot_ratings) if bot_ratings else None)
    except (ValueError, OSError) as error:
        raise click.BadParameter(str(error), param_hint="--bot-ratings") from None
    click.echo(json.dumps(run(players, span, size, allow_ai_share, ai_wait, seed, means), indent=2))
