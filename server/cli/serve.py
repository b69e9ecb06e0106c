"""``mercado serve``: run the game server."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import click
from click.core import ParameterSource


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
    "--web-port",
    type=click.IntRange(-1, 65535),
    default=8080,
    show_default=True,
    envvar="MERCADO_WEB_PORT",
    help="Port of the browser page and gRPC-Web; 0 picks a free one (logged), -1 turns it off.",
)
@click.option(
    "--web-root",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    envvar="MERCADO_WEB_ROOT",
    help="Directory of the built page  [default: clients/web/dist of this source tree]",
)
@click.option(
    "--log-level",
    type=click.Choice(["debug", "info", "warning", "error"]),
    default="info",
    show_default=True,
    envvar="MERCADO_LOG_LEVEL",
)
def serve(host: str, port: int, db: str, web_port: int, web_root: Path | None, log_level: str) -> None:
    """Run the authoritative match server (gRPC) until SIGTERM or Ctrl-C.

    A second port serves the browser page and gRPC-Web for it. When the default web port
    is taken, the server runs without it (a warning says so); a port given explicitly
    must be free.
    """
    from server.rpc.server import run_event_loop
    from server.rpc.server import serve as run
    from server.rpc.web import DEFAULT_WEB_ROOT, WebConfig, WebPortUnavailable

    configure_logging(log_level)
    web = None
    if web_port >= 0:
        explicit = click.get_current_context().get_parameter_source("web_port") != ParameterSource.DEFAULT
        web = WebConfig(port=web_port, root=web_root or DEFAULT_WEB_ROOT, required=explicit)
    try:
        run_event_loop(run(host, port, db, web))
    except WebPortUnavailable as error:
        raise click.ClickException(f"{error} (choose another with --web-port, or -1 for none)") from None
