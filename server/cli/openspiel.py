"""``mercado openspiel``: research on the games with OpenSpiel (``pip install 'mercado[openspiel]'``)."""

from __future__ import annotations

import click

# Kept here so that the command line starts fast (ai.openspiel imports OpenSpiel).
LEVELS = ("easy", "medium", "hard", "expert")
REWARDS = ("margin", "ranks")
PICKS = ("perfect", "search")


@click.group(name="openspiel")
def openspiel() -> None:
    """The games in OpenSpiel (docs/openspiel.md)."""


@openspiel.command()
@click.option("--hand", type=click.IntRange(1, 20), default=4, show_default=True, help="Bid cards 1..HAND.")
@click.option("--rounds", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--deal", type=click.IntRange(min=0), default=2, show_default=True, help="The set-up's seed.")
@click.option("--reward", type=click.Choice(REWARDS), default="margin", show_default=True)
@click.option(
    "--level", "levels", multiple=True, type=click.Choice(LEVELS), help="Repeatable; default: every level."
)
@click.option(
    "--temperature",
    "temperatures",
    multiple=True,
    type=click.FloatRange(min=0),
    help="The AI's sealed choices: 0 the most visited, T > 0 the visits at that temperature. "
    "Repeatable; default: 0 and 1.",
)
@click.option(
    "--picks",
    type=click.Choice(PICKS),
    default="perfect",
    show_default=True,
    help="The AI's picks after the reveal: perfect (minimax; one round only) or its search's.",
)
@click.option("--cfr-seconds", type=click.FloatRange(min=0.1), default=180.0, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True, help="The AI's searches' seed.")
def exploitability(
    hand: int,
    rounds: int,
    deal: int,
    reward: str,
    levels: tuple[str, ...],
    temperatures: tuple[float, ...],
    picks: str,
    cfr_seconds: float,
    seed: int,
) -> None:
    """How exploitable the AI's sealed bids are in a reduced Leilão (two players), against CFR+'s:
    docs/ai.md, "Exploitability"."""
    if picks == "perfect" and rounds != 1:
        raise click.UsageError("--picks perfect needs --rounds 1 (the picks are then the game's last steps)")
    from ai.openspiel.exploitability import reduced_leilao, report

    game = reduced_leilao(hand=hand, rounds=rounds, deal=deal, reward=reward)
    report(game, levels or LEVELS, temperatures or (0.0, 1.0), picks, cfr_seconds, seed, echo)


def echo(line: str) -> None:
    click.echo(line)
