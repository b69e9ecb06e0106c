"""The AI agents the server knows of, from their heartbeats: which levels they play, how many
more seats they can take. A match with bot seats nobody can take is refused, not left waiting.

With a shared store, each server also stores the heartbeats it receives and reads the others'
every few seconds, so that any server knows every agent (an agent talks to one of them)."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

from server.store import AgentRecord

HEARTBEAT_SECONDS = 5  # what agents are told: the next heartbeat is due within this
MISSED_BEATS = 3  # an agent silent for this many intervals is gone


@dataclass
class Agent:
    levels: frozenset[str]  # empty: every level
    free_slots: int
    seen: float  # time.monotonic() of its last heartbeat

    def plays(self, level: str) -> bool:
        return not self.levels or level in self.levels


class Agents:
    """Agents by the id they chose, and their free seats as last told (less the seats since claimed)."""

    def __init__(self, interval: float = HEARTBEAT_SECONDS) -> None:
        self.interval = interval
        self.agents: dict[str, Agent] = {}

    def beat(self, agent_id: str, levels: Iterable[str], free_slots: int) -> None:
        self._forget_silent()
        self.agents[agent_id] = Agent(frozenset(levels), free_slots, time.monotonic())

    def heard(self, agents: Iterable[AgentRecord], now_ms: int) -> None:
        """Heartbeats other servers received (a shared store): newer than what this one knows, they count."""
        now = time.monotonic()
        for record in agents:
            seen = now - (now_ms - record.seen_ms) / 1000
            known = self.agents.get(record.agent_id)
            if known is None or known.seen < seen:
                self.agents[record.agent_id] = Agent(frozenset(record.levels), record.free_slots, seen)

    def claimed(self, agent_id: str) -> None:
        """The agent took a bot seat: one free seat fewer, until it says again."""
        agent = self.agents.get(agent_id)
        if agent is not None:
            agent.free_slots = max(0, agent.free_slots - 1)

    def released(self, agent_id: str) -> None:
        """A match the agent played ended: one free seat more, until it says again."""
        agent = self.agents.get(agent_id)
        if agent is not None:
            agent.free_slots += 1

    def free(self, levels: Iterable[str]) -> int:
        """Free seats of the live agents that play any of ``levels``."""
        self._forget_silent()
        wanted = set(levels)
        return sum(a.free_slots for a in self.agents.values() if any(a.plays(level) for level in wanted))

    @property
    def silence_ms(self) -> int:
        """How long an agent may stay silent before it counts as gone."""
        return int(self.interval * MISSED_BEATS * 1000)

    def _forget_silent(self) -> None:
        silent_since = time.monotonic() - self.silence_ms / 1000
        for agent_id in [i for i, a in self.agents.items() if a.seen < silent_since]:
            del self.agents[agent_id]
