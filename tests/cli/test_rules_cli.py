"""The ``mercado rules`` command (POSITION.md) on every game, run as a subprocess."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from positions import ROOT, doc_example, rules, single_json

from server.games.leilao import RULES as LEILAO
from server.games.mercado import Options, action_from_json, apply, legal_actions, new_game, position
from server.games.oregano import RULES as OREGANO

CONSOLE_SCRIPT = ROOT / ".venv" / "bin" / "mercado"

# The POSITION.md example: seat 0 owns a fish stand on c3, a level 1 fish+meat tile is on display.
EXAMPLE = doc_example()
BRING = {"type": "bring_customer", "level": 1, "goods": ["fish", "meat"], "entrance": "bottom-c"}


def assert_refused(out: subprocess.CompletedProcess[str], *names: str) -> str:
    """Exit status 2, nothing on stdout, exactly one line on stderr naming each of ``names``."""
    assert out.returncode == 2, (out.returncode, out.stderr)
    assert out.stdout == ""
    lines = out.stderr.splitlines()
    assert len(lines) == 1, out.stderr
    line = lines[0]
    assert line.strip()
    assert "Traceback" not in line
    for name in names:
        assert name in line, f"{line!r} does not name {name!r}"
    return line


def write(tmp_path: Path, data: Any, name: str = "position.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


# --- new ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "seed", "money"),
    [(2, 11, None), (3, 0, "public"), (4, 987654321, "hidden")],
)
def test_new_prints_the_engines_set_up_position(players: int, seed: int, money: str | None) -> None:
    args = ["new", "--players", str(players), "--seed", str(seed)]
    if money:
        args += ["--money", money]
    data = single_json(rules(*args))
    expected = new_game(Options(players=players, money=money or "hidden"), seed)  # type: ignore[arg-type]
    assert data == position.to_json(expected)
    assert position.from_json(data) == expected


def test_console_script_runs_the_same_command() -> None:
    if not CONSOLE_SCRIPT.exists():
        pytest.skip("no console script in .venv")
    out = subprocess.run(
        [str(CONSOLE_SCRIPT), "rules", "new", "--players", "3", "--seed", "5", "--money", "public"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert single_json(out) == position.to_json(new_game(Options(players=3, money="public"), 5))


# --- legal -------------------------------------------------------------------------------


def test_legal_prints_the_engines_legal_actions(tmp_path: Path) -> None:
    state = new_game(Options(players=3), seed=21)
    data = single_json(rules("legal", write(tmp_path, position.to_json(state))))
    assert data == [a.to_json() for a in legal_actions(state)]
    assert len(data) == len({json.dumps(a, sort_keys=True) for a in data})


def test_legal_reads_standard_input() -> None:
    example = dict(EXAMPLE, phase="take_offer")
    data = single_json(rules("legal", "-", stdin=json.dumps(example)))
    assert data == [a.to_json() for a in legal_actions(position.from_json(example))]
    assert data == [
        {"type": "take_offer", "good": "fish"},
        {"type": "take_offer", "good": "meat"},
        {"type": "take_offer", "good": "grapes"},
    ]


# --- apply -------------------------------------------------------------------------------


def test_apply_prints_the_engines_position_and_events(tmp_path: Path) -> None:
    data = single_json(rules("apply", write(tmp_path, EXAMPLE), json.dumps(BRING)))
    state = position.from_json(EXAMPLE)
    events = apply(state, action_from_json(BRING))
    assert data == {"position": position.to_json(state), "events": events}
    # Income is reported per player: seat 0's fish stand on c3 earns 1 from the level-1 customer.
    assert {"type": "income", "player": 0, "amount": 1} in data["events"]
    assert data["position"]["coins"] == [2, 1]


def test_apply_opening_a_stand_from_standard_input() -> None:
    action = {"type": "open_stand", "good": "meat", "square": "b1"}
    data = single_json(rules("apply", "-", json.dumps(action), stdin=json.dumps(EXAMPLE)))
    state = position.from_json(EXAMPLE)
    events = apply(state, action_from_json(action))
    assert data == {"position": position.to_json(state), "events": events}
    assert data["position"]["phase"] == "take_offer"
    assert data["position"]["restaurant_hands"][0] == ["pizzeria"]


def test_apply_reads_the_action_from_a_file(tmp_path: Path) -> None:
    action_file = write(tmp_path, {"type": "take_coin"}, "action.json")
    data = single_json(rules("apply", write(tmp_path, EXAMPLE), action_file))
    assert data["position"]["coins"] == [2, 1]
    assert data["position"]["current_player"] == 1


# --- refusals ----------------------------------------------------------------------------


def test_illegal_action_is_refused(tmp_path: Path) -> None:
    # c3 already holds a stand.
    out = rules("apply", write(tmp_path, EXAMPLE), '{"type": "open_stand", "good": "fish", "square": "c3"}')
    assert_refused(out, "c3")


def test_action_illegal_only_in_this_phase_is_refused(tmp_path: Path) -> None:
    out = rules("apply", write(tmp_path, EXAMPLE), '{"type": "take_offer", "good": "meat"}')
    assert_refused(out, "offer")


@pytest.mark.parametrize("command", ["legal", "apply"])
def test_invalid_position_is_refused_naming_the_field(tmp_path: Path, command: str) -> None:
    bad = dict(EXAMPLE, current_player=5)
    args = [command, write(tmp_path, bad)] + (['{"type": "take_coin"}'] if command == "apply" else [])
    assert_refused(rules(*args), "current_player")


def test_invalid_position_on_standard_input_is_refused() -> None:
    bad = dict(EXAMPLE, market={"c3": {"stand": "fish", "owner": 0, "restaurant": "pub"}})
    assert_refused(rules("legal", "-", stdin=json.dumps(bad)), "market.c3")


@pytest.mark.parametrize(
    ("action", "names"),
    [
        ('{"type": "steal"}', ["steal"]),
        ('{"type": "take_coin", "good": "fish"}', ["good"]),
        ('{"type": "open_stand", "good": "fish", "square": "z9"}', ["z9"]),
        ('{"type": ["take_coin"]}', []),
        ('{"type": "take_coin"', []),
        ('{"type": "open_stand", "good": "fi\\nsh", "square": "c4"}', ["fi\\nsh"]),
        ('{"type": "take_coin", "typo\\n": 1}', ["typo"]),
        ('{"type": "take_coin", "type": "redraw_hand"}', ["type", "twice"]),
    ],
    ids=[
        "unknown type",
        "extra field",
        "unknown square",
        "type not text",
        "not JSON",
        "a line break in a value",
        "a line break in a key",
        "a key twice",
    ],
)
def test_malformed_action_is_refused(tmp_path: Path, action: str, names: list[str]) -> None:
    assert_refused(rules("apply", write(tmp_path, EXAMPLE), action), *names)


def test_a_position_naming_a_square_twice_is_refused(tmp_path: Path) -> None:
    text = json.dumps(EXAMPLE).replace('"market": {', '"market": {"c3": {"face_down": "pub"}, ', 1)
    assert_refused(rules("legal", "-", stdin=text), "c3", "twice")


def test_missing_position_file_is_refused(tmp_path: Path) -> None:
    assert_refused(rules("legal", str(tmp_path / "nowhere.json")), "nowhere.json")


def test_position_file_that_is_not_json_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"format": "mercado-position/1",', encoding="utf-8")
    assert_refused(rules("apply", str(path), '{"type": "take_coin"}'), "JSON")


def test_position_file_that_is_not_text_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "binary.json"
    path.write_bytes(b"\xff\xfe\x00{\x00}")
    assert_refused(rules("legal", str(path)))


def test_standard_input_that_is_not_json_is_refused() -> None:
    assert_refused(rules("legal", "-", stdin="not a position\n"), "JSON")


def test_position_that_is_not_an_object_is_refused(tmp_path: Path) -> None:
    assert_refused(rules("legal", write(tmp_path, [1, 2, 3])), "position")


# --- every game --------------------------------------------------------------------------


def test_new_sets_up_any_game_with_its_options() -> None:
    data = single_json(rules("new", "--game", "leilao", "--players", "3", "--seed", "5"))
    assert data == LEILAO.position_to_json(LEILAO.new_game(LEILAO.options({"players": 3}), 5))
    data = single_json(rules("new", "--game", "oregano", "--seed", "2", "--option", "strategy_cards=open"))
    assert data["format"] == "oregano-position/1"
    assert data["options"] == OREGANO.options({"players": 2, "strategy_cards": "open"})


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["--game", "leilao", "--money", "public"], ["--money", "mercado", "leilao"]),
        (["--game", "leilao", "--option", "nope=1"], ["nope"]),
        (["--game", "oregano", "--option", "strategy_cards"], ["NAME=VALUE"]),
    ],
)
def test_new_refuses_options_the_game_does_not_have(args: list[str], names: list[str]) -> None:
    assert_refused(rules("new", "--seed", "1", *args), *names)


def test_a_simultaneous_step_needs_the_seat_named(tmp_path: Path) -> None:
    state = LEILAO.new_game(LEILAO.options({"players": 2}), 9)
    path = write(tmp_path, LEILAO.position_to_json(state))
    assert_refused(rules("legal", path), "--seat", "0, 1")
    assert_refused(rules("apply", path, '{"type": "bid", "card": 3}'), "--seat")
    legal = single_json(rules("legal", "--seat", "1", path))
    assert legal == [LEILAO.action_to_json(a) for a in LEILAO.legal_actions(state, 1)]


def test_apply_seals_a_bid_of_the_seat_named(tmp_path: Path) -> None:
    state = LEILAO.new_game(LEILAO.options({"players": 2}), 9)
    path = write(tmp_path, LEILAO.position_to_json(state))
    bid = {"type": "bid", "card": 11, "extra": 4}
    out = single_json(rules("apply", "--seat", "0", path, json.dumps(bid)))
    events = LEILAO.apply(state, 0, LEILAO.action_from_json(bid))
    assert out == {"position": LEILAO.position_to_json(state), "events": events}
    assert LEILAO.to_move(state) == {1}  # seat 0 has bid; seat 1 still must


def test_a_position_of_no_game_is_refused_naming_the_formats(tmp_path: Path) -> None:
    line = assert_refused(rules("legal", write(tmp_path, dict(EXAMPLE, format="chess/1"))), "format")
    assert all(f"{name}-position/1" in line for name in ("mercado", "oregano", "leilao"))
