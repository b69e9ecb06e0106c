"""Reading a MatchState of any game: whose turn it is, the legal moves with what each costs and
pays, a Leilão seat's bid options, the result.

Nothing here computes what the server computes (payments, scores, ranks): it only finds it in the
state. The game-specific messages are those of ``mercado.v1`` (``LeilaoView``, ``OreganoPreview``, ...).
"""

from __future__ import annotations

from dataclasses import dataclass

from google.protobuf.message import Message
from mercado.v1 import leilao_pb2 as leilao
from mercado.v1 import match_pb2 as api
from mercado.v1 import score_pb2 as score

OVER = (api.MATCH_STATUS_FINISHED, api.MATCH_STATUS_CANCELLED)


def is_over(state: api.MatchState) -> bool:
    """Whether the match is over: finished, or cancelled before it started."""
    return state.match.status in OVER


def is_my_turn(state: api.MatchState) -> bool:
    """Whether it is the caller's turn: the match is playing, the caller is among the seats to move
    and has legal actions. In a sealed step (a Leilão bid) several seats are to move, each until it
    has made its choice: a state after the seat's own choice says it is not its turn. ``Seat.watch``
    never gives a state older than the answer to the seat's own action, so a loop that acts whenever
    this is true acts once per turn."""
    return (
        state.match.status == api.MATCH_STATUS_PLAYING
        and bool(state.legal_actions)
        and state.HasField("your_seat")
        and state.your_seat in state.seats_to_move
    )


def _game_part(message: Message) -> Message | None:
    """The set field of a message's ``game`` oneof (an Action's, View's or ActionPreview's)."""
    game = message.WhichOneof("game")
    part: Message | None = None if game is None else getattr(message, game)
    return part


def game_view(state: api.MatchState) -> Message | None:
    """The view of the state's game: a MercadoView, OreganoView or LeilaoView; None without one."""
    return _game_part(state.view)


@dataclass(frozen=True)
class LegalMove:
    """A legal action with what it would cost and pay, as the server previews it for the caller."""

    action: api.Action  # to submit unchanged (Seat.act)
    game_action: Message  # its game's part: a MercadoAction, OreganoAction or LeilaoAction
    # Its game's preview (a MercadoPreview, OreganoPreview or LeilaoPreview); None if the server sent none.
    preview: Message | None


def legal_moves(state: api.MatchState) -> list[LegalMove]:
    """The state's legal actions, each with its preview (``previews[i]`` belongs to
    ``legal_actions[i]``): Mercado's coins it costs and pays each seat, Oregano's gold and cards and
    its change to the score, Leilão's points a bid costs at the end or a pick gains. Show payments
    and scores from the previews; never compute them."""
    moves = []
    for i, action in enumerate(state.legal_actions):
        game = action.WhichOneof("game")
        if game is None:
            continue
        previewed = i < len(state.previews) and state.previews[i].WhichOneof("game") == game
        preview = getattr(state.previews[i], game) if previewed else None
        moves.append(LegalMove(action, getattr(action, game), preview))
    return moves


def preview_of(state: api.MatchState, action: api.Action) -> Message | None:
    """The preview of one of the state's legal actions (found by equality); None if it is not one."""
    return next((move.preview for move in legal_moves(state) if move.action == action), None)


def bid_options(state: api.MatchState) -> leilao.LeilaoBidOptions | None:
    """A Leilão seat's sealed choices while it must bid or re-bid, grouped: each card it may bid
    (``cards[i].card``) with the extra cards allowed with it (``cards[i].extras``), and the fee an
    extra card costs at the end (``extra_fee``); in a tie-break (``step`` LEILAO_PHASE_TIEBREAK), the
    cards it may re-bid. None when the seat has no choice to make; ``bid_action`` turns a choice
    into its action."""
    view = state.view
    if view.WhichOneof("game") != "leilao" or not view.leilao.HasField("bid_options"):
        return None
    options: leilao.LeilaoBidOptions = view.leilao.bid_options
    return options


def bid_action(state: api.MatchState, card: int, extra: int | None = None) -> api.Action | None:
    """The legal action that bids ``card`` (with the extra card ``extra``) in Leilão's bid step, or
    re-bids ``card`` in a tie-break: one of the state's legal actions, to submit as it is; None when
    it is not legal now."""
    for action in state.legal_actions:
        if action.WhichOneof("game") != "leilao":
            continue
        choice = action.leilao
        kind = choice.WhichOneof("action")
        if kind == "bid" and choice.bid.card == card:
            if (choice.bid.extra if choice.bid.HasField("extra") else None) == extra:
                return action
        elif kind == "rebid" and choice.rebid.card == card and extra is None:
            return action
    return None


@dataclass(frozen=True)
class MatchResult:
    """A finished match's result, from the server's scores and ranks."""

    scores: list[int]  # by seat: its final score (the total of its score parts)
    ranks: list[int]  # by seat: its rank, 1-based, ties shared and forfeited seats last (MatchSummary.ranks)
    # By seat: its score explained, as named parts that add up to it (``parts[seat].parts``: a
    # ``label`` and ``points`` each) and the tie-breaks that ranked it (MatchState.score_parts).
    parts: list[score.ScoreParts]


def match_result(state: api.MatchState | None) -> MatchResult | None:
    """The result of a finished match of any game; None before it finishes (or once cancelled)."""
    if state is None or state.match.status != api.MATCH_STATUS_FINISHED:
        return None
    parts = sorted(state.score_parts, key=lambda seat: seat.seat)
    return MatchResult([seat.total for seat in parts], list(state.match.ranks), parts)
