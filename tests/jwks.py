"""A frontend's JWKS file for the tests of its JWTs: the public halves of test keys, each under its
key id (``kid``), as ``mercado serve --jwt-jwks-file`` reads them."""

from __future__ import annotations

import json
from pathlib import Path

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa


def jwks_file(tmp_path: Path, *keys: tuple[str, object]) -> Path:
    """``tmp_path/jwks.json`` holding the public key of each (kid, RSA or Ed25519 private key)."""
    entries = []
    for kid, private in keys:
        algorithm = (
            jwt.algorithms.RSAAlgorithm
            if isinstance(private, rsa.RSAPrivateKey)
            else jwt.algorithms.OKPAlgorithm
        )
        entry = json.loads(algorithm.to_jwk(private.public_key()))  # type: ignore[attr-defined]
        entry["kid"] = kid
        entries.append(entry)
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps({"keys": entries}))
    return path
