"""``mercado ai`` and ``mercado arena``: the AI agent, and bots against each other."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import click

from server.games.registry import GAMES

from .connect import endpoint_options

if TYPE_CHECKING:
    from mercado_client import Endpoint

    from ai.arena import GameOutcome, RatingRow
    from server.store.records import PlayerRecord

# The bot levels, as the API names them (kept here so that the command line starts fast).
BOT_LEVELS = ("easy", "medium", "hard", "expert")
CORES = os.cpu_count() or 1
# A seat needs a search only on its turn, and people take far longer over theirs (docs/ai.md).
MATCHES_PER_CORE = 4


@click.command(name="ai")
@endpoint_options
@click.option(
    "--agent-key",
    required=True,
    envvar="MERCADO_AGENT_KEY",
    show_envvar=True,
    help="The server's agent key (mercado serve --agent-key), which bot seats are claimed with.",
)
@click.option(
    "--level",
    "levels",
    multiple=True,
    type=click.Choice(BOT_LEVELS),
    help="Claim only seats reserved for this level (repeatable); default: every level.",
)
@click.option(
    "--max-matches",
    type=click.IntRange(min=1),
    default=lambda: MATCHES_PER_CORE * CORES,
    show_default=f"{MATCHES_PER_CORE} per core",
    help="Seats played at once.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=lambda: CORES,
    show_default="one per core",
    help="Search processes.",
)
@click.option(
    "--search-workers",
    type=click.IntRange(min=1),
    default=None,
    show_default="the level's: hard one per core, easy and medium one",
    help="Processes that search each move together (root-parallel), whatever its level; a move gets "
    "only the idle ones of --workers.",
)
@click.option(
    "--name", default="mercado-ai", show_default=True, help="The agent's name, in the server's logs."
)
@click.option(
    "--state-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    envvar="MERCADO_AGENT_STATE",
    show_envvar=True,
    help="Where the seats it holds are kept, to resume them  [default: the user's state directory]",
)
@click.option(
    "--log-level",
    type=click.Choice(["debug", "info", "warning", "error"]),
    default="info",
    envvar="MERCADO_LOG_LEVEL",
)
def ai_command(
    server: Endpoint,
    agent_key: str,
    levels: tuple[str, ...],
    max_matches: int,
    workers: int,
    search_workers: int | None,
    name: str,
    state_file: Path | None,
    log_level: str,
) -> None:
    """Claim bot seats on a server and play them, until SIGTERM or Ctrl-C; started again, resume them."""
    import platformdirs
    from mercado_terminal.held import SeatFile

    from ai.agent import Agent
    from ai.workers import search_pool

    from .serve import configure_logging

    configure_logging(log_level)

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        with search_pool(workers) as executor:
            path = state_file or platformdirs.user_state_path("mercado") / f"agent-{name}.json"
            seats = SeatFile(path)
            agent = Agent(
                server,
                agent_key,
                list(levels),
                max_matches,
                seats,
                name=name,
                executor=executor,
                workers=workers,
                search_workers=search_workers,
            )
            await agent.run(stop)

    import grpc

    try:
        asyncio.run(main())
    except grpc.aio.AioRpcError as error:  # the agent key was refused: no claim can succeed
        raise click.ClickException(f"{error.details()} (check --agent-key)") from None


@click.command()
@click.option("--game", "game_name", type=click.Choice(list(GAMES)), default="mercado", show_default=True)
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True)
@click.option(
    "--games",
    type=click.IntRange(min=1),
    default=100,
    show_default=True,
    help="Games played (with --round-robin: by each pair).",
)
@click.option(
    "--bots",
    default="mcts:medium,greedy",
    show_default=True,
    help="Comma-separated seat bots (random, greedy, mcts:easy|medium|hard|expert; in the other games "
    "also mcts-argmax:LEVEL, which never draws its sealed choices, and mcts-every:LEVEL, which "
    "weighs every legal move, idle ones too; in Mercado OpenSpiel's "
    "openspiel-ismcts:N and openspiel-mcts:N, N simulations a move); the last fills the rest. "
    "With --round-robin: the bots whose every pair plays.",
)
@click.option(
    "--round-robin",
    is_flag=True,
    help="Play --games 2-player games between every pair of --bots and rate every bot (OpenSkill, "
    "from a newcomer's rating), with the win rate of each against each.",
)
@click.option(
    "--jobs", type=click.IntRange(min=1), default=2, show_default=True, help="Games played in parallel."
)
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option(
    "--money",
    type=click.Choice(["hidden", "public"]),
    default="hidden",
    show_default=True,
    help="Mercado's money option (the other games have none).",
)
@click.option(
    "--plot", type=click.Path(dir_okay=False, path_type=Path), help="Also draw the results to this PNG."
)
@click.option(
    "--choices",
    "show_choices",
    is_flag=True,
    help="Also print what each bot chose, by action type (always in the JSON): e.g. how often Oregano's "
    "bots skip a declared action.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON (the table goes to stderr).")
@click.option("--json-out", type=click.Path(dir_okay=False, path_type=Path), help="Also write the JSON here.")
@click.option(
    "--rate",
    "rate_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also rate the bots by the games (OpenSkill; mcts levels as bot:<level>), from this file's "
    "ratings if it exists, and write them to it (the game's ratings file for mercado serve --bot-ratings, "
    "ai/bot-ratings/GAME.json). With --round-robin: write the file anew with the mcts levels' ratings alone.",
)
def arena(
    game_name: str,
    players: int,
    games: int,
    bots: str,
    round_robin: bool,
    jobs: int,
    seed: int,
    money: str,
    plot: Path | None,
    show_choices: bool,
    as_json: bool,
    json_out: Path | None,
    rate_file: Path | None,
) -> None:
    """Play seeded games between bots in this process (no server) and print win rates with 95% intervals;
    with --round-robin, games between every pair of bots, and every bot's rating."""
    from rich.console import Console

    from ai.arena import distinct_seats
    from ai.arena_report import run_arena
    from ai.game_bots import bot_for
    from ai.round_robin_report import run_round_robin

    names = [name.strip() for name in bots.split(",") if name.strip()]
    try:
        for name in names:
            bot_for(game_name, name)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--bots") from None
    console = Console(stderr=as_json)
    if round_robin:
        check_round_robin(names, players, rate_file)
        rater = round_robin_rater(rate_file)
        report = run_round_robin(names, games, jobs, seed, money, plot, console, rater, game_name)
    else:
        rate = None
        if rate_file is not None:
            if not distinct_seats(names, players):
                raise click.BadParameter(
                    f"rating needs {players} different bots, one a seat (no player holds two seats "
                    "of a rated match)",
                    param_hint="--rate",
                )
            rate = arena_rater(rate_file)
        report = run_arena(
            names, players, games, jobs, seed, money, plot, console, rate, game_name, show_choices
        )
    text = json.dumps(report, indent=2)
    if as_json:
        click.echo(text)
    if json_out:
        json_out.write_text(text + "\n", encoding="utf-8")


def check_round_robin(bots: list[str], players: int, rate_file: Path | None) -> None:
    """BadParameter unless ``bots`` make a round robin (and one whose levels ``rate_file`` can hold)."""
    from ai.arena import mcts_level

    if players != 2:
        raise click.BadParameter("a round robin plays 2-player games", param_hint="--players")
    if len(bots) < 2 or len(set(bots)) != len(bots):
        raise click.BadParameter("a round robin needs two bots or more, each once", param_hint="--bots")
    if rate_file is not None:
        if all(mcts_level(bot) is None for bot in bots):
            raise click.BadParameter("no mcts level among --bots to write", param_hint="--rate")
        check_ratings_directory(rate_file)


def check_ratings_directory(path: Path) -> None:
    if not path.parent.is_dir():
        raise click.BadParameter(f"{path.parent} is not a directory", param_hint="--rate")


def arena_player_id(bot: str) -> str:
    """The ladder's player an arena bot is: its level's bot for ``mcts:<level>``, else its arena name."""
    from ai.arena import mcts_level
    from server.store.records import bot_player_id

    level = mcts_level(bot)
    return bot_player_id(level) if level is not None else bot


def rate_games(
    outcomes: list[GameOutcome], start: Mapping[str, tuple[float, float]]
) -> dict[str, PlayerRecord]:
    """Every player of ``start`` (mu, sigma) and of the games, after rating the games in order; a
    player not in ``start`` starts at OpenSkill's defaults."""
    from server.players.ratings import rate
    from server.store.records import BOT, PlayerRecord

    ladder = {
        player: PlayerRecord(player, BOT, player, mu=mu, sigma=sigma) for player, (mu, sigma) in start.items()
    }
    for outcome in outcomes:
        seats = [arena_player_id(bot) for bot in outcome.bots]
        if len(set(seats)) != len(seats):
            raise ValueError(f"game {outcome.seed} seats a player twice: {', '.join(outcome.bots)}")
        rated = rate(
            [ladder.get(player) or PlayerRecord(player, BOT, player) for player in seats], outcome.ranks
        )
        ladder.update((player.player_id, player) for player in rated)
    return ladder


def arena_rater(path: Path) -> Callable[[list[GameOutcome]], list[RatingRow]]:
    """What rates an arena's games from the ratings in ``path`` (if it exists) and writes them back."""
    from server.players.ratings import load_ratings, save_ratings

    try:
        start = load_ratings(path) if path.exists() else {}
        before = json.loads(path.read_text(encoding="utf-8")).get("games") if path.exists() else 0
    except (ValueError, OSError) as error:
        raise click.BadParameter(str(error), param_hint="--rate") from None
    check_ratings_directory(path)

    def rate(outcomes: list[GameOutcome]) -> list[RatingRow]:
        ladder = rate_games(outcomes, start)
        # The file counts every game its ratings come from: those it was read with and these.
        save_ratings(path, ladder, (before if isinstance(before, int) else 0) + len(outcomes))
        return [rating_row(p.player_id, p) for p in ladder.values()]

    return rate


def round_robin_rater(path: Path | None) -> Callable[[list[GameOutcome]], list[RatingRow]]:
    """What rates a round robin's games, in the order given, every bot from a newcomer's rating (its
    ratings are its own, on the ladder's scale); with ``path``, what also writes the mcts levels'
    ratings there as the ladder's players, replacing the file (the other bots are no ladder's)."""
    from ai.arena import mcts_level
    from server.players.ratings import save_ratings

    def rate(outcomes: list[GameOutcome]) -> list[RatingRow]:
        ladder = rate_games(outcomes, {})
        bots = sorted({bot for outcome in outcomes for bot in outcome.bots})
        if path is not None:
            levels = {
                arena_player_id(bot): ladder[arena_player_id(bot)]
                for bot in bots
                if mcts_level(bot) is not None
            }
            save_ratings(path, levels, len(outcomes))
        return [rating_row(bot, ladder[arena_player_id(bot)]) for bot in bots]

    return rate


def rating_row(player: str, record: PlayerRecord) -> RatingRow:
    """``record``'s rating and games, as ``player``'s row of a report."""
    from ai.arena import RatingRow

    return RatingRow(
        player, record.mu, record.sigma, record.display_rating, record.rated_matches, record.wins
    )
