/**
 * A typed client of the mercado match service, independent of the transport.
 *
 * Give it any Connect transport that speaks to the server: `connectNode()` from
 * "./node.js" (gRPC over HTTP/2) in Node, `createGrpcWebTransport()` from
 * `@connectrpc/connect-web` in a browser. Nothing here imports a Node module.
 *
 *     const client = new MercadoClient(transport);
 *     const { matchId } = await client.createMatch({ seats: ["open", "easy"] });
 *     const seat = await client.join(matchId, "ada");
 *     for await (const update of seat.follow()) {
 *       const [action] = update.state?.legalActions ?? [];
 *       if (action) await seat.act(action, update.version);
 *     }
 */

import { create, equals, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type CallOptions, type Client, type Transport } from "@connectrpc/connect";
import {
  type Action,
  ActionSchema,
  BotLevel,
  CreateMatchRequestSchema,
  type CreateMatchResponse,
  Game,
  type ListMatchesResponse,
  MatchService,
  type MatchState,
  MatchStatus,
  MatchSummarySchema,
  type MatchUpdate,
  MatchUpdateSchema,
  type Replay,
  type SeatSpec,
  SeatSpecSchema,
  type SubmitActionResponse,
} from "./gen/mercado/v1/match_pb.js";
import {
  type MercadoAction,
  MercadoActionSchema,
  type MercadoResult,
  type MercadoView,
  Money,
} from "./gen/mercado/v1/mercado_pb.js";

/** How strong a bot seat's AI plays. */
export type BotLevelName = "easy" | "medium" | "hard";
/** Who may take a seat: anyone ("open", or null) or an AI agent of a level. */
export type SeatKind = "open" | BotLevelName | null;
export type MatchStatusName = "waiting" | "playing" | "finished";

export const BOT_LEVELS: Readonly<Record<BotLevelName, BotLevel>> = {
  easy: BotLevel.EASY,
  medium: BotLevel.MEDIUM,
  hard: BotLevel.HARD,
};

/** The name of a bot level; undefined for BotLevel.UNSPECIFIED. */
export function botLevelName(level: BotLevel): BotLevelName | undefined {
  return (Object.keys(BOT_LEVELS) as BotLevelName[]).find((name) => BOT_LEVELS[name] === level);
}

const STATUSES: Readonly<Record<MatchStatusName, MatchStatus>> = {
  waiting: MatchStatus.WAITING,
  playing: MatchStatus.PLAYING,
  finished: MatchStatus.FINISHED,
};

/**
 * Codes worth retrying: the server is restarting or the connection dropped (a connection
 * lost mid-call surfaces as Canceled, an HTTP/2 stream reset).
 */
const TRANSIENT: ReadonlySet<Code> = new Set([Code.Unavailable, Code.DeadlineExceeded, Code.Canceled]);

/** An action as a message or as the plain object `create(ActionSchema, ...)` accepts. */
export type ActionInit = Action | MessageInitShape<typeof ActionSchema>;

export interface CreateMatchOptions {
  /** 2..4; default 2. */
  players?: number;
  /** One per seat, in seat order; missing seats are open. */
  seats?: readonly SeatKind[];
  /** Whether coin totals are shown to every player; default hidden. */
  money?: "hidden" | "public";
  /**
   * The set-up seed; random when absent. A server refuses a chosen seed (Code.PermissionDenied)
   * unless it runs with `--allow-chosen-seeds` (for tests and research): a known seed would let
   * a player know the bag's order in advance.
   */
  seed?: bigint;
  /** End trigger 1 counts squares holding a face-down restaurant as available; default true. */
  faceDownCountsAsAvailable?: boolean;
}

export interface RetryPolicy {
  /** Give up on a server that stays unreachable this long (ms); for `follow`, counted from the last update. */
  reconnectMs: number;
  /** The first pause before a retry (ms); it doubles with every attempt. */
  initialDelayMs: number;
  /** The longest pause between two attempts (ms). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: Readonly<RetryPolicy> = { reconnectMs: 60_000, initialDelayMs: 50, maxDelayMs: 2_000 };

export interface FollowOptions {
  /** Send every update with a greater version; default 0 (the whole match). */
  afterVersion?: bigint;
  /** Stops following (the iteration then throws a ConnectError with Code.Canceled). */
  signal?: AbortSignal;
}

export interface WatchOptions {
  /** Stops watching (the iteration then throws a ConnectError with Code.Canceled). */
  signal?: AbortSignal;
  /** How often the view is checked while the match waits for players (ms); default 1000. */
  waitingPollMs?: number;
}

/** Socket errors that mean the connection was lost, whatever status code the transport gave them. */
const LOST_CONNECTION: ReadonlySet<string> = new Set(["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT"]);

function lostConnection(error: ConnectError): boolean {
  const cause = error.cause as { code?: unknown } | undefined;
  return typeof cause?.code === "string" && LOST_CONNECTION.has(cause.code);
}

/**
 * True for the errors that mean "try again later": the server is unreachable or restarting.
 * A connection lost mid-call (the server crashed) surfaces as Code.Canceled (HTTP/2 stream
 * reset) or, for a reset socket, as Code.Aborted with the socket error as its cause: those
 * count too, unless the caller cancelled through `signal`.
 */
export function isTransient(error: unknown, signal?: AbortSignal): boolean {
  if (!(error instanceof ConnectError) || signal?.aborted) return false;
  return TRANSIENT.has(error.code) || lostConnection(error);
}

/**
 * How long the server asks to wait before repeating a refused call, in ms: a call refused by a
 * fair-use limit (a rate limit or a cap) fails with Code.ResourceExhausted and carries the
 * trailing metadata `retry-after: N` (whole seconds). Such a call changed nothing, so repeating
 * it after that wait is safe for every method. Undefined for any other failure, including a
 * ResourceExhausted without retry-after (e.g. "no bot seat is waiting"), which is not retried.
 */
export function retryAfterMs(error: unknown): number | undefined {
  if (!(error instanceof ConnectError) || error.code !== Code.ResourceExhausted) return undefined;
  // Headers join repeated values with ", ": the first one counts.
  const value = error.metadata.get("retry-after")?.split(",")[0]?.trim();
  if (!value || !/^\d+$/.test(value)) return undefined;
  return Number(value) * 1_000;
}

/** The status code of a failed call (Code.Unknown for anything that is not a ConnectError). */
export function codeOf(error: unknown): Code {
  return ConnectError.from(error).code;
}

/** A fresh request id for SubmitAction: 128 random bits in hex (crypto.getRandomValues works in Node and every browser). */
export function newRequestId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** A Mercado de Lisboa action wrapped as the service's Action. */
export function mercadoAction(action: MercadoAction | MessageInitShape<typeof MercadoActionSchema>): Action {
  return create(ActionSchema, { game: { case: "mercado", value: create(MercadoActionSchema, action) } });
}

/** The Mercado de Lisboa part of a state's view, if any. */
export function mercadoView(state: MatchState | undefined): MercadoView | undefined {
  const game = state?.view?.game;
  return game?.case === "mercado" ? game.value : undefined;
}

/** Whether the match of this state has finished. */
export function isFinished(state: MatchState | undefined): boolean {
  return state?.match?.status === MatchStatus.FINISHED;
}

/** Whether the state is the caller's turn: the match is playing and the caller has legal actions. */
export function isMyTurn(state: MatchState | undefined): boolean {
  return (
    state?.match?.status === MatchStatus.PLAYING &&
    state.legalActions.length > 0 &&
    state.yourSeat !== undefined &&
    state.yourSeat === state.toMove
  );
}

/** The final result of a finished match, when the state has one. */
export function matchResult(state: MatchState | undefined): MercadoResult | undefined {
  return isFinished(state) ? mercadoView(state)?.result : undefined;
}

function seatSpec(kind: SeatKind): SeatSpec {
  if (kind === null || kind === "open") {
    return create(SeatSpecSchema, { kind: { case: "open", value: {} } });
  }
  return create(SeatSpecSchema, { kind: { case: "bot", value: { level: BOT_LEVELS[kind] } } });
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new ConnectError("the operation was aborted", Code.Canceled));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new ConnectError("the operation was aborted", Code.Canceled));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Exponential backoff with a deadline, as a RetryPolicy says: pause() waits before the next
 * attempt, or throws the failure when that attempt would come after the deadline, which is
 * reconnectMs after start() or, when not started, after the first pause since reset().
 * wait() is the same for a pause the server asked for (retry-after) instead of the backoff's.
 */
class Backoff {
  private attempt = 0;
  private deadline: number | undefined;

  constructor(private readonly policy: Readonly<RetryPolicy>) {}

  start(): this {
    this.deadline = Date.now() + this.policy.reconnectMs;
    return this;
  }

  reset(): void {
    this.attempt = 0;
    this.deadline = undefined;
  }

  async pause(failure: ConnectError, signal?: AbortSignal): Promise<void> {
    const delay = Math.min(this.policy.maxDelayMs, this.policy.initialDelayMs * 2 ** this.attempt++);
    await this.wait(delay, failure, signal);
  }

  async wait(delay: number, failure: ConnectError, signal?: AbortSignal): Promise<void> {
    this.deadline ??= Date.now() + this.policy.reconnectMs;
    if (Date.now() + delay > this.deadline) throw failure;
    await sleep(delay, signal);
  }

  /**
   * After a failed attempt: wait as the server asked (retry-after) or, for a transient failure
   * when `transient` allows, as the backoff says; any other failure is thrown at once.
   */
  async recover(error: unknown, transient: boolean, signal?: AbortSignal): Promise<void> {
    const failure = ConnectError.from(error);
    const asked = signal?.aborted ? undefined : retryAfterMs(failure);
    if (asked !== undefined) await this.wait(asked, failure, signal);
    else if (transient && isTransient(error, signal)) await this.pause(failure, signal);
    else throw failure;
  }
}

/** Whether two states of one version show the same match summary (status, seats). */
function sameSeats(a: MatchState, b: MatchState): boolean {
  return a.match && b.match ? equals(MatchSummarySchema, a.match, b.match) : a.match === b.match;
}

/** A pause that resolves to undefined after `ms`; cancel() clears its timer. */
function pause(ms: number): { done: Promise<undefined>; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const done = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return { done, cancel: () => clearTimeout(timer) };
}

/** A connection to a mercado server through a Connect transport. */
export class MercadoClient {
  /** The generated Connect client, for calls the wrapper does not cover. */
  readonly service: Client<typeof MatchService>;
  readonly retry: Readonly<RetryPolicy>;

  constructor(transport: Transport, retry: Partial<RetryPolicy> = {}) {
    this.service = createClient(MatchService, transport);
    this.retry = { ...DEFAULT_RETRY, ...retry };
  }

  /** Call options carrying the seat token as `authorization: Bearer <token>` (none for a spectator). */
  callOptions(token?: string, signal?: AbortSignal): CallOptions {
    const options: CallOptions = {};
    if (token) options.headers = { authorization: `Bearer ${token}` };
    if (signal) options.signal = signal;
    return options;
  }

  /**
   * Run `call` for up to `reconnectMs`: a call refused by a fair-use limit is repeated after the
   * server's `retry-after` (see retryAfterMs), and, unless `options.transient` is false, a
   * transient failure (see isTransient) is retried with exponential backoff. A wait that would
   * end after the deadline is not started: the failure is thrown at once.
   */
  async retrying<T>(call: () => Promise<T>, signal?: AbortSignal, options: { transient?: boolean } = {}): Promise<T> {
    const backoff = new Backoff(this.retry).start();
    for (;;) {
      try {
        return await call();
      } catch (error) {
        await backoff.recover(error, options.transient ?? true, signal);
      }
    }
  }

  /**
   * Create a match. Repeated after a fair-use refusal's retry-after, but not on a transient
   * failure: the first call may have created the match, and a repeat would create a second.
   * Join a seat to play it. Bot seats need a server with an agent key (`--agent-key`);
   * without one the call fails with Code.FailedPrecondition.
   */
  async createMatch(options: CreateMatchOptions = {}): Promise<CreateMatchResponse> {
    const request = create(CreateMatchRequestSchema, {
      game: Game.MERCADO,
      players: options.players ?? 2,
      seats: (options.seats ?? []).map(seatSpec),
      ...(options.seed === undefined ? {} : { seed: options.seed }),
      options: {
        case: "mercado",
        value: {
          money: options.money === "public" ? Money.PUBLIC : Money.HIDDEN,
          faceDownCountsAsAvailable: options.faceDownCountsAsAvailable ?? true,
        },
      },
    });
    return this.retrying(() => this.service.createMatch(request), undefined, { transient: false });
  }

  /**
   * Take an open seat (the first one when `seat` is absent) and its secret token. Repeated
   * after a fair-use refusal's retry-after only (a repeat after a lost reply could take a second seat).
   */
  async join(matchId: string, displayName: string, seat?: number): Promise<Seat> {
    const request = { matchId, displayName, ...(seat === undefined ? {} : { seat }) };
    const response = await this.retrying(() => this.service.joinMatch(request), undefined, { transient: false });
    return new Seat(this, matchId, response.seat, response.seatToken);
  }

  /**
   * For AI agents: take the oldest waiting seat reserved for a bot of one of `levels` (any when
   * empty). `agentKey` is the server's agent key (`mercado serve --agent-key`), sent as
   * `authorization: Bearer <agentKey>`; without it or with a wrong one the call fails with
   * Code.PermissionDenied. With no such seat waiting it fails with Code.ResourceExhausted (no
   * retry-after: not repeated). Repeated after a fair-use refusal's retry-after only.
   */
  async claimBotSeat(
    agentKey: string,
    agentName: string,
    levels: readonly BotLevelName[] = [],
  ): Promise<{ seat: Seat; level: BotLevelName | undefined }> {
    const request = { agentName, levels: levels.map((level) => BOT_LEVELS[level]) };
    const response = await this.retrying(
      () => this.service.claimBotSeat(request, this.callOptions(agentKey)),
      undefined,
      { transient: false },
    );
    const seat = new Seat(this, response.matchId, response.seat, response.seatToken);
    return { seat, level: botLevelName(response.level) };
  }

  /** Matches, newest first, optionally of one status. */
  async listMatches(
    options: { status?: MatchStatusName; pageSize?: number; pageToken?: string } = {},
  ): Promise<ListMatchesResponse> {
    const request = {
      status: options.status ? STATUSES[options.status] : MatchStatus.UNSPECIFIED,
      pageSize: options.pageSize ?? 0,
      pageToken: options.pageToken ?? "",
    };
    return this.retrying(() => this.service.listMatches(request));
  }

  /** The view of a seat (with its token) or of a spectator (without). */
  async view(matchId: string, token?: string, signal?: AbortSignal): Promise<MatchState> {
    return this.retrying(() => this.service.getView({ matchId }, this.callOptions(token, signal)), signal);
  }

  /** Seed, options and every action of a finished match. */
  async replay(matchId: string): Promise<Replay> {
    return this.retrying(() => this.service.getReplay({ matchId }));
  }

  /**
   * Every update after `afterVersion`, in order, then live ones until the match finishes.
   *
   * A dropped stream (the server restarting, the connection lost) is reopened after the
   * last version seen, with backoff, for up to `reconnectMs` without an update. A stream
   * that ends before the match has finished (the server ends streams when it shuts down)
   * is resumed the same way.
   */
  async *follow(matchId: string, token?: string, options: FollowOptions = {}): AsyncGenerator<MatchUpdate, void> {
    const { signal } = options;
    let last = options.afterVersion ?? 0n;
    const backoff = new Backoff(this.retry);
    for (;;) {
      let failure: ConnectError;
      let finished = false;
      try {
        const stream = this.service.streamEvents({ matchId, afterVersion: last }, this.callOptions(token, signal));
        for await (const update of stream) {
          if (update.version > last) last = update.version;
          finished = isFinished(update.state);
          backoff.reset();
          yield update;
        }
        if (finished) return;
        // Ended without the final update: over already, or the server is shutting down.
        // One call: a failure is retried by this loop, within the same deadline.
        const state = await this.service.getView({ matchId }, this.callOptions(token, signal));
        if (isFinished(state) && state.version <= last) return;
        failure = new ConnectError("the event stream ended before the match finished", Code.Unavailable);
      } catch (error) {
        // A refusal with retry-after (too many streams): wait as asked; transient: back off.
        await backoff.recover(error, true, signal);
        continue;
      }
      await backoff.pause(failure, signal);
    }
  }

  /**
   * The match as it goes, for game loops: first the current view, then every update
   * (as follow() gives them) until the match finishes. Each is a MatchUpdate; the first,
   * like a change of seats, has no action.
   *
   * A change of seats does not change the version, so a stream cannot resume it: one
   * that happens before the stream opens or while it reconnects would be missed, and a
   * match whose first turn is yours at version 0 would never send an update. So while
   * the match waits for players the view is also checked every `waitingPollMs`, and a
   * change found there is yielded as a seat change. Updates that change nothing already
   * seen are skipped, so no state of the caller's turn is yielded twice.
   */
  async *watch(matchId: string, token?: string, options: WatchOptions = {}): AsyncGenerator<MatchUpdate, void> {
    const pollMs = options.waitingPollMs ?? 1_000;
    let state = await this.view(matchId, token, options.signal);
    yield create(MatchUpdateSchema, { version: state.version, state });
    if (isFinished(state)) return;
    // Our own signal as well, so that leaving the loop ends a pending read at once.
    const stop = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
    const updates = this.follow(matchId, token, { afterVersion: state.version, signal });
    let pending = updates.next();
    try {
      for (;;) {
        let next: IteratorResult<MatchUpdate, void> | undefined;
        if (state.match?.status === MatchStatus.WAITING) {
          const poll = pause(pollMs);
          next = await Promise.race([pending, poll.done]);
          poll.cancel();
        } else {
          next = await pending;
        }
        if (next === undefined) {
          // No update for a while as the match waits: has a seat been taken unseen?
          const fresh = await this.view(matchId, token, options.signal);
          if (fresh.version === state.version && !sameSeats(fresh, state)) {
            state = fresh;
            yield create(MatchUpdateSchema, { version: state.version, state });
          }
          continue;
        }
        if (next.done) return;
        pending = updates.next();
        const update = next.value;
        if (!update.state || update.version < state.version) continue;
        // A change of seats already seen (in a view) changes nothing: skip it.
        if (!update.action && update.version === state.version && sameSeats(update.state, state)) continue;
        state = update.state;
        yield update;
      }
    } finally {
      stop.abort();
      pending.catch(() => undefined);
      await updates.return(undefined).catch(() => undefined);
    }
  }
}

/** A seat taken in a match: it views, acts and follows with its secret token. */
export class Seat {
  constructor(
    readonly client: MercadoClient,
    readonly matchId: string,
    readonly seat: number,
    readonly token: string,
  ) {}

  /** This seat's view: its hand, and its legal actions when it is to move. */
  view(signal?: AbortSignal): Promise<MatchState> {
    return this.client.view(this.matchId, this.token, signal);
  }

  /** Every update of the match as this seat may see it; see MercadoClient.follow. */
  follow(options: FollowOptions = {}): AsyncGenerator<MatchUpdate, void> {
    return this.client.follow(this.matchId, this.token, options);
  }

  /** The match as it goes, for game loops: the current view, then every update; see MercadoClient.watch. */
  watch(options: WatchOptions = {}): AsyncGenerator<MatchUpdate, void> {
    return this.client.watch(this.matchId, this.token, options);
  }

  /**
   * One submission at `version` with `requestId`, retried while the server is
   * unreachable (the same request id is applied at most once).
   */
  submit(action: ActionInit, version: bigint, requestId: string): Promise<SubmitActionResponse> {
    const request = {
      matchId: this.matchId,
      expectedVersion: version,
      requestId,
      action: create(ActionSchema, action),
    };
    return this.client.retrying(() => this.client.service.submitAction(request, this.client.callOptions(this.token)));
  }

  /**
   * Submit `action` at `version` (the current one when absent). When the version is
   * stale (Code.Aborted), fetch the view and resubmit with the same request id while
   * the action is still legal; otherwise the ConnectError is thrown.
   */
  async act(action: ActionInit, version?: bigint): Promise<SubmitActionResponse> {
    const message = create(ActionSchema, action);
    const requestId = newRequestId();
    let expected = version ?? (await this.view()).version;
    for (;;) {
      try {
        return await this.submit(message, expected, requestId);
      } catch (error) {
        if (codeOf(error) !== Code.Aborted) throw error;
        const state = await this.view();
        if (!state.legalActions.some((legal) => equals(ActionSchema, legal, message))) throw error;
        expected = state.version;
      }
    }
  }
}
