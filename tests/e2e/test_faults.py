"""Nodes under faults, end to end: three real nodes on one real PostgreSQL, matches of every game
played by clients that move from node to node as nodes fail them (server/bench/faults.py, which
``mercado bench failover`` runs on a longer schedule).

In about two minutes: a node killed and started again, one paused for longer than
``--orphan-timeout`` then continued, the database restarted (fast), the nodes' listening connections
ended. Then every match finishes, and what every client was told holds against the database and
every node (server/bench/fault_checks.py): no acknowledged action lost, no version with two actions,
no request applied twice, every stream a gap-free run of the history, every read after a write
showing it, every node and the database agreeing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from server.bench.faults import Plan, run_on
from server.bench.postgres import PostgresServer

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

# One fault of each kind, 12 s apart; two matches of each game in play at once.
PLAN = Plan(duration=48.0, every=12.0, tables=2, seed=41, finish_seconds=120.0)


async def test_nodes_under_faults_lose_nothing_acknowledged_and_finish_every_match(
    own_postgres: PostgresServer, tmp_path: Path
) -> None:
    report = await run_on(own_postgres, tmp_path, PLAN)
    print(json.dumps(report, indent=2))  # shown when it fails
    faults, checks, play = report["faults"], report["checks"], report["play"]
    assert (faults["node_kills"], faults["node_pauses"], faults["database_stops_fast"]) == (1, 1, 1)
    assert faults["listeners_cut"] >= 1
    assert play["seats_taken_back"] > 0  # players away meanwhile had the AI stand in for them
    assert sorted(play["matches"]) == ["leilao", "mercado", "oregano"]

    assert checks["acknowledged_kept"]["acknowledged"] > 0
    assert checks["acknowledged_kept"]["lost"] == 0
    assert checks["one_action_per_version"]["doubled"] == checks["one_action_per_version"]["missing"] == 0
    assert checks["requests_applied_once"]["applied_twice"] == 0
    assert checks["requests_applied_once"]["refused_but_applied"] == 0
    assert checks["streams_gap_free"]["gaps"] == checks["streams_gap_free"]["not_the_history"] == 0
    assert checks["reads_after_writes"]["reads"] > 0
    assert checks["reads_after_writes"]["behind"] == 0
    assert checks["nodes_agree"]["disagreeing"] == checks["nodes_agree"]["replays_not_verifying"] == 0
    assert checks["matches_finished"]["unfinished"] == 0
    assert checks["errors"]["answers"] == checks["errors"]["logged"] == 0, checks["errors"]["most_common"]
