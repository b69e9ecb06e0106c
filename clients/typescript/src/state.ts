/**
 * Reading a MatchState of any game: whose turn it is, the legal moves with what each costs and
 * pays, a Leilão seat's bid options, the result. Nothing here computes what the server computes
 * (payments, scores, ranks): it only finds it in the state.
 */

import { create, equals, type MessageInitShape } from "@bufbuild/protobuf";

import {
  type Action,
  type ActionPreview,
  ActionSchema,
  type MatchState,
  MatchStatus,
  type MatchUpdate,
  type View,
} from "./gen/mercado/v1/match_pb.js";
import type { LeilaoBidOptions } from "./gen/mercado/v1/leilao_pb.js";
import type { MercadoView } from "./gen/mercado/v1/mercado_pb.js";
import type { ScoreParts } from "./gen/mercado/v1/score_pb.js";

/** An action as a message or as the plain object `create(ActionSchema, ...)` accepts. */
export type ActionInit = Action | MessageInitShape<typeof ActionSchema>;

/** A game by its name in the oneofs of Action, View and ActionPreview ("leilao"). */
export type GameCase = NonNullable<View["game"]["case"]>;

type ValueOf<Oneof, Name> = Oneof extends { case: Name; value: infer Value } ? Value : never;

/** A game's view message: GameView<"leilao"> is LeilaoView. */
export type GameView<G extends GameCase = GameCase> = ValueOf<View["game"], G>;
/** A game's action message: GameAction<"leilao"> is LeilaoAction. */
export type GameAction<G extends GameCase = GameCase> = ValueOf<Action["game"], G>;
/** A game's preview message: GamePreview<"leilao"> is LeilaoPreview. */
export type GamePreview<G extends GameCase = GameCase> = ValueOf<ActionPreview["game"], G>;

/** Whether the match of this state has finished. */
export function isFinished(state: MatchState | undefined): boolean {
  return state?.match?.status === MatchStatus.FINISHED;
}

/** Whether the match of this state is over: finished, or cancelled before it started. */
export function isOver(state: MatchState | undefined): boolean {
  const status = state?.match?.status;
  return status === MatchStatus.FINISHED || status === MatchStatus.CANCELLED;
}

/**
 * Whether the state is the caller's turn: the match is playing, the caller is among the seats to
 * move and has legal actions. In a sealed step (a Leilão bid) several seats are to move, each
 * until it has made its choice: a state after the seat's own choice says it is not its turn. A
 * seat's watch() never yields a state older than the answer to its own action, so a loop that
 * acts whenever this is true acts once per turn.
 */
export function isMyTurn(state: MatchState | undefined): boolean {
  return (
    state?.match?.status === MatchStatus.PLAYING &&
    state.legalActions.length > 0 &&
    state.yourSeat !== undefined &&
    state.seatsToMove.includes(state.yourSeat)
  );
}

/**
 * Whether an update is an accepted action: it names the acting seat. The match as it stands (a
 * stream's first message) and changes of seats, clocks or status name none. Another seat's
 * sealed choice (a Leilão bid) names its seat without the action, which the step's last choice
 * reveals in its events.
 */
export function isAction(update: MatchUpdate): boolean {
  return update.seat !== undefined;
}

/** The view of the state's game: gameView(state, "leilao") is its LeilaoView; undefined for another game's. */
export function gameView<G extends GameCase>(state: MatchState | undefined, game: G): GameView<G> | undefined {
  const view = state?.view?.game;
  return view?.case === game ? (view.value as GameView<G>) : undefined;
}

/** The Mercado de Lisboa part of a state's view, if any: gameView(state, "mercado"). */
export function mercadoView(state: MatchState | undefined): MercadoView | undefined {
  return gameView(state, "mercado");
}

/** A legal action with what it would cost and pay, as the server previews it for the caller. */
export interface LegalMove<G extends GameCase = GameCase> {
  /** The action to submit, unchanged (Seat.act). */
  action: Action;
  /** The game's part of it: `action.game.value` (for Leilão a LeilaoAction). */
  gameAction: GameAction<G>;
  /** The game's preview of it; undefined only if the server sent none. */
  preview: GamePreview<G> | undefined;
}

/**
 * The state's legal actions, each with its preview (`previews[i]` belongs to `legalActions[i]`):
 * Mercado's coins it costs and pays each seat (MercadoPreview), Oregano's gold and cards and its
 * change to the score (OreganoPreview), Leilão's points a bid costs at the end or a pick gains
 * (LeilaoPreview). With `game`, only that game's, typed as its messages: legalMoves(state,
 * "leilao"). Show payments and scores from the previews; never compute them.
 */
export function legalMoves<G extends GameCase = GameCase>(state: MatchState | undefined, game?: G): LegalMove<G>[] {
  const moves: LegalMove<G>[] = [];
  for (const [i, action] of (state?.legalActions ?? []).entries()) {
    if (action.game.case === undefined || (game !== undefined && action.game.case !== game)) continue;
    const preview = state?.previews[i]?.game;
    moves.push({
      action,
      gameAction: action.game.value as GameAction<G>,
      preview: preview?.case === action.game.case ? (preview.value as GamePreview<G>) : undefined,
    });
  }
  return moves;
}

/** The preview of one of the state's legal actions (found by equality), if it is one. */
export function previewOf(state: MatchState | undefined, action: ActionInit): GamePreview | undefined {
  const wanted = create(ActionSchema, action);
  return legalMoves(state).find((move) => equals(ActionSchema, move.action, wanted))?.preview;
}

/**
 * A Leilão seat's sealed choices while it must bid or re-bid, grouped: each card it may bid
 * (`cards[i].card`) with the extra cards allowed with it (`cards[i].extras`), and the fee an extra
 * card costs at the end (`extraFee`); in a tie-break (`step` LeilaoPhase.TIEBREAK), the cards it may
 * re-bid. Undefined when the seat has no choice to make. bidAction turns a choice into its action.
 */
export function bidOptions(state: MatchState | undefined): LeilaoBidOptions | undefined {
  return gameView(state, "leilao")?.bidOptions;
}

/**
 * The legal action that bids `card` (with the extra card `extra`) in Leilão's bid step, or
 * re-bids `card` in a tie-break: one of the state's legal actions, to submit as it is; undefined
 * when it is not legal now.
 */
export function bidAction(state: MatchState | undefined, card: number, extra?: number): Action | undefined {
  return legalMoves(state, "leilao").find(({ gameAction }) => {
    const choice = gameAction.action;
    if (choice.case === "bid") return choice.value.card === card && choice.value.extra === extra;
    return choice.case === "rebid" && choice.value.card === card && extra === undefined;
  })?.action;
}

/** A finished match's result, from the server's scores and ranks. */
export interface MatchResult {
  /** By seat: its final score (the total of its score parts). */
  scores: number[];
  /** By seat: its rank, 1-based, ties shared and forfeited seats last (MatchSummary.ranks). */
  ranks: number[];
  /**
   * By seat: its score explained, as named parts that add up to it (`parts[seat].parts`: a
   * `label` and `points` each) and the tie-breaks that ranked it (MatchState.scoreParts).
   */
  parts: ScoreParts[];
}

/** The result of a finished match of any game; undefined before it finishes (or once cancelled). */
export function matchResult(state: MatchState | undefined): MatchResult | undefined {
  if (!state || !isFinished(state)) return undefined;
  const parts = [...state.scoreParts].sort((a, b) => a.seat - b.seat);
  return { scores: parts.map((seat) => Number(seat.total)), ranks: [...(state.match?.ranks ?? [])], parts };
}
