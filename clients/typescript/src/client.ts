/**
 * A typed client of the mercado match service, independent of the transport.
 *
 * Give it any Connect transport that speaks to the server: `connectNode()` from
 * "./node.js" (gRPC over HTTP/2) in Node, `createGrpcWebTransport()` from
 * `@connectrpc/connect-web` in a browser. Nothing here imports a Node module.
 *
 *     const client = new MercadoClient(transport);
 *     const { playerToken } = await client.createPlayer("ada"); // a guest player: keep its token
 *     const { matchId } = await client.createMatch({ seats: ["open", "easy"] }, playerToken);
 *     const seat = await client.join(matchId, "", 0, playerToken); // the seat is the player's
 *     for await (const { state } of seat.watch()) {
 *       if (isMyTurn(state)) await seat.act(state!.legalActions[0]!, state!.version);
 *     }
 *
 * Seats are 0-based in the API; people see them 1-based (seatLabel(0) is "Seat 1").
 *
 * Nothing here needs to know the game (Mercado de Lisboa, Oregano, Leilão): a seat plays by
 * submitting one of its state's legal actions (see playRandomly), and several seats may have
 * legal actions at once (a sealed bid: MatchState.seatsToMove).
 */

import { create, equals, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type CallOptions, type Client, type Transport } from "@connectrpc/connect";
import {
  type Action,
  ActionSchema,
  BotLevel,
  CreateMatchRequestSchema,
  type CreateMatchResponse,
  type FindMatchUpdate,
  Game,
  type ListMatchesResponse,
  type MatchFound,
  MatchService,
  type MatchState,
  MatchStatus,
  type MatchSummary,
  MatchSummarySchema,
  type MatchUpdate,
  MatchUpdateSchema,
  OnTimeout,
  type Replay,
  type SeatSpec,
  SeatSpecSchema,
  type SubmitActionResponse,
  type TimeControl,
  TimeControlSchema,
} from "./gen/mercado/v1/match_pb.js";
import { type MercadoAction, MercadoActionSchema, Money } from "./gen/mercado/v1/mercado_pb.js";
import type {
  CreatePlayerResponse,
  GetLeaderboardResponse,
  Player,
  RotatePlayerTokenResponse,
} from "./gen/mercado/v1/players_pb.js";
import { type ActionInit, isAction, isOver } from "./state.js";

/** How strong a bot seat's AI plays. */
export type BotLevelName = "easy" | "medium" | "hard" | "expert";
/** Who may take a seat: anyone ("open", or null) or an AI agent of a level. */
export type SeatKind = "open" | BotLevelName | null;
export type MatchStatusName = "waiting" | "playing" | "finished" | "cancelled";

export const BOT_LEVELS: Readonly<Record<BotLevelName, BotLevel>> = {
  easy: BotLevel.EASY,
  medium: BotLevel.MEDIUM,
  hard: BotLevel.HARD,
  expert: BotLevel.EXPERT,
};

/** The name of a bot level; undefined for BotLevel.UNSPECIFIED. */
export function botLevelName(level: BotLevel): BotLevelName | undefined {
  return (Object.keys(BOT_LEVELS) as BotLevelName[]).find((name) => BOT_LEVELS[name] === level);
}

const STATUSES: Readonly<Record<MatchStatusName, MatchStatus>> = {
  waiting: MatchStatus.WAITING,
  playing: MatchStatus.PLAYING,
  finished: MatchStatus.FINISHED,
  cancelled: MatchStatus.CANCELLED,
};

/**
 * Codes worth retrying: the server is restarting or the connection dropped (a connection
 * lost mid-call surfaces as Canceled, an HTTP/2 stream reset).
 */
const TRANSIENT: ReadonlySet<Code> = new Set([Code.Unavailable, Code.DeadlineExceeded, Code.Canceled]);

/** A game by its name in the API's Game enum, in lower case ("leilao" for Game.LEILAO). */
export type GameName = Lowercase<Exclude<keyof typeof Game, "UNSPECIFIED">>;

/** The game of a name as GameName has it; undefined for a name of no game. */
export function gameNamed(name: string): Game | undefined {
  const game = (Game as unknown as Record<string, Game | undefined>)[name.toUpperCase()];
  return game === Game.UNSPECIFIED ? undefined : game;
}

/** Every game of the API's Game enum, in its order. */
export const GAMES: readonly Game[] = Object.values(Game).filter(
  (value): value is Game => typeof value === "number" && value !== Game.UNSPECIFIED,
);

/** The name of a game, as GameName has it. */
export function gameName(game: Game): GameName {
  return Game[game].toLowerCase() as GameName;
}

/** A game as the player calls name it ("leilao"); "" (Mercado) for none. */
function ratedGame(game: Game | undefined): string {
  return game === undefined || game === Game.UNSPECIFIED ? "" : gameName(game);
}

/** A CreateMatchRequest as a plain object: its `options` field is the oneof of every game's options. */
export type CreateMatchInit = Exclude<MessageInitShape<typeof CreateMatchRequestSchema>, { $typeName: string }>;

export interface CreateMatchOptions {
  /** The game; default Game.MERCADO. */
  game?: Game;
  /** 2..4; default 2. */
  players?: number;
  /** One per seat, in seat order; missing seats are open. */
  seats?: readonly SeatKind[];
  /** Mercado: whether coin totals are shown to every player; default hidden. */
  money?: "hidden" | "public";
  /**
   * The set-up seed; random when absent. A server refuses a chosen seed (Code.PermissionDenied)
   * unless it runs with `--allow-chosen-seeds` (for tests and research): a known seed would let
   * a player know the bag's order in advance.
   */
  seed?: bigint;
  /** Mercado: end trigger 1 counts squares holding a face-down restaurant as available; default true. */
  faceDownCountsAsAvailable?: boolean;
  /**
   * The game's rule options as the request's `options` oneof, e.g.
   * `{ case: "leilao", value: { cardPenalty: "one" } }`; absent ones take the rules' defaults.
   * For Mercado, `money` and `faceDownCountsAsAvailable` say the same.
   */
  gameOptions?: NonNullable<CreateMatchInit["options"]>;
  /**
   * The time control: a clock for each human seat, or "none" (correspondence play). Absent: the
   * server's default (60 s per turn and 180 s of reserve unless it runs with other
   * `--turn-seconds`/`--reserve-seconds`; the AI takes over a seat that runs out).
   */
  clock?: ClockOptions | "none";
  /**
   * One player may hold several seats (several people at one device): the player joins each
   * seat with its player token, and plays each with that seat's token. Never rated.
   */
  hotSeat?: boolean;
  /** Never rated, whoever plays (a friendly match). Default: rated when it can be (see MatchSummary.rated). */
  unrated?: boolean;
}

/** What becomes of a seat whose clock runs out: the AI plays it until its owner takes it back, or it forfeits. */
export type OnTimeoutName = "ai" | "forfeit";

/** A time control: each human seat's time per turn and the reserve a slower turn draws on. */
export interface ClockOptions {
  /** For each turn, 1 or more. */
  turnSeconds: number;
  /** Drawn on by a turn that takes longer than turnSeconds; default 0. */
  reserveSeconds?: number;
  /** Default "ai": the AI plays the seat until its owner reclaims it (Seat.reclaim). */
  onTimeout?: OnTimeoutName;
  /** The AI level that plays a seat that ran out or left; default "easy". */
  fallbackLevel?: BotLevelName;
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

/** Whose profile getPlayer gives, and in which game. */
export interface PlayerOptions {
  /** The player; absent or "": the caller, whose player credential is the call's token. */
  playerId?: string | undefined;
  /** The game whose rating it gives; default Game.MERCADO. */
  game?: Game | undefined;
  signal?: AbortSignal | undefined;
}

export interface FollowOptions {
  /** Send every update with a greater version; default 0 (the whole match). */
  afterVersion?: bigint;
  /** Stops following (the iteration then throws a ConnectError with Code.Canceled). */
  signal?: AbortSignal;
}

export interface WatchOptions {
  /** Stops watching (the iteration then throws a ConnectError with Code.Canceled). */
  signal?: AbortSignal;
}

/** What FindMatch looks for. */
export interface FindMatchOptions {
  /** The game; default Game.MERCADO. */
  game?: Game;
  /** 2..4; default 2. */
  players?: number;
  /**
   * Fill the seats no queued player takes with bots of a rating close to the player's, after a
   * wait the server sets (`mercado serve --matchmaking-ai-wait SECONDS`, 15 s by default). An AI
   * agent must be running to play them.
   */
  allowAi?: boolean;
}

export interface FindMatchCallOptions {
  /** Leaves the queue: the stream is closed (the iteration then throws a ConnectError with Code.Canceled). */
  signal?: AbortSignal;
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

/** A fresh request id for SubmitAction and JoinMatch: 128 random bits in hex (crypto.getRandomValues works in Node and every browser). */
export function newRequestId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** A Mercado de Lisboa action wrapped as the service's Action. */
export function mercadoAction(action: MercadoAction | MessageInitShape<typeof MercadoActionSchema>): Action {
  return create(ActionSchema, { game: { case: "mercado", value: create(MercadoActionSchema, action) } });
}

/**
 * How people name a seat: "Seat 1" for API seat 0. Seat numbers in the API (and in SeatInfo,
 * Stand.owner, events) are 0-based; every client shows them 1-based.
 */
export function seatLabel(seat: number): string {
  return `Seat ${seat + 1}`;
}

/** The MatchFound of a FindMatch update, when it is the last one (the match was made). */
export function matchFound(update: FindMatchUpdate | undefined): MatchFound | undefined {
  return update?.kind.case === "found" ? update.kind.value : undefined;
}

/**
 * A player's display rating (mu − 3·sigma, what the leaderboard ranks by; 0 for a new player),
 * rounded to one decimal as people see it.
 */
export function displayRating(player: Player | undefined): number {
  return Math.round((player?.rating?.display ?? 0) * 10) / 10;
}

/** The seats of a match bound to a player (SeatInfo.player_id); empty when it holds none. */
export function seatsOf(match: MatchSummary | undefined, playerId: string): number[] {
  if (!playerId) return [];
  return (match?.seats ?? []).filter((seat) => seat.playerId === playerId).map((seat) => seat.seat);
}

/** The seats anyone may join: open (not reserved for a bot) and not taken; empty unless the match waits. */
export function openSeats(match: MatchSummary | undefined): number[] {
  if (match?.status !== MatchStatus.WAITING) return [];
  return match.seats.filter((seat) => !seat.bot && !seat.taken).map((seat) => seat.seat);
}

/** A match's time control as options, or undefined when it has no clock (turn_seconds 0). */
export function clockOf(match: MatchSummary | undefined): Required<ClockOptions> | undefined {
  const clock = match?.timeControl;
  if (!clock || clock.turnSeconds === 0) return undefined;
  return {
    turnSeconds: clock.turnSeconds,
    reserveSeconds: clock.reserveSeconds,
    onTimeout: clock.onTimeout === OnTimeout.FORFEIT ? "forfeit" : "ai",
    fallbackLevel: botLevelName(clock.fallbackLevel) ?? "easy",
  };
}

/**
 * When the mover's time (the turn's, then its reserve) runs out, in Unix ms: set while a match
 * with a clock is playing and a human owner is to move; undefined otherwise.
 */
export function deadlineMs(match: MatchSummary | undefined): number | undefined {
  const deadline = match?.deadlineUnixMs;
  return deadline === undefined ? undefined : Number(deadline);
}

/**
 * The mover's time left at `now` (ms, never negative), counting down to the summary's deadline;
 * undefined when no clock runs. It uses this machine's clock: a skewed clock shows it skewed.
 */
export function timeLeftMs(match: MatchSummary | undefined, now: number = Date.now()): number | undefined {
  const deadline = deadlineMs(match);
  return deadline === undefined ? undefined : Math.max(0, deadline - now);
}

function timeControl(clock: ClockOptions | "none"): TimeControl {
  if (clock === "none") return create(TimeControlSchema, { turnSeconds: 0 });
  return create(TimeControlSchema, {
    turnSeconds: clock.turnSeconds,
    reserveSeconds: clock.reserveSeconds ?? 0,
    onTimeout: clock.onTimeout === "forfeit" ? OnTimeout.FORFEIT : OnTimeout.AI,
    fallbackLevel: BOT_LEVELS[clock.fallbackLevel ?? "easy"],
  });
}

/** Mercado's options from the fields that predate `gameOptions`. */
function mercadoOptions(options: CreateMatchOptions): NonNullable<CreateMatchInit["options"]> {
  return {
    case: "mercado",
    value: {
      money: options.money === "public" ? Money.PUBLIC : Money.HIDDEN,
      faceDownCountsAsAvailable: options.faceDownCountsAsAvailable ?? true,
    },
  };
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

/** Whether two states of one version show the same match summary (status, seats, clocks). */
function sameSummary(a: MatchState, b: MatchState): boolean {
  return a.match && b.match ? equals(MatchSummarySchema, a.match, b.match) : a.match === b.match;
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

  /**
   * Call options carrying a credential as `authorization: Bearer <token>`: a seat token, a player
   * token (or a frontend's JWT), or the agent key; none for a spectator.
   */
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

  /** `retrying` for a call not to repeat after a transient failure (it may have gone through): retry-after only. */
  private retryingAfterFairUse<T>(call: () => Promise<T>): Promise<T> {
    return this.retrying(call, undefined, { transient: false });
  }

  /**
   * Create a match. Repeated after a fair-use refusal's retry-after, but not on a transient
   * failure: the first call may have created the match, and a repeat would create a second.
   * Join a seat to play it. Bot seats need a server with an agent key (`--agent-key`) and an AI
   * agent connected with room for them (it says so in its heartbeats); otherwise the call fails
   * with Code.FailedPrecondition, whose `rawMessage` is the server's reason.
   *
   * `token` is the creator's player credential (a player token from createPlayer, or a
   * frontend's JWT). A server refuses to create a match without one (Code.Unauthenticated)
   * unless it runs with `--allow-anonymous`.
   */
  async createMatch(options: CreateMatchOptions = {}, token?: string): Promise<CreateMatchResponse> {
    const game = options.game ?? Game.MERCADO;
    const request = create(CreateMatchRequestSchema, {
      game,
      players: options.players ?? 2,
      seats: (options.seats ?? []).map(seatSpec),
      ...(options.seed === undefined ? {} : { seed: options.seed }),
      ...(options.clock === undefined ? {} : { timeControl: timeControl(options.clock) }),
      hotSeat: options.hotSeat ?? false,
      unrated: options.unrated ?? false,
      options: options.gameOptions ?? (game === Game.MERCADO ? mercadoOptions(options) : { case: undefined }),
    });
    return this.retryingAfterFairUse(() => this.service.createMatch(request, this.callOptions(token)));
  }

  /**
   * Take an open seat (the first one when `seat` is absent) and its secret token. Retried under one
   * request id while the server is unreachable, and after a fair-use refusal's retry-after: a retry
   * gets the seat (and token) the first attempt took, never a second seat.
   *
   * With `token`, a player credential (see createPlayer), the seat is bound to that player: its
   * SeatInfo.playerId is the player's, `displayName` may be "" (the player's own name is used),
   * and the player token acts for the seat as well as the seat token the returned Seat holds
   * (see seatOf). Without one the seat is anonymous, which a server allows only with
   * `--allow-anonymous` (Code.Unauthenticated otherwise).
   */
  async join(matchId: string, displayName: string, seat?: number, token?: string): Promise<Seat> {
    const request = { matchId, displayName, requestId: newRequestId(), ...(seat === undefined ? {} : { seat }) };
    const response = await this.retrying(() => this.service.joinMatch(request, this.callOptions(token)));
    return new Seat(this, matchId, response.seat, response.seatToken);
  }

  /**
   * The seat `token` holds in a match, with that token (a seat token, or the player token of a
   * player with a seat in it): undefined when the view shows no seat of the caller. In a match
   * where one player holds several seats (hot seat), the one the server's view names.
   */
  async seatOf(matchId: string, token: string, signal?: AbortSignal): Promise<Seat | undefined> {
    const state = await this.view(matchId, token, signal);
    return state.yourSeat === undefined ? undefined : new Seat(this, matchId, state.yourSeat, token);
  }

  // --- Players, ratings and matchmaking ---------------------------------------------------------

  /**
   * A new guest player named `displayName` (1..40 printable characters) and its secret player
   * token (`playerToken`): keep it, and send it as the `token` of createMatch, join, findMatch,
   * getPlayer and of the seats it takes. It does not expire; rotatePlayerToken replaces it.
   * Repeated after a fair-use refusal's retry-after only: a repeat after a lost reply would create
   * a second player.
   */
  async createPlayer(displayName: string): Promise<CreatePlayerResponse> {
    return this.retryingAfterFairUse(() => this.service.createPlayer({ displayName }));
  }

  /**
   * A new token for the guest player whose token `token` is, which replaces it: keep the returned
   * `playerToken` instead, since every earlier token of the player is refused from then on
   * (Code.Unauthenticated). The player, its ratings and its seats stay. Repeated after a fair-use
   * refusal's retry-after only: after a lost reply the old token may be refused already (the
   * player is then lost to this credential), so call it where a reply is likely to arrive.
   */
  async rotatePlayerToken(token: string): Promise<RotatePlayerTokenResponse> {
    return this.retryingAfterFairUse(() => this.service.rotatePlayerToken({}, this.callOptions(token)));
  }

  /**
   * A player's profile and rating in `game` (default Game.MERCADO; ratings are per game): the
   * player `playerId`, or without one the caller's own, which needs `token` (its player
   * credential; Code.Unauthenticated without one).
   */
  async getPlayer(token?: string, options: PlayerOptions = {}): Promise<Player> {
    const request = { playerId: options.playerId ?? "", game: ratedGame(options.game) };
    return this.retrying(
      () => this.service.getPlayer(request, this.callOptions(token, options.signal)),
      options.signal,
    );
  }

  /**
   * The players rated in `game` (default Game.MERCADO; bots included), best display rating first,
   * a page at a time: `pageSize` 1..100 (default 20), `pageToken` the previous page's
   * `nextPageToken` ("" after the last page).
   */
  async leaderboard(
    options: { game?: Game; pageSize?: number; pageToken?: string; signal?: AbortSignal } = {},
  ): Promise<GetLeaderboardResponse> {
    const request = {
      game: ratedGame(options.game),
      pageSize: options.pageSize ?? 0,
      pageToken: options.pageToken ?? "",
    };
    return this.retrying(
      () => this.service.getLeaderboard(request, this.callOptions(undefined, options.signal)),
      options.signal,
    );
  }

  /**
   * Matchmaking for the player of `token` (a player credential is required): queue for a match of
   * `players` and yield what the stream sends: `queued` updates (about once a second: the time
   * waited, the players queued for the same count, the rating window), then one `found` update
   * (see matchFound: the match id, the seat, its seat token and the match, created and started),
   * after which the iteration ends. The player token acts for the found seat too:
   * `new Seat(client, found.matchId, found.seat, token)`.
   *
   * Leaving the loop, or aborting `call.signal`, closes the stream and so leaves the queue (an
   * abort makes the iteration throw a ConnectError with Code.Canceled). A player queues once at a
   * time: a second findMatch while one is open fails with Code.AlreadyExists.
   *
   * Opening the stream is repeated after a fair-use refusal's retry-after. A transient failure is
   * not retried, nor is a stream that ends without a match (the server shut down): the match may
   * have been made without the MatchFound arriving, so a new queue could seat the player twice;
   * it fails with the failure (Code.Unavailable for an early end). The player's matches are then
   * in `listMatches({ playerId })`.
   */
  async *findMatch(
    options: FindMatchOptions,
    token: string,
    call: FindMatchCallOptions = {},
  ): AsyncGenerator<FindMatchUpdate, void> {
    const { signal } = call;
    const request = {
      game: options.game ?? Game.MERCADO,
      players: options.players ?? 2,
      allowAi: options.allowAi ?? false,
    };
    const backoff = new Backoff(this.retry).start();
    // Our own signal as well, so that leaving the loop closes the stream (and leaves the queue) at once.
    const stop = new AbortController();
    const streamSignal = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
    try {
      for (;;) {
        let received = false;
        try {
          for await (const update of this.service.findMatch(request, this.callOptions(token, streamSignal))) {
            received = true;
            yield update;
            if (update.kind.case === "found") return;
          }
        } catch (error) {
          // A refusal with retry-after, before anything came: it changed nothing, so wait as asked.
          if (received) throw ConnectError.from(error);
          await backoff.recover(error, false, signal);
          continue;
        }
        throw new ConnectError("the matchmaking stream ended before a match was found", Code.Unavailable);
      }
    } finally {
      stop.abort();
    }
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
    const response = await this.retryingAfterFairUse(() =>
      this.service.claimBotSeat(request, this.callOptions(agentKey)),
    );
    const seat = new Seat(this, response.matchId, response.seat, response.seatToken);
    return { seat, level: botLevelName(response.level) };
  }

  /**
   * Give up a seat (`token` is its seat token): in a match still waiting for players the seat is
   * open again (and the token no longer counts); in a match in play the AI plays it from now on,
   * or it forfeits, as the match's time control says. Repeated after a fair-use refusal's
   * retry-after only: a repeat after a lost reply would be refused (the seat was given up).
   */
  async leave(matchId: string, token: string): Promise<MatchSummary | undefined> {
    const response = await this.retryingAfterFairUse(() =>
      this.service.leaveMatch({ matchId }, this.callOptions(token)),
    );
    return response.match;
  }

  /**
   * Take back a seat the AI plays since its clock ran out (not one whose player left); returns
   * the seat's view. Code.FailedPrecondition when the AI does not play it after a timeout.
   * Repeated after a fair-use refusal's retry-after only.
   */
  async reclaim(matchId: string, token: string): Promise<MatchState> {
    return this.retryingAfterFairUse(() => this.service.reclaimSeat({ matchId }, this.callOptions(token)));
  }

  /**
   * For AI agents (with the server's agent key): say which levels the agent plays (all when
   * empty) and how many more seats it can take now. The server refuses bot seats no agent has
   * room for; an agent that stays silent for a few intervals is forgotten. Returns the seconds
   * within which the next heartbeat is due.
   */
  async agentHeartbeat(
    agentKey: string,
    heartbeat: { agentId: string; freeSlots: number; levels?: readonly BotLevelName[] },
  ): Promise<number> {
    const request = {
      agentId: heartbeat.agentId,
      freeSlots: heartbeat.freeSlots,
      levels: (heartbeat.levels ?? []).map((level) => BOT_LEVELS[level]),
    };
    const response = await this.retrying(() => this.service.agentHeartbeat(request, this.callOptions(agentKey)));
    return response.intervalSeconds;
  }

  /**
   * Matches, newest first, optionally only those of one game and of one status, and only those
   * where the player `playerId` holds a seat ("my games": a player's own id from getPlayer;
   * `bot:easy` lists that level's).
   */
  async listMatches(
    options: {
      game?: Game;
      status?: MatchStatusName;
      pageSize?: number;
      pageToken?: string;
      playerId?: string;
      signal?: AbortSignal;
    } = {},
  ): Promise<ListMatchesResponse> {
    const request = {
      game: options.game ?? Game.UNSPECIFIED,
      status: options.status ? STATUSES[options.status] : MatchStatus.UNSPECIFIED,
      pageSize: options.pageSize ?? 0,
      pageToken: options.pageToken ?? "",
      playerId: options.playerId ?? "",
    };
    return this.retrying(() => this.service.listMatches(request, this.callOptions(undefined, options.signal)), options.signal);
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
   * The match as the stream gives it: first the match as it stands (an update with no acting seat,
   * at the current version), then every accepted action after `afterVersion`, in order, each with
   * the state after it, then live updates (actions, and changes of seats, clocks or status, which
   * name no acting seat) until the match is over (finished or cancelled). Another seat's sealed
   * choice names its seat without the action (see isAction).
   *
   * A dropped stream (the server restarting, the connection lost) is reopened after the last
   * action seen, with backoff, for up to `reconnectMs` without an update; the new stream starts
   * again with the match as it stands, then the actions missed. A stream that ends before the
   * match is over (the server ends streams when it shuts down) is resumed the same way. Only
   * actions (isAction, sealed ones included) move the resume point: a stream's first message does
   * not, so a reconnect right after it misses no action.
   */
  async *follow(matchId: string, token?: string, options: FollowOptions = {}): AsyncGenerator<MatchUpdate, void> {
    const { signal } = options;
    let last = options.afterVersion ?? 0n;
    const backoff = new Backoff(this.retry);
    for (;;) {
      let failure: ConnectError;
      let over = false;
      try {
        const stream = this.service.streamEvents({ matchId, afterVersion: last }, this.callOptions(token, signal));
        for await (const update of stream) {
          if (isAction(update) && update.version > last) last = update.version;
          over = isOver(update.state);
          backoff.reset();
          yield update;
        }
        if (over) return;
        // Ended before the match was over as far as it showed (the server ends streams when it
        // shuts down): reconnect, and the new stream's first message shows where the match stands.
        failure = new ConnectError("the event stream ended before the match was over", Code.Unavailable);
      } catch (error) {
        // A refusal with retry-after (too many streams): wait as asked; transient: back off.
        await backoff.recover(error, true, signal);
        continue;
      }
      await backoff.pause(failure, signal);
    }
  }

  /**
   * The match as it goes, for game loops, as a spectator (no token) or a seat: first the current
   * view, then every change (as follow() gives them) until the match is over; see watchMatch. A
   * seat that acts watches with Seat.watch(), which also knows the answers to its own actions.
   */
  watch(matchId: string, token?: string, options: WatchOptions = {}): AsyncGenerator<MatchUpdate, void> {
    return watchMatch(this, matchId, token, options, new NewestState());
  }
}

/**
 * The newest state of a match seen through one seat or one watch: states only move forward, by
 * version; a state of the same version that arrives later (seats, clocks or status changed)
 * replaces it.
 */
class NewestState {
  state: MatchState | undefined;

  note(state: MatchState | undefined): void {
    if (state && (!this.state || state.version >= this.state.version)) this.state = state;
  }
}

/**
 * The match as it goes: first the current view, then every change (as follow() gives them) until
 * the match is over. Each is a MatchUpdate; the first, like a change of seats, clocks or status,
 * names no acting seat.
 *
 * A state never goes back: each update's state is the newest one seen, here or in `newest` (a
 * seat's own views and answers). An update older than that state, such as another seat's sealed
 * bid accepted just before the seat's own bid whose answer came first, is yielded with its own
 * events and that newer state (`update.state.version` is then greater than `update.version`), so
 * a loop never acts again on a choice it has made. Every stream starts with the match as it
 * stands, so nothing that happens between the view and the stream, or while a dropped stream
 * reconnects, is missed: when that first message is ahead of what was yielded, the actions in
 * between are yielded in order with its state, then the message itself if seats, clocks or the
 * status changed since the last of them. An update that changes nothing already yielded (the
 * same version and the same summary) is skipped; a state of the same version comes again only when
 * seats, clocks or the status changed (e.g. the match started, or the AI took over a seat whose
 * time ran out).
 */
async function* watchMatch(
  client: MercadoClient,
  matchId: string,
  token: string | undefined,
  options: WatchOptions,
  newest: NewestState,
): AsyncGenerator<MatchUpdate, void> {
  const first = await client.view(matchId, token, options.signal);
  newest.note(first);
  yield create(MatchUpdateSchema, { version: first.version, state: first });
  if (isOver(first)) return;
  // Our own signal as well, so that leaving the loop ends the stream at once.
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  // The version of the last update yielded, and the last state (newer than its version's when the
  // update was older than a state seen).
  let shown = first.version;
  let last = first;
  /** A stream's first message ahead of the updates yielded: the actions up to it follow. */
  let ahead: MatchUpdate | undefined;
  try {
    for await (const update of client.follow(matchId, token, { afterVersion: first.version, signal })) {
      const state = update.state;
      const known = newest.state!;
      if (!state || update.version < known.version) {
        // Older than a state seen already: an action's events still count.
        if (state && isAction(update) && update.version > shown) {
          shown = update.version;
          last = known;
          yield { ...update, state: known };
        }
        continue;
      }
      if (!isAction(update)) {
        if (update.version > shown) {
          newest.note(state);
          ahead = update; // yielded once the actions before it have been, if it changes their summary
        } else if (!sameSummary(state, last)) {
          newest.note(state);
          last = state;
          yield update;
        }
        continue;
      }
      if (update.version <= shown) continue; // seen already
      shown = update.version;
      last = state;
      newest.note(state);
      yield update;
      if (ahead && update.version >= ahead.version) {
        const caughtUp = ahead;
        ahead = undefined;
        // Seats, clocks or status that changed after that action: the stream's first message knew.
        if (caughtUp.version === state.version && !sameSummary(caughtUp.state!, state)) {
          newest.note(caughtUp.state);
          last = caughtUp.state!;
          yield caughtUp;
        }
      }
    }
  } finally {
    stop.abort();
  }
}

export class Seat {
  private readonly newest = new NewestState();

  constructor(
    readonly client: MercadoClient,
    readonly matchId: string,
    readonly seat: number,
    readonly token: string,
  ) {}

  /**
   * The newest state this seat's calls have brought (its views, the answers to its actions, its
   * watch's updates); undefined before the first.
   */
  get latest(): MatchState | undefined {
    return this.newest.state;
  }

  /** This seat's view: its hand, and its legal actions when it is to move. */
  async view(signal?: AbortSignal): Promise<MatchState> {
    const state = await this.client.view(this.matchId, this.token, signal);
    this.newest.note(state);
    return state;
  }

  /** Every update of the match as this seat may see it; see MercadoClient.follow. */
  follow(options: FollowOptions = {}): AsyncGenerator<MatchUpdate, void> {
    return this.client.follow(this.matchId, this.token, options);
  }

  /**
   * The match as it goes, for game loops: the current view, then every update, never with a state
   * older than one this seat has seen, the answers to its own actions included. A loop that acts
   * whenever isMyTurn(state) acts once per turn, in a sealed step too:
   *
   *     for await (const { state } of seat.watch()) {
   *       if (isMyTurn(state)) await seat.act(state!.legalActions[0]!, state!.version);
   *     }
   */
  watch(options: WatchOptions = {}): AsyncGenerator<MatchUpdate, void> {
    return watchMatch(this.client, this.matchId, this.token, options, this.newest);
  }

  /** Give this seat up; see MercadoClient.leave. */
  leave(): Promise<MatchSummary | undefined> {
    return this.client.leave(this.matchId, this.token);
  }

  /** Take this seat back from the AI that plays it since its clock ran out; see MercadoClient.reclaim. */
  async reclaim(): Promise<MatchState> {
    const state = await this.client.reclaim(this.matchId, this.token);
    this.newest.note(state);
    return state;
  }

  /**
   * One submission at `version` with `requestId`, retried while the server is
   * unreachable (the same request id is applied at most once).
   */
  async submit(action: ActionInit, version: bigint, requestId: string): Promise<SubmitActionResponse> {
    const request = {
      matchId: this.matchId,
      expectedVersion: version,
      requestId,
      action: create(ActionSchema, action),
    };
    const response = await this.client.retrying(() =>
      this.client.service.submitAction(request, this.client.callOptions(this.token)),
    );
    this.newest.note(response.state);
    return response;
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
