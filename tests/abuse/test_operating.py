"""What an operator runs it with: TLS on both ports, Prometheus metrics, reflection off."""

from __future__ import annotations

import http.client
import ssl
import struct
from pathlib import Path

import grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from matchplay import refusal
from mercado.v1 import match_pb2 as api
from mercado_client import MercadoClient
from server_process import ServerProcess, Start
from tls_cert import make_certificates


def _get(server: ServerProcess, path: str) -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", server.web_port, timeout=10)
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read().decode(errors="replace")
    connection.close()
    return response.status, body


async def test_tls_on_the_grpc_and_the_web_port(start: Start, tmp_path: Path) -> None:
    certificates = make_certificates(tmp_path / "tls")
    server = start(
        "--web-port", "0", "--tls-cert", str(certificates.cert), "--tls-key", str(certificates.key)
    )
    async with MercadoClient(server.target, ca_file=certificates.ca) as client:
        match_id = await client.create_match(players=2)
    context = ssl.create_default_context(cafile=str(certificates.ca))
    payload = api.GetViewRequest(match_id=match_id).SerializeToString()
    connection = http.client.HTTPSConnection("127.0.0.1", server.web_port, timeout=10, context=context)
    connection.request(
        "POST",
        "/mercado.v1.MatchService/GetView",
        struct.pack(">BI", 0, len(payload)) + payload,
        {"content-type": "application/grpc-web+proto"},
    )
    response = connection.getresponse()
    body = response.read()
    connection.close()
    assert response.status == 200
    flag, length = struct.unpack_from(">BI", body)
    assert flag == 0 and api.MatchState.FromString(body[5 : 5 + length]).match.match_id == match_id


async def test_metrics_count_calls_refusals_streams_and_commits(start: Start) -> None:
    server = start("--web-port", "0", "--rate-limit", "ListMatches=1/1")
    async with MercadoClient(server.target, reconnect_seconds=0.1) as client:
        match_id = await client.create_match(players=2)
        await client.stub.ListMatches(api.ListMatchesRequest())
        await refusal(client.stub.ListMatches(api.ListMatchesRequest()))
        await refusal(client.stub.GetView(api.GetViewRequest(match_id="0" * 32)))
        stream = client.stub.StreamEvents(api.StreamEventsRequest(match_id=match_id))
        await stream.read()
        status, text = _get(server, "/metrics")
        stream.cancel()
    assert status == 200
    samples = {
        line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line and not line.startswith("#")
    }
    assert samples['mercado_rpc_calls_total{code="OK",method="CreateMatch"}'] == 1
    assert samples['mercado_rpc_calls_total{code="RESOURCE_EXHAUSTED",method="ListMatches"}'] == 1
    assert samples['mercado_rpc_calls_total{code="NOT_FOUND",method="GetView"}'] == 1
    assert samples['mercado_fair_use_refusals_total{method="ListMatches"}'] == 1
    assert samples['mercado_rpc_duration_seconds_count{method="CreateMatch"}'] == 1
    assert samples["mercado_streams_open"] == 1
    assert samples["mercado_matches_waiting"] == 1
    assert samples["mercado_matches_in_memory"] == 1
    assert samples["mercado_store_commit_seconds_count"] >= 1
    assert samples["mercado_store_healthy"] == 1


def test_metrics_can_be_turned_off(start: Start) -> None:
    server = start("--web-port", "0", "--no-metrics")
    assert _get(server, "/metrics")[0] == 404


async def test_reflection_can_be_turned_off(start: Start) -> None:
    for flags, listed in (((), True), (("--no-reflection",), False)):
        server = start(*flags)
        async with grpc.aio.insecure_channel(server.target) as channel:
            stub = reflection_pb2_grpc.ServerReflectionStub(channel)
            request = reflection_pb2.ServerReflectionRequest(list_services="")
            if listed:
                answer = await anext(aiter(stub.ServerReflectionInfo(iter([request]))))
                assert "mercado.v1.MatchService" in {s.name for s in answer.list_services_response.service}
            else:
                # Nothing is sent: the server may refuse before a request could be written.
                assert await stub.ServerReflectionInfo().code() == grpc.StatusCode.UNIMPLEMENTED
