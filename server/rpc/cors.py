"""Cross-origin calls to the web port: which pages on other origins may call MatchService there.

A page on another origin (a frontend of its own, on its own domain) calls the web port's gRPC-Web
paths with fetch, which the browser lets it do only when the server says so (CORS,
https://fetch.spec.whatwg.org/#http-cors-protocol): first a preflight ``OPTIONS`` asking for the
method and request headers the call will send, then the call, whose response headers the page
may read only as far as the server exposes them. The origins allowed are the operator's
(``mercado serve --web-cors-origin``); ``*`` allows every origin, which is safe here because
no call relies on cookies (every credential is a bearer token the page sends itself). A page
of any other origin gets no CORS header, and its preflight is refused with 403, so the browser
sends nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

ANY_ORIGIN = "*"
# What a gRPC-Web client sends: Connect's createGrpcWebTransport (content-type, x-grpc-web,
# x-user-agent, grpc-timeout; grpc-encoding and grpc-accept-encoding with compression) and
# grpc-web's JavaScript client alike, and the bearer credential. The Connect protocol's own
# headers are allowed too, so that a page using createConnectTransport by mistake is told why by
# the call itself (415, gRPC-Web only) rather than by a failed preflight.
ALLOWED_HEADERS = (
    "authorization",
    "content-type",
    "x-grpc-web",
    "x-user-agent",
    "grpc-timeout",
    "grpc-encoding",
    "grpc-accept-encoding",
    "connect-protocol-version",
    "connect-timeout-ms",
    "connect-content-encoding",
    "connect-accept-encoding",
)
# What a client reads of a response: the status (in headers when a call fails before its
# first message), its details, and how long a fair-use refusal asks to wait.
EXPOSED_HEADERS = ("grpc-status", "grpc-message", "grpc-status-details-bin", "retry-after")
DEFAULT_PORTS = {"http": 80, "https": 443}
MAX_AGE_SECONDS = 7200  # how long a browser may keep a preflight's answer (Chromium's own cap)


def check_origin(value: str) -> str:
    """An origin as browsers send it (``https://play.example.com``, ``http://localhost:5173``), or
    ``*``; ValueError with the reason otherwise."""
    if value == ANY_ORIGIN:
        return value
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError:
        parts, port = None, None
    if (
        parts is None
        or parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
        or parts.username is not None
    ):
        raise ValueError(f"{value!r} is not an origin: scheme://host[:port], with no path (or *)")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname  # an IPv6 address
    origin = f"{parts.scheme}://{host}"
    # A browser leaves the scheme's own port out of the origin it sends.
    return origin if port in (None, DEFAULT_PORTS[parts.scheme]) else f"{origin}:{port}"


@dataclass(frozen=True)
class CorsPolicy:
    """The origins whose pages may call the web port's gRPC-Web paths (each as check_origin
    returns it); none by default."""

    origins: frozenset[str] = frozenset()

    def allows(self, origin: str) -> bool:
        return ANY_ORIGIN in self.origins or origin.lower() in self.origins

    def preflight_headers(self, origin: str) -> list[tuple[bytes, bytes]]:
        """The answer to an allowed origin's preflight."""
        return [
            *self.response_headers(origin),
            (b"access-control-allow-methods", b"POST"),
            (b"access-control-allow-headers", ", ".join(ALLOWED_HEADERS).encode()),
            (b"access-control-max-age", str(MAX_AGE_SECONDS).encode()),
        ]

    def response_headers(self, origin: str | None) -> list[tuple[bytes, bytes]]:
        """What a call's response adds for the page that made it: nothing for an origin not allowed
        (the browser then keeps the response from the page), nor for a caller that sent none."""
        if not self.origins:
            return []
        if origin is None or not self.allows(origin):
            # The answer depends on the origin: a shared cache must not give it to another.
            return [] if ANY_ORIGIN in self.origins else [(b"vary", b"origin")]
        allowed = ANY_ORIGIN if ANY_ORIGIN in self.origins else origin
        headers = [
            (b"access-control-allow-origin", allowed.encode("latin-1")),
            (b"access-control-expose-headers", ", ".join(EXPOSED_HEADERS).encode()),
        ]
        if allowed != ANY_ORIGIN:
            headers.append((b"vary", b"origin"))
        return headers
