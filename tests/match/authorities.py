"""Match authorities on a real SQLite file, for the tests of the match layer."""

from __future__ import annotations

from pathlib import Path

from server.match import Limits, MatchService, Policy
from server.store.sqlite import SqliteStore

AGENT_KEY = "agent-key-0123456789"
POLICY = Policy(agent_key=AGENT_KEY, allow_chosen_seeds=True)


async def authority(
    db: Path, limits: Limits | None = None, policy: Policy = POLICY, agents: bool = True
) -> MatchService:
    """An authority on ``db``: a new one, or as after a restart when the file holds matches. Unless
    ``agents`` is false, an agent with room for many seats has said hello, as ``mercado ai`` does."""
    running = MatchService(SqliteStore(db), limits, policy)
    await running.start()
    if agents and policy.agent_key:
        await running.agent_heartbeat(policy.agent_key, "test-agent", [], 100)
    return running


async def close(service: MatchService) -> None:
    service.close_streams()
    await service.close()
    service.store.close()
