// Plays a seat to the end with random legal actions (transport-agnostic: Node or browser).

import type { MatchState, MatchUpdate } from "../gen/mercado/v1/match_pb.js";
import { isMyTurn, type Seat } from "../client.js";

export interface RandomPlayerOptions {
  /** Floats in [0, 1); Math.random by default. */
  random?: () => number;
  /** Called with every update of the match, in order (the first is the view when play starts). */
  onUpdate?: (update: MatchUpdate) => void;
  signal?: AbortSignal;
}

/**
 * Watch the match as `seat` and, whenever it is this seat's turn, submit one of its legal
 * actions at random, until the match finishes. Returns the final state (with the result).
 */
export async function playRandomly(seat: Seat, options: RandomPlayerOptions = {}): Promise<MatchState> {
  const random = options.random ?? Math.random;
  let state: MatchState | undefined;
  let acted = -1n; // the latest version this seat acted at: each turn is played once
  for await (const update of seat.watch(options.signal ? { signal: options.signal } : {})) {
    options.onUpdate?.(update);
    if (!update.state) continue;
    state = update.state;
    if (isMyTurn(state) && state.version > acted) {
      acted = state.version;
      const action = state.legalActions[Math.floor(random() * state.legalActions.length)];
      if (action) await seat.act(action, state.version);
    }
  }
  if (!state) throw new Error("the match was never seen");
  return state;
}
