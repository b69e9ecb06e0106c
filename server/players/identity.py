"""Who a caller is: a player credential, verified.

Two kinds of player credential are JWTs, told apart by their issuer:

- guest tokens, which this server signs itself (HS256 with a secret kept in its
  database) for the accounts CreatePlayer makes; they do not expire, and each
  carries its player's token generation (``gen``), which RotatePlayerToken
  moves on: a token of an earlier generation is revoked (``GuestTokens``,
  guest_tokens.py, checks that; this module checks signatures);
- a frontend's own users: the frontend signs a JWT for its user, and the server
  checks it against the operator's configuration (HS256 with a shared secret, or
  RS256 / EdDSA with the public keys of a JWKS file), with the issuer, the
  audience, ``exp`` and ``nbf``. Their player id follows from issuer and ``sub``.

A seat token is not a JWT (it has no dots), so the two never meet.
"""

from __future__ import annotations

import hashlib
import logging
import re
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt

from server.match.errors import InvalidRequest, Unauthenticated
from server.match.inputs import check_name
from server.store.records import EXTERNAL, GUEST

GUEST_ISSUER = "mercado"  # the issuer of this server's guest tokens
PLAYER_ID = re.compile(r"^[0-9a-f]{32}$")
# What a JWKS file's keys may sign with, and the kind of key (JWK ``kty``) each algorithm needs.
KEY_TYPES = {"RS256": "RSA", "RS384": "RSA", "RS512": "RSA", "EdDSA": "OKP"}
NOT_VALID = "the player credential is not valid"  # how every refusal of one begins
MAX_CREDENTIAL_LENGTH = 8192
# Verified credentials remembered, so that a call does not verify again (about 0.2 ms of the event loop
# each); a server remembers as many as its streams' cap, a credential for each player it may hold.
VERIFIED_KEPT = 10_000
LEEWAY_SECONDS = 30  # clocks of frontend and server may differ this much
PLAIN = re.compile(r"[\w ,.:;'()-]{1,120}")  # a reason from PyJWT that can be passed on as it is
log = logging.getLogger("mercado.players")


@dataclass(frozen=True)
class Identity:
    """A verified player: its id, kind and (for a frontend's user) the display name its token gives."""

    player_id: str
    kind: str  # GUEST or EXTERNAL
    display_name: str = ""  # empty for a guest: its stored name is its own
    expires: float | None = None  # a frontend token's exp (Unix seconds)
    generation: int = 0  # a guest token's generation (none before tokens had one: 0)


@dataclass(frozen=True)
class FrontendTokens:
    """How a frontend's JWTs are checked: its issuer and audience, and its HS256 secret or public keys."""

    issuer: str
    audience: str
    secret: bytes | None = None
    keys: jwt.PyJWKSet | None = None

    @classmethod
    def load(
        cls, issuer: str, audience: str, secret_file: Path | None, jwks_file: Path | None
    ) -> FrontendTokens:
        """From the operator's files; ValueError with a one-line reason when they cannot be used."""
        if (secret_file is None) == (jwks_file is None):
            raise ValueError("give either --jwt-secret-file (HS256) or --jwt-jwks-file (RS256, EdDSA)")
        if not issuer or not audience:
            raise ValueError("a frontend's tokens need --jwt-issuer and --jwt-audience")
        if issuer == GUEST_ISSUER:
            raise ValueError(f"the issuer {GUEST_ISSUER!r} is this server's own (guest tokens)")
        if secret_file is not None:
            secret = secret_file.read_bytes().strip()
            if len(secret) < 32:
                raise ValueError("the HS256 secret must be at least 32 bytes")
            return cls(issuer, audience, secret=secret)
        assert jwks_file is not None
        try:
            keys = jwt.PyJWKSet.from_json(jwks_file.read_text())
        except (jwt.PyJWKSetError, jwt.InvalidKeyError, ValueError) as error:
            raise ValueError(f"{jwks_file} is not a usable JWKS file: {error}") from None
        return cls(issuer, audience, keys=keys)


def external_player_id(issuer: str, subject: str) -> str:
    """The player a frontend's user is here: the same user of the same frontend, the same player."""
    return hashlib.sha256(f"{issuer}\0{subject}".encode()).hexdigest()[:32]


def is_player_credential(credential: str) -> bool:
    """A JWT (three dot-separated parts); a seat token or agent key has no dot."""
    return credential.count(".") == 2


class Authenticator:
    """Issues guest tokens and verifies player credentials (remembering those it verified)."""

    def __init__(
        self, guest_secret: bytes, frontend: FrontendTokens | None = None, kept: int = VERIFIED_KEPT
    ) -> None:
        self.guest_secret = guest_secret
        self.frontend = frontend
        self.kept = kept
        self.verified: OrderedDict[str, Identity] = OrderedDict()

    def guest_token(self, player_id: str, generation: int = 0) -> str:
        claims = {"iss": GUEST_ISSUER, "sub": player_id, "iat": int(time.time()), "gen": generation}
        return jwt.encode(claims, self.guest_secret, "HS256")

    def identify(self, credential: str) -> Identity:
        """The player ``credential`` names; Unauthenticated with the reason when it fails a check."""
        known = self.verified.get(credential)
        if known is not None and (known.expires is None or known.expires > time.time() - LEEWAY_SECONDS):
            self.verified.move_to_end(credential)
            return known
        identity = self._verify(credential)
        self.verified[credential] = identity
        if len(self.verified) > self.kept:
            self.verified.popitem(last=False)
        return identity

    def _verify(self, credential: str) -> Identity:
        if len(credential) > MAX_CREDENTIAL_LENGTH:
            raise Unauthenticated(f"{NOT_VALID}: it is too long")
        try:
            # Read once, unverified, to know whose key verifies it.
            unverified = jwt.api_jwt.decode_complete(credential, options={"verify_signature": False})
            header, issuer = unverified["header"], unverified["payload"].get("iss")
            if issuer == GUEST_ISSUER:
                return self._guest(credential)
            if self.frontend is not None and issuer == self.frontend.issuer:
                return self._frontend(credential, header, self.frontend)
        except jwt.PyJWTError as error:
            raise Unauthenticated(f"{NOT_VALID}: {_reason(error)}") from None
        except Exception as error:
            # Whatever else a forged token makes PyJWT or the cryptography library raise (a number
            # too large, a key it cannot use): the token's fault, never the server's.
            log.debug("a player credential failed verification", extra={"error": type(error).__name__})
            raise Unauthenticated(f"{NOT_VALID}: it could not be verified") from None
        raise Unauthenticated(f"{NOT_VALID}: its issuer is not one this server trusts")

    def _guest(self, credential: str) -> Identity:
        claims = jwt.decode(
            credential,
            self.guest_secret,
            algorithms=["HS256"],
            issuer=GUEST_ISSUER,
            options={"require": ["iss", "sub"]},
        )
        subject, generation = claims["sub"], claims.get("gen", 0)
        if not isinstance(subject, str) or not PLAYER_ID.match(subject):
            raise jwt.InvalidTokenError("its subject is not a player id")
        if type(generation) is not int or generation < 0:
            raise jwt.InvalidTokenError("its generation is not a count")
        return Identity(subject, GUEST, generation=generation)

    def _frontend(self, credential: str, header: dict[str, Any], frontend: FrontendTokens) -> Identity:
        algorithm = header.get("alg")
        key: Any
        if frontend.secret is not None:
            if algorithm != "HS256":
                raise jwt.InvalidAlgorithmError("the algorithm is not allowed")
            key = frontend.secret
        else:
            assert frontend.keys is not None
            if not isinstance(algorithm, str) or algorithm not in KEY_TYPES:
                raise jwt.InvalidAlgorithmError("the algorithm is not allowed")
            key = _key(frontend.keys, header.get("kid"), KEY_TYPES[algorithm])
        claims = jwt.decode(
            credential,
            key,
            algorithms=[str(algorithm)],
            issuer=frontend.issuer,
            audience=frontend.audience,
            leeway=LEEWAY_SECONDS,
            options={"require": ["iss", "aud", "sub", "exp"]},
        )
        subject = claims["sub"]
        if not isinstance(subject, str) or not 0 < len(subject) <= 256:
            raise jwt.InvalidTokenError("its subject is not a user id")
        player_id = external_player_id(frontend.issuer, subject)
        return Identity(player_id, EXTERNAL, _name(claims.get("name"), player_id), float(claims["exp"]))


def _key(keys: jwt.PyJWKSet, kid: object, key_type: str) -> Any:
    """The JWKS key the token names (its only key when the token names none), if it is of ``key_type``,
    the kind its algorithm needs."""
    if kid is None:
        if len(keys.keys) != 1:
            raise jwt.InvalidTokenError("it names no key (kid) and the key set has several")
        found = keys.keys[0]
    else:
        named = [key for key in keys.keys if key.key_id == kid]
        if not named:
            raise jwt.InvalidSignatureError("it is signed with a key this server does not know")
        found = named[0]
    if found.key_type != key_type:
        raise jwt.InvalidAlgorithmError("its algorithm is not that of the key it names")
    return found.key


def _name(claim: object, player_id: str) -> str:
    """The token's display name if it is a valid one; else a neutral name from the player id."""
    if isinstance(claim, str):
        try:
            return check_name(claim)
        except InvalidRequest:
            pass
    return f"player-{player_id[:6]}"


def _reason(error: jwt.PyJWTError) -> str:
    """One line, what a frontend developer needs to fix."""
    reasons: list[tuple[type[jwt.PyJWTError], str]] = [
        (jwt.ExpiredSignatureError, "it has expired"),
        (jwt.ImmatureSignatureError, "it is not valid yet"),
        (jwt.InvalidIssuerError, "wrong issuer"),
        (jwt.InvalidAudienceError, "wrong audience"),
        (jwt.InvalidSignatureError, "bad signature"),
        (jwt.InvalidAlgorithmError, "the algorithm is not allowed"),
        (jwt.MissingRequiredClaimError, "a required claim is missing"),
        (jwt.DecodeError, "it is not a well-formed JWT"),
        (jwt.InvalidKeyError, "its algorithm is not that of the key it names"),
    ]
    for kind, reason in reasons:
        if isinstance(error, kind):
            if isinstance(error, jwt.MissingRequiredClaimError):
                return f"it has no {error.claim!r} claim"
            if isinstance(error, jwt.InvalidSignatureError | jwt.InvalidAlgorithmError) and str(
                error
            ).startswith("it"):
                return str(error)
            return reason
    # PyJWT's own words, when they are a plain line (never a Python repr such as ``<generator ...>``).
    text = str(error)
    return text if PLAIN.fullmatch(text) else "it is not valid"
