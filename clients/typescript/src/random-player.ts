// Plays a seat of any game to the end with random legal actions (transport-agnostic: Node or browser).

import { Code } from "@connectrpc/connect";

import { codeOf, type Seat } from "./client.js";
import type { MatchState, MatchUpdate } from "./gen/mercado/v1/match_pb.js";
import { isMyTurn } from "./state.js";

export interface RandomPlayerOptions {
  /** Floats in [0, 1); Math.random by default. */
  random?: () => number;
  /** Called with every update of the match, in order (the first is the view when play starts). */
  onUpdate?: (update: MatchUpdate) => void;
  signal?: AbortSignal;
}

/**
 * Watch the match as `seat` and, whenever it is the seat's turn (isMyTurn), submit one of its
 * legal actions at random, until the match is over; whatever the game, since the server lists
 * the legal actions. In a step where several seats act at once (a Leilão sealed bid) each seat
 * acts once, since the seat's watch never goes back to a state before its own choice. Returns
 * the final state.
 */
export async function playRandomly(seat: Seat, options: RandomPlayerOptions = {}): Promise<MatchState> {
  const random = options.random ?? Math.random;
  let state: MatchState | undefined;
  for await (const update of seat.watch(options.signal ? { signal: options.signal } : {})) {
    options.onUpdate?.(update);
    if (!update.state) continue;
    state = update.state;
    if (isMyTurn(state)) {
      const action = state.legalActions[Math.floor(random() * state.legalActions.length)]!;
      try {
        await seat.act(action, state.version);
      } catch (error) {
        // The match moved on and the action is no longer legal: the next update brings the next turn.
        if (codeOf(error) !== Code.Aborted) throw error;
      }
    }
  }
  if (!state) throw new Error("the match was never seen");
  return state;
}
