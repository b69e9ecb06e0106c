"""Hidden information never reaches a caller (RULES.md, Information).

Hidden from everyone: face-down restaurant identities, the bag's order and
contents, the customer decks' order (and the engine's random state). With
hidden money, a seat sees only its own coins and income; a spectator none.

The checks work on what was actually received: every message is compared,
byte for byte, with what the server must send, computed from the true state
(replayed from the log) and from a *disguised* true state that differs only
in hidden parts. Equal bytes for both means the hidden parts are not in them.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from matchplay import (
    Connect,
    bearer,
    mover,
    play_random_match,
    replay_history,
    replay_options,
    seated_match,
    unknown_fields,
)
from mercado.v1 import match_pb2 as api
from mercado.v1 import mercado_pb2 as pb
from mercado_client import MercadoClient, Seat, action_message
from mercado_client.games import action_json, options_json, struct_json

from server.games.leilao import LeilaoState
from server.games.leilao.state import Sealed
from server.games.mercado import RULES, Event, GameState, Options, events_for, new_game, player_view, position
from server.games.oregano import OreganoState
from server.games.oregano.components import STRATEGIES
from server.games.oregano.previews import declare_outlook
from server.games.registry import game_named
from server.match import Match, MatchService, Policy, Update
from server.rpc.server import create_server
from server.rpc.servicer import MatchServicer
from server.rpc.wires import WIRES
from server.rpc.wires.mercado import events_message, view_message
from server.rpc.wires.scores import score_parts_message
from server.store.sqlite import SqliteStore


def disguise(state: GameState, viewer: int | None, seed: int) -> GameState:
    """The same position as ``viewer`` may see it, with every part ``viewer`` may not see changed."""
    rng = random.Random(seed)
    other = state.clone()
    if state.options.money_hidden:
        other.coins = [c if p == viewer else c + 100 + p for p, c in enumerate(state.coins)]
    if len(set(other.bag)) > 1:
        while other.bag == state.bag:
            rng.shuffle(other.bag)
    for deck in other.decks:
        rng.shuffle(deck)
    squares = [q for q, kind in enumerate(state.face_down) if kind >= 0]
    kinds = [state.face_down[q] for q in squares]
    if len(set(kinds)) > 1:
        shuffled = kinds[:]
        while shuffled == kinds:
            rng.shuffle(shuffled)
        for q, kind in zip(squares, shuffled, strict=True):
            other.face_down[q] = kind
    # Checked before the random state changes, which it always does.
    assert position.to_json(other) != position.to_json(state), "only the random state would differ"
    other.rng = state.rng ^ 0x5DEECE66D
    return other


def disguise_events(events: list[Event], viewer: int | None, options: Options) -> list[Event]:
    """The events with every income amount ``viewer`` may not see changed."""
    if not options.money_hidden:
        return events
    return [
        {**e, "amount": e["amount"] + 50} if e["type"] == "income" and e["player"] != viewer else e
        for e in events
    ]


def wire(message: Any) -> bytes:
    data: bytes = message.SerializeToString(deterministic=True)
    return data


def expected_state_bytes(state: GameState, viewer: int | None) -> tuple[bytes, list[bytes], list[bytes]]:
    """The view, legal actions and scores ``viewer`` must receive for ``state``."""
    view = player_view(state, viewer)
    scores = [
        score_parts_message(s) for s in RULES.score_parts(state) if RULES.score_shown(state, s.seat, viewer)
    ]
    legal = [wire(action_message(a)) for a in view.get("legal_actions", [])]
    return wire(view_message(view)), legal, [wire(s) for s in scores]


def check_state(message: api.MatchState, viewer: int | None, true: GameState) -> bool:
    """Everything ``viewer`` got at one version; returns whether face-down identities were disguised."""
    view = message.view.mercado
    for player in view.players:
        assert player.HasField("coins") == (player.seat == viewer or true.options.money == "public")
    assert len(message.previews) == len(message.legal_actions)
    for preview in message.previews:  # what an action pays another seat shows only with public money
        for earning in preview.mercado.earnings:
            assert earning.HasField("amount") == (earning.seat == viewer or true.options.money == "public")
    for square in view.market:
        if square.WhichOneof("content") == "face_down":
            assert wire(square.face_down) == b""
    assert sum(1 for s in view.market if s.HasField("face_down")) == sum(1 for k in true.face_down if k >= 0)
    assert view.bag_size == len(true.bag)
    assert [c.deck_size for c in view.customers] == [len(d) for d in true.decks]

    # Scores in parts: with hidden money a seat's own alone until the end, then everyone's.
    everyone = true.options.money == "public" or message.match.status == api.MATCH_STATUS_FINISHED
    seats = list(range(true.players)) if everyone else [] if viewer is None else [viewer]
    assert [score.seat for score in message.score_parts] == seats

    got = (wire(view), [wire(a) for a in message.legal_actions], [wire(s) for s in message.score_parts])
    assert got == expected_state_bytes(true, viewer)
    disguised = disguise(true, viewer, seed=message.version)
    view_and_actions, scores = got[:2], got[2]
    assert view_and_actions == expected_state_bytes(disguised, viewer)[:2]
    if message.match.status != api.MATCH_STATUS_FINISHED:  # a final score is public, and the coins it counts
        assert scores == expected_state_bytes(disguised, viewer)[2]
    return disguised.face_down != true.face_down


def check_events(
    events: list[api.Event], viewer: int | None, true_events: list[Event], options: Options
) -> None:
    for event in events:
        if event.mercado.WhichOneof("event") == "income":
            income = event.mercado.income
            assert income.HasField("amount") == (income.player == viewer or not options.money_hidden)
    got = [wire(e) for e in events]
    assert got == [wire(e) for e in events_message(true_events, options, viewer)]
    disguised = disguise_events(true_events, viewer, options)
    assert got == [wire(e) for e in events_message(disguised, options, viewer)]


def as_spectator(state: api.MatchState) -> api.MatchState:
    """A seat's state with what only that seat may see removed."""
    out = api.MatchState()
    out.CopyFrom(state)
    out.ClearField("your_seat")
    del out.legal_actions[:]
    del out.previews[:]
    if out.view.mercado.options.money != pb.MONEY_PUBLIC:
        for player in out.view.mercado.players:
            player.ClearField("coins")
        if out.match.status != api.MATCH_STATUS_FINISHED:
            del out.score_parts[:]  # its own score
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
async def test_no_message_carries_hidden_information(connect: Connect, players: int) -> None:
    match_id, seats = await seated_match(connect, players, money="hidden", seed=700 + players)
    received = await play_random_match(seats, seed=players, watcher=connect())
    replay = await connect().replay(match_id)
    history = replay_history(replay)
    options = replay_options(replay)
    assert options.money_hidden

    disguised_face_down = 0
    for viewer, got in received.items():
        assert got.updates, "the stream delivered nothing"
        for message in got.messages():
            assert unknown_fields(message) == []
        for state in got.states():
            assert (state.your_seat if state.HasField("your_seat") else None) == viewer
            disguised_face_down += check_state(state, viewer, history[state.version][0])
        for update in got.updates:
            if update.HasField("action"):  # the stream's first message is where the match stands
                check_events(list(update.events), viewer, history[update.version][1], options)
        for response in got.responses:
            check_events(list(response.events), viewer, history[response.version][1], options)
    # The face-down identities were really varied, not only the bag, decks and coins.
    assert disguised_face_down > 0

    # A seat sees exactly what a spectator sees, plus its own coins, income and legal actions.
    spectator = {u.version: u for u in received[None].updates if u.HasField("action")}
    for seat in range(players):
        for update in (u for u in received[seat].updates if u.HasField("action")):
            watched = spectator[update.version]
            assert wire(as_spectator(update.state)) == wire(watched.state)
            own = [wire(e) for e in update.events if e.mercado.income.player != seat]
            theirs = [wire(e) for e in watched.events if e.mercado.income.player != seat]
            assert own == theirs


async def test_public_money_shows_every_seat_all_coins(connect: Connect) -> None:
    match_id, seats = await seated_match(connect, 2, money="public", seed=11)
    received = await play_random_match(seats, seed=11, watcher=connect())
    history = replay_history(await connect().replay(match_id))
    incomes = 0
    for viewer, got in received.items():
        for state in got.states():
            coins = [p.coins for p in state.view.mercado.players]
            assert all(p.HasField("coins") for p in state.view.mercado.players)
            assert coins == history[state.version][0].coins, viewer
        for event in got.events():
            if event.mercado.WhichOneof("event") == "income":
                incomes += 1
                assert event.mercado.income.HasField("amount")
    assert incomes > 0


# --- against a server whose true state the test can change ---------------------------------------


@pytest.fixture
async def authority(tmp_path: Path) -> AsyncIterator[tuple[MatchService, MercadoClient]]:
    """A real gRPC server in this process, so the test can reach behind it to the true state."""
    service = MatchService(SqliteStore(tmp_path / "mercado.db"), policy=Policy(allow_chosen_seeds=True))
    running = create_server(MatchServicer(service), "127.0.0.1:0")
    await running.server.start()
    client = MercadoClient(f"127.0.0.1:{running.port}")
    yield service, client
    await client.close()
    service.close_streams()
    await running.server.stop(None)
    service.store.close()


def set_true_state(match: Match, state: GameState) -> None:
    """Make ``state`` the match's true state at its current version, with nothing rendered from it yet."""
    match.state = state
    if match.current:
        match.current = Update(match.current.version, state, match.current.record)


async def _views(client: MercadoClient, match_id: str, tokens: list[str | None]) -> list[bytes]:
    return [wire(await client.view(match_id, token)) for token in tokens]


async def _play_some(client: MercadoClient, seats: list[Seat], actions: int) -> None:
    rng = random.Random(actions)
    for _ in range(actions):
        seat, state = await mover(seats)
        request = api.SubmitActionRequest(
            match_id=seat.match_id,
            expected_version=state.version,
            request_id=uuid.uuid4().hex,
            action=rng.choice(list(state.legal_actions)),
        )
        await client.stub.SubmitAction(request, metadata=bearer(seat.token))


@pytest.mark.parametrize("money", ["hidden", "public"])
async def test_views_do_not_depend_on_hidden_parts_of_the_true_state(
    authority: tuple[MatchService, MercadoClient], money: str
) -> None:
    service, client = authority
    match_id = await client.create_match(players=3, money=money, seed=42)
    seats = [await client.join(match_id, f"p{n}") for n in range(3)]
    await _play_some(client, seats, actions=9)
    viewers: list[tuple[int | None, str | None]] = [(s.seat, s.token) for s in seats] + [(None, None)]

    match = await service.get(match_id)
    true = match.state
    before = await _views(client, match_id, [token for _, token in viewers])
    assert any(api.MatchState.FromString(b).legal_actions for b in before)
    # Reach behind the server: change, one viewer at a time, only what that viewer may not see.
    for n, (seat, token) in enumerate(viewers):
        set_true_state(match, disguise(true, seat, seed=n))
        assert wire(await client.view(match_id, token)) == before[n], f"seat {seat} sees hidden parts"
        # Another seat's coins: seen with public money only.
        richer = true.clone()
        richer.coins[((seat or 0) + 1) % 3] += 10
        set_true_state(match, richer)
        changed = wire(await client.view(match_id, token)) != before[n]
        assert changed == (money == "public")
    # A change of a public part is seen by everyone.
    changed_offer = true.clone()
    changed_offer.offer = (
        list(reversed(true.offer)) if len(set(true.offer)) > 1 else [(true.offer[0] + 1) % 5]
    )
    set_true_state(match, changed_offer)
    after = await _views(client, match_id, [token for _, token in viewers])
    assert all(a != b for a, b in zip(after, before, strict=True))
    set_true_state(match, true)
    assert await _views(client, match_id, [token for _, token in viewers]) == before


async def test_face_down_content_is_empty_on_the_wire(authority: tuple[MatchService, MercadoClient]) -> None:
    _, client = authority
    match_id = await client.create_match(players=2, seed=3)
    raw = await client.stub.GetView(api.GetViewRequest(match_id=match_id))
    face_down = [s for s in raw.view.mercado.market if s.HasField("face_down")]
    assert len(face_down) == 11
    for square in face_down:
        assert wire(square) == wire(pb.SquareContent(square=square.square, face_down=pb.FaceDown()))


def test_spectator_events_hide_every_income() -> None:
    options = Options(players=3, money="hidden")
    events: list[Event] = [{"type": "income", "player": p, "amount": 3 + p} for p in range(3)]
    assert events_for(events, options, None) == [{"type": "income", "player": p} for p in range(3)]
    assert events_for(events, options, 1)[1] == {"type": "income", "player": 1, "amount": 4}


def test_received_checker_sees_a_leak() -> None:
    """The byte comparison is not vacuous: a coin added to another seat's entry is caught."""
    state = new_game(Options(players=2), seed=9)
    leaked = view_message(player_view(state, 0))
    leaked.players[1].coins = state.coins[1]
    message = api.MatchState(version=0, your_seat=0, view=api.View(mercado=leaked))
    with pytest.raises(AssertionError):
        check_state(message, 0, state)


# --- Oregano and Leilão: their typed views and events ----------------------------------------------


def rules_history(replay: api.Replay) -> list[tuple[Any, list[Event]]]:
    """Per version (index 0: the set-up), the true state of a replayed Oregano or Leilão match and
    the events of the action that made it."""
    game = replay.WhichOneof("options")
    assert game is not None
    rules = game_named(game)
    options = rules.options({"players": replay.players, **options_json(game, getattr(replay, game))})
    state = rules.new_game(options, replay.seed)
    history: list[tuple[Any, list[Event]]] = [(rules.clone(state), [])]
    for step in replay.steps:
        events = rules.apply(state, step.seat, rules.action_from_json(action_json(step.action)))
        history.append((rules.clone(state), events))
    return history


def disguise_leilao(state: LeilaoState, viewer: int | None, rng: random.Random) -> LeilaoState:
    """The same position as ``viewer`` may see it: every other seat's sealed choice swapped for other
    cards of its hand, the market deck shuffled."""
    other = state.clone()
    rng.shuffle(other.deck)
    for seat, sealed in enumerate(state.sealed):
        if seat == viewer or sealed is None:
            continue
        swappable = [card for card in state.hands[seat] if card != sealed.extra]
        if swappable:
            card = rng.choice(swappable)
            other.sealed[seat] = Sealed(card, sealed.extra)
            other.hands[seat] = sorted([c for c in state.hands[seat] if c != card] + [sealed.card])
    return other


def disguise_leilao_events(events: list[Event], viewer: int | None) -> list[Event]:
    """Another seat's sealed choice in its own event, changed."""
    return [
        {**e, "card": e["card"] % 20 + 1} if e["type"] == "sealed" and e["seat"] != viewer else e
        for e in events
    ]


def disguise_oregano(state: OreganoState, viewer: int | None, rng: random.Random) -> OreganoState:
    """The same position as ``viewer`` may see it with hidden strategy cards: every other seat's card,
    and the cards it drew, changed; the strategy deck shuffled."""
    other = state.clone()
    rng.shuffle(other.strategy_deck)
    for seat in range(state.players):
        if seat == viewer:
            continue
        card = state.strategies[seat]
        if card is not None:
            other.strategies[seat] = rng.choice([c for c in STRATEGIES if c != card])
        other.drawn[seat] = [
            STRATEGIES[(STRATEGIES.index(c) + 1) % len(STRATEGIES)] for c in state.drawn[seat]
        ]
    return other


def disguise_oregano_events(events: list[Event], viewer: int | None) -> list[Event]:
    """Another seat's drawn, kept and put-back strategy cards, changed."""

    def other_card(card: str) -> str:
        return STRATEGIES[(STRATEGIES.index(card) + 1) % len(STRATEGIES)]

    out = []
    for event in events:
        if event["type"] in ("strategy_drawn", "strategy_kept") and event["seat"] != viewer:
            event = dict(event)
            for name in ("cards", "returned"):
                if name in event:
                    event[name] = [other_card(card) for card in event[name]]
            if "card" in event and event["type"] == "strategy_kept":
                event["card"] = other_card(event["card"])
        out.append(event)
    return out


DISGUISES: dict[str, tuple[Any, Any]] = {
    "leilao": (disguise_leilao, disguise_leilao_events),
    "oregano": (disguise_oregano, disguise_oregano_events),
}


def typed_view_bytes(game: str, state: Any, viewer: int | None) -> bytes:
    """The typed view (but its deprecated Struct) that ``viewer`` must receive for ``state``."""
    message = api.View()
    WIRES[game].fill_view(getattr(message, game), state, game_named(game).view(state, viewer))
    return wire(getattr(message, game))


def typed_events_bytes(game: str, state: Any, events: list[Event], viewer: int | None) -> list[bytes]:
    out = []
    for event in game_named(game).events_for(state, events, viewer):
        message = api.Event()
        WIRES[game].fill_event(getattr(message, game), state, event)
        out.append(wire(getattr(message, game)))
    return out


def received_typed(message: Any) -> bytes:
    """A received typed view or event without its deprecated Struct (and a view without what comes
    with a seat's own legal actions: Leilão's bid options, Oregano's declare outlook)."""
    copy = type(message)()
    copy.CopyFrom(message)
    copy.ClearField("view" if hasattr(copy, "view") else "event")
    for own in ("bid_options", "declare_outlook"):
        if hasattr(copy, own):
            copy.ClearField(own)
    return wire(copy)


@pytest.mark.parametrize(
    ("game", "players", "options"),
    [("leilao", 3, {}), ("leilao", 2, {}), ("oregano", 3, {"strategy_cards": "hidden"})],
)
async def test_typed_views_and_events_carry_no_sealed_choice_or_hidden_card(
    connect: Connect, game: str, players: int, options: dict[str, str]
) -> None:
    """Another seat's sealed bid (Leilão) and its strategy cards (Oregano, while hidden) reach no other
    seat and no spectator: what each received is what the true position gives, and what a position
    differing only in those gives too."""
    client = connect()
    match_id = await client.create_match(players=players, seed=40 + players, game=game, options=options)
    seats = [await connect().join(match_id, f"player {n}") for n in range(players)]
    received = await play_random_match(seats, seed=players, watcher=connect())
    history = rules_history(await connect().replay(match_id))
    disguise, disguise_events = DISGUISES[game]
    rng = random.Random(players)
    hidden = 0
    for viewer, got in received.items():
        for state in got.states():
            true = history[state.version][0]
            typed = getattr(state.view, game)
            expected = typed_view_bytes(game, true, viewer)
            assert received_typed(typed) == expected
            disguised = disguise(true, viewer, rng)
            assert typed_view_bytes(game, disguised, viewer) == expected, f"{viewer} sees a hidden part"
            if game == "oregano" and typed.declare_outlook:
                outlook = declare_outlook(true, viewer)
                assert [o.operations for o in typed.declare_outlook] == [o.operations for o in outlook]
                assert declare_outlook(disguised, viewer) == outlook, f"{viewer}'s outlook tells more"
            shown = game_named(game).view(disguised, viewer)
            shown.pop("legal_actions", None)  # MatchState.legal_actions holds them
            assert struct_json(typed.view) == shown
            hidden += game_named(game).position_to_json(disguised) != game_named(game).position_to_json(true)
        for update in got.updates:
            if update.HasField("seat"):  # an action's update (the others are seat changes)
                true, events = history[update.version]
                expected_events = typed_events_bytes(game, true, events, viewer)
                assert [received_typed(getattr(e, game)) for e in update.events] == expected_events
                disguised_events = disguise_events(events, viewer)
                assert typed_events_bytes(game, true, disguised_events, viewer) == expected_events
    assert hidden > 0, "no hidden part was ever changed: the check would see nothing"
