"""``mercado play`` as a player, in a real terminal: the guest player it keeps per server, seats bound
to it (on a server without anonymous play), resuming with its credential, and ``--quick``
(matchmaking): with a bot after the wait, two people matched together, Ctrl-C leaving the queue."""

from __future__ import annotations

import asyncio
import json
import re
import stat
from contextlib import aclosing
from pathlib import Path

import pytest
from mercado.v1 import match_pb2 as api
from mercado_client import MercadoClient
from server_process import Start
from terminal import Terminal, ai_agent, held, play_on

pytestmark = pytest.mark.timeout(120)

QUEUE_LINE = r"looking for a 2-player match · waited (\d+):(\d\d) · (\d) queued · rating window ±\d+\.\d"


def data(tmp_path: Path, who: str) -> Path:
    """The seat file of one person's computer; the player file sits beside it."""
    return tmp_path / who / "seats.json"


def kept_player(seats_file: Path) -> dict[str, str]:
    [player] = json.loads(seats_file.with_name("players.json").read_text())["players"]
    assert isinstance(player, dict)
    return player


async def test_quick_queues_then_plays_the_match_the_server_fills_with_a_bot(
    start: Start, tmp_path: Path
) -> None:
    server = start("--matchmaking-ai-wait", "1")
    seats_file = data(tmp_path, "ada")
    with ai_agent(server.target, tmp_path / "agent.json"):
        terminal = Terminal(["--server", server.target, "--quick", "--name", "ada"], seats_file)
        terminal.expect(f"new guest player ada on server {server.target}, kept in {seats_file.parent}")
        terminal.expect(r"playing as ada · rating 0\.0 · 0 rated matches")
        terminal.expect(
            r"queueing for a 2-player match \(bots fill empty seats after a while\); Ctrl-C leaves the queue"
        )
        terminal.expect(QUEUE_LINE)
        found = terminal.expect(
            r"found match ([0-9a-f]{32}) after 0:\d\d: you are ada \(seat (\d)\); against: "
        )
        match_id, seat = found.group(1), int(found.group(2)) - 1
        terminal.expect(rf"you: ada \(seat {seat + 1}\) · rating 0\.0 · rated match")
        player = kept_player(seats_file)
        assert player["server"] == server.target and player["name"] == "ada"
        [entry] = held(seats_file)
        assert (entry["match_id"], entry["seat"], entry["player_id"]) == (match_id, seat, player["player_id"])
        assert entry["token"] != player["token"]
        assert stat.S_IMODE(seats_file.with_name("players.json").stat().st_mode) == 0o600

        assert await asyncio.to_thread(play_on, terminal) > 0
        terminal.expect(rf"ada \(seat {seat + 1}\) finished rank [12] of 2")
        change = terminal.expect(r"your rating: (-?\d+\.\d) \(([+-]\d+\.\d), was 0\.0\)")
        assert await asyncio.to_thread(terminal.end) == 0
    assert "Traceback" not in terminal.text
    assert held(seats_file) == []
    async with MercadoClient(server.target) as client:
        me = await client.get_player(token=player["token"])
        final = await client.view(match_id)
    assert me.rated_matches == 1 and final.match.rated
    assert change.group(1) == f"{me.rating.display:.1f}"
    assert [info.player_id for info in final.match.seats][seat] == player["player_id"]
    assert any(info.bot and info.player_id.startswith("bot:") for info in final.match.seats)


async def test_two_quick_players_are_matched_and_ctrl_c_leaves_the_queue(
    start: Start, tmp_path: Path
) -> None:
    server = start()
    target = server.target
    ada_file, bea_file = data(tmp_path, "ada"), data(tmp_path, "bea")
    alone = Terminal(["--server", target, "--quick", "--no-allow-ai", "--name", "ada"], ada_file)
    alone.expect(r"queueing for a 2-player match \(people only\)")
    alone.expect(QUEUE_LINE.replace(r"waited (\d+):(\d\d)", r"waited 0:0[1-9]"))  # the time counts up
    alone.child.sendintr()
    alone.expect(r"left the queue after 0:\d\d")
    assert await asyncio.to_thread(alone.end) == 130
    assert "Traceback" not in alone.text
    # It left the queue: the same player queues again at once, alone.
    ada = kept_player(ada_file)
    async with MercadoClient(target) as client, aclosing(client.find_match(2, token=ada["token"])) as queue:
        first = await asyncio.wait_for(anext(queue), 5)
    assert first.queued.queued_players == 1

    ada_terminal = Terminal(["--server", target, "--quick", "--no-allow-ai"], ada_file)
    ada_terminal.expect(r"playing as ada · rating 0\.0")  # the kept player, whatever $USER is
    ada_terminal.expect(QUEUE_LINE)
    bea_terminal = Terminal(["--server", target, "--quick", "--no-allow-ai", "--name", "bea"], bea_file)
    bea_terminal.expect("new guest player bea")
    matched = []
    for terminal, rival in ((ada_terminal, "bea"), (bea_terminal, "ada")):
        found = terminal.expect(rf"found match ([0-9a-f]{{32}}) after 0:\d\d: you are .*; against: {rival}")
        matched.append(found.group(1))
        terminal.expect(r"you: .* · rating 0\.0 · rated match")
    assert matched[0] == matched[1]
    assert "new guest player ada on server" not in ada_terminal.text
    for terminal in (ada_terminal, bea_terminal):
        terminal.child.sendintr()
        terminal.expect(f"resume it with `mercado play --server {target} --resume {matched[0]}`")
        assert await asyncio.to_thread(terminal.end) == 130
        assert "Traceback" not in terminal.text
    assert [seat["match_id"] for seat in held(ada_file)] == [matched[0]]

    # Resuming the player's seat: with its credential (the kept seat token is not used).
    entry = held(ada_file)[0]
    entry["token"] = "not-the-seat-token"
    ada_file.write_text(json.dumps({"seats": [entry]}))
    resumed = Terminal(["--server", target, "--resume"], ada_file)
    resumed.expect(f"resuming match {matched[0]} as ada")
    resumed.expect(r"you: ada \(seat \d\) · rating 0\.0 · rated match")
    resumed.child.sendintr()
    assert await asyncio.to_thread(resumed.end) == 130


async def test_play_signs_in_without_anonymous_play_and_resumes_from_the_players_games(
    start: Start, tmp_path: Path
) -> None:
    server = start("--no-allow-anonymous")
    target = server.target
    seats_file = data(tmp_path, "ada")
    with ai_agent(target, tmp_path / "agent.json"):
        first = Terminal(["--server", target, "--bots", "easy", "--name", "ada"], seats_file)
        first.expect("new guest player ada")
        match_id = first.expect(r"created match ([0-9a-f]{32})").group(1)
        first.expect(r"you: ada \(seat 1\) · rating 0\.0 · rated match")
        assert play_on(first, 4) == 4
        first.kill()
        player = kept_player(seats_file)
        assert held(seats_file)[0]["player_id"] == player["player_id"]

        # The seat file is lost (another computer, say): the server's list of the player's games finds
        # the match, and the player's credential plays it.
        seats_file.unlink()
        second = Terminal(["--server", target, "--resume", "--name", "bob"], seats_file)
        second.expect(r"playing as ada · rating 0\.0")
        second.expect(r"--name names a new guest player only: this terminal plays as ada")
        second.expect(f"resuming match {match_id} as ada \\(seat 1\\)")
        assert await asyncio.to_thread(play_on, second) > 0
        second.expect(r"ada \(seat 1\) finished rank [12] of 2")
        second.expect(r"your rating: -?\d+\.\d \([+-]\d+\.\d, was 0\.0\)")
        assert await asyncio.to_thread(second.end) == 0
    assert "Traceback" not in first.text + second.text
    assert "new guest player ada on server" not in second.text


async def test_a_kept_player_the_server_does_not_know_is_replaced(start: Start, tmp_path: Path) -> None:
    server = start()
    seats_file = data(tmp_path, "ada")
    seats_file.parent.mkdir()
    stale = {"server": server.target, "player_id": "f" * 32, "token": "from-another-database", "name": "zed"}
    other = {"server": "elsewhere:1", "player_id": "e" * 32, "token": "t", "name": "eve"}
    seats_file.with_name("players.json").write_text(json.dumps({"players": [stale, other]}))
    terminal = Terminal(["--server", server.target, "--players", "2", "--name", "ada"], seats_file)
    terminal.expect("the guest player zed kept for this server is unknown to it")
    terminal.expect("new guest player ada")
    match_id = terminal.expect(r"created match ([0-9a-f]{32})").group(1)
    terminal.expect(r"waiting for players: seat 2 \(open\)")
    terminal.child.sendintr()
    assert await asyncio.to_thread(terminal.end) == 130
    players = json.loads(seats_file.with_name("players.json").read_text())["players"]
    assert other in players and stale not in players
    [ada] = [p for p in players if p["server"] == server.target]
    async with MercadoClient(server.target) as client:
        state = await client.view(match_id, ada["token"])
    assert state.your_seat == 0 and state.match.seats[0].player_id == ada["player_id"]
    assert state.match.status == api.MATCH_STATUS_WAITING


async def test_a_friend_at_the_same_computer_plays_as_a_player_of_their_own(
    start: Start, tmp_path: Path
) -> None:
    """One computer, one seat file and one player file: the second terminal joins ``--as`` a name, a
    guest player kept beside the computer's own."""
    server = start()
    target = server.target
    seats_file = data(tmp_path, "home")
    host = Terminal(["--server", target, "--players", "2", "--name", "ada"], seats_file)
    match_id = host.expect(r"created match ([0-9a-f]{32})").group(1)
    hint = (
        f"others can join with `mercado play --server {target} --match {match_id}` "
        "(someone at this computer adds `--as NAME`)"
    )
    host.expect(r"\s+".join(map(re.escape, hint.split())))  # wherever the line wraps
    # Without --as, the second terminal is the same player, who holds a seat already.
    same = Terminal(["--server", target, "--match", match_id], seats_file)
    same.expect(r"cannot start: you hold seat 1 of this match already")
    assert await asyncio.to_thread(same.end) == 1

    friend = Terminal(["--server", target, "--match", match_id, "--as", "bea"], seats_file)
    friend.expect(f"new guest player bea on server {target}, kept as bea in")
    friend.expect(r"you: bea \(seat 2\) · rating 0\.0 · rated match")
    host.expect(r"you: ada \(seat 1\) · rating 0\.0 · rated match")
    friend.child.sendintr()
    friend.expect(f"resume it with `mercado play --server {target} --as bea --resume {match_id}`")
    assert await asyncio.to_thread(friend.end) == 130
    host.child.sendintr()
    assert await asyncio.to_thread(host.end) == 130
    players = json.loads(seats_file.with_name("players.json").read_text())["players"]
    assert [(p["name"], p.get("as")) for p in players] == [("ada", None), ("bea", "bea")]
    async with MercadoClient(target) as client:
        seats = (await client.view(match_id)).match.seats
    assert [seat.player_id for seat in seats] == [p["player_id"] for p in players]  # two players
