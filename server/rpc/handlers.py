"""MatchService's method handlers, for the gRPC server and the gRPC-Web port alike.

The generated registration passes each request's bytes to ``FromString``. When
that fails (garbage, invalid UTF-8 in a string) gRPC answers UNKNOWN and logs a
traceback. Here a request that does not decode becomes an ``Undecodable``
instead, which the servicer refuses as INVALID_ARGUMENT with a one-line reason.

A response may also be bytes, a message the server serialized already (each seat's stream
update is built once as bytes, ``render.py``): those are sent as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf.message import DecodeError
from mercado.v1 import match_pb2_grpc


@dataclass(frozen=True)
class Undecodable:
    """A request whose bytes are not a valid message of its type."""

    reason: str


def _tolerant(deserialize: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
    def decode(data: bytes) -> Any:
        try:
            return deserialize(data)
        except (DecodeError, UnicodeDecodeError, ValueError) as error:
            return Undecodable(str(error).splitlines()[0][:120] if str(error) else type(error).__name__)

    return decode


class _Registry:
    """Takes the method handlers that the generated ``add_..._to_server`` registers on a server."""

    def __init__(self) -> None:
        self.service = ""
        self.handlers: dict[str, grpc.RpcMethodHandler] = {}

    def add_generic_rpc_handlers(self, handlers: object) -> None:
        pass  # the same handlers arrive by name below

    def add_registered_method_handlers(self, service: str, handlers: Mapping[str, Any]) -> None:
        self.service = service
        self.handlers.update(handlers)


def _passing_bytes(serialize: Callable[[Any], bytes]) -> Callable[[Any], bytes]:
    def encode(response: Any) -> bytes:
        return response if type(response) is bytes else serialize(response)

    return encode


def method_handlers(servicer: match_pb2_grpc.MatchServiceServicer) -> tuple[str, dict[str, Any]]:
    """The service's full name and its handlers by method name, with tolerant deserializers and
    serializers that send bytes as they are."""
    registry = _Registry()
    match_pb2_grpc.add_MatchServiceServicer_to_server(servicer, registry)
    handlers = {
        name: handler._replace(
            request_deserializer=_tolerant(handler.request_deserializer),
            response_serializer=_passing_bytes(handler.response_serializer),
        )
        for name, handler in registry.handlers.items()
    }
    return registry.service, handlers


def add_to_server(servicer: match_pb2_grpc.MatchServiceServicer, server: grpc.aio.Server) -> None:
    service, handlers = method_handlers(servicer)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, handlers),))
    server.add_registered_method_handlers(service, handlers)
