"""What each viewer receives for one update, for every game: its costly parts built once per update
and viewer.

A ``MatchState`` is built from serialized fragments: the part every viewer shares (the summary,
the version, who is to move) once per update, then the game's view for the viewer and, for a seat
that may act, its legal actions (the game's wire, ``server.rpc.wires``), and the scores the viewer
may know, in parts (the rules' ``score_parts``). Concatenated protobuf
serializations parse as one merged message, which keeps this exact without hand-written wire
encoding but for one thing: a stream update and a submitter's answer hold that state and each event
as fields of their own, each written as the field's key and length before its bytes (``encoding.py``),
and every event is serialized once per update and form, however many viewers it reaches. Every
message leaves as the bytes built here (``handlers.py`` sends bytes as they are): each seat's
state and events are serialized once per update, never parsed back, and a stream message puts them
together behind a small head. What a seat may see is decided by the game's rules alone.

Simultaneous choices are sealed: until the step's last choice reveals them, an update made by
another seat's sealed action carries who acted but not the action, and its events are the ones
the rules let the viewer see. So does an update whose action the rules keep private to its seat
(``action_shown``: an Oregano strategy card kept, while strategy cards are hidden).
"""

from __future__ import annotations

from mercado.v1 import match_pb2 as api

from server.match import FINISHED, OWNER, PLAYING, Match, Update

from . import convert
from .encoding import embedded, field_key
from .wires import wire_of
from .wires.scores import score_fragment


def _status(match: Match, update: Update) -> str:
    """The match's status as of ``update``."""
    if update.record is None:
        return match.status
    # After an action every seat was taken; it finished the match only if its state is over.
    return FINISHED if match.rules.is_over(update.state) else PLAYING


def _to_move(match: Match, update: Update) -> list[int]:
    cached: list[int] | None = update.rendered.get("to_move")
    if cached is None:
        playing = _status(match, update) == PLAYING  # nobody is to move while seats are open
        cached = update.rendered["to_move"] = sorted(match.rules.to_move(update.state)) if playing else []
    return cached


_STATE_MATCH = field_key(api.MatchState.DESCRIPTOR, "match")


def _shared(match: Match, update: Update) -> bytes:
    """The part of a MatchState every viewer shares, serialized: summary, version, who is to move."""
    cached: bytes | None = update.rendered.get("shared")
    if cached is None:
        to_move = _to_move(match, update)
        state = api.MatchState(version=update.version, seats_to_move=to_move)
        if len(to_move) == 1:
            state.to_move = to_move[0]
        summary = convert.summary_bytes(match, _status(match, update), update.version)
        cached = update.rendered["shared"] = embedded(_STATE_MATCH, summary) + state.SerializeToString()
    return cached


def _scores(match: Match, update: Update, seat: int | None) -> bytes:
    """Each seat's score that ``seat`` may know, in parts, as a MatchState fragment: none while
    seats are open."""
    if _status(match, update) not in (PLAYING, FINISHED):
        return b""
    rules, state = match.rules, update.state
    every: list[tuple[int, bytes]] | None = update.rendered.get("scores")
    if every is None:
        every = update.rendered["scores"] = [(s.seat, score_fragment(s)) for s in rules.score_parts(state)]
    return b"".join([fragment for owner, fragment in every if rules.score_shown(state, owner, seat)])


def state_bytes(match: Match, update: Update, seat: int | None) -> bytes:
    """The serialized MatchState ``seat`` (None: a spectator) sees as of ``update``: built once, for
    its stream and every GetView alike (the mover's legal actions are the costly part)."""
    key = ("state", seat)
    cached: bytes | None = update.rendered.get(key)
    if cached is not None:
        return cached
    moving = seat in _to_move(match, update) and match.record.seats[seat].played_by == OWNER
    parts = [
        _shared(match, update),
        wire_of(match.record.game).view_bytes(update, seat, moving),
        _scores(match, update, seat),
    ]
    if seat is not None:
        parts.append(api.MatchState(your_seat=seat).SerializeToString())
    cached = update.rendered[key] = b"".join(parts)
    return cached


def match_state(match: Match, update: Update, seat: int | None) -> api.MatchState:
    return api.MatchState.FromString(state_bytes(match, update, seat))


def _hidden_from(match: Match, update: Update, seat: int | None) -> bool:
    """Whether the update's action is another seat's choice that ``seat`` may not see: sealed until
    its step's reveal, or private to the seat that made it."""
    record = update.record
    assert record is not None
    actor = record.seat
    if actor == seat:
        return False
    sealed: frozenset[int] | None = update.rendered.get("sealed")
    if sealed is None:
        sealed = update.rendered["sealed"] = match.rules.sealed(update.state)
    return actor in sealed or not match.rules.action_shown(update.state, actor, record.action, seat)


_UPDATE_EVENTS = field_key(api.MatchUpdate.DESCRIPTOR, "events")
_UPDATE_STATE = field_key(api.MatchUpdate.DESCRIPTOR, "state")
_SUBMIT_EVENTS = field_key(api.SubmitActionResponse.DESCRIPTOR, "events")
_SUBMIT_STATE = field_key(api.SubmitActionResponse.DESCRIPTOR, "state")


def _events(match: Match, update: Update, seat: int | None, key: bytes) -> bytes:
    """The update's events as ``seat`` may see them, as the repeated field whose key is ``key``."""
    return b"".join([embedded(key, event) for event in wire_of(match.record.game).event_bytes(update, seat)])


def update_bytes(match: Match, update: Update, seat: int | None) -> bytes:
    """One serialized stream message (a MatchUpdate) for ``seat``. Its costly parts, the seat's state
    and the events, are built once per update and viewer; the message itself is put together for each
    stream, as a node holds a stream per player and seldom more than one per seat."""
    head = api.MatchUpdate(version=update.version)
    events = b""
    if update.record is not None:
        head.seat = update.record.seat
        if not _hidden_from(match, update, seat):
            head.action.CopyFrom(wire_of(match.record.game).action_message(update.record.action))
        events = _events(match, update, seat, _UPDATE_EVENTS)
    return head.SerializeToString() + events + embedded(_UPDATE_STATE, state_bytes(match, update, seat))


def submit_response(match: Match, update: Update, seat: int) -> bytes:
    """The submitter's answer (a serialized SubmitActionResponse): the same events and state its own
    stream carries."""
    assert update.record is not None
    head = api.SubmitActionResponse(version=update.version).SerializeToString()
    events = _events(match, update, seat, _SUBMIT_EVENTS)
    return head + events + embedded(_SUBMIT_STATE, state_bytes(match, update, seat))
