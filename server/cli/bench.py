"""``mercado bench``: performance figures, printed as JSON."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from server.bench.players import PEERS
from server.games.registry import GAMES

from .ai import BOT_LEVELS

# A load generator that could not be built or run (Node.js and npm for boardgame.io, Go for ours).
TOOL_FAILURES = (OSError, subprocess.CalledProcessError)
# Options that several benchmarks take alike.
game_option = click.option(
    "--game", "game_name", type=click.Choice(list(GAMES)), default="mercado", show_default=True
)
seed_option = click.option(
    "--seed", type=int, default=1, show_default=True, help="Seed of the matches and actions."
)


@click.group()
def bench() -> None:
    """Measure the engine, the server, the AI and matchmaking."""


def _print_report(measure: Callable[[], dict[str, Any]], *failures: type[Exception]) -> dict[str, Any]:
    """``measure``'s report, printed as JSON; its ``RuntimeError`` (or one of ``failures``) is the
    command's error, in one line."""
    caught: tuple[type[Exception], ...] = (RuntimeError, *failures)
    try:
        report = measure()
    except caught as error:
        raise click.ClickException(str(error)) from None
    click.echo(json.dumps(report, indent=2))
    return report


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
@seed_option
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
@seed_option
@game_option
def actions(matches: int, actions: int, seed: int, game_name: str) -> None:
    """The server's own CPU per accepted action (submitted, committed, rendered for every seat),
    in-process and without gRPC: steadier than `bench server` for comparing builds."""
    from server.bench.actions import run

    click.echo(json.dumps(run(matches, actions, seed, game_name), indent=2))


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
    report = _print_report(
        lambda: run(
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
    )
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

    _print_report(lambda: run(storage, matches, duration, clients, seed), *TOOL_FAILURES)


def _table_sizes(ctx: click.Context, param: click.Parameter, value: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(part) for part in value.split(","))
    except ValueError:
        sizes = ()
    if not sizes or any(not 2 <= size <= 4 for size in sizes):
        raise click.BadParameter("players per table, 2 to 4, separated by commas (e.g. 2,3,4)")
    return sizes


def _players_db(ctx: click.Context, param: click.Parameter, value: str) -> str:
    if value not in ("sqlite", "postgres") and not value.startswith(("postgresql://", "postgres://")):
        raise click.BadParameter("sqlite, postgres (a throwaway cluster) or a postgresql:// address")
    return value


@bench.command()
@click.option(
    "--players", type=click.IntRange(min=2), default=1000, show_default=True, help="Players, each connected."
)
@click.option(
    "--pace",
    type=click.FloatRange(min=0.05),
    default=8.0,
    show_default=True,
    help="Mean seconds of thought before each action (drawn between half and one and a half times it).",
)
@click.option(
    "--duration", type=click.FloatRange(min=1), default=60.0, show_default=True, help="Seconds measured."
)
@click.option(
    "--warmup",
    type=click.FloatRange(min=0),
    default=None,
    help="Seconds left out once every player follows its match  [default: two paces]",
)
@click.option(
    "--ramp",
    type=click.FloatRange(min=0),
    default=None,
    help="Seconds over which the tables sit down; 0: all at once  [default: 500 players a second]",
)
@click.option(
    "--sizes",
    default="2",
    show_default=True,
    callback=_table_sizes,
    help="Players per table, the tables taking the sizes in turn: 2,3,4 mixes them.",
)
@click.option(
    "--game",
    "games",
    multiple=True,
    type=click.Choice(list(GAMES)),
    help="The game the tables play (repeatable: the tables take them in turn)  [default: mercado]",
)
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the think times and actions.")
@click.option(
    "--per-connection",
    type=click.IntRange(min=1),
    default=None,
    help="Players sharing each connection (of different tables)  [default: 1, or the fewest sharing that "
    "this machine's open-file limit allows]",
)
@click.option(
    "--credential",
    type=click.Choice(["seat", "player"]),
    default="seat",
    show_default=True,
    help="What a seat's calls carry: its seat token (the client libraries' Seat) or its player's token "
    "(the browser page's way).",
)
@click.option(
    "--db",
    default="sqlite",
    show_default=True,
    callback=_players_db,
    help="sqlite, postgres (a throwaway PostgreSQL cluster) or the postgresql:// address of an empty "
    "database.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Server processes sharing the port (above 1 needs PostgreSQL).",
)
@click.option(
    "--peer",
    type=click.Choice(PEERS),
    default=None,
    help="Serve the same players with boardgame.io (socket.io) instead.",
)
@click.option(
    "--restart",
    is_flag=True,
    help="After the window, restart the server and measure every player reconnecting at once.",
)
@click.option(
    "--restart-window",
    type=click.FloatRange(min=1),
    default=15.0,
    show_default=True,
    help="With --restart: seconds measured after the restarted server listens (long enough for the whole "
    "crowd to be back: see restart.recovered_after_seconds and players_failing).",
)
@click.option(
    "--floor",
    is_flag=True,
    help="Serve the same players (2-player Mercado tables) with the server that plays no game and keeps "
    "nothing: what one process's gRPC allows on this machine, the ceiling of any figure of ours.",
)
@click.option(
    "--knee",
    is_flag=True,
    help="Search for the most players whose submit p99 and propagation p99 (medians of --runs runs) stay "
    "under their bounds, with no errors: doubling from --players, then halving the gap.",
)
@click.option(
    "--runs", type=click.IntRange(min=1), default=3, show_default=True, help="With --knee: runs per count."
)
@click.option(
    "--knee-submit-p99",
    type=click.FloatRange(min=0, min_open=True),
    default=100.0,
    show_default=True,
    help="With --knee: the submit p99 (ms) a count of players must stay under.",
)
@click.option(
    "--knee-propagation-p99",
    type=click.FloatRange(min=0, min_open=True),
    default=200.0,
    show_default=True,
    help="With --knee: the propagation p99 (ms) it must stay under.",
)
@click.option(
    "--knee-max",
    type=click.IntRange(min=2),
    default=100_000,
    show_default=True,
    help="With --knee: the most players tried.",
)
def players(
    players: int,
    pace: float,
    duration: float,
    warmup: float | None,
    ramp: float | None,
    sizes: tuple[int, ...],
    games: tuple[str, ...],
    seed: int,
    per_connection: int | None,
    credential: str,
    db: str,
    workers: int,
    peer: str | None,
    restart: bool,
    restart_window: float,
    floor: bool,
    knee: bool,
    runs: int,
    knee_submit_p99: float,
    knee_propagation_p99: float,
    knee_max: int,
) -> None:
    """Players on one node, each on a connection of its own, following their matches and acting at a
    human pace (a Go load generator, built on first use): submit and propagation latency, errors,
    server memory and CPU per player-minute; or, with --knee, the most players it serves."""
    from server.bench.players import Bounds, Deployment, Players, run
    from server.bench.players import knee as search

    if knee and db not in ("sqlite", "postgres"):
        raise click.UsageError("--knee runs each count on a fresh database: --db sqlite or postgres")
    if workers > 1 and db == "sqlite":
        raise click.UsageError("--workers above 1 needs PostgreSQL: --db postgres or a postgresql:// address")
    # What only our server runs: neither boardgame.io nor the floor.
    ours_alone = [db != "sqlite", workers > 1, restart, credential != "seat"]
    if peer and any([*ours_alone, games, per_connection]):
        raise click.UsageError(
            "--peer runs boardgame.io in memory, a socket a player: no --db, --workers, --restart, --game,"
            " --per-connection or --credential"
        )
    if floor and any([*ours_alone, peer, set(games) - {"mercado"}, sizes != (2,)]):
        raise click.UsageError(
            "--floor serves 2-player Mercado tables with seat tokens, in one process that keeps nothing: no"
            " --peer, --db, --workers, --restart, other --game or --sizes, or --credential player"
        )
    load = Players(
        players, pace, duration, warmup, ramp, sizes, games or ("mercado",), seed, per_connection, credential
    )
    deployment = Deployment(db, workers, peer, restart, floor, restart_window)
    bounds = Bounds(knee_submit_p99, knee_propagation_p99)
    _print_report(
        lambda: search(load, deployment, runs, knee_max, bounds) if knee else run(load, deployment),
        *TOOL_FAILURES,
    )


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

    _print_report(lambda: run(list(sizes), calls, touch))


@bench.command()
@click.option(
    "--calls", type=click.IntRange(min=1), default=1000, show_default=True, help="GetViews per figure."
)
def views(calls: int) -> None:
    """GetView of a match in memory through a server on SQLite, and through one of two on PostgreSQL
    (which checks first that no other server moved the match on: read-your-writes), with the match
    current and right after each move through the other."""
    from server.bench.views import run

    _print_report(lambda: run(calls))


@bench.command()
@click.option(
    "--duration",
    type=click.FloatRange(min=10),
    default=300.0,
    show_default=True,
    help="Seconds of faults; then the matches in play finish.",
)
@click.option(
    "--every", type=click.FloatRange(min=1), default=15.0, show_default=True, help="Seconds between faults."
)
@click.option(
    "--matches",
    type=click.IntRange(min=1),
    default=4,
    show_default=True,
    help="Matches of each game in play at once.",
)
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the faults and the moves.")
def failover(duration: float, every: float, matches: int, seed: int) -> None:
    """Three servers on one throwaway PostgreSQL under faults (a server killed, one paused, the database
    restarted, the listening connections cut, in turn) while clients play every game through them:
    the faults, each check's figures (nothing acknowledged lost, streams gap-free, servers and database
    agreeing, ...) and the longest any match stood still once the faults ended."""
    from server.bench.faults import Plan, run

    _print_report(lambda: run(Plan(duration=duration, every=every, tables=matches, seed=seed)))


@bench.command()
@click.option("--streams", type=click.IntRange(min=1), default=50_000, show_default=True, help="Per storm.")
@click.option("--storms", type=click.IntRange(min=1), default=1, show_default=True)
def storm(streams: int, storms: int) -> None:
    """A server's resident memory under storms of streams opened and reset at once: once started,
    right after each storm, and once it has settled."""
    from server.bench.storm import run

    _print_report(lambda: run(streams, storms))


@bench.command()
@click.option("--level", type=click.Choice(BOT_LEVELS), default="easy", show_default=True)
@click.option("--matches", type=click.IntRange(min=1), default=8, show_default=True, help="Matches at once.")
@click.option("--duration", type=click.FloatRange(min=1), default=30.0, show_default=True, help="Seconds.")
@click.option("--game", "game_name", type=click.Choice(list(GAMES)), default="mercado", show_default=True)
def agent(level: str, matches: int, duration: float, game_name: str) -> None:
    """One AI agent against many matches whose other seat answers at once: how long its answers take
    from its turn starting (against the level's time cap), its moves per second, and how many matches
    with people it keeps up with."""
    from server.bench.agent import run

    try:
        report = run(level, matches, duration, game=game_name)
    except RuntimeError as error:
        raise click.ClickException(str(error)) from None
    click.echo(json.dumps(report, indent=2))


@bench.command(name="ai")
@click.option(
    "--seconds", type=click.FloatRange(min=0.1), default=3.0, show_default=True, help="Per speed sample."
)
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True)
@game_option
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
@click.option(
    "--profile",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Also search the middle position for --seconds under cProfile, write its statistics to this "
    "file, and report the shares of the time each source file and the busiest functions took.",
)
def ai_bench(
    seconds: float,
    seed: int,
    game_name: str,
    levels: tuple[str, ...],
    workers: tuple[int, ...],
    profile: Path | None,
) -> None:
    """Search iterations per second at the start, middle and end of a game, time per move per level,
    per level a move's time and iterations searched by 1, 2, ... worker processes, and with --profile
    where a search's time goes."""
    from server.bench.ai import run, run_game

    chosen = levels or BOT_LEVELS
    counts = workers or (1, 2)
    if game_name == "mercado":
        report = run(seconds, seed, chosen, counts, profile)
    else:
        report = run_game(game_name, seconds, seed, chosen, counts, profile)
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
    help="The bot levels' ratings, a game's file (ai/bot-ratings/mercado.json); default: a new ladder's.",
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
