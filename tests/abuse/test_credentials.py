"""Player credentials in a hostile caller's hands: guests cannot be chained into new budgets, and a
token that fails verification, for whatever reason, is UNAUTHENTICATED with a one-line reason and
spends the caller's budget first."""

from __future__ import annotations

import time
from pathlib import Path

import grpc
import jwt
from cryptography.hazmat.primitives.asymmetric import ed25519, rsa
from jwks import jwks_file
from matchplay import assert_reason, bearer, refusal
from mercado.v1 import players_pb2 as players_api
from mercado_client import MercadoClient
from server_process import Start

Code = grpc.StatusCode
ISSUER, AUDIENCE = "https://play.example.com", "mercado"


async def test_guests_are_counted_by_network_whatever_token_the_call_carries(start: Start) -> None:
    """Each new guest's token sent with the next CreatePlayer: still the address's budget (10 at once,
    then one per 5 s)."""
    server = start()
    made, token, refused = 0, None, []
    async with MercadoClient(server.target, reconnect_seconds=0) as client:
        began = time.monotonic()
        for _ in range(60):
            request = players_api.CreatePlayerRequest(display_name=f"guest {made}")
            try:
                created = await client.stub.CreatePlayer(request, metadata=bearer(token) if token else None)
            except grpc.aio.AioRpcError as error:
                refused.append(error)
                continue
            made, token = made + 1, created.player_token
        took = time.monotonic() - began
    assert made <= 10 + 1 + 0.2 * took, f"{made} guests made from one address in {took:.1f} s"
    assert_reason(refused[0], Code.RESOURCE_EXHAUSTED)
    assert refused[0].details() == "too many CreatePlayer calls: at most 0.2 per second (bursts of 10)"


async def test_a_token_naming_a_key_of_another_kind_is_unauthenticated_and_rate_limited(
    start: Start, tmp_path: Path
) -> None:
    """With an RSA and an Ed25519 key in the JWKS file, RS256 tokens naming the Ed25519 key (and the
    other way round, and a claim too large for a number): each refused UNAUTHENTICATED with one line,
    the address's budget spent by each, and nothing in the log but the refusals' count."""
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ed_key = ed25519.Ed25519PrivateKey.generate()
    server = start(
        *("--jwt-issuer", ISSUER, "--jwt-audience", AUDIENCE),
        *("--jwt-jwks-file", str(jwks_file(tmp_path, ("r1", rsa_key), ("e1", ed_key)))),
        *("--rate-limit", "GetPlayer=1/5"),
    )
    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": "user-7", "exp": int(time.time()) + 3600}
    forged = [
        jwt.encode(claims, rsa_key, "RS256", headers={"kid": "e1"}),
        jwt.encode(claims, ed_key, "EdDSA", headers={"kid": "r1"}),
        jwt.encode({**claims, "exp": 10**400}, rsa_key, "RS256", headers={"kid": "r1"}),
    ]
    logged_before = len(server.log_lines)
    refusals = []
    async with MercadoClient(server.target, reconnect_seconds=0) as client:
        began = time.monotonic()
        for attempt in range(30):
            request = players_api.GetPlayerRequest()
            refusals.append(
                await refusal(client.stub.GetPlayer(request, metadata=bearer(forged[attempt % 3])))
            )
        took = time.monotonic() - began
    codes = [error.code() for error in refusals]
    assert set(codes) == {Code.UNAUTHENTICATED, Code.RESOURCE_EXHAUSTED}, [e.details() for e in refusals[:3]]
    assert codes.count(Code.UNAUTHENTICATED) <= 5 + 1 + took, codes  # the burst, and what refilled meanwhile
    for error in refusals:
        assert_reason(error, error.code())
        if error.code() == Code.UNAUTHENTICATED:
            assert error.details().startswith("the player credential is not valid: "), error.details()
            assert "<" not in error.details() and " at 0x" not in error.details(), error.details()
    logged = "".join(server.log_lines[logged_before:])
    assert "Traceback" not in logged and "internal error" not in logged, logged[:2000]


async def test_a_credential_sent_but_not_valid_says_so(start: Start) -> None:
    server = start()
    async with MercadoClient(server.target) as client:
        guest = await client.stub.CreatePlayer(players_api.CreatePlayerRequest(display_name="ada"))
        header, claims, _ = guest.player_token.split(".")
        for credential, why in [
            (f"{header}.{claims}.{'A' * 43}", "bad signature"),
            ("a.b.c", "it is not a well-formed JWT"),
            ("not-a-jwt-but-a-seat-token-0123456789abcdef", "it is not a JWT"),
        ]:
            error = await refusal(
                client.stub.GetPlayer(players_api.GetPlayerRequest(), metadata=bearer(credential))
            )
            assert_reason(error, Code.UNAUTHENTICATED)
            assert error.details().startswith(f"the player credential is not valid: {why}"), error.details()
        error = await refusal(client.stub.GetPlayer(players_api.GetPlayerRequest()))
        assert error.details().startswith("a player credential is required"), error.details()
