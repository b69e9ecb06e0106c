"""``mercado demo``: a local game between bots, narrated in the terminal."""

from __future__ import annotations

import click


@click.command()
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True)
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option(
    "--bots", default="greedy,random", show_default=True, help="Comma-separated bots, one per seat, cycled."
)
def demo(players: int, seed: int, bots: str) -> None:
    """Play one game between baseline bots in this process and narrate it."""
    from ai.bots import make_bot
    from server.engine import Options, apply, new_game

    names = [name.strip() for name in bots.split(",") if name.strip()]
    try:
        seats = [make_bot(names[p % len(names)], seed + p) for p in range(players)]
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--bots") from None
    state = new_game(Options(players=players, money="public"), seed)
    while not state.is_terminal:
        player = state.current_player
        action = seats[player].choose(state)
        apply(state, action)
        click.echo(f"seat {player} ({names[player % len(names)]}): {action}   coins {state.coins}")
    assert state.result is not None
    for p in range(players):
        result = state.result
        click.echo(
            f"seat {p}: score {result.scores[p]}, stands {result.stands_on_market[p]}, rank {result.ranks[p]}"
        )
