"""What must hold once nodes ran under faults (``server.bench.faults``): everything their clients
were told (the ``Journal``), held against the database and every node's answers.

- ``acknowledged_kept``: every acknowledged action is stored at its version, as it was sent;
- ``one_action_per_version``: each match's stored versions run 1, 2, ... with none twice;
- ``requests_applied_once``: no request id is stored twice, nor one whose request was refused;
- ``streams_gap_free``: each stream carried the history's versions one after another from where it
  resumed, each with the history's seat and action (where the viewer may see it);
- ``reads_after_writes``: a read through another node right after an acknowledged action shows it;
- ``nodes_agree``: every node gives the replay the database holds, and every replay verifies
  (``mercado verify``'s check: the set-up committed to, every action legal, to the end);
- ``matches_finished``: every match finished, and the longest any stood still (no new version)
  after the faults ended;
- ``errors``: answers a client should never get, and errors the nodes logged other than while the
  database was away (or just back: ``RECOVERY_SECONDS``), when each failed call is logged.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import asyncpg
import grpc
from mercado.v1 import match_pb2 as api
from mercado.v1 import match_pb2_grpc as api_grpc
from mercado_terminal.verify import verify_replay

CALL_SECONDS = 30.0  # for any answer once the faults are over
MOST_SHOWN = 10  # of the errors, by count
# The figures that count what went wrong, each 0 when its check holds.
VIOLATIONS = [
    ("acknowledged_kept", "lost"),
    ("one_action_per_version", "doubled"),
    ("one_action_per_version", "missing"),
    ("requests_applied_once", "applied_twice"),
    ("requests_applied_once", "refused_but_applied"),
    ("streams_gap_free", "gaps"),
    ("streams_gap_free", "not_the_history"),
    ("reads_after_writes", "behind"),
    ("nodes_agree", "disagreeing"),
    ("nodes_agree", "replays_not_verifying"),
    ("matches_finished", "unfinished"),
    ("errors", "answers"),
    ("errors", "logged"),
]
RECOVERY_SECONDS = 5.0  # after the database is back, errors of calls that met it away are still logged


@dataclass
class Segment:
    """One stream a caller opened: the version it resumed after, and the (version, seat, action)
    of each action it carried (the action serialized, None where the viewer may not see it)."""

    match_id: str
    after: int
    actions: list[tuple[int, int, bytes | None]] = field(default_factory=list)


@dataclass
class Journal:
    """What the callers were told, as they were told it."""

    matches: dict[str, str] = field(default_factory=dict)  # match id -> game
    acks: list[tuple[str, int, str, bytes]] = field(default_factory=list)  # match, version, request, action
    requests: dict[str, tuple[str, str]] = field(default_factory=dict)  # request id -> (match, outcome)
    segments: list[Segment] = field(default_factory=list)
    seen: dict[str, dict[int, float]] = field(default_factory=dict)  # match -> version -> first seen
    counts: Counter[str] = field(default_factory=Counter)
    refusals: Counter[str] = field(default_factory=Counter)  # "method CODE: reason"
    errors: Counter[str] = field(default_factory=Counter)  # answers no client should get
    faults_ended: float = 0.0  # time.monotonic()


def serialized(action: api.Action) -> bytes:
    return action.SerializeToString(deterministic=True)


async def check(
    journal: Journal, dsn: str, targets: list[str], logs: Iterable[Path], outages: list[tuple[float, float]]
) -> dict[str, Any]:
    """Every check's figures (each ``0`` where nothing is wrong), and what was played. ``logs``: the
    nodes'; ``outages``: when the database was away, (from, to) by the wall clock."""
    stored = await _stored(dsn, list(journal.matches))
    replays = await asyncio.gather(*(_replays(target, list(journal.matches)) for target in targets))
    history = replays[0]  # each match's steps, as the first node gives them (the others must agree)
    steps = {match_id: {step.version: step for step in replay.steps} for match_id, replay in history.items()}
    actions = sum(len(rows) for _, rows in stored.values())
    checks = {
        "acknowledged_kept": _acknowledged_kept(journal, stored, steps),
        "one_action_per_version": _one_action_per_version(stored),
        "requests_applied_once": _requests_applied_once(journal, stored),
        "streams_gap_free": _streams_gap_free(journal, steps),
        "reads_after_writes": {
            "reads": journal.counts["reads_after_writes"],
            "behind": journal.counts["reads_behind_writes"],
        },
        "nodes_agree": _nodes_agree(stored, replays),
        "matches_finished": _matches_finished(journal, stored),
        "errors": _errors(journal, logs, outages),
    }
    return {
        "held": not any(checks[name][figure] for name, figure in VIOLATIONS),
        "checks": checks,
        "play": {
            "matches": dict(sorted(Counter(journal.matches.values()).items())),
            "actions": actions,
            "actions_of_clients": len(journal.acks),
            "actions_of_the_ai": actions - len(journal.acks),
            "client_failovers": journal.counts["failovers"],
            "seats_taken_back": journal.counts["seats_taken_back"],
            "seats_lost_joining": journal.counts["seats_lost"],
            "refusals": dict(sorted(journal.refusals.items())),
        },
    }


Stored = dict[str, tuple[str, list[tuple[int, str]]]]  # match -> (status, [(version, request id)])


async def _stored(dsn: str, match_ids: list[str]) -> Stored:
    db = await asyncpg.connect(dsn, timeout=CALL_SECONDS)
    try:
        statuses = await db.fetch("SELECT match_id, status FROM matches WHERE match_id = ANY($1)", match_ids)
        rows = await db.fetch(
            "SELECT match_id, version, request_id FROM actions WHERE match_id = ANY($1)"
            " ORDER BY match_id, version",
            match_ids,
        )
    finally:
        await db.close()
    stored: Stored = {row["match_id"]: (row["status"], []) for row in statuses}
    for row in rows:
        stored[row["match_id"]][1].append((row["version"], row["request_id"]))
    return stored


async def _replays(target: str, match_ids: list[str]) -> dict[str, api.Replay]:
    """The replay of each finished match, through the node at ``target``."""
    replays = {}
    async with grpc.aio.insecure_channel(target) as channel:
        stub = api_grpc.MatchServiceStub(channel)
        for match_id in match_ids:
            try:
                replays[match_id] = await stub.GetReplay(
                    api.GetReplayRequest(match_id=match_id), timeout=CALL_SECONDS
                )
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.FAILED_PRECONDITION:  # not finished
                    raise
    return replays


def _acknowledged_kept(
    journal: Journal, stored: Stored, steps: dict[str, dict[int, api.ReplayStep]]
) -> dict[str, int]:
    lost = 0
    for match_id, version, request_id, action in journal.acks:
        rows = dict(stored.get(match_id, ("", []))[1])
        step = steps.get(match_id, {}).get(version)
        kept = rows.get(version) == request_id and (step is None or serialized(step.action) == action)
        lost += not kept
    return {"acknowledged": len(journal.acks), "lost": lost}


def _one_action_per_version(stored: Stored) -> dict[str, int]:
    doubled = missing = 0
    for _, rows in stored.values():
        versions = Counter(version for version, _ in rows)
        doubled += sum(count - 1 for count in versions.values())
        missing += max(versions, default=0) - len(versions)
    return {"versions": sum(len(rows) for _, rows in stored.values()), "doubled": doubled, "missing": missing}


def _requests_applied_once(journal: Journal, stored: Stored) -> dict[str, int]:
    applied = Counter(request_id for _, rows in stored.values() for _, request_id in rows)
    refused = [request_id for request_id, (_, outcome) in journal.requests.items() if outcome == "refused"]
    return {
        "requests": len(journal.requests),
        "applied_twice": sum(applied[request_id] > 1 for request_id in journal.requests),
        "refused_but_applied": sum(applied[request_id] > 0 for request_id in refused),
    }


def _streams_gap_free(journal: Journal, steps: dict[str, dict[int, api.ReplayStep]]) -> dict[str, int]:
    gaps = not_the_history = 0
    for segment in journal.segments:
        versions = [version for version, _, _ in segment.actions]
        gaps += versions != list(range(segment.after + 1, segment.after + 1 + len(versions)))
        history = steps.get(segment.match_id)
        if history is None:
            continue  # unfinished, so without a replay: matches_finished says so
        for version, seat, action in segment.actions:
            step = history.get(version)
            if (
                step is None
                or step.seat != seat
                or (action is not None and action != serialized(step.action))
            ):
                not_the_history += 1
    return {
        "streams": len(journal.segments),
        "updates": sum(len(segment.actions) for segment in journal.segments),
        "gaps": gaps,
        "not_the_history": not_the_history,
    }


def _nodes_agree(stored: Stored, replays: list[dict[str, api.Replay]]) -> dict[str, int]:
    disagreeing = not_verifying = 0
    for match_id, (_, rows) in stored.items():
        given = [node.get(match_id) for node in replays]
        first = given[0]
        if first is None:
            continue  # unfinished: matches_finished says so
        same = all(replay is not None and replay == first for replay in given)
        disagreeing += not same or [step.version for step in first.steps] != [version for version, _ in rows]
        not_verifying += not verify_replay(first).fair
    return {"matches": len(stored), "disagreeing": disagreeing, "replays_not_verifying": not_verifying}


def _matches_finished(journal: Journal, stored: Stored) -> dict[str, Any]:
    """How many did not finish, the longest any stood still after the faults ended, and when the
    last one finished."""
    unfinished = [match_id for match_id in journal.matches if stored.get(match_id, ("",))[0] != "finished"]
    longest, which, last = 0.0, "", journal.faults_ended
    now = time.monotonic()
    for match_id, seen in journal.seen.items():
        moved = sorted(at for at in seen.values() if at > journal.faults_ended)
        if not moved and match_id not in unfinished:
            continue  # it ended before the faults did
        points = [journal.faults_ended, *moved, *([now] if match_id in unfinished else [])]
        last = max(last, points[-1])
        still = max(later - earlier for earlier, later in itertools.pairwise(points))
        if still > longest:
            longest, which = still, journal.matches[match_id]
    return {
        "matches": len(journal.matches),
        "unfinished": len(unfinished),
        "longest_still_seconds": round(longest, 2),
        "longest_still_game": which,
        "last_finished_seconds_after_the_faults": round(last - journal.faults_ended, 1),
    }


def _errors(journal: Journal, logs: Iterable[Path], outages: list[tuple[float, float]]) -> dict[str, Any]:
    logged: Counter[str] = Counter()
    in_outages = 0
    for log in logs:
        for line in log.read_text(errors="replace").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if not isinstance(record, dict) or record.get("levelname") not in ("ERROR", "CRITICAL"):
                continue
            at = datetime.strptime(record["asctime"], "%Y-%m-%d %H:%M:%S,%f").timestamp()
            if any(away <= at <= back + RECOVERY_SECONDS for away, back in outages):
                in_outages += 1
            else:
                logged[f"logged: {record.get('message')}"] += 1
    return {
        "answers": sum(journal.errors.values()),
        "logged": sum(logged.values()),
        "logged_while_the_database_was_away": in_outages,
        "most_common": [*_most(journal.errors), *_most(logged)],
    }


def _most(counts: Counter[str]) -> list[str]:
    return [f"{count} x {what}" for what, count in counts.most_common(MOST_SHOWN)]
