"""Hostile input: huge ids, garbage bytes, unknown enum values, hostile display names, long paths.
Each is refused with INVALID_ARGUMENT (or the status it deserves) and one short line, before any
lookup, and changes nothing."""

from __future__ import annotations

import asyncio
import http.client
import json
import struct

import grpc
import pytest
from matchplay import assert_reason, bearer, refusal, seated_match
from mercado.v1 import match_pb2 as api
from mercado.v1 import mercado_pb2 as pb
from mercado_client import MercadoClient
from mercado_terminal.board import render_match
from rich.console import Console
from server_process import AGENT_KEY, ServerProcess, Start

LOG_SECONDS = 5.0  # for a log line to be read from the server's output

Code = grpc.StatusCode
HUGE = "x" * ((1 << 20) - 64)  # a 1 MB id, inside the message size limit


@pytest.fixture
def server(start: Start) -> ServerProcess:
    return start("--web-port", "0")


def _raw(channel: grpc.aio.Channel, method: str) -> grpc.aio.UnaryUnaryMultiCallable:
    return channel.unary_unary(f"/mercado.v1.MatchService/{method}")


async def test_huge_ids_are_refused_before_any_lookup(server: ServerProcess) -> None:
    async with MercadoClient(server.target) as client:
        stub = client.stub
        calls = [
            stub.GetView(api.GetViewRequest(match_id=HUGE)),
            stub.JoinMatch(api.JoinMatchRequest(match_id=HUGE, display_name="ada")),
            stub.GetReplay(api.GetReplayRequest(match_id=HUGE)),
            stub.ListMatches(api.ListMatchesRequest(page_token=HUGE)),
            stub.SubmitAction(api.SubmitActionRequest(match_id=HUGE, request_id="r")),
        ]
        for call in calls:
            error = await refusal(call)
            assert_reason(error, Code.INVALID_ARGUMENT)
            assert len(error.details()) <= 200
        match_id, seats = await seated_match(lambda: client, 2)
        request = api.SubmitActionRequest(match_id=match_id, request_id=HUGE)
        request.action.mercado.take_coin.SetInParent()
        error = await refusal(stub.SubmitAction(request, metadata=bearer(seats[0].token)))
        assert_reason(error, Code.INVALID_ARGUMENT)
        assert len(error.details()) <= 200
        for token, code in ((HUGE[:1000], Code.UNAUTHENTICATED), ("!" * 43, Code.UNAUTHENTICATED)):
            error = await refusal(stub.GetView(api.GetViewRequest(match_id=match_id), metadata=bearer(token)))
            assert_reason(error, code)
        # Metadata past its limit (16 KiB) is refused by the transport itself.
        error = await refusal(
            stub.GetView(api.GetViewRequest(match_id=match_id), metadata=bearer(HUGE[:100_000]))
        )
        assert error.code() == Code.RESOURCE_EXHAUSTED and len(error.details()) <= 200


def _grpc_web(server: ServerProcess, method: str, payload: bytes) -> tuple[int, dict[str, str]]:
    """A gRPC-Web call: the HTTP status and the trailers."""
    connection = http.client.HTTPConnection("127.0.0.1", server.web_port, timeout=10)
    body = struct.pack(">BI", 0, len(payload)) + payload
    connection.request(
        "POST", f"/mercado.v1.MatchService/{method}", body, {"content-type": "application/grpc-web+proto"}
    )
    response = connection.getresponse()
    data = response.read()
    connection.close()
    trailers: dict[str, str] = {}
    while data:
        flag, length = struct.unpack_from(">BI", data)
        if flag == 0x80:
            for line in data[5 : 5 + length].decode().split("\r\n"):
                if line:
                    key, _, value = line.partition(":")
                    trailers[key.strip()] = value.strip()
        data = data[5 + length :]
    return response.status, trailers


def test_a_huge_id_over_grpc_web_gets_a_short_answer(server: ServerProcess) -> None:
    status, trailers = _grpc_web(server, "GetView", api.GetViewRequest(match_id=HUGE).SerializeToString())
    assert status == 200 and trailers["grpc-status"] == "3"
    assert len(trailers["grpc-message"]) <= 200


async def _logged(server: ServerProcess, message: str, count: int) -> list[dict[str, object]]:
    """The server's log records of ``message``, once ``count`` of them were read from its output
    (a thread reads it: the last may come a moment after the call that logged it), or at a deadline."""
    deadline = asyncio.get_running_loop().time() + LOG_SECONDS
    while True:
        logged = [json.loads(line) for line in list(server.log_lines) if line.startswith("{")]
        records = [r for r in logged if r.get("message") == message]
        if len(records) >= count or asyncio.get_running_loop().time() > deadline:
            return records
        await asyncio.sleep(0.02)


async def test_garbage_bytes_are_invalid_argument_with_one_warning(server: ServerProcess) -> None:
    invalid_utf8 = b"\x0a\x04\xff\xfe\xfd\xfc"  # field 1 (match_id), a string that is not UTF-8
    async with grpc.aio.insecure_channel(server.target) as channel:
        for payload in (b"\xff\xff\xff\xff", invalid_utf8, b"\x0a\x80"):
            error = await refusal(_raw(channel, "GetView")(payload))
            assert_reason(error, Code.INVALID_ARGUMENT)
            assert error.details().startswith("the request is not a valid GetView request")
        stream = channel.unary_stream("/mercado.v1.MatchService/StreamEvents")(invalid_utf8)
        assert_reason(await refusal(stream.read()), Code.INVALID_ARGUMENT)
    warnings = await _logged(server, "undecodable request", count=4)
    assert len(warnings) == 4 and all(r["levelname"] == "WARNING" for r in warnings)
    assert not any("Traceback" in line for line in server.log_lines)
    status, trailers = _grpc_web(server, "GetView", invalid_utf8)
    assert trailers["grpc-status"] == "3"


async def test_unknown_enum_values_are_refused(server: ServerProcess) -> None:
    async with MercadoClient(server.target) as client:
        stub = client.stub
        requests = [
            stub.CreateMatch(api.CreateMatchRequest(players=2, mercado=pb.MercadoOptions(money=99))),  # type: ignore[arg-type]
            stub.CreateMatch(api.CreateMatchRequest(game=7, players=2)),  # type: ignore[arg-type]
            stub.CreateMatch(
                api.CreateMatchRequest(players=2, seats=[api.SeatSpec(bot=api.SeatSpec.Bot(level=99))])  # type: ignore[arg-type]
            ),
            stub.ClaimBotSeat(api.ClaimBotSeatRequest(levels=[99]), metadata=bearer(AGENT_KEY)),  # type: ignore[list-item]
            stub.ClaimBotSeat(api.ClaimBotSeatRequest(levels=[0]), metadata=bearer(AGENT_KEY)),  # type: ignore[list-item]
            stub.ListMatches(api.ListMatchesRequest(status=42)),  # type: ignore[arg-type]
        ]
        for call in requests:
            assert_reason(await refusal(call), Code.INVALID_ARGUMENT)
        assert (await client.list_matches()).matches == []  # nothing was created


HOSTILE_NAMES = [
    "",
    "   ",
    "x" * 41,
    "\x1b[2J\x1b[31mowned",  # terminal escapes
    "evil\u202egnp.exe",  # a right-to-left override
    "zero\u200bwidth",
    "two\nlines",
    "bell\x07",
    "\u2028",
]


@pytest.mark.parametrize("name", HOSTILE_NAMES, ids=range(len(HOSTILE_NAMES)))
async def test_hostile_display_names_are_refused(server: ServerProcess, name: str) -> None:
    async with MercadoClient(server.target) as client:
        match_id = await client.create_match(players=2)
        assert_reason(await refusal(client.join(match_id, name)), Code.INVALID_ARGUMENT)
        bots = api.ClaimBotSeatRequest(agent_name=name)
        if name.strip():
            assert_reason(
                await refusal(client.stub.ClaimBotSeat(bots, metadata=bearer(AGENT_KEY))),
                Code.INVALID_ARGUMENT,
            )
        assert not any(seat.taken for seat in (await client.view(match_id)).match.seats)


async def test_names_are_normalised(server: ServerProcess) -> None:
    async with MercadoClient(server.target) as client:
        match_id = await client.create_match(players=2)
        await client.join(match_id, "  Jose\u0301  ")
        assert (await client.view(match_id)).match.seats[0].display_name == "Jos\u00e9"


def test_the_terminal_shows_no_escape_sequence_a_server_sends() -> None:
    """Even a server that let one through cannot reach the player's terminal with it."""
    state = api.MatchState()
    state.match.players = 2
    state.match.seats.add(seat=0, taken=True, display_name="\x1b]0;pwned\x07\x1b[2Jada\u202e")
    state.match.seats.add(seat=1, taken=True, display_name="bob")
    state.view.mercado.players.add(seat=0)
    state.view.mercado.players.add(seat=1)
    console = Console(record=True, force_terminal=True, width=200)
    console.print(render_match(state))
    shown = console.export_text(styles=False)
    assert "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown
    assert "ada" in shown and "bob" in shown


async def test_another_matchs_token_cannot_read(server: ServerProcess) -> None:
    async with MercadoClient(server.target) as client:
        first, _ = await seated_match(lambda: client, 2)
        _, others = await seated_match(lambda: client, 2)
        error = await refusal(client.view(first, others[0].token))
        assert_reason(error, Code.PERMISSION_DENIED)


@pytest.mark.parametrize("length", [3_000, 10_000])
def test_a_long_path_is_not_a_server_error(server: ServerProcess, length: int) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", server.web_port, timeout=10)
    connection.request("GET", "/" + "a" * length)
    status = connection.getresponse().status
    connection.close()
    assert status in (404, 414)
    connection = http.client.HTTPConnection("127.0.0.1", server.web_port, timeout=10)
    connection.request("GET", "/" + "a" * 1000)  # within the limit, but too long a file name
    assert connection.getresponse().status == 404
    connection.close()
