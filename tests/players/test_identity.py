"""Player credentials: guest tokens, and a frontend's JWTs in every way they can fail."""

from __future__ import annotations

import time
from pathlib import Path

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519, rsa
from jwks import jwks_file

from server.match.errors import Unauthenticated
from server.players.identity import (
    Authenticator,
    FrontendTokens,
    Identity,
    external_player_id,
    is_player_credential,
)

SECRET = b"s" * 32
ISSUER, AUDIENCE = "https://frontend.example", "mercado"
GUEST = "0123456789abcdef0123456789abcdef"


def claims(**changes: object) -> dict[str, object]:
    now = int(time.time())
    base: dict[str, object] = {
        "iss": ISSUER,
        "aud": AUDIENCE,
        "sub": "user-7",
        "name": "Ana",
        "exp": now + 86_400,  # parametrized claims are made at collection, long before their test runs
    }
    base.update(changes)
    return {key: value for key, value in base.items() if value is not None}


def hs256() -> Authenticator:
    return Authenticator(b"g" * 32, FrontendTokens(ISSUER, AUDIENCE, secret=SECRET))


def refusal(auth: Authenticator, token: str) -> str:
    with pytest.raises(Unauthenticated) as refused:
        auth.identify(token)
    return refused.value.reason


def test_a_guest_token_names_its_player_and_is_a_player_credential() -> None:
    auth = hs256()
    token = auth.guest_token(GUEST)
    assert is_player_credential(token)
    assert not is_player_credential("A" * 43)  # a seat token
    identity = auth.identify(token)
    assert (identity.player_id, identity.kind) == (GUEST, "guest")
    # Signed with another server's secret: refused.
    assert "bad signature" in refusal(Authenticator(b"h" * 32), token)


def test_a_guest_token_carries_its_generation() -> None:
    auth = hs256()
    assert auth.identify(auth.guest_token(GUEST, 3)).generation == 3
    # Made before tokens had a generation: the first one.
    before = jwt.encode({"iss": "mercado", "sub": GUEST, "iat": 1}, b"g" * 32, "HS256")
    assert auth.identify(before).generation == 0
    for bad in (-1, "2", 1.5, True):
        forged = jwt.encode({"iss": "mercado", "sub": GUEST, "gen": bad}, b"g" * 32, "HS256")
        assert refusal(auth, forged).endswith("its generation is not a count")


def test_a_frontend_hs256_token_names_a_stable_player() -> None:
    identity = hs256().identify(jwt.encode(claims(), SECRET, "HS256"))
    assert identity.player_id == external_player_id(ISSUER, "user-7")
    assert (identity.kind, identity.display_name) == ("external", "Ana")
    # Another token of the same user: the same player.
    again = hs256().identify(jwt.encode(claims(exp=int(time.time()) + 900), SECRET, "HS256"))
    assert again.player_id == identity.player_id


@pytest.mark.parametrize(
    ("token_claims", "key", "reason"),
    [
        (claims(exp=int(time.time()) - 3600), SECRET, "it has expired"),
        (claims(nbf=int(time.time()) + 3600), SECRET, "it is not valid yet"),
        (claims(aud="someone-else"), SECRET, "wrong audience"),
        (claims(), b"x" * 32, "bad signature"),
        (claims(exp=None), SECRET, "it has no 'exp' claim"),
        (claims(sub=None), SECRET, "it has no 'sub' claim"),
        (claims(iss="https://other.example"), SECRET, "its issuer is not one this server trusts"),
    ],
)
def test_a_frontend_token_that_fails_a_check_is_refused_with_its_reason(
    token_claims: dict[str, object], key: bytes, reason: str
) -> None:
    assert reason in refusal(hs256(), jwt.encode(token_claims, key, "HS256"))


def test_alg_none_and_other_algorithms_are_refused() -> None:
    unsigned = jwt.encode(claims(), None, "none")  # type: ignore[arg-type]
    assert "the algorithm is not allowed" in refusal(hs256(), unsigned)
    guest_unsigned = jwt.encode({"iss": "mercado", "sub": GUEST}, None, "none")  # type: ignore[arg-type]
    assert "the algorithm is not allowed" in refusal(hs256(), guest_unsigned)
    assert "the algorithm is not allowed" in refusal(hs256(), jwt.encode(claims(), SECRET * 2, "HS512"))


def test_garbage_is_refused_as_malformed() -> None:
    assert "not a well-formed JWT" in refusal(hs256(), "a.b.c")
    assert "too long" in refusal(hs256(), "a." + "b" * 9000 + ".c")


def test_rs256_and_eddsa_tokens_are_checked_against_the_jwks_file(tmp_path: Path) -> None:
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ed_key = ed25519.Ed25519PrivateKey.generate()
    frontend = FrontendTokens.load(
        ISSUER, AUDIENCE, None, jwks_file(tmp_path, ("r1", rsa_key), ("e1", ed_key))
    )
    auth = Authenticator(b"g" * 32, frontend)
    rs = jwt.encode(claims(), rsa_key, "RS256", headers={"kid": "r1"})
    ed = jwt.encode(claims(sub="user-8"), ed_key, "EdDSA", headers={"kid": "e1"})
    assert auth.identify(rs).player_id == external_player_id(ISSUER, "user-7")
    assert auth.identify(ed).player_id == external_player_id(ISSUER, "user-8")
    # Signed by a key the file does not hold, under a known kid or an unknown one.
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    assert "bad signature" in refusal(auth, jwt.encode(claims(), stranger, "RS256", headers={"kid": "r1"}))
    assert "a key this server does not know" in refusal(
        auth, jwt.encode(claims(), stranger, "RS256", headers={"kid": "r9"})
    )
    # HS256 with the public key as its secret (the classic confusion): refused.
    assert "the algorithm is not allowed" in refusal(auth, jwt.encode(claims(), SECRET, "HS256"))
    # Expired, with an asymmetric key as well.
    expired = jwt.encode(claims(exp=int(time.time()) - 3600), ed_key, "EdDSA", headers={"kid": "e1"})
    assert "it has expired" in refusal(auth, expired)


def test_a_remembered_token_is_refused_once_it_expires() -> None:
    auth = hs256()
    expired = int(time.time()) - 100  # beyond the leeway
    token = jwt.encode(claims(exp=expired), SECRET, "HS256")
    # As it was remembered when it was still valid.
    auth.verified[token] = Identity(external_player_id(ISSUER, "user-7"), "external", "Ana", float(expired))
    assert "it has expired" in refusal(auth, token)


def test_the_operators_configuration_is_checked(tmp_path: Path) -> None:
    short = tmp_path / "short"
    short.write_bytes(b"tooshort")
    with pytest.raises(ValueError, match="at least 32 bytes"):
        FrontendTokens.load(ISSUER, AUDIENCE, short, None)
    with pytest.raises(ValueError, match="either --jwt-secret-file"):
        FrontendTokens.load(ISSUER, AUDIENCE, None, None)
    with pytest.raises(ValueError, match="this server's own"):
        FrontendTokens.load("mercado", AUDIENCE, tmp_path / "x", None)
    bad = tmp_path / "bad.json"
    bad.write_text('{"keys": 3}')
    with pytest.raises(ValueError, match="not a usable JWKS file"):
        FrontendTokens.load(ISSUER, AUDIENCE, None, bad)


def test_as_many_verified_credentials_are_remembered_as_the_server_asks() -> None:
    # A server remembers one for each player it may hold streams for: their calls verify once.
    auth = Authenticator(b"g" * 32, kept=2)
    tokens = [auth.guest_token(f"{n:032x}") for n in range(3)]
    for token in tokens:
        auth.identify(token)
    assert list(auth.verified) == tokens[1:]  # the least recently used is forgotten
