"""The one piece of protobuf's wire format written by hand: a serialized message as a field of
another. Everything else is serialized by protobuf; concatenated serializations parse as one
merged message, so messages are built from cached serialized parts and these fields wrap them."""

from __future__ import annotations

from google.protobuf.descriptor import Descriptor


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


# Nearly every length written is under 16 KiB (one or two bytes): those are looked up.
_SMALL_VARINTS = [_encode_varint(value) for value in range(1 << 14)]


def _varint(value: int) -> bytes:
    return _SMALL_VARINTS[value] if value < 1 << 14 else _encode_varint(value)


def field_key(descriptor: Descriptor, name: str) -> bytes:
    """The key of message field ``name`` of ``descriptor`` (wire type 2: length-delimited)."""
    return _varint(descriptor.fields_by_name[name].number << 3 | 2)


def embedded(key: bytes, message: bytes) -> bytes:
    """A serialized message as the field whose key (``field_key``) is ``key``."""
    return key + _varint(len(message)) + message
