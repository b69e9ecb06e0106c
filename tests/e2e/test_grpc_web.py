"""The browser's port of a real ``mercado serve``: gRPC-Web over HTTP/1.1, and the page's files.

The last tests drive the ASGI application in-process, for what a socket hides: a client
that goes away, deadlines, malformed requests.
"""

from __future__ import annotations

import asyncio
import http.client
import socket
import struct
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from mercado.v1 import match_pb2 as api
from positions import ROOT
from server_process import ServerProcess

from server.games.mercado import Options
from server.match import MatchService
from server.rpc.cors import check_origin
from server.rpc.servicer import MatchServicer
from server.rpc.web import WebApp, parse_timeout, percent_encode
from server.store.sqlite import SqliteStore

GRPC_WEB = "application/grpc-web+proto"
FRAME = struct.Struct(">BI")
PAGE = "<!doctype html><title>mercado</title><script type=module src=/assets/app.js></script>\n"


@pytest.fixture
def web_root(tmp_path: Path) -> Path:
    root = tmp_path / "dist"
    (root / "assets").mkdir(parents=True)
    (root / "index.html").write_text(PAGE)
    (root / "assets" / "app.js").write_text("console.log('mercado');\n")
    (tmp_path / "secret.txt").write_text("not served")
    return root


@pytest.fixture
def web_server(tmp_path: Path, web_root: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ServerProcess]:
    monkeypatch.setenv("MERCADO_WEB_ROOT", str(web_root))
    running = ServerProcess(tmp_path / "mercado.db").start()
    yield running
    running.stop_cleanly()


def connection(server: ServerProcess) -> http.client.HTTPConnection:
    assert server.web_port > 0
    return http.client.HTTPConnection("127.0.0.1", server.web_port, timeout=10)


def post(
    server: ServerProcess, method: str, request: Any, token: str | None = None
) -> http.client.HTTPResponse:
    """Send one gRPC-Web call the way a browser's fetch does (HTTP/1.1, binary frames)."""
    payload = request.SerializeToString()
    headers = {"content-type": GRPC_WEB, "x-grpc-web": "1", "accept": "*/*"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    conn = connection(server)
    conn.request("POST", f"/mercado.v1.MatchService/{method}", FRAME.pack(0, len(payload)) + payload, headers)
    response = conn.getresponse()
    assert response.status == 200
    assert response.getheader("content-type") == GRPC_WEB
    return response


def read_frame(response: http.client.HTTPResponse) -> tuple[int, bytes]:
    flag, length = FRAME.unpack(response.read(FRAME.size))
    return flag, response.read(length)


def trailers(payload: bytes) -> dict[str, str]:
    lines = (line.split(":", 1) for line in payload.decode().split("\r\n") if line)
    return {key.strip().lower(): unquote(value.strip()) for key, value in lines}


def unary(
    server: ServerProcess, method: str, request: Any, reply: type[Any], token: str | None = None
) -> Any:
    """The reply of a call that succeeds: one message frame, then trailers with status 0."""
    response = post(server, method, request, token)
    flag, message = read_frame(response)
    assert flag == 0
    flag, trailer = read_frame(response)
    assert flag == 0x80
    assert trailers(trailer)["grpc-status"] == "0"
    return reply.FromString(message)


def refusal(server: ServerProcess, method: str, request: Any, token: str | None = None) -> dict[str, str]:
    response = post(server, method, request, token)
    flag, trailer = read_frame(response)
    assert flag == 0x80
    return trailers(trailer)


def new_match(server: ServerProcess) -> tuple[str, str]:
    """A two-seat match with both seats taken: (match id, the token of the seat to move)."""
    created = unary(server, "CreateMatch", api.CreateMatchRequest(players=2), api.CreateMatchResponse)
    tokens = [
        unary(
            server,
            "JoinMatch",
            api.JoinMatchRequest(match_id=created.match_id, display_name=f"p{seat}", seat=seat),
            api.JoinMatchResponse,
        ).seat_token
        for seat in (0, 1)
    ]
    state = unary(server, "GetView", api.GetViewRequest(match_id=created.match_id), api.MatchState)
    return created.match_id, tokens[state.to_move]


def test_unary_calls_and_refusals(web_server: ServerProcess) -> None:
    match_id, token = new_match(web_server)
    state = unary(web_server, "GetView", api.GetViewRequest(match_id=match_id), api.MatchState, token)
    assert state.match.match_id == match_id
    assert state.match.status == api.MATCH_STATUS_PLAYING
    # The token travelled as metadata: the seat to move sees its legal actions.
    assert state.HasField("your_seat")
    assert state.your_seat == state.to_move
    assert len(state.legal_actions) > 0

    assert refusal(web_server, "GetView", api.GetViewRequest(match_id="0" * 32))["grpc-status"] == "5"
    assert refusal(web_server, "GetView", api.GetViewRequest(match_id="nope"))["grpc-status"] == "3"
    stale = api.SubmitActionRequest(
        match_id=match_id,
        expected_version=state.version + 5,
        request_id=uuid.uuid4().hex,
        action=state.legal_actions[0],
    )
    refused = refusal(web_server, "SubmitAction", stale, token)
    assert refused["grpc-status"] == "10"  # ABORTED: the version is stale
    assert refused["grpc-message"]
    assert refusal(web_server, "Nope", api.GetViewRequest())["grpc-status"] == "12"


def test_stream_events_are_pushed(web_server: ServerProcess) -> None:
    match_id, token = new_match(web_server)
    state = unary(web_server, "GetView", api.GetViewRequest(match_id=match_id), api.MatchState, token)
    # The headers come at once, before any update: the stream is open.
    follow = api.StreamEventsRequest(match_id=match_id, after_version=state.version)
    stream = post(web_server, "StreamEvents", follow, token)
    submit = api.SubmitActionRequest(
        match_id=match_id,
        expected_version=state.version,
        request_id=uuid.uuid4().hex,
        action=state.legal_actions[0],
    )
    acted = unary(web_server, "SubmitAction", submit, api.SubmitActionResponse, token)
    assert acted.version == state.version + 1
    flag, message = read_frame(stream)
    assert flag == 0 and api.MatchUpdate.FromString(message).state == state  # where it stood, first
    flag, message = read_frame(stream)
    assert flag == 0
    update = api.MatchUpdate.FromString(message)
    assert update.version == state.version + 1
    assert update.state.match.match_id == match_id
    stream.close()


def test_shutdown_ends_open_streams(tmp_path: Path, web_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MERCADO_WEB_ROOT", str(web_root))
    server = ServerProcess(tmp_path / "mercado.db").start()
    try:
        match_id, token = new_match(server)
        follow = api.StreamEventsRequest(match_id=match_id, after_version=0)
        stream = post(server, "StreamEvents", follow, token)
    finally:
        server.stop_cleanly()
    # The open stream ended as the API says: UNAVAILABLE, so that clients reconnect and resume.
    frames = []
    while (header := stream.read(FRAME.size)) and len(header) == FRAME.size:
        flag, length = FRAME.unpack(header)
        frames.append((flag, stream.read(length)))
    assert frames[-1][0] == 0x80
    assert trailers(frames[-1][1])["grpc-status"] == "14"


def test_serves_the_page(web_server: ServerProcess) -> None:
    def get(path: str, method: str = "GET") -> http.client.HTTPResponse:
        conn = connection(web_server)
        conn.request(method, path)
        return conn.getresponse()

    page = get("/")
    assert page.status == 200
    assert page.getheader("content-type") == "text/html; charset=utf-8"
    assert page.read().decode() == PAGE
    script = get("/assets/app.js")
    assert script.status == 200
    assert "javascript" in (script.getheader("content-type") or "")
    assert "immutable" in (script.getheader("cache-control") or "")
    assert get("/missing.js").status == 404
    assert get("/../secret.txt").status == 404
    assert get("/%2e%2e/secret.txt").status == 404
    assert get("/", "POST").status == 405
    assert get("/mercado.v1.MatchService/GetView").status == 405


def test_only_the_binary_format_is_spoken(web_server: ServerProcess) -> None:
    conn = connection(web_server)
    conn.request(
        "POST", "/mercado.v1.MatchService/GetView", b"AAAAAAA=", {"content-type": "application/grpc-web-text"}
    )
    assert conn.getresponse().status == 415


PAGE_ORIGIN = "http://127.0.0.1:5173"  # a frontend's page, on an origin of its own
PREFLIGHT = {
    "access-control-request-method": "POST",
    "access-control-request-headers": "authorization,content-type,x-grpc-web,x-user-agent,grpc-timeout",
}


def request(
    server: ServerProcess, method: str, path: str, headers: dict[str, str], body: bytes = b""
) -> tuple[http.client.HTTPResponse, dict[str, str]]:
    """The response (read) and its headers, lowercased."""
    conn = connection(server)
    conn.request(method, path, body, headers)
    response = conn.getresponse()
    response.read()
    return response, {key.lower(): value for key, value in response.getheaders()}


def cors_headers(headers: dict[str, str]) -> dict[str, str]:
    return {key: value for key, value in headers.items() if key.startswith("access-control-")}


def call_from(server: ServerProcess, origin: str) -> dict[str, str]:
    """The headers of a gRPC-Web call that a page of ``origin`` makes (a refused one: NOT_FOUND)."""
    payload = api.GetViewRequest(match_id="0" * 32).SerializeToString()
    headers = {"content-type": GRPC_WEB, "x-grpc-web": "1", "origin": origin}
    response, head = request(
        server, "POST", "/mercado.v1.MatchService/GetView", headers, FRAME.pack(0, len(payload)) + payload
    )
    assert response.status == 200
    return head


@pytest.fixture
def cors_server(tmp_path: Path, web_root: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ServerProcess]:
    monkeypatch.setenv("MERCADO_WEB_ROOT", str(web_root))
    args = ["--web-cors-origin", PAGE_ORIGIN, "--web-cors-origin", "https://play.example.com"]
    running = ServerProcess(tmp_path / "cors.db", args=args).start()
    yield running
    running.stop_cleanly()


def test_pages_of_an_allowed_origin_may_call(cors_server: ServerProcess) -> None:
    path = "/mercado.v1.MatchService/CreateMatch"
    response, head = request(cors_server, "OPTIONS", path, {"origin": PAGE_ORIGIN, **PREFLIGHT})
    assert response.status == 204
    assert head["access-control-allow-origin"] == PAGE_ORIGIN
    assert head["access-control-allow-methods"] == "POST"
    allowed = {name.strip() for name in head["access-control-allow-headers"].split(",")}
    assert {"authorization", "content-type", "x-grpc-web", "x-user-agent", "grpc-timeout"} <= allowed
    assert {"connect-protocol-version", "connect-timeout-ms"} <= allowed
    assert int(head["access-control-max-age"]) > 0
    assert head["vary"] == "origin"
    # An unknown method's preflight too: the call itself then says UNIMPLEMENTED.
    response, head = request(
        cors_server, "OPTIONS", "/mercado.v1.MatchService/Nope", {"origin": PAGE_ORIGIN, **PREFLIGHT}
    )
    assert response.status == 204

    head = call_from(cors_server, "https://play.example.com")
    assert head["access-control-allow-origin"] == "https://play.example.com"
    exposed = {name.strip() for name in head["access-control-expose-headers"].split(",")}
    assert {"grpc-status", "grpc-message", "grpc-status-details-bin", "retry-after"} <= exposed


def test_pages_of_other_origins_are_refused(cors_server: ServerProcess, web_server: ServerProcess) -> None:
    path = "/mercado.v1.MatchService/CreateMatch"
    for server, origin in [
        (cors_server, "http://127.0.0.1:5174"),
        (cors_server, "http://evil.example"),
        (web_server, PAGE_ORIGIN),
    ]:
        response, head = request(server, "OPTIONS", path, {"origin": origin, **PREFLIGHT})
        assert response.status == 403, origin
        assert not cors_headers(head)
        assert not cors_headers(call_from(server, origin))
    # The server's own page sends no preflight, and needs no CORS header.
    assert not cors_headers(call_from(web_server, f"http://127.0.0.1:{web_server.web_port}"))
    # OPTIONS that is not a preflight, and paths other than gRPC-Web's, are as before.
    response, head = request(cors_server, "OPTIONS", path, {})
    assert response.status == 405
    response, head = request(cors_server, "OPTIONS", "/", {"origin": PAGE_ORIGIN, **PREFLIGHT})
    assert response.status == 405 and not cors_headers(head)


def test_any_origin(tmp_path: Path, web_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MERCADO_WEB_ROOT", str(web_root))
    monkeypatch.setenv("MERCADO_WEB_CORS_ORIGIN", "*")
    server = ServerProcess(tmp_path / "mercado.db").start()
    try:
        path = "/mercado.v1.MatchService/GetView"
        response, head = request(server, "OPTIONS", path, {"origin": "http://anywhere.example", **PREFLIGHT})
        assert response.status == 204
        assert head["access-control-allow-origin"] == "*"
        assert call_from(server, "http://anywhere.example")["access-control-allow-origin"] == "*"
    finally:
        server.stop_cleanly()


@pytest.mark.parametrize(
    "origin",
    ["play.example.com", "https://play.example.com/app", "ftp://x.example", "https://x.example?page=1"],
)
def test_an_origin_is_scheme_host_and_port(tmp_path: Path, origin: str) -> None:
    command = [sys.executable, "-m", "server", "serve", "--port", "0", "--web-port", "0"]
    result = subprocess.run(
        [*command, "--db", str(tmp_path / "mercado.db"), "--web-cors-origin", origin],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=ROOT,
    )
    assert result.returncode == 2
    assert "is not an origin: scheme://host[:port], with no path" in result.stderr


def test_an_explicit_web_port_must_be_free(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        command = [sys.executable, "-m", "server", "serve", "--port", "0", "--web-port", str(port)]
        result = subprocess.run(
            [*command, "--db", str(tmp_path / "mercado.db")],
            capture_output=True,
            text=True,
            timeout=30,
            cwd=ROOT,
        )
    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port} for the web page" in result.stderr


# --- The ASGI application in-process ------------------------------------------------------------


class Exchange:
    """One HTTP exchange with the app: the request body arrives at once; ``leave`` disconnects."""

    def __init__(self, app: WebApp, path: str, body: bytes, headers: dict[str, str]) -> None:
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.inbox.put_nowait({"type": "http.request", "body": body, "more_body": False})
        self.sent: list[dict[str, Any]] = []
        self.sent_something = asyncio.Event()
        scope = {
            "type": "http",
            "method": "POST",
            "path": path,
            "headers": [(k.encode(), v.encode()) for k, v in {"host": "test", **headers}.items()],
        }
        self.task = asyncio.create_task(app(scope, self.inbox.get, self._send))

    async def _send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)
        self.sent_something.set()

    def leave(self) -> None:
        self.inbox.put_nowait({"type": "http.disconnect"})

    def body(self) -> bytes:
        return b"".join(m.get("body", b"") for m in self.sent if m["type"] == "http.response.body")

    def status(self) -> dict[str, str]:
        """The trailers of a finished call."""
        body = self.body()
        while body:
            flag, length = FRAME.unpack_from(body)
            if flag == 0x80:
                return trailers(body[FRAME.size : FRAME.size + length])
            body = body[FRAME.size + length :]
        raise AssertionError("no trailers")


def grpc_web(app: WebApp, method: str, request: Any, **headers: str) -> Exchange:
    payload = request.SerializeToString()
    body = FRAME.pack(0, len(payload)) + payload
    return Exchange(app, f"/mercado.v1.MatchService/{method}", body, {"content-type": GRPC_WEB, **headers})


@pytest.fixture
def app(tmp_path: Path) -> tuple[WebApp, MatchService]:
    service = MatchService(SqliteStore(":memory:"))
    return WebApp(MatchServicer(service), tmp_path, max_request_bytes=1 << 16, body_seconds=5), service


async def test_a_client_that_goes_away_ends_its_stream(app: tuple[WebApp, MatchService]) -> None:
    web, service = app
    match = await service.create_match(Options(players=2), [None, None])
    for name in ("ada", "bob"):
        await service.join(match.match_id, name)
    stream = grpc_web(web, "StreamEvents", api.StreamEventsRequest(match_id=match.match_id))
    await asyncio.wait_for(stream.sent_something.wait(), 5)
    assert stream.sent[0]["type"] == "http.response.start"  # headers at once, before any update
    assert len(match.watchers) == 1
    stream.leave()
    await asyncio.wait_for(stream.task, 5)
    assert not match.watchers  # the follower is gone with its client


async def test_a_deadline_ends_a_quiet_stream(app: tuple[WebApp, MatchService]) -> None:
    web, service = app
    match = await service.create_match(Options(players=2), [None, None])
    for name in ("ada", "bob"):
        await service.join(match.match_id, name)
    request = api.StreamEventsRequest(match_id=match.match_id)
    stream = grpc_web(web, "StreamEvents", request, **{"grpc-timeout": "200m"})
    await asyncio.wait_for(stream.task, 5)
    assert stream.status()["grpc-status"] == "4"  # DEADLINE_EXCEEDED
    assert not match.watchers


async def test_malformed_and_oversized_requests_are_refused(app: tuple[WebApp, MatchService]) -> None:
    web, _ = app
    path = "/mercado.v1.MatchService/GetView"
    cases = {
        b"\x00\x00\x00\x00\x09abc": "3",  # a frame longer than the body: INVALID_ARGUMENT
        FRAME.pack(0, 3) + b"\xff\xff\xff": "3",  # not a GetViewRequest: INVALID_ARGUMENT
        b"\x01\x00\x00\x00\x00": "12",  # compressed: UNIMPLEMENTED
        FRAME.pack(0, 70_000) + bytes(70_000): "8",  # over the limit: RESOURCE_EXHAUSTED
    }
    for body, code in cases.items():
        exchange = Exchange(web, path, body, {"content-type": GRPC_WEB})
        await asyncio.wait_for(exchange.task, 5)
        assert exchange.status()["grpc-status"] == code, body[:8]


def test_origins_are_kept_as_browsers_send_them() -> None:
    assert check_origin("https://Play.Example.com:443/") == "https://play.example.com"
    assert check_origin("http://localhost:5173") == "http://localhost:5173"
    assert check_origin("http://[::1]:8000") == "http://[::1]:8000"
    assert check_origin("*") == "*"
    with pytest.raises(ValueError):
        check_origin("https://play.example.com:99999")


def test_timeouts_and_messages_are_encoded_as_grpc_says() -> None:
    assert parse_timeout("250m") == 0.25
    assert parse_timeout("2S") == 2.0
    assert parse_timeout("1H") == 3600.0
    assert parse_timeout("5x") is None
    assert parse_timeout("123456789S") is None  # at most 8 digits
    assert percent_encode("no match 'x' (100%)") == "no match 'x' (100%25)"
    assert percent_encode("café\n") == "caf%C3%A9%0A"
