"""``mercado serve``: run the game server. Every option can also be set in the environment."""

from __future__ import annotations

import ipaddress
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

MIN_AGENT_KEY_LENGTH = 16


class ShortLines(logging.Formatter):
    """A record as one line a person reads: 'mercado serve: warning: web port unavailable (web_port=8080)'."""

    def format(self, record: logging.LogRecord) -> str:
        from pythonjsonlogger.core import RESERVED_ATTRS

        fields = [
            f"{key}={value}"
            for key, value in record.__dict__.items()
            if key not in RESERVED_ATTRS and key not in ("taskName", "color_message")
        ]
        line = f"mercado serve: {record.levelname.lower()}: {record.getMessage()}"
        if record.exc_info and record.exc_info[1] is not None:
            fields.append(f"error={type(record.exc_info[1]).__name__}: {record.exc_info[1]}")
        return f"{line} ({', '.join(fields)})" if fields else line


def configure_logging(level: str, log_file: Path | None = None) -> None:
    """JSON lines on stderr: one object per event, with its fields. With ``log_file``, they go there
    instead (appended, and reopened when the file is moved away, as logrotate does), and stderr shows
    only warnings and errors, one short line each."""
    from logging.handlers import WatchedFileHandler

    from pythonjsonlogger.json import JsonFormatter

    json_lines = JsonFormatter("%(asctime)s %(levelname)s %(name)s %(message)s")
    handler: logging.Handler = logging.StreamHandler(sys.stderr)
    if log_file is None:
        handler.setFormatter(json_lines)
        logging.basicConfig(level=level.upper(), handlers=[handler], force=True)
        return
    handler.setFormatter(ShortLines())
    handler.setLevel(logging.WARNING)
    log_file.parent.mkdir(parents=True, exist_ok=True)
    to_file = WatchedFileHandler(log_file, encoding="utf-8")
    to_file.setFormatter(json_lines)
    logging.basicConfig(level=level.upper(), handlers=[to_file, handler], force=True)


def option(name: str, *more: str, **kwargs: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """An option whose environment variable is MERCADO_ and its name, e.g. MERCADO_WEB_PORT."""
    envvar = "MERCADO_" + name.split("/")[0].lstrip("-").replace("-", "_").upper()
    kwargs.setdefault("show_default", "default" in kwargs and not kwargs.get("is_flag"))
    return click.option(name, *more, envvar=envvar, show_envvar=True, **kwargs)


SECONDS = click.FloatRange(min=0.1)
COUNT = click.IntRange(min=1)


def _agent_key(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is not None and len(value) < MIN_AGENT_KEY_LENGTH:
        raise click.BadParameter(f"must be at least {MIN_AGENT_KEY_LENGTH} characters")
    return value


def _networks(
    ctx: click.Context, param: click.Parameter, values: tuple[str, ...]
) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    try:
        return tuple(ipaddress.ip_network(v, strict=False) for value in values for v in value.split(",") if v)
    except ValueError as error:
        raise click.BadParameter(str(error)) from None


def _origins(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[str, ...]:
    from server.rpc.cors import check_origin

    try:
        return tuple(check_origin(v) for value in values for v in value.split(",") if v)
    except ValueError as error:
        raise click.BadParameter(str(error)) from None


@click.command()
@option("--host", default="127.0.0.1", help="Address to listen on.")
@option(
    "--port", type=click.IntRange(0, 65535), default=50051, help="gRPC port; 0 picks a free one (logged)."
)
@option(
    "--db",
    default="mercado.db",
    help="SQLite database file (held by this server alone), or a PostgreSQL address"
    " (postgresql://user:password@host:port/database) that any number of servers share.",
)
@option(
    "--workers",
    type=COUNT,
    default=1,
    help="Server processes on this machine, sharing the ports (more than 1 needs PostgreSQL).",
)
@option(
    "--web-port",
    type=click.IntRange(-1, 65535),
    default=8080,
    help="Port of the browser page, gRPC-Web and /metrics; 0 picks a free one (logged), -1 turns it off.",
)
@option(
    "--web-root",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Directory of the built page  [default: clients/web/dist of this source tree]",
)
@option(
    "--web-cors-origin",
    "web_cors_origins",
    multiple=True,
    callback=_origins,
    metavar="ORIGIN",
    help="An origin whose pages may call gRPC-Web on the web port, e.g. https://play.example.com"
    " (repeatable; * for any).",
)
@option(
    "--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="info", help="Log level."
)
@option(
    "--log-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Append the log (JSON lines) to this file instead of stderr, which then shows only warnings "
    "and errors, one short line each.",
)
@option(
    "--agent-key",
    default=None,
    callback=_agent_key,
    help="Secret an AI agent sends (as its bearer token) to claim bot seats; without one, no bot seats.",
)
@option(
    "--allow-chosen-seeds", is_flag=True, help="Accept CreateMatch seeds chosen by clients (tests, research)."
)
@option(
    "--allow-anonymous/--no-allow-anonymous",
    default=False,
    show_default=True,
    help="Let callers without a player take seats (a seat token alone).",
)
@option("--jwt-issuer", default=None, help="The issuer (iss) of your frontend's player tokens.")
@option("--jwt-audience", default=None, help="Their audience (aud): this server, as your frontend names it.")
@option(
    "--jwt-secret-file",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="File holding the HS256 secret your frontend signs with (32 bytes or more).",
)
@option(
    "--jwt-jwks-file",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="JWKS file of the public keys your frontend signs with (RS256, EdDSA).",
)
@option(
    "--bot-ratings",
    type=click.Path(exists=True, path_type=Path),
    default=None,
    help="Starting ratings of the bot levels on each game's ladder, for those yet to play a rated match "
    "there: a folder of ratings files, <game>.json each (mercado arena --round-robin --rate; "
    "ai/bot-ratings/), or one file, Mercado's.",
)
@option(
    "--matchmaking-ai-wait",
    type=click.FloatRange(min=0),
    default=15.0,
    help="Seconds a player who allows AI waits in the queue before bots fill its match.",
)
@option(
    "--tls-cert", type=click.Path(dir_okay=False, exists=True, path_type=Path), help="TLS certificate (PEM)."
)
@option(
    "--tls-key", type=click.Path(dir_okay=False, exists=True, path_type=Path), help="TLS private key (PEM)."
)
@option("--reflection/--no-reflection", default=True, show_default=True, help="gRPC server reflection.")
@option(
    "--metrics/--no-metrics", default=True, show_default=True, help="Prometheus /metrics on the web port."
)
@option(
    "--rate-limit",
    "rate_limits",
    multiple=True,
    metavar="METHOD=RATE/BURST",
    help="A per-client rate limit (repeatable; 'off' for none; METHOD 'all' for every method).",
)
@option(
    "--rate-limit-exempt",
    multiple=True,
    callback=_networks,
    metavar="CIDR",
    help="A network whose clients have no per-client limits (repeatable), e.g. your own frontend.",
)
@option(
    "--trusted-proxy",
    multiple=True,
    callback=_networks,
    metavar="CIDR",
    help="A load balancer or proxy whose x-forwarded-for names the client (repeatable).",
)
@option("--max-waiting", type=COUNT, default=10_000, help="Matches waiting for players, in all.")
@option("--max-waiting-per-client", type=COUNT, default=20, help="Waiting matches one client created.")
@option(
    "--max-waiting-per-network",
    type=COUNT,
    default=200,
    help="Waiting matches created from one network (an address or IPv6 /64), every player of it together.",
)
@option(
    "--max-bot-seats-per-client",
    type=COUNT,
    default=6,
    help="Bot seats of one client's matches waiting for or played by an AI agent.",
)
@option(
    "--max-bot-seats-per-network",
    type=COUNT,
    default=30,
    help="...and of every player of one network together.",
)
@option(
    "--max-streams",
    type=COUNT,
    default=None,
    help="Open event streams, in all  [default: what half the machine's memory holds, 128 KiB a stream]",
)
@option("--max-streams-per-client", type=COUNT, default=100, help="Open event streams of one client.")
@option(
    "--max-streams-per-network",
    type=COUNT,
    default=1_000,
    help="Open event streams from one network (an address or IPv6 /64), every player of it together.",
)
@option(
    "--turn-seconds",
    type=click.IntRange(min=0),
    default=60,
    help="A new match's time per turn when it names none; 0: no clock.",
)
@option("--reserve-seconds", type=click.IntRange(min=0), default=180, help="...and its reserve per seat.")
@option("--waiting-expiry", type=SECONDS, default=1800.0, help="Seconds a match may wait for players.")
@option("--bot-seat-timeout", type=SECONDS, default=60.0, help="Seconds a bot seat may wait for an agent.")
@option(
    "--agent-wait",
    type=SECONDS,
    default=900.0,
    help="Seconds the human players of a match (with no clock, or a longer one) may be quiet before its AI"
    " agents are let go (the server's AI plays the bot seats from then on).",
)
@option(
    "--orphan-timeout",
    type=SECONDS,
    default=300.0,
    help="With PostgreSQL: seconds after which a match in play that no server moved is taken up by another.",
)
@option(
    "--drain",
    type=click.FloatRange(min=0),
    default=0.0,
    help="Seconds a stopping server keeps serving after its health turns NOT_SERVING, so that load"
    " balancers send new calls elsewhere first: their health checks' interval times the failures"
    " they wait for, and a little more.",
)
@option(
    "--max-cached-matches", type=COUNT, default=1_000, help="Matches kept in memory besides those in use."
)
@option("--web-max-connections", type=COUNT, default=1024, help="Open web connections, in all.")
@option(
    "--web-max-connections-per-client", type=COUNT, default=64, help="Open web connections of one client."
)
@option(
    "--web-header-timeout", type=SECONDS, default=10.0, help="Seconds for a request's head, then its body."
)
@option(
    "--web-idle-timeout", type=click.IntRange(min=1), default=5, help="Seconds a web connection may idle."
)
@option(
    "--grpc-max-connections",
    type=COUNT,
    default=None,
    help="Open gRPC connections, in all  [default: as --max-streams, within the open-file limit]",
)
@option(
    "--grpc-max-streams-per-connection", type=COUNT, default=100, help="Concurrent calls on one connection."
)
@option(
    "--grpc-max-idle",
    type=SECONDS,
    default=300.0,
    help="Seconds before a connection without calls is closed.",
)
@option("--grpc-max-age", type=SECONDS, default=3600.0, help="Seconds before any connection is closed...")
@option("--grpc-max-age-grace", type=SECONDS, default=300.0, help="...and then for its calls to finish.")
@option(
    "--grpc-keepalive",
    type=SECONDS,
    default=60.0,
    help="Seconds between the server's pings of a quiet connection.",
)
@option("--grpc-keepalive-timeout", type=SECONDS, default=20.0, help="Seconds for a ping's answer.")
@option(
    "--grpc-min-ping-interval",
    type=SECONDS,
    default=10.0,
    help="Clients pinging more often are disconnected.",
)
def serve(**options: Any) -> None:
    """Run the authoritative match server (gRPC) until SIGTERM or Ctrl-C.

    A second port serves the browser page, gRPC-Web for it and /metrics. When the default web
    port is taken, the server runs without it (a warning says so); a port given explicitly must
    be free. Exits with status 2 when the database is held by another server or cannot be reached.
    """
    from server.rpc.server import run_event_loop
    from server.rpc.server import serve as run
    from server.store import StoreLocked, StoreUnavailable

    config = server_config(options, click.get_current_context())
    try:
        configure_logging(options["log_level"], options["log_file"])
    except OSError as error:
        raise click.BadParameter(f"cannot write to it: {error}", param_hint="--log-file") from None
    from server.rpc.web import WebPortUnavailable
    from server.rpc.workers import run_workers

    try:
        if options["workers"] > 1:
            sys.exit(run_workers(config, options["workers"], options["log_level"]))
        else:
            run_event_loop(run(config))
    except WebPortUnavailable as error:
        raise click.ClickException(f"{error} (choose another with --web-port, or -1 for none)") from None
    except (StoreLocked, StoreUnavailable) as error:
        click.echo(f"mercado serve: {error.reason}", err=True)
        sys.exit(2)


def server_config(options: dict[str, Any], ctx: click.Context) -> Any:
    """The ServerConfig the options describe; click usage errors for inconsistent ones."""
    from server.match import Limits, Policy, TimeControl
    from server.players.identity import FrontendTokens
    from server.players.ratings import load_game_ratings
    from server.rpc.capacity import default_connections, default_streams
    from server.rpc.cors import CorsPolicy
    from server.rpc.limits import FairUse, parse_rates
    from server.rpc.server import Connections, ServerConfig, open_file_limit
    from server.rpc.web import DEFAULT_WEB_ROOT, WebConfig
    from server.rpc.web_guard import WebGuard
    from server.store.postgres import is_postgres

    if bool(options["tls_cert"]) != bool(options["tls_key"]):
        raise click.UsageError("--tls-cert and --tls-key go together")
    shared_port = options["workers"] > 1
    if shared_port and not is_postgres(options["db"]):
        raise click.UsageError(
            "--workers above 1 needs PostgreSQL (--db postgresql://...): a SQLite file is held by one process"
        )
    if shared_port and (options["port"] == 0 or options["web_port"] == 0):
        raise click.UsageError("--workers above 1 needs fixed ports (not 0): the workers share them")
    if shared_port and options["log_file"]:
        raise click.UsageError("--workers above 1 log to stderr: no --log-file")
    try:
        rates = parse_rates(
            spec for value in options["rate_limits"] for spec in value.replace(" ", ",").split(",")
        )
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--rate-limit") from None
    fair_use = FairUse(
        rates=rates,
        streams_per_client=options["max_streams_per_client"],
        streams_per_network=options["max_streams_per_network"],
        streams=options["max_streams"] or default_streams(options["workers"]),
        exempt=options["rate_limit_exempt"],
        proxies=options["trusted_proxy"],
    )
    frontend = None
    jwt_options = ("jwt_issuer", "jwt_audience", "jwt_secret_file", "jwt_jwks_file")
    if any(options[name] for name in jwt_options):
        try:
            frontend = FrontendTokens.load(*(options[name] for name in jwt_options))
        except (ValueError, OSError) as error:
            raise click.UsageError(f"frontend tokens: {error}") from None
    try:
        bot_ratings = load_game_ratings(options["bot_ratings"]) if options["bot_ratings"] else None
    except (ValueError, OSError) as error:
        raise click.BadParameter(str(error), param_hint="--bot-ratings") from None
    web = None
    if options["web_port"] >= 0:
        explicit = ctx.get_parameter_source("web_port") != ParameterSource.DEFAULT
        guard = WebGuard(
            header_seconds=options["web_header_timeout"],
            idle_seconds=options["web_idle_timeout"],
            connections=options["web_max_connections"],
            connections_per_client=options["web_max_connections_per_client"],
            clients=fair_use.clients(),
        )
        web = WebConfig(
            port=options["web_port"],
            root=options["web_root"] or DEFAULT_WEB_ROOT,
            required=explicit,
            guard=guard,
            tls_cert=options["tls_cert"],
            tls_key=options["tls_key"],
            shared_port=shared_port,
            cors=CorsPolicy(frozenset(options["web_cors_origins"])),
        )
    return ServerConfig(
        host=options["host"],
        port=options["port"],
        db=options["db"],
        shared_port=shared_port,
        web=web,
        connections=Connections(
            max_idle=options["grpc_max_idle"],
            max_age=options["grpc_max_age"],
            max_age_grace=options["grpc_max_age_grace"],
            keepalive_time=options["grpc_keepalive"],
            keepalive_timeout=options["grpc_keepalive_timeout"],
            min_ping_interval=options["grpc_min_ping_interval"],
            max_streams=options["grpc_max_streams_per_connection"],
            max_connections=options["grpc_max_connections"]
            or default_connections(
                open_file_limit(), web.guard.connections if web else 0, options["workers"]
            ),
        ),
        fair_use=fair_use,
        limits=Limits(
            waiting=options["max_waiting"],
            waiting_per_creator=options["max_waiting_per_client"],
            waiting_per_network=options["max_waiting_per_network"],
            bot_seats_per_creator=options["max_bot_seats_per_client"],
            bot_seats_per_network=options["max_bot_seats_per_network"],
            agent_wait_seconds=options["agent_wait"],
            cached=options["max_cached_matches"],
            orphaned_seconds=options["orphan_timeout"],
            waiting_expiry_seconds=options["waiting_expiry"],
            bot_seat_seconds=options["bot_seat_timeout"],
            # Often enough that a match expires within a fraction of its allowance.
            sweep_seconds=max(0.1, min(5.0, options["waiting_expiry"] / 4, options["bot_seat_timeout"] / 4)),
        ),
        policy=Policy(
            agent_key=options["agent_key"],
            allow_chosen_seeds=options["allow_chosen_seeds"],
            default_clock=TimeControl(options["turn_seconds"], options["reserve_seconds"])
            if options["turn_seconds"]
            else None,
            allow_anonymous=options["allow_anonymous"],
        ),
        frontend=frontend,
        bot_ratings=bot_ratings,
        matchmaking_ai_wait=options["matchmaking_ai_wait"],
        drain_seconds=options["drain"],
        tls_cert=options["tls_cert"],
        tls_key=options["tls_key"],
        reflection=options["reflection"],
        metrics=options["metrics"],
    )
