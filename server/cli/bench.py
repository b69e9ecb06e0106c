"""``mercado bench``: performance figures, printed as JSON."""

from __future__ import annotations

import json

import click


@click.group()
def bench() -> None:
    """Measure the engine (and, later, the server and the AI)."""


@bench.command()
@click.option(
    "--games", type=click.IntRange(min=1), default=1000, show_default=True, help="Games per player count."
)
def engine(games: int) -> None:
    """Random games per second, microseconds per legal-action generation and per apply, peak memory."""
    from server.bench.engine import run

    click.echo(json.dumps(run(games), indent=2))
