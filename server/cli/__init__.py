"""The ``mercado`` command. Subcommands import their heavy modules lazily, so each starts fast."""

from __future__ import annotations

import os

import click

# gRPC's own notes (a connection closed for idleness, the logging set-up) are not for players.
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")

from .ai import ai_command, arena
from .bench import bench
from .openspiel import openspiel
from .play import play
from .rules import rules
from .serve import serve
from .verify import verify


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="mercado")
def main() -> None:
    """Mercado de Lisboa: rules engine, game server, AI and clients."""


main.add_command(rules)
main.add_command(bench)
main.add_command(serve)
main.add_command(play)
main.add_command(ai_command)
main.add_command(arena)
main.add_command(openspiel)
main.add_command(verify)
