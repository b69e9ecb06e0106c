"""The browser's port: gRPC-Web for MatchService and the page's static files, over HTTP/1.1.

Browsers cannot speak gRPC (they have no HTTP/2 trailers), so the page talks gRPC-Web
(https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-WEB.md): the same protobuf messages,
each in a 5-byte frame, with the status in a last frame of the body. This module is a small
ASGI application served by uvicorn in the gRPC server's own event loop: a POST to
``/mercado.v1.MatchService/<Method>`` calls the very servicer class the gRPC port uses (on
the same MatchService), through a context that offers what MatchServicer asks of
``grpc.aio.ServicerContext``; a GET of any other path serves a file of the built page
(clients/web/dist). The page is served from this origin; pages of other origins may call the
gRPC-Web paths as far as the operator allows them (``CorsPolicy``, cors.py).

Only the binary format (``application/grpc-web`` and ``application/grpc-web+proto``) is
spoken, which is what Connect's ``createGrpcWebTransport`` sends by default.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import math
import mimetypes
import socket
import struct
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import unquote

import grpc
import uvicorn

from .cors import CorsPolicy
from .errors import CallEnded
from .handlers import method_handlers
from .limits import grpc_peer
from .metrics import Metrics
from .servicer import MatchServicer
from .web_guard import WebGuard, guarded_protocol

log = logging.getLogger("mercado.web")

DEFAULT_WEB_PORT = 8080
# The built page: `npm run build` in clients/web (scripts/build-web.sh; make run builds it).
DEFAULT_WEB_ROOT = Path(__file__).resolve().parents[2] / "clients" / "web" / "dist"

Scope = Mapping[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

GRPC_WEB_TYPES = ("application/grpc-web", "application/grpc-web+proto")
RESPONSE_TYPE = b"application/grpc-web+proto"
DATA_FLAG, COMPRESSED_FLAG, TRAILER_FLAG = 0x00, 0x01, 0x80
FRAME_HEADER = struct.Struct(">BI")
TIMEOUT_UNITS = {"H": 3600.0, "M": 60.0, "S": 1.0, "m": 1e-3, "u": 1e-6, "n": 1e-9}
# Request headers that are HTTP's or gRPC-Web's own, not call metadata.
NOT_METADATA = frozenset(
    {"content-type", "content-length", "host", "connection", "te", "grpc-timeout", "accept-encoding"}
)


MAX_PATH_LENGTH = 2048  # longer request targets are refused with 414
METRICS_PATH = "/metrics"


@dataclass(frozen=True)
class WebConfig:
    """Where the browser's port listens, what it serves and how it guards itself."""

    port: int = DEFAULT_WEB_PORT  # 0 picks a free one
    root: Path = DEFAULT_WEB_ROOT
    # False for the default port: when it is taken, the server runs without it (a warning says so).
    required: bool = True
    guard: WebGuard = field(default_factory=WebGuard)
    tls_cert: Path | None = None
    tls_key: Path | None = None
    shared_port: bool = False  # several server processes listen on it (SO_REUSEPORT)
    cors: CorsPolicy = field(default_factory=CorsPolicy)  # pages of other origins that may call it


class WebPortUnavailable(Exception):
    """The web port that was asked for explicitly cannot be listened on."""


class ClientGone(Exception):
    """The client disconnected before the call ended: nobody is left to answer."""


class WebContext:
    """The part of ``grpc.aio.ServicerContext`` that MatchServicer uses, for one gRPC-Web call."""

    def __init__(
        self,
        metadata: tuple[tuple[str, str | bytes], ...],
        deadline: float | None,
        start_response: Callable[[Sequence[tuple[str, str]]], Awaitable[None]],
        peer: str,
    ) -> None:
        self._metadata = metadata
        self._deadline = deadline
        self._start_response = start_response
        self._peer = peer
        self.status = grpc.StatusCode.OK
        self.message = ""
        self.trailing_metadata: Sequence[tuple[str, str]] = ()

    def invocation_metadata(self) -> tuple[tuple[str, str | bytes], ...]:
        return self._metadata

    async def send_initial_metadata(self, metadata: Sequence[tuple[str, str]]) -> None:
        await self._start_response(metadata)

    async def abort(
        self, code: grpc.StatusCode, details: str = "", trailing_metadata: Sequence[tuple[str, str]] = ()
    ) -> NoReturn:
        if code == grpc.StatusCode.OK:
            raise ValueError("abort with StatusCode.OK")
        self.status, self.message, self.trailing_metadata = code, details, trailing_metadata
        raise CallEnded

    def set_code(self, code: grpc.StatusCode) -> None:
        self.status = code

    def set_details(self, details: str) -> None:
        self.message = details

    def set_trailing_metadata(self, metadata: Sequence[tuple[str, str]]) -> None:
        self.trailing_metadata = metadata

    def time_remaining(self) -> float | None:
        return None if self._deadline is None else max(0.0, self._deadline - time.monotonic())

    def peer(self) -> str:
        """As gRPC names peers: ``ipv4:1.2.3.4:5678``, ``ipv6:[::1]:5678``."""
        return self._peer


def frame(flag: int, payload: bytes) -> bytes:
    return FRAME_HEADER.pack(flag, len(payload)) + payload


def trailer_frame(code: grpc.StatusCode, message: str, metadata: Sequence[tuple[str, str]] = ()) -> bytes:
    lines = f"grpc-status: {code.value[0]}\r\n"
    if message:
        lines += f"grpc-message: {percent_encode(message)}\r\n"
    lines += "".join(f"{key}: {value}\r\n" for key, value in metadata)
    return frame(TRAILER_FLAG, lines.encode("ascii"))


def percent_encode(message: str) -> str:
    """grpc-message's encoding: printable ASCII but '%' as is, every other byte of the UTF-8 as %XX."""
    return "".join(chr(b) if 0x20 <= b <= 0x7E and b != 0x25 else f"%{b:02X}" for b in message.encode())


def parse_timeout(value: str) -> float | None:
    """Seconds from a ``grpc-timeout`` header (``250m``, ``10S``...); None when malformed."""
    amount, unit = value[:-1], value[-1:]
    if not amount.isdigit() or len(amount) > 8 or unit not in TIMEOUT_UNITS:
        return None
    return int(amount) * TIMEOUT_UNITS[unit]


def request_message(body: bytes) -> bytes:
    """The one message of a unary or server-streaming request body."""
    if len(body) < FRAME_HEADER.size:
        if body:
            raise ValueError("truncated gRPC-Web frame")
        return b""
    flag, length = FRAME_HEADER.unpack_from(body)
    if flag & COMPRESSED_FLAG:
        raise NotImplementedError("compressed requests are not supported")
    if flag != DATA_FLAG or FRAME_HEADER.size + length != len(body):
        raise ValueError("the request body must hold exactly one message frame")
    return body[FRAME_HEADER.size :]


class WebApp:
    """The ASGI application: gRPC-Web for MatchService, static files for everything else."""

    def __init__(
        self,
        servicer: MatchServicer,
        root: Path,
        max_request_bytes: int,
        body_seconds: float,
        metrics: Metrics | None = None,
        cors: CorsPolicy | None = None,
    ) -> None:
        service, handlers = method_handlers(servicer)
        self.service_path = f"/{service}/"
        self.handlers = {self.service_path + name: handler for name, handler in handlers.items()}
        self.root = root.resolve()
        self.max_request_bytes = max_request_bytes
        self.body_seconds = body_seconds
        self.metrics = metrics
        self.cors = cors or CorsPolicy()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        path: str = scope["path"]
        if len(path) > MAX_PATH_LENGTH:
            await _plain(send, 414, b"the request path is too long\n")
            return
        handler = self.handlers.get(path)
        if handler is not None or path.startswith(self.service_path):
            origin = _header(scope, b"origin")
            if scope["method"] == "OPTIONS" and _header(scope, b"access-control-request-method"):
                await self._preflight(origin, send)
                return
            send = _adding(send, self.cors.response_headers(origin))
        if scope["method"] == "POST" and (
            handler is not None or _content_type(scope).startswith("application/grpc")
        ):
            await self._grpc_web(handler, scope, receive, send)
        elif scope["method"] in ("GET", "HEAD") and path == METRICS_PATH and self.metrics:
            body = self.metrics.render()
            headers = [(b"content-type", self.metrics.content_type.encode()), (b"cache-control", b"no-store")]
            await _plain(send, 200, body, headers, scope["method"] == "HEAD")
        elif scope["method"] in ("GET", "HEAD") and handler is None:
            await self._static(path, scope["method"] == "HEAD", send)
        else:
            await _plain(
                send, 405, b"method not allowed\n", [(b"allow", b"POST" if handler else b"GET, HEAD")]
            )

    async def _preflight(self, origin: str | None, send: Send) -> None:
        """A browser asks whether a page of ``origin`` may call a gRPC-Web path."""
        if origin is not None and self.cors.allows(origin):
            headers = self.cors.preflight_headers(origin)
            await send({"type": "http.response.start", "status": 204, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
        else:
            who = (origin or "no origin")[:100]
            reason = f"pages of {who} may not call this server (mercado serve --web-cors-origin)\n"
            await _plain(send, 403, reason.encode("latin-1", "replace"), [(b"vary", b"origin")])

    # gRPC-Web

    async def _grpc_web(
        self, handler: grpc.RpcMethodHandler | None, scope: Scope, receive: Receive, send: Send
    ) -> None:
        if _content_type(scope) not in GRPC_WEB_TYPES:
            await _plain(send, 415, b"only application/grpc-web+proto is supported\n")
            return
        started = False

        async def start_response(metadata: Sequence[tuple[str, str]] = ()) -> None:
            nonlocal started
            if not started:
                started = True
                headers = [(b"content-type", RESPONSE_TYPE), (b"cache-control", b"no-store")]
                headers += [(k.encode("latin-1"), v.encode("latin-1")) for k, v in metadata]
                await send({"type": "http.response.start", "status": 200, "headers": headers})

        async def send_message(payload: bytes) -> None:
            await start_response()
            await send({"type": "http.response.body", "body": frame(DATA_FLAG, payload), "more_body": True})

        metadata, timeout = _metadata(scope)
        deadline = None if timeout is None else time.monotonic() + timeout
        context = WebContext(metadata, deadline, start_response, grpc_peer(scope.get("client")))
        try:
            if handler is None:
                await context.abort(grpc.StatusCode.UNIMPLEMENTED, f"unknown method {scope['path'][:64]}")
            try:
                async with asyncio.timeout(self.body_seconds):
                    body = await _read_body(receive, self.max_request_bytes)
            except TimeoutError:
                await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "the request body came too slowly")
            if body is None:
                await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "the request is too large")
            try:
                message = request_message(body)
            except NotImplementedError as error:
                await context.abort(grpc.StatusCode.UNIMPLEMENTED, str(error))
            except ValueError as error:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
            # An undecodable message arrives as handlers.Undecodable, which the servicer refuses.
            request = handler.request_deserializer(message)
            async with asyncio.timeout(timeout):
                if handler.response_streaming:
                    await _until_disconnect(
                        _stream(handler.unary_stream(request, context), handler, send_message), receive
                    )
                elif handler.unary_unary is not None:
                    response = await handler.unary_unary(request, context)
                    if context.status == grpc.StatusCode.OK:  # a failed call sends its status alone
                        await send_message(handler.response_serializer(response))
                else:
                    await context.abort(grpc.StatusCode.UNIMPLEMENTED, "client streaming is not supported")
        except CallEnded:
            pass
        except ClientGone:
            return
        except TimeoutError:
            context.status, context.message = grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded"
        except Exception as error:
            log.exception("gRPC-Web call failed", extra={"method": scope["path"]})
            context.status, context.message = grpc.StatusCode.UNKNOWN, f"Unexpected {type(error).__name__}"
        await start_response()
        trailer = trailer_frame(context.status, context.message, context.trailing_metadata)
        await send({"type": "http.response.body", "body": trailer, "more_body": False})

    # Static files

    async def _static(self, path: str, head: bool, send: Send) -> None:
        file = self._file(path)
        if file is None:
            if path in ("/", "/index.html"):
                await _plain(send, 503, _NOT_BUILT, [(b"content-type", b"text/html; charset=utf-8")], head)
            else:
                await _plain(send, 404, b"not found\n", head=head)
            return
        content = file.read_bytes()
        kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind in ("application/javascript", "image/svg+xml"):
            kind += "; charset=utf-8"
        # Vite names assets by their content: they never change. The page itself always may.
        cache = b"public, max-age=31536000, immutable" if path.startswith("/assets/") else b"no-cache"
        headers = [
            (b"content-type", kind.encode()),
            (b"content-length", str(len(content)).encode()),
            (b"cache-control", cache),
            (b"x-content-type-options", b"nosniff"),
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if head else content})

    def _file(self, path: str) -> Path | None:
        relative = unquote(path).lstrip("/")
        if "\0" in relative:
            return None
        try:
            candidate = (self.root / relative).resolve()
            if candidate.is_dir():
                candidate = candidate / "index.html"
            if not candidate.is_relative_to(self.root) or not candidate.is_file():
                return None
        except OSError:  # a name too long for the file system, and the like
            return None
        return candidate


_NOT_BUILT = b"""<!doctype html><meta charset="utf-8"><title>mercado</title>
<p>The page is not built yet: run <code>scripts/build-web.sh</code> (make run does it), then reload.</p>
"""


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key == name:
            return str(value.decode("latin-1"))
    return None


def _content_type(scope: Scope) -> str:
    return (_header(scope, b"content-type") or "").split(";")[0].strip().lower()


def _adding(send: Send, headers: list[tuple[bytes, bytes]]) -> Send:
    """``send``, with ``headers`` added to the response's head."""
    if not headers:
        return send

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message["headers"], *headers]}
        await send(message)

    return sending


def _metadata(scope: Scope) -> tuple[tuple[tuple[str, str | bytes], ...], float | None]:
    """Call metadata (as grpc.aio gives it: ``-bin`` values decoded) and the timeout in seconds."""
    metadata: list[tuple[str, str | bytes]] = []
    timeout = None
    for raw_key, raw_value in scope["headers"]:
        key, value = raw_key.decode("latin-1").lower(), raw_value.decode("latin-1")
        if key == "grpc-timeout":
            timeout = parse_timeout(value)
        elif key in NOT_METADATA:
            continue
        elif key.endswith("-bin"):
            with contextlib.suppress(ValueError):
                metadata.append((key, base64.b64decode(value + "=" * (-len(value) % 4))))
        else:
            metadata.append((key, value))
    return tuple(metadata), timeout


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    """The whole request body, or None when it is longer than ``limit``."""
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientGone
        body += message.get("body", b"")
        if len(body) > limit:
            return None
        if not message.get("more_body", False):
            return bytes(body)


async def _stream(
    responses: AsyncIterator[Any],
    handler: grpc.RpcMethodHandler,
    send_message: Callable[[bytes], Awaitable[None]],
) -> None:
    try:
        async for response in responses:
            await send_message(handler.response_serializer(response))
    finally:
        aclose = getattr(responses, "aclose", None)
        if aclose is not None:
            await aclose()


async def _until_disconnect(call: Awaitable[None], receive: Receive) -> None:
    """Run a streaming call until it ends, or cancel it when the client goes away."""
    task = asyncio.ensure_future(call)
    watch = asyncio.ensure_future(_disconnected(receive))
    try:
        await asyncio.wait({task, watch}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        watch.cancel()
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    if task.cancelled():
        raise ClientGone
    task.result()


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def _plain(
    send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]] | None = None, head: bool = False
) -> None:
    all_headers = list(headers or [])
    if not any(key == b"content-type" for key, _ in all_headers):
        all_headers.insert(0, (b"content-type", b"text/plain; charset=utf-8"))
    all_headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": all_headers})
    await send({"type": "http.response.body", "body": b"" if head else body})


class _EmbeddedServer(uvicorn.Server):
    """uvicorn in the gRPC server's event loop: the gRPC server owns the signals and says when to stop."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class WebServer:
    """The browser's port, running as a task of the server's event loop."""

    def __init__(self, server: _EmbeddedServer, sock: socket.socket) -> None:
        self._server = server
        self.port: int = sock.getsockname()[1]
        self._task = asyncio.create_task(server.serve(sockets=[sock]), name="mercado-web")

    async def started(self) -> None:
        while not self._server.started:
            if self._task.done():
                self._task.result()
                raise RuntimeError("the web server stopped while starting")
            await asyncio.sleep(0.01)

    async def stop(self) -> None:
        """Stop accepting, let running calls finish (streams end with MatchService.close_streams)."""
        self._server.should_exit = True
        await self._task


def _listen(host: str, port: int, shared: bool) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if shared:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


async def start_web(
    servicer: MatchServicer,
    host: str,
    config: WebConfig,
    max_request_bytes: int,
    grace_seconds: float,
    metrics: Metrics | None = None,
) -> WebServer | None:
    """Listen on ``config.port`` and serve; None when an optional port is taken (logged)."""
    try:
        sock = _listen(host, config.port, config.shared_port)
    except OSError as error:
        if config.required:
            message = f"cannot listen on {host}:{config.port} for the web page: {error}"
            raise WebPortUnavailable(message) from error
        log.warning(
            "web port unavailable: serving gRPC only (set --web-port)",
            extra={"web_port": config.port, "error": str(error)},
        )
        return None
    guard = config.guard
    app = WebApp(servicer, config.root, max_request_bytes, guard.header_seconds, metrics, config.cors)
    uvicorn_config = uvicorn.Config(
        app,
        http=guarded_protocol(guard),
        ws="none",
        lifespan="off",
        log_config=None,
        access_log=False,
        server_header=False,
        timeout_keep_alive=guard.idle_seconds,
        timeout_graceful_shutdown=math.ceil(grace_seconds),
        ssl_certfile=config.tls_cert,
        ssl_keyfile=config.tls_key,
    )
    # uvicorn's own lines (started, waiting for connections) add nothing to ours.
    logging.getLogger("uvicorn.error").setLevel(logging.WARNING)
    web = WebServer(_EmbeddedServer(uvicorn_config), sock)
    await web.started()
    return web
