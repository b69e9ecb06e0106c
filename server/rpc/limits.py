"""Fair use: per-client rate limits (token buckets) and caps on the streams a client holds open.

A client is its network address: an IPv4 address, or an IPv6 /64 (what one
subscriber usually gets). Networks the operator trusts (``--rate-limit-exempt``)
have no per-client limits; the server-wide caps still count them. Behind a load
balancer or proxy the operator names (``--trusted-proxy``), a call's client is
the address that proxy forwards in ``x-forwarded-for``.
"""

from __future__ import annotations

import functools
import ipaddress
import math
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import unquote

from server.match.errors import Throttled
from server.match.holdings import Holdings, holders

MAX_CLIENTS = 100_000  # buckets kept at most; full ones go first, as they are the same as new ones
EXEMPT = ""  # the client key of a trusted network: no per-client limit applies
STREAM_RETRY_SECONDS = 5


@dataclass(frozen=True)
class Rate:
    """A token bucket: ``burst`` calls at once, then ``per_second`` on average."""

    per_second: float
    burst: float

    @classmethod
    def parse(cls, text: str) -> Rate:
        """``RATE/BURST`` calls, e.g. ``2/60``."""
        rate, _, burst = text.partition("/")
        per_second, size = float(rate), float(burst or rate)
        if not (per_second > 0 and size >= 1 and math.isfinite(per_second) and math.isfinite(size)):
            raise ValueError(f"{text!r}: a rate above 0 and a burst of at least 1, as RATE/BURST")
        return cls(per_second, size)

    def __str__(self) -> str:
        return f"{self.per_second:g}/{self.burst:g}"

    def describe(self) -> str:
        """As a refusal says it: ``at most 0.2 per second (bursts of 10)``."""
        return f"at most {self.per_second:g} per second (bursts of {self.burst:g})"


# Per client and method: generous for people playing and for an AI agent, far below a flood.
DEFAULT_RATES: Mapping[str, Rate] = {
    "CreateMatch": Rate(2, 60),
    "JoinMatch": Rate(5, 60),
    "ClaimBotSeat": Rate(5, 30),
    "ListMatches": Rate(5, 30),
    "GetView": Rate(20, 200),
    "StreamEvents": Rate(10, 100),
    "SubmitAction": Rate(50, 200),
    "GetReplay": Rate(5, 30),
    "LeaveMatch": Rate(2, 20),
    "ReclaimSeat": Rate(2, 20),
    "AgentHeartbeat": Rate(5, 20),
    "CreatePlayer": Rate(0.2, 10),  # a guest account is made once per device, not per match
    "RotatePlayerToken": Rate(0.1, 5),
    "GetPlayer": Rate(5, 60),
    "GetLeaderboard": Rate(5, 30),
    "FindMatch": Rate(1, 10),
}
# Counted by the caller's network whatever credential the call carries: a guest made with one guest's
# token would otherwise be a new budget for the next.
BY_NETWORK = frozenset({"CreatePlayer"})


def parse_rates(specs: Iterable[str]) -> dict[str, Rate | None]:
    """``METHOD=RATE/BURST`` or ``METHOD=off`` (``all`` for every method), in order, over the defaults."""
    rates: dict[str, Rate | None] = dict(DEFAULT_RATES)
    for spec in filter(None, (part.strip() for part in specs)):
        method, _, value = spec.partition("=")
        if method != "all" and method not in DEFAULT_RATES:
            raise ValueError(f"{method[:40]!r} is not 'all' or one of {', '.join(DEFAULT_RATES)}")
        rate = None if value == "off" else Rate.parse(value)
        for name in DEFAULT_RATES if method == "all" else (method,):
            rates[name] = rate
    return rates


@dataclass(frozen=True)
class FairUse:
    """Every per-client limit and server-wide cap of the RPC layer."""

    rates: Mapping[str, Rate | None] = field(default_factory=lambda: dict(DEFAULT_RATES))
    streams_per_client: int = 100
    streams_per_network: int = 1_000  # every player calling from one network, together
    streams: int = 10_000
    exempt: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()
    proxies: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()  # x-forwarded-for trusted

    def clients(self) -> Clients:
        return Clients(self.exempt, self.proxies)

    def stream_slots(self) -> StreamSlots:
        return StreamSlots(self.streams_per_client, self.streams_per_network, self.streams)


class RateLimiter:
    """Token buckets per (method, client)."""

    def __init__(self, rates: Mapping[str, Rate | None]) -> None:
        self.rates = {method: rate for method, rate in rates.items() if rate is not None}
        self.buckets: dict[tuple[str, str], list[float]] = {}  # -> [tokens, when counted]

    def take(self, method: str, client: str) -> None:
        """Spend one call of ``client``'s bucket for ``method``; Throttled when it is empty."""
        rate = self.rates.get(method)
        if rate is None or client == EXEMPT:
            return
        now = time.monotonic()
        key = (method, client)
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) >= MAX_CLIENTS:
                self._forget(now)
            bucket = self.buckets[key] = [rate.burst, now]
        tokens = min(rate.burst, bucket[0] + (now - bucket[1]) * rate.per_second)
        bucket[1] = now
        if tokens >= 1:
            bucket[0] = tokens - 1
            return
        bucket[0] = tokens
        wait = (1 - tokens) / rate.per_second
        raise Throttled(f"too many {method} calls: {rate.describe()}", wait)

    def _forget(self, now: float) -> None:
        """Drop the buckets that have filled up again; if that is not enough, the oldest half."""
        for key, (tokens, counted) in list(self.buckets.items()):
            rate = self.rates[key[0]]
            if tokens + (now - counted) * rate.per_second >= rate.burst:
                del self.buckets[key]
        if len(self.buckets) >= MAX_CLIENTS:
            for key in list(self.buckets)[: MAX_CLIENTS // 2]:
                del self.buckets[key]


class StreamSlots:
    """Open streams per client, per network (``Holdings``) and in all; ``acquire`` refuses beyond
    any cap. An exempt client (the empty key) counts only toward the total."""

    def __init__(self, per_client: int, per_network: int, total: int) -> None:
        self.by_caller = Holdings("streams open", per_client, per_network, STREAM_RETRY_SECONDS)
        self.total = total
        self.open = 0

    def acquire(self, client: str, network: str) -> None:
        """Hold a stream for ``client`` calling from ``network`` (its key, ``Clients.key``)."""
        if self.open >= self.total:
            raise Throttled("the server has too many open streams", STREAM_RETRY_SECONDS)
        keys = holders(client, network)
        self.by_caller.check(keys)
        self.by_caller.add(keys)
        self.open += 1

    def release(self, client: str, network: str) -> None:
        self.open -= 1
        self.by_caller.remove(holders(client, network))


def grpc_peer(client: tuple[str, int] | None) -> str:
    """A socket's (host, port) as gRPC names peers: ``ipv4:1.2.3.4:5678``, ``ipv6:[::1]:5678``."""
    if client is None:
        return "unknown"
    host, port = client
    return f"ipv6:[{host}]:{port}" if ":" in host else f"ipv4:{host}:{port}"


Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class Clients:
    """Who a call comes from, as rate limits and caps count it."""

    def __init__(self, exempt: Iterable[Network] = (), proxies: Iterable[Network] = ()) -> None:
        self.exempt = tuple(exempt)
        self.proxies = tuple(proxies)
        self.key = functools.lru_cache(maxsize=65_536)(self._key)

    def _key(self, peer: str, forwarded_for: str | None = None) -> str:
        """The client of a gRPC peer string (``ipv4:1.2.3.4:5678``, ``ipv6:[::1]:5678``, maybe
        %-encoded), or, when the peer is a trusted proxy, of the address it forwards: the last one
        in ``forwarded_for`` that is not itself a trusted proxy. A trusted proxy's own calls and
        connections (nothing forwarded) have no per-client limit."""
        kind, _, rest = unquote(peer).partition(":")
        if kind == "ipv4":
            host = rest.rpartition(":")[0]
        elif kind == "ipv6":
            host = rest[1 : rest.find("]")] if rest.startswith("[") else rest.rpartition(":")[0]
        else:
            return peer  # a Unix socket and the like: one client
        address = _address(host)
        if address is None:
            return peer
        if self._proxy(address):
            forwarded = [_address(hop.strip()) for hop in (forwarded_for or "").split(",")]
            clients = [hop for hop in forwarded if hop is not None and not self._proxy(hop)]
            if not clients:
                return EXEMPT
            address = clients[-1]
        if any(address in network for network in self.exempt):
            return EXEMPT
        if isinstance(address, ipaddress.IPv6Address):
            return str(ipaddress.IPv6Network((address, 64), strict=False))
        return str(address)

    def _proxy(self, address: Address) -> bool:
        return any(address in network for network in self.proxies)


def _address(host: str) -> Address | None:
    try:
        address = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        return address.ipv4_mapped
    return address
