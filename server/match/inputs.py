"""Checks of what callers send, made before anything is looked up: ids, tokens, display names.

A refusal quotes at most QUOTE_CHARACTERS of what the caller sent.
"""

from __future__ import annotations

import re
import unicodedata

from mercado_client.text import UNPRINTABLE_CATEGORIES

from .errors import InvalidRequest, Unauthenticated

MAX_NAME_LENGTH = 40
MAX_REQUEST_ID_LENGTH = 128
QUOTE_CHARACTERS = 64
MATCH_ID = re.compile(r"[0-9a-f]{32}")
REQUEST_ID = re.compile(rf"[A-Za-z0-9._:-]{{1,{MAX_REQUEST_ID_LENGTH}}}")
SEAT_TOKEN = re.compile(r"[A-Za-z0-9_-]{43}")  # secrets.token_urlsafe(32)
MAX_COMBINING_RUN = 2  # marks stacked on one letter: more only smear over other lines


def quote(text: str) -> str:
    """Caller input as a refusal may show it: repr'd, cut to QUOTE_CHARACTERS."""
    if len(text) > QUOTE_CHARACTERS:
        return repr(text[:QUOTE_CHARACTERS]) + "..."
    return repr(text)


STAND_IN_REQUESTS = "ai/"  # how the request ids of the AI's moves for the seats it stands in for begin


def stand_in_request_id(version: int) -> str:
    """The request id of the AI's move for a seat it stands in for, at ``version``: the same on
    every server (one of them stores it), and with a '/', which no caller's request id holds, so a
    seat cannot take it first and stop the stand-in from moving."""
    return f"{STAND_IN_REQUESTS}{version}"


def by_stand_in(request_id: str) -> bool:
    """Whether the action of ``request_id`` was the AI's, standing in for its seat's owner."""
    return request_id.startswith(STAND_IN_REQUESTS)


def check_match_id(match_id: str) -> str:
    if not MATCH_ID.fullmatch(match_id):
        raise InvalidRequest("match_id must be 32 lowercase hexadecimal characters")
    return match_id


def check_request_id(request_id: str) -> str:
    if not REQUEST_ID.fullmatch(request_id):
        raise InvalidRequest(
            f"request_id must be 1 to {MAX_REQUEST_ID_LENGTH} letters, digits, '-', '_', '.' or ':'"
        )
    return request_id


def check_seat_token(token: str) -> str:
    if not SEAT_TOKEN.fullmatch(token):
        raise Unauthenticated("malformed seat token")
    return token


def check_name(name: str) -> str:
    """A display name, NFC-normalised and trimmed: 1 to 40 printable characters."""
    name = unicodedata.normalize("NFC", name).strip()
    if not 1 <= len(name) <= MAX_NAME_LENGTH:
        raise InvalidRequest(f"display name must be 1 to {MAX_NAME_LENGTH} characters")
    combining = 0
    for char in name:
        if unicodedata.category(char) in UNPRINTABLE_CATEGORIES:
            raise InvalidRequest(f"display name may not contain U+{ord(char):04X}")
        combining = combining + 1 if unicodedata.combining(char) else 0
        if combining > MAX_COMBINING_RUN:
            raise InvalidRequest("display name stacks too many combining marks")
    return name
