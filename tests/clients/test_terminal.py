"""``mercado play`` in a real terminal: killed mid-game and resumed, Ctrl-C, the resume list, the clock."""

from __future__ import annotations

import asyncio
import ctypes
import random
import signal
import stat
import time
from collections.abc import Iterator
from contextlib import aclosing
from pathlib import Path

import pytest
from matchplay import announce_agent, play_random_match
from mercado.v1 import match_pb2 as api
from mercado_client import MercadoClient
from mercado_terminal.held import HeldSeat, SeatFile
from server_process import AGENT_KEY, ServerProcess
from terminal import Terminal, ai_agent, held, play_on

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def seats_file(tmp_path: Path) -> Path:
    return tmp_path / "data" / "seats.json"


@pytest.fixture
def agent(own_server: ServerProcess, tmp_path: Path) -> Iterator[None]:
    with ai_agent(own_server.target, tmp_path / "agent.json"):
        yield


def test_a_killed_terminal_resumes_the_game_and_finishes_it(
    own_server: ServerProcess, agent: None, seats_file: Path
) -> None:
    target = own_server.target
    first = Terminal(["--server", target, "--bots", "easy", "--name", "ada"], seats_file)
    match_id = first.expect(r"created match ([0-9a-f]{32})").group(1)
    first.expect(f"match {match_id}")  # the header shows the whole id
    assert play_on(first, 8) == 8
    first.kill()

    # The seat's token was kept, for the owner's eyes only.
    assert stat.S_IMODE(seats_file.stat().st_mode) == 0o600
    [entry] = held(seats_file)
    assert entry["server"] == target and entry["match_id"] == match_id
    assert entry["seat"] == 0 and entry["name"] == "ada" and entry["token"]

    second = Terminal(["--server", target, "--resume"], seats_file)
    second.expect(f"resuming match {match_id} as ada \\(seat 1\\)")
    assert int(second.expect(rf"match {match_id} · .* · version (\d+)").group(1)) >= 4  # where it was
    second.expect("last moves")
    assert play_on(second) > 0
    second.expect(r"ada \(seat 1\) finished rank [12] of 2 with a score of -?\d+")
    second.expect(f"mercado verify {match_id} --commitment [0-9a-f]{{64}}")
    assert second.end() == 0
    assert held(seats_file) == []  # finished: no longer held
    assert "Traceback" not in first.text + second.text


def test_ctrl_c_leaves_cleanly_and_says_how_to_resume(
    own_server: ServerProcess, agent: None, seats_file: Path
) -> None:
    terminal = Terminal(["--server", own_server.target, "--bots", "easy", "--name", "ada"], seats_file)
    match_id = terminal.expect(r"created match ([0-9a-f]{32})").group(1)
    terminal.expect_prompt()
    terminal.child.sendintr()
    terminal.expect(f"resume it with `mercado play --server {own_server.target} --resume {match_id}`")
    assert terminal.end() == 130
    assert "Traceback" not in terminal.text
    assert [seat["match_id"] for seat in held(seats_file)] == [match_id]


async def test_resigning_asks_first_then_gives_the_seat_up(
    own_server: ServerProcess, agent: None, seats_file: Path
) -> None:
    terminal = Terminal(["--server", own_server.target, "--bots", "easy", "--name", "ada"], seats_file)
    match_id = terminal.expect(r"created match ([0-9a-f]{32})").group(1)
    resign = terminal.expect(r"(\d+) resign \(leave the match for good\)").group(1)
    assert terminal.expect_prompt() == "your move"
    terminal.answer(resign)
    terminal.expect(r"resign\? the AI plays your seat to the end; you cannot come back \(y/N\): $")
    terminal.answer("n")  # not resigned: the menu again
    assert terminal.expect_prompt() == "your move"
    terminal.answer(resign)
    terminal.expect(r"\(y/N\): $")
    terminal.answer("y")
    terminal.expect(f"you resigned match {match_id}")
    assert await asyncio.to_thread(terminal.end) == 0
    async with MercadoClient(own_server.target) as client:
        info = (await client.view(match_id)).match.seats[0]
    assert info.left and info.played_by_ai
    assert held(seats_file) == []


async def test_resume_lists_the_unfinished_games_and_drops_the_others(
    own_server: ServerProcess, seats_file: Path
) -> None:
    target = own_server.target
    seat_file = SeatFile(seats_file)
    async with MercadoClient(target) as client:
        waiting = []
        for name in ("ada", "bea"):
            match_id = await client.create_match(players=3)
            seat = await client.join(match_id, name)
            await client.join(match_id, "carl")
            seat_file.add(HeldSeat(target, match_id, seat.seat, seat.token, name))
            waiting.append(match_id)
        finished_id = await client.create_match(players=2, seed=4)
        seats = [await client.join(finished_id, name) for name in ("ada", "dan")]
        await play_random_match(seats, seed=4)
        seat_file.add(HeldSeat(target, finished_id, 0, seats[0].token, "ada"))
        seat_file.add(HeldSeat(target, "0" * 32, 0, "no-such-token", "ada"))
        seat_file.add(HeldSeat("elsewhere:1", waiting[0], 0, "other-server", "ada"))

        terminal = Terminal(["--server", target, "--resume"], seats_file)
        terminal.expect(f"dropped match {finished_id}: it finished")
        terminal.expect(f"dropped match {'0' * 32}: no match")
        terminal.expect(f"unfinished games held on server {target}:")
        for number, (match_id, name) in enumerate(zip(waiting, ("ada", "bea"), strict=True), 1):
            terminal.expect(f"{number} {match_id}  waiting for 1 more player")
            terminal.expect(f"you: {name} \\(seat 1\\); against: carl \\(seat 2\\), seat 3 \\(open\\)")
        terminal.expect(r"resume which game \(1-2\): ")
        terminal.answer("2")
        terminal.expect(f"resuming match {waiting[1]} as bea \\(seat 1\\)")
        terminal.expect(r"waiting for players: seat 3 \(open\)")
        terminal.child.sendintr()
        terminal.expect(f"--resume {waiting[1]}`")
        assert await asyncio.to_thread(terminal.end) == 130
    assert [(s["server"], s["match_id"]) for s in held(seats_file)] == [
        (target, waiting[0]),
        (target, waiting[1]),
        ("elsewhere:1", waiting[0]),
    ]


def _sigint_takers(pid: int) -> list[int]:
    """The process's threads but its main one that do not block SIGINT: where the kernel may deliver
    a Ctrl-C meant for the whole process."""
    takers = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        status = (task / "status").read_text().splitlines()
        blocked = int(next(line for line in status if line.startswith("SigBlk:")).split()[1], 16)
        if int(task.name) != pid and not blocked & (1 << (signal.SIGINT - 1)):
            takers.append(int(task.name))
    return takers


def _wait_until_idle(pid: int, timeout: float = 15.0) -> None:
    """Until the process's main thread sleeps and has used no CPU for half a second."""
    last = None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        fields = Path(f"/proc/{pid}/task/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        state, used = fields[0], int(fields[11]) + int(fields[12])  # state, user and system ticks
        if state == "S" and used == last:
            return
        last = used if state == "S" else None
        time.sleep(0.5)
    raise AssertionError(f"the main thread of {pid} never went idle")


async def test_ctrl_c_taken_by_another_thread_still_leaves(
    own_server: ServerProcess, seats_file: Path
) -> None:
    """The kernel hands a process's SIGINT to any thread that does not block it, and Python runs its
    handler in the main thread only: a terminal idle in its event loop must still wake for it."""
    target = own_server.target
    async with MercadoClient(target) as client:
        match_id = await client.create_match(players=3)
        seat = await client.join(match_id, "ada")
    SeatFile(seats_file).add(HeldSeat(target, match_id, seat.seat, seat.token, "ada"))
    terminal = Terminal(["--server", target, "--resume", match_id], seats_file)
    terminal.expect(r"waiting for players: seat 2 \(open\), seat 3 \(open\)")
    await asyncio.to_thread(_wait_until_idle, terminal.child.pid)  # nothing will wake it but the signal
    takers = _sigint_takers(terminal.child.pid)
    assert takers, "every other thread blocks SIGINT"
    assert ctypes.CDLL(None).tgkill(terminal.child.pid, takers[0], signal.SIGINT) == 0
    terminal.expect(f"resume it with `mercado play --server {target} --resume {match_id}`")
    assert await asyncio.to_thread(terminal.end) == 130


@pytest.fixture
def quick_clock(tmp_path: Path) -> Iterator[ServerProcess]:
    """A server whose matches give three seconds a turn and no reserve: short, yet long enough for the
    terminal to answer within a turn on a loaded machine."""
    running = ServerProcess(tmp_path / "mercado.db", args=["--turn-seconds", "3", "--reserve-seconds", "0"])
    running.start()
    yield running
    running.stop_cleanly()


async def test_a_seat_the_ai_took_over_is_taken_back(quick_clock: ServerProcess, seats_file: Path) -> None:
    """The opponent is a bot seat the test holds and moves only when it wants: no clock runs for it."""
    target = quick_clock.target
    async with MercadoClient(target) as client:
        await announce_agent(client)
        match_id = await client.create_match(players=2, seats=[None, "easy"])
        ada = await client.join(match_id, "ada")
        bot, _ = await client.claim_bot_seat("robot", agent_key=AGENT_KEY)
        rng = random.Random(1)

        async def bot_moves() -> None:
            """Play the bot's turns (more than one after opening a stand) until ada's seat is to move."""
            while (state := await bot.view()).to_move == bot.seat and state.legal_actions:
                await bot.act(rng.choice(list(state.legal_actions)), state.version)

        async def ai_plays_ada() -> api.MatchState:
            async with aclosing(ada.follow()) as updates:
                async for update in updates:
                    info = update.state.match.seats[0]
                    if info.played_by_ai and update.state.to_move == bot.seat:
                        return update.state
                    if update.state.to_move == bot.seat:
                        await bot_moves()
            raise AssertionError("the match ended")

        state = await asyncio.wait_for(ai_plays_ada(), 20)
        assert state.match.seats[0].played_by_ai
        SeatFile(seats_file).add(HeldSeat(target, match_id, 0, ada.token, "ada"))

        terminal = Terminal(["--server", target, "--resume", match_id], seats_file)
        terminal.expect("took your seat back from the AI that played it since your time ran out")
        terminal.expect(r"clock: 3 s a turn and 0:00 of reserve; then the AI plays the seat")
        terminal.expect(r"waiting for Easy AI \(seat 2\) to move")
        assert not (await ada.view()).match.seats[0].played_by_ai
        await bot_moves()
        # Ada's second runs out with nobody at the keyboard: the AI moves, the bot's turn comes again.
        terminal.expect(r"ada \(seat 1\) ran out of time: the AI plays their turns")
        terminal.expect(r"your time ran out: the AI \(easy\) plays your seat\. Press Enter to take it back\.")
        assert await asyncio.to_thread(terminal.expect_prompt) == "press Enter to take your seat back"
        terminal.answer("")
        terminal.expect(r"ada \(seat 1\) is back and plays their own turns")
        terminal.child.sendintr()
        terminal.expect(f"--resume {match_id}`")
        assert await asyncio.to_thread(terminal.end) == 130
