"""Every game's bots (ai/game_bots.py), decide_json, and ``mercado arena --game``."""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

from ai.arena import play_rules_game
from ai.bots import GreedyBot
from ai.game_bots import GreedyGameBot, IsmctsBot, RandomGameBot, bot_for
from ai.levels import GAME_LEVELS, decide_json
from server.bench.ai import GAME_PHASES, game_positions
from server.cli import main
from server.games.registry import GAMES, game_named


def test_each_game_has_its_bots_and_mercado_keeps_its_own() -> None:
    assert isinstance(bot_for("mercado", "greedy"), GreedyBot)
    for name in ("oregano", "leilao"):
        assert isinstance(bot_for(name, "random"), RandomGameBot)
        assert isinstance(bot_for(name, "greedy"), GreedyGameBot)
        bot = bot_for(name, "mcts:medium", timed=False)
        assert isinstance(bot, IsmctsBot) and bot.config.seconds is None
        assert bot.config.iterations == GAME_LEVELS[name]["medium"].iterations
        assert bot.config.temperature is not None  # its sealed choices drawn at random
        argmax = bot_for(name, "mcts-argmax:medium@2", timed=False)
        assert isinstance(argmax, IsmctsBot) and argmax.config.temperature is None and argmax.searches == 2
        assert argmax.config.iterations == bot.config.iterations
        with pytest.raises(ValueError, match="unknown bot .* mcts-argmax:LEVEL"):
            bot_for(name, "mcts:nightmare")
    with pytest.raises(ValueError, match="unknown game"):
        bot_for("chess", "random")


def test_greedy_takes_the_best_immediate_gain() -> None:
    """In Leilão's picking, the best stall for the score right now (ties: at random)."""
    game = game_named("leilao")
    state = game.new_game(game.options({"players": 2}), 8)
    game.apply(state, 0, game.action_from_json({"type": "bid", "card": 9, "extra": None}))
    game.apply(state, 1, game.action_from_json({"type": "bid", "card": 3, "extra": None}))
    (seat,) = game.to_move(state)
    gains = {}
    for action in game.legal_actions(state, seat):
        after = game.clone(state)
        game.apply(after, seat, action)
        gains[action] = game.score_now(after)[seat]
    for seed in range(5):
        choice = GreedyGameBot(game, seed).choose(game.view(state, seat))
        assert gains[choice] == max(gains.values())


@pytest.mark.parametrize("name", sorted(GAMES))
def test_decide_json_plays_a_legal_action_from_a_view_alone(name: str) -> None:
    """What the server's clocks call for a seat whose time ran out (Mercado: hidden coins guessed)."""
    game = game_named(name)
    rng = random.Random(2)
    state = game.new_game(game.options({"players": 3}), 2)
    for _ in range(12):
        seat = min(game.to_move(state))
        game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))
    seat = min(game.to_move(state))
    view = json.loads(json.dumps(game.view(state, seat)))
    assert decide_json(name, view, "easy", 7) in view["legal_actions"]


def test_an_arena_game_of_any_game_seats_the_bots_in_turn() -> None:
    first = play_rules_game("leilao", ["greedy", "random"], 2, seed=3, game=0)
    second = play_rules_game("leilao", ["greedy", "random"], 2, seed=3, game=1)
    assert first.bots == ("greedy", "random") and second.bots == ("random", "greedy")
    assert sum(first.wins) == 1.0 and len(first.scores) == 2
    assert first.margins[0] == -first.margins[1]


def test_arena_command_plays_the_game_it_is_given_and_counts_each_bot_s_choices() -> None:
    runner = CliRunner(mix_stderr=False)
    args = ["arena", "--game", "oregano", "--games", "2", "--bots", "greedy,random", "--jobs", "1"]
    result = runner.invoke(main, [*args, "--json", "--choices"])
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["game"] == "oregano" and report["games"] == 2
    assert {row["bot"] for row in report["results"]} == {"greedy", "random"}
    assert "its only choice" in result.stderr  # the choices' table
    for row in report["results"]:
        choices = row["choices"]
        # Every turn declares two actions, each then done or skipped; a skip with nothing else legal
        # is the bot's only choice.
        operations = ("build", "level_up", "take_resources", "sell", "acquire", "skip")
        assert (
            sum(choices[kind]["chosen"] for kind in operations if kind in choices)
            == 2 * choices["declare"]["chosen"]
        )
        assert all(0 <= c["only_choice"] <= c["chosen"] for c in choices.values())
        assert choices["declare"]["only_choice"] == 0


def test_bench_positions_of_any_game_give_a_seat_a_choice() -> None:
    """``mercado bench ai --game``: where in a game it times the searches."""
    game = game_named("oregano")
    positions = game_positions(game, seed=1)
    assert list(positions) == list(GAME_PHASES)
    for state, seat in positions.values():
        assert len(game.legal_actions(state, seat)) > 1
