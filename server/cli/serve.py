"""``mercado serve``: run the game server."""

from __future__ import annotations

import asyncio
import logging
import sys

import click


def configure_logging(level: str) -> None:
    """JSON lines on stderr: one object per event, with its fields."""
    from pythonjsonlogger.json import JsonFormatter

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    logging.basicConfig(level=level.upper(), handlers=[handler], force=True)


@click.command()
@click.option(
    "--host", default="127.0.0.1", show_default=True, envvar="MERCADO_HOST", help="Address to listen on."
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=50051,
    show_default=True,
    envvar="MERCADO_PORT",
    help="Port to listen on; 0 picks a free one (logged).",
)
@click.option(
    "--db", default="mercado.db", show_default=True, envvar="MERCADO_DB", help="SQLite database file."
)
@click.option(
    "--log-level",
    type=click.Choice(["debug", "info", "warning", "error"]),
    default="info",
    show_default=True,
    envvar="MERCADO_LOG_LEVEL",
)
def serve(host: str, port: int, db: str, log_level: str) -> None:
    """Run the authoritative match server (gRPC) until SIGTERM or Ctrl-C."""
    from server.rpc.server import serve as run

    configure_logging(log_level)
    asyncio.run(run(host, port, db))
