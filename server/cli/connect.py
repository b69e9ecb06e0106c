"""The options of every command that connects to a server: where it is and how to speak to it."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

DEFAULT_SERVER = "127.0.0.1:50051"


def endpoint_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add --server, --tls and --ca-file; the command receives them as one ``server`` Endpoint."""

    @click.option(
        "--server",
        default=DEFAULT_SERVER,
        show_default=True,
        envvar="MERCADO_SERVER",
        show_envvar=True,
        help="Server address HOST:PORT.",
    )
    @click.option("--tls", is_flag=True, envvar="MERCADO_TLS", show_envvar=True, help="Connect with TLS.")
    @click.option(
        "--ca-file",
        type=click.Path(dir_okay=False, exists=True, path_type=Path),
        envvar="MERCADO_CA_FILE",
        show_envvar=True,
        help="With TLS: trust this CA certificate (PEM) instead of the system's roots.",
    )
    @functools.wraps(command)
    def with_endpoint(server: str, tls: bool, ca_file: Path | None, **options: Any) -> Any:
        from mercado_client import Endpoint

        return command(server=Endpoint(server, tls or ca_file is not None, ca_file), **options)

    return with_endpoint
