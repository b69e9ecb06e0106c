// The shared conformance scenarios (clients/conformance/scenarios.json) against a real server.
// Every scenario named in the file must have an implementation here, or this test fails.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { after, before, describe, test } from "node:test";

import { equals } from "@bufbuild/protobuf";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";

import {
  type Action,
  bidAction,
  bidOptions,
  clockOf,
  codeOf,
  deadlineMs,
  EventSchema,
  Game,
  GAMES,
  gameName,
  gameNamed,
  gameView,
  isAction,
  isMyTurn,
  isTransient,
  legalMoves,
  matchResult,
  type MatchState,
  MatchStateSchema,
  MatchStatus,
  mercadoAction,
  mercadoView,
  type MatchUpdate,
  newRequestId,
  openSeats,
  previewOf,
  Restaurant,
  retryAfterMs,
  type Seat,
  seatLabel,
  timeLeftMs,
} from "../src/index.js";
import { connectNode, type NodeMercadoClient } from "../src/node.js";
import {
  agentHeartbeat,
  makeCertificates,
  mover,
  pick,
  playingMatch,
  playRandomMoves,
  rejectsWith,
  seededRandom,
  tempDir,
  TestServer,
} from "./harness.js";

interface Scenario {
  name: string;
  does: string;
}

const SCENARIOS_FILE = new URL("../../conformance/scenarios.json", import.meta.url);
const scenarios = (JSON.parse(readFileSync(SCENARIOS_FILE, "utf8")) as { scenarios: Scenario[] }).scenarios;

let server: TestServer;
let client: NodeMercadoClient;
const random = seededRandom(20_240_601);

before(async () => {
  server = await TestServer.start();
  client = server.connect();
});

after(async () => {
  const status = await server?.stop();
  assert.equal(status, 0, `the server exited with ${status}:\n${server.server.tail()}`);
});

function submitRequest(seat: Seat, action: Action, version: bigint) {
  return { matchId: seat.matchId, expectedVersion: version, requestId: newRequestId(), action };
}

/** Run `body` with a server of its own, started with more `mercado serve` options; it must stop cleanly. */
async function withServer(args: readonly string[], body: (server: TestServer) => Promise<void>): Promise<void> {
  const own = await TestServer.start({ args });
  let failed = true;
  try {
    await body(own);
    failed = false;
  } finally {
    const status = await own.stop();
    if (!failed) assert.equal(status, 0, `the server exited with ${status}:\n${own.server.tail()}`);
  }
}

/** What each call through a client ended with: "ok", or the code's name and the retry-after trailer. */
function recorder(): { outcomes: string[]; interceptor: Interceptor } {
  const outcomes: string[] = [];
  const interceptor: Interceptor = (next) => async (request) => {
    try {
      const response = await next(request);
      outcomes.push(`${request.method.name} ok`);
      return response;
    } catch (error) {
      const failure = ConnectError.from(error);
      const retryAfter = failure.metadata.get("retry-after");
      outcomes.push(`${request.method.name} ${Code[failure.code]}${retryAfter === null ? "" : ` retry-after ${retryAfter}`}`);
      throw error;
    }
  };
  return { outcomes, interceptor };
}

/** Whether the action at `version` came to `seat` as another seat's sealed choice: with its seat, without the action. */
async function sealedChoice(seat: Seat, version: bigint): Promise<boolean> {
  for await (const update of seat.follow({ afterVersion: version - 1n })) {
    if (isAction(update)) return update.seat !== seat.seat && !update.action;
  }
  throw new Error(`the stream ended before the action at version ${version}`);
}

/** A loopback port nothing listens on (it was free a moment ago). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** TLS errors of a certificate chain the client does not trust (node:tls codes). */
const UNTRUSTED_CERTIFICATE = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
]);

/**
 * The scenarios that run once: those about the connection, not matches, and those that choose
 * their games; the others run for every game.
 */
const ONCE: ReadonlySet<string> = new Set(["retry_after", "tls", "sealed_choice_in_watch", "every_game_with_the_helpers"]);

/**
 * Play `seat` to the end as the README shows: whenever its watch says it is its turn, a random
 * legal move (in Leilão's bid steps a card of the bid options, sometimes with an extra card),
 * each with its preview. Returns the final state.
 */
async function playWithTheHelpers(seat: Seat): Promise<MatchState> {
  let final: MatchState | undefined;
  for await (const { state } of seat.watch()) {
    final = state;
    if (!isMyTurn(state)) continue;
    const options = bidOptions(state);
    let action: Action | undefined;
    if (options) {
      const { card, extras } = pick(options.cards, random);
      action = bidAction(state, card, extras.length > 0 && random() < 0.3 ? pick(extras, random) : undefined);
      assert.ok(action, "a bid of the bid options is a legal action");
    } else {
      action = pick(legalMoves(state), random).action;
    }
    assert.ok(previewOf(state, action), "every legal move has its preview");
    await seat.act(action, state!.version);
  }
  return final!;
}

const IMPLEMENTATIONS: Record<string, (game: Game) => Promise<void>> = {
  async create_and_join(game) {
    const { matchId, match } = await client.createMatch({ game, players: 2, seats: ["open", "open"] });
    assert.ok(matchId);
    assert.equal(match?.game, game);
    assert.equal(match?.status, MatchStatus.WAITING);
    assert.equal(match?.players, 2);
    const first = await client.join(matchId, "ana", 0);
    const second = await client.join(matchId, "bea");
    assert.equal(first.seat, 0);
    assert.equal(second.seat, 1);
    assert.ok(first.token && second.token);
    assert.notEqual(first.token, second.token);
    for (const seat of [first, second]) {
      const state = await seat.view();
      assert.equal(state.match?.status, MatchStatus.PLAYING);
      assert.equal(state.version, 0n);
      assert.equal(state.yourSeat, seat.seat);
    }
    // The seat is taken now.
    await rejectsWith(() => client.join(matchId, "cid", 1), Code.AlreadyExists);
  },

  async bad_token(game) {
    const [a, b] = await playingMatch(client, game);
    const { seat, state, action } = await mover([a, b]);
    const request = submitRequest(seat, action, state.version);
    await rejectsWith(() => client.service.submitAction(request), Code.Unauthenticated);
    await rejectsWith(
      () => client.service.submitAction(request, client.callOptions("not-a-token-this-server-issued")),
      Code.Unauthenticated,
    );
    const [other] = await playingMatch(client, game);
    await rejectsWith(
      () => client.service.submitAction(request, client.callOptions(other.token)),
      Code.PermissionDenied,
    );
    const spectator = await client.view(seat.matchId);
    assert.equal(spectator.yourSeat, undefined);
    assert.equal(spectator.legalActions.length, 0);
    assert.equal(spectator.version, 0n, "no refused submission changed the match");
    // A seat's token shows only its own match.
    await rejectsWith(
      () => client.service.getView({ matchId: seat.matchId }, client.callOptions(other.token)),
      Code.PermissionDenied,
    );
    await rejectsWith(() => client.view(seat.matchId, other.token), Code.PermissionDenied);
  },

  async illegal_action(game) {
    const seats = await playingMatch(client, game);
    let { seat, state, action } = await mover(seats);
    let other = seat === seats[0] ? seats[1] : seats[0];
    if (state.seatsToMove.includes(other.seat)) {
      // A sealed step: both seats are to move, so one acts first and is then out of turn.
      await playRandomMoves(seats, 1, random);
      ({ seat, state, action } = await mover(seats));
      other = seat === seats[0] ? seats[1] : seats[0];
    }
    if (game === Game.MERCADO) {
      // A restaurant from an empty restaurant hand.
      const hand = mercadoView(state)?.players[seat.seat]?.restaurantHand ?? [];
      assert.equal(hand.length, 0, "no restaurant in hand at the start");
      const restaurant = mercadoAction({
        action: { case: "openRestaurant", value: { restaurant: Restaurant.PUB, square: { column: 3, row: 3 } } },
      });
      await rejectsWith(() => seat.submit(restaurant, state.version, newRequestId()), Code.FailedPrecondition);
    }
    // A legal action of the seat to move, submitted by the other seat: out of turn.
    await rejectsWith(() => other.submit(action, state.version, newRequestId()), Code.FailedPrecondition);
    const after = await seat.view();
    assert.equal(after.version, state.version);
    assert.ok(equals(MatchStateSchema, after, state), "nothing changed");
  },

  async stale_version(game) {
    const seats = await playingMatch(client, game);
    await playRandomMoves(seats, 1, random);
    let { seat, state, action } = await mover(seats);
    // In a simultaneous step the versions since it began are all current (the others' sealed
    // choices change nothing of the mover's): play on to the end of the step.
    while (await sealedChoice(seat, state.version)) {
      await playRandomMoves(seats, 1, random);
      ({ seat, state, action } = await mover(seats));
    }
    await rejectsWith(() => seat.submit(action, state.version - 1n, newRequestId()), Code.Aborted);
    const after = await seat.view();
    assert.equal(after.version, state.version);
    assert.ok(equals(MatchStateSchema, after, state), "nothing changed");
    // The wrapper's act() recovers: it refetches the view and resubmits the still-legal action.
    const response = await seat.act(action, state.version - 1n);
    assert.equal(response.version, state.version + 1n);
  },

  async retry_same_request_id(game) {
    const seats = await playingMatch(client, game);
    const { seat, state, action } = await mover(seats);
    const requestId = newRequestId();
    const first = await seat.submit(action, state.version, requestId);
    const again = await seat.submit(action, state.version, requestId);
    assert.equal(first.version, state.version + 1n);
    assert.equal(again.version, first.version);
    assert.equal(again.events.length, first.events.length);
    assert.ok(first.events.length > 0, "an accepted action has events");
    first.events.forEach((event, i) => assert.ok(equals(EventSchema, event, again.events[i]!), `event ${i} differs`));
    const after = await seat.view();
    assert.equal(after.version, state.version + 1n, "applied once");
    const spectator = await client.view(seat.matchId);
    assert.equal(spectator.version, state.version + 1n);
  },

  async resume_stream(game) {
    const seats = await playingMatch(client, game);
    const [a] = seats;
    await playRandomMoves(seats, 6, random);
    const now = await a.view();
    assert.equal(now.version, 6n);

    // The first message is the match as it stands (no action, version 6), then actions 1 and 2.
    const first: MatchUpdate[] = [];
    for await (const update of a.follow({ afterVersion: 0n })) {
      first.push(update);
      if (first.length === 3) break; // drop the stream
    }
    const [head, ...actions] = first;
    assert.equal(head?.action, undefined, "the first message has no action");
    assert.equal(head?.seat, undefined);
    assert.equal(head?.version, 6n);
    assert.ok(head?.state && equals(MatchStateSchema, head.state, now), "the first message is the match as it stands");
    // Actions name their seat; another seat's sealed choice comes without the action.
    assert.deepEqual(
      actions.map((update) => [update.version, isAction(update)]),
      [
        [1n, true],
        [2n, true],
      ],
    );
    for (const update of actions) {
      if (update.seat === a.seat) assert.ok(update.action, `version ${update.version}: the seat's own action is missing`);
    }
    assert.equal(actions[1]?.state?.version, 2n, "each action carries the state after it");

    // Reconnect after the last action seen: the match as it stands again, then 3..6, then live 7, 8.
    const seen: bigint[] = [];
    let lastUpdate: MatchUpdate | undefined;
    let firstOfSecond: MatchUpdate | undefined;
    for await (const update of a.follow({ afterVersion: 2n })) {
      firstOfSecond ??= update;
      lastUpdate = update;
      if (!isAction(update)) continue;
      seen.push(update.version);
      if (update.version === 6n) await playRandomMoves(seats, 2, random);
      if (update.version === 8n) break;
    }
    assert.equal(firstOfSecond?.action, undefined);
    assert.equal(firstOfSecond?.version, 6n);
    assert.deepEqual(seen, [3n, 4n, 5n, 6n, 7n, 8n], "every later action exactly once, in order");
    // The last update carries the seat's view after it: the current one.
    const after = await a.view();
    assert.equal(after.version, 8n);
    assert.ok(lastUpdate?.state && equals(MatchStateSchema, lastUpdate.state, after), "the update's state is the view");
  },

  async stream_starts_with_the_match(game) {
    const { matchId } = await client.createMatch({ game, players: 2, seats: ["open", "open"] });
    const a = await client.join(matchId, "ana", 0);
    const before = await a.view();
    assert.equal(before.match?.status, MatchStatus.WAITING);
    assert.equal(before.version, 0n);
    // Another client takes the last seat: the match starts, its version still 0.
    const other = server.connect();
    await other.join(matchId, "bea");
    // The stream from version 0 starts with the match playing at version 0: the start is not missed.
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), 5_000);
    try {
      const stream = client.service.streamEvents({ matchId, afterVersion: 0n }, client.callOptions(a.token, stop.signal));
      let first: MatchUpdate | undefined;
      for await (const update of stream) {
        first = update;
        break;
      }
      assert.ok(first, "the stream sent nothing");
      assert.equal(first.action, undefined, "no action");
      assert.equal(first.seat, undefined);
      assert.equal(first.version, 0n);
      assert.equal(first.state?.version, 0n);
      assert.equal(first.state?.match?.status, MatchStatus.PLAYING);
      assert.equal(first.state?.yourSeat, 0);
      assert.ok(first.state?.match?.seats.every((seat) => seat.taken));
    } finally {
      clearTimeout(timer);
      stop.abort();
    }
  },

  async sealed_choice_in_watch() {
    const { matchId } = await client.createMatch({ game: Game.LEILAO, players: 3, seats: ["open", "open", "open"] });
    const ana = await client.join(matchId, "ana", 0);
    const watching = ana.watch();
    const view = (await watching.next()).value!;
    assert.equal(view.state?.match?.status, MatchStatus.WAITING);
    const starting = watching.next();
    const [bea] = [await client.join(matchId, "bea", 1), await client.join(matchId, "cid", 2)];
    let update = (await starting).value!;
    while (update.state?.match?.status !== MatchStatus.PLAYING) update = (await watching.next()).value!;
    assert.ok(isMyTurn(update.state) && update.version === 0n, "every seat bids at once");

    const beas = await bea!.view();
    await bea!.act(beas.legalActions[0]!, beas.version);
    const answer = await ana.act(update.state!.legalActions[0]!, update.state!.version); // any version of the step is current
    assert.equal(answer.version, 2n);
    assert.deepEqual(gameView(answer.state, "leilao")?.acted, [0, 1]);
    assert.equal(answer.state?.legalActions.length, 0);
    assert.equal(ana.latest?.version, 2n);

    const beasBid = (await watching.next()).value!;
    assert.deepEqual([beasBid.version, beasBid.seat, beasBid.action], [1n, 1, undefined]);
    assert.ok(beasBid.events.length > 0, "its events: seat 1 has bid");
    assert.equal(beasBid.state?.version, 2n, "the newest state, not version 1's");
    assert.equal(isMyTurn(beasBid.state), false);
    const anasBid = (await watching.next()).value!;
    assert.deepEqual([anasBid.version, anasBid.seat, anasBid.state?.version], [2n, 0, 2n]);
    await watching.return();
  },

  async every_game_with_the_helpers() {
    for (const game of GAMES) {
      const { matchId } = await client.createMatch({ game, players: 2, seats: ["open", "open"] });
      const seats = [await client.join(matchId, "ana", 0), await client.join(matchId, "bea", 1)];
      const finals = await Promise.all(seats.map(playWithTheHelpers));
      const result = matchResult(finals[0]);
      assert.ok(result, `${gameName(game)}: the match finished`);
      assert.deepEqual(result.ranks, finals[0]!.match?.ranks);
      assert.deepEqual(matchResult(finals[1]), result, "every seat sees the same result");
      assert.deepEqual(
        result.parts.map((parts) => parts.seat),
        [0, 1],
      );
      for (const parts of result.parts) {
        assert.equal(
          parts.parts.reduce((sum, part) => sum + part.points, 0n),
          parts.total,
          "the parts add up to the score",
        );
        assert.equal(result.scores[parts.seat], Number(parts.total));
        const named = parts.parts.map((part) => `${part.label} ${part.points}`).join(", ");
        console.log(`${gameName(game)}, ${seatLabel(parts.seat)}: ${named} = ${parts.total} (rank ${result.ranks[parts.seat]})`);
      }
    }
  },

  async retry_after() {
    await withServer(["--rate-limit", "CreateMatch=1/1"], async (limited) => {
      const { outcomes, interceptor } = recorder();
      const wrapper = limited.connect(20_000, { interceptors: [interceptor] });
      const started = performance.now();
      const first = await wrapper.createMatch({ seats: ["open", "open"] });
      const second = await wrapper.createMatch({ seats: ["open", "open"] });
      const took = performance.now() - started;
      assert.notEqual(first.matchId, second.matchId);
      // The second call was refused with retry-after 1, waited for and repeated.
      assert.deepEqual(outcomes, [
        "CreateMatch ok",
        "CreateMatch ResourceExhausted retry-after 1",
        "CreateMatch ok",
      ]);
      assert.ok(took >= 900, `the two calls took ${took.toFixed(0)} ms, less than the 1 s retry-after`);
      // A raw call right after (through the generated client, with no retry) shows the refusal.
      const refusal = await rejectsWith(
        () => wrapper.service.createMatch({ game: Game.MERCADO, players: 2 }),
        Code.ResourceExhausted,
      );
      assert.equal(refusal.metadata.get("retry-after"), "1");
      assert.equal(retryAfterMs(refusal), 1_000);
      // Both matches exist, and no other: a refused call changed nothing.
      const waiting = await wrapper.listMatches({ status: "waiting", pageSize: 100 });
      assert.deepEqual(waiting.matches.map((m) => m.matchId).sort(), [first.matchId, second.matchId].sort());
    });
  },

  async tls() {
    const certificates = tempDir();
    try {
      const { ca, cert, key } = makeCertificates(certificates.path);
      await withServer(["--tls-cert", cert, "--tls-key", key], async (secure) => {
        assert.match(secure.server.target, /^https:\/\//);
        // Trusting the test CA: an https target and the CA file...
        const trusting = secure.connect(20_000, { caFile: ca });
        const { matchId } = await trusting.createMatch({ players: 2, seats: ["open", "open"] });
        const seat = await trusting.join(matchId, "ana", 0);
        assert.equal(seat.seat, 0);
        assert.ok(seat.token);
        // ...or a bare host:port with `tls` and the CA's PEM text.
        const other = connectNode(secure.server.address, { tls: true, ca: readFileSync(ca, "utf8") });
        try {
          const second = await other.join(matchId, "bea");
          assert.equal(second.seat, 1);
          assert.equal((await seat.view()).match?.status, MatchStatus.PLAYING);
        } finally {
          other.close();
        }
        // Not trusting it (Node's default roots): the handshake fails. Connect-ES's Node
        // transport reports a TLS failure as Code.Internal with the node:tls error as its
        // cause (it maps only ECONNREFUSED, ETIMEDOUT and DNS failures to Unavailable), where
        // gRPC core (the Go and Python clients) says UNAVAILABLE. It is not transient: the
        // wrapper does not retry a certificate it will not trust on the next attempt either.
        const untrusting = secure.connect(20_000);
        const failure = await rejectsWith(() => untrusting.listMatches(), Code.Internal);
        const cause = (failure.cause as { code?: unknown } | undefined)?.code;
        assert.ok(
          typeof cause === "string" && UNTRUSTED_CERTIFICATE.has(cause),
          `not a certificate error: ${String(cause)}`,
        );
        assert.equal(isTransient(failure), false);
      });
    } finally {
      certificates.remove();
    }
  },
};

describe("conformance", () => {
  test("every scenario in scenarios.json has an implementation", () => {
    const missing = scenarios.map((s) => s.name).filter((name) => !(name in IMPLEMENTATIONS));
    assert.deepEqual(missing, [], `scenarios without an implementation: ${missing.join(", ")}`);
    assert.ok(scenarios.length > 0);
  });

  for (const scenario of scenarios) {
    const games = ONCE.has(scenario.name) ? [Game.MERCADO] : GAMES;
    for (const game of games) {
      const name = games.length > 1 ? `${scenario.name} (${gameName(game)})` : scenario.name;
      test(`${name}: ${scenario.does}`, { timeout: ONCE.has(scenario.name) ? 120_000 : 30_000 }, async () => {
        const implementation = IMPLEMENTATIONS[scenario.name];
        if (!implementation) assert.fail(`scenario ${scenario.name} has no implementation`);
        await implementation(game);
      });
    }
  }
});

// Not scenarios of the shared file: the rest of the wrapper.
describe("wrapper", () => {
  test("claimBotSeat takes a waiting bot seat of a level; none left is RESOURCE_EXHAUSTED", async () => {
    await agentHeartbeat(client, server.agentKey);
    const { matchId } = await client.createMatch({ players: 3, seats: ["open", "hard", "open"], money: "public" });
    const { seat, level } = await client.claimBotSeat(server.agentKey, "ts-agent", ["hard"]);
    assert.equal(seat.matchId, matchId);
    assert.equal(seat.seat, 1);
    assert.equal(level, "hard");
    const state = await seat.view();
    assert.equal(state.yourSeat, 1);
    assert.equal(state.match?.seats[1]?.displayName, "Hard AI"); // its level's name, not the agent's
    assert.equal(mercadoView(state)?.players.length, 3);
    // No seat waiting: refused without retry-after, so not repeated.
    const none = await rejectsWith(() => client.claimBotSeat(server.agentKey, "ts-agent", ["hard"]), Code.ResourceExhausted);
    assert.equal(retryAfterMs(none), undefined);
  });

  test("claimBotSeat without the agent key, or with a wrong one, is PERMISSION_DENIED", async () => {
    await agentHeartbeat(client, server.agentKey);
    const { matchId } = await client.createMatch({ players: 2, seats: ["open", "medium"] });
    await rejectsWith(() => client.claimBotSeat("", "ts-agent", ["medium"]), Code.PermissionDenied);
    await rejectsWith(() => client.claimBotSeat(`${server.agentKey}x`, "ts-agent", ["medium"]), Code.PermissionDenied);
    const player = await client.join(matchId, "ana");
    await rejectsWith(() => client.claimBotSeat(player.token, "ts-agent"), Code.PermissionDenied);
    const { seat } = await client.claimBotSeat(server.agentKey, "ts-agent", ["medium"]);
    assert.equal(seat.matchId, matchId, "the refused claims took nothing");
  });

  test("retryAfterMs reads retry-after of RESOURCE_EXHAUSTED only", () => {
    const trailer = (value: string) => new Headers({ "retry-after": value });
    assert.equal(retryAfterMs(new ConnectError("slow down", Code.ResourceExhausted, trailer("2"))), 2_000);
    assert.equal(retryAfterMs(new ConnectError("slow down", Code.ResourceExhausted, trailer("0"))), 0);
    assert.equal(retryAfterMs(new ConnectError("slow down", Code.ResourceExhausted, trailer("soon"))), undefined);
    assert.equal(retryAfterMs(new ConnectError("no bot seat is waiting", Code.ResourceExhausted)), undefined);
    assert.equal(retryAfterMs(new ConnectError("down", Code.Unavailable, trailer("2"))), undefined);
    assert.equal(retryAfterMs(new Error("boom")), undefined);
  });

  test("a retry-after past reconnectMs is not waited for: the refusal is thrown at once", async () => {
    await withServer(["--rate-limit", "CreateMatch=1/1"], async (limited) => {
      const { outcomes, interceptor } = recorder();
      const impatient = limited.connect(500, { interceptors: [interceptor] });
      await impatient.createMatch();
      const refusal = await rejectsWith(() => impatient.createMatch(), Code.ResourceExhausted);
      assert.equal(retryAfterMs(refusal), 1_000);
      assert.deepEqual(outcomes, ["CreateMatch ok", "CreateMatch ResourceExhausted retry-after 1"], "one attempt only");
    });
  });

  test("view, follow and submit repeat calls refused with retry-after", async () => {
    const limits = ["GetView=1/1", "StreamEvents=1/1", "SubmitAction=1/1"].flatMap((limit) => ["--rate-limit", limit]);
    await withServer(limits, async (limited) => {
      const { outcomes, interceptor } = recorder();
      const throttled = limited.connect(20_000, { interceptors: [interceptor] });
      const seats = await playingMatch(throttled);
      const { seat, state, action } = await mover(seats); // two views: the second waits
      const requestId = newRequestId();
      const moved = await seat.submit(action, state.version, requestId);
      const again = await seat.submit(action, state.version, requestId); // waits, then the same answer
      assert.equal(again.version, moved.version);
      const versions: bigint[] = [];
      for (let i = 0; i < 2; i++) {
        for await (const update of seat.follow()) {
          versions.push(update.version);
          break; // the stream stays open (the match goes on): drop it
        }
      }
      assert.deepEqual(versions, [1n, 1n]);
      for (const method of ["GetView", "SubmitAction", "StreamEvents"]) {
        assert.ok(outcomes.includes(`${method} ResourceExhausted retry-after 1`), `${method}: ${outcomes.join(", ")}`);
      }
      assert.ok(!outcomes.some((outcome) => outcome.includes("ResourceExhausted") && !outcome.endsWith("retry-after 1")));
    });
  });

  test("createMatch and claimBotSeat are not retried when the server is unreachable", async () => {
    const port = await freePort();
    const { outcomes, interceptor } = recorder();
    // reconnectMs far beyond this test's timeout: a retry would show as a timeout.
    const unreachable = connectNode(`127.0.0.1:${port}`, { retry: { reconnectMs: 600_000 }, interceptors: [interceptor] });
    try {
      await rejectsWith(() => unreachable.createMatch(), Code.Unavailable);
      await rejectsWith(() => unreachable.claimBotSeat(server.agentKey, "ts-agent"), Code.Unavailable);
      assert.deepEqual(outcomes, ["CreateMatch Unavailable", "ClaimBotSeat Unavailable"]);
    } finally {
      unreachable.close();
    }
  });

  test("join is retried when the server is unreachable, under one request id", async () => {
    const port = await freePort();
    const requestIds: string[] = [];
    const sent: Interceptor = (next) => async (request) => {
      if (!request.stream) requestIds.push((request.message as { requestId?: string }).requestId ?? "");
      return next(request);
    };
    const unreachable = connectNode(`127.0.0.1:${port}`, { retry: { reconnectMs: 1_000 }, interceptors: [sent] });
    try {
      await rejectsWith(() => unreachable.join("0".repeat(32), "ana"), Code.Unavailable);
      assert.ok(requestIds.length > 1, `${requestIds.length} attempts`);
      assert.match(requestIds[0] ?? "", /^[0-9a-f]{32}$/);
      assert.deepEqual(new Set(requestIds), new Set([requestIds[0]]));
    } finally {
      unreachable.close();
    }
  });

  test("listMatches pages through matches of a status, newest first", async () => {
    const older = (await client.createMatch({ seats: ["open", "open"] })).matchId;
    await new Promise((resolve) => setTimeout(resolve, 5)); // order is by creation time in ms
    const newer = (await client.createMatch({ seats: ["open", "open"] })).matchId;
    const first = await client.listMatches({ status: "waiting", pageSize: 1 });
    assert.deepEqual(
      first.matches.map((m) => m.matchId),
      [newer],
    );
    assert.ok(first.nextPageToken, "a next page");
    const rest = await client.listMatches({ status: "waiting", pageSize: 100, pageToken: first.nextPageToken });
    assert.equal(rest.matches[0]?.matchId, older);
    assert.ok(rest.matches.every((m) => m.status === MatchStatus.WAITING));
    const playing = await client.listMatches({ status: "playing", pageSize: 100 });
    assert.ok(!playing.matches.some((m) => m.matchId === newer || m.matchId === older));
  });

  test("follow stops with Code.Canceled when its signal aborts", async () => {
    const [a] = await playingMatch(client);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const firsts: bigint[] = [];
    await rejectsWith(async () => {
      for await (const update of a.follow({ signal: controller.signal })) {
        if (update.action) assert.fail(`no action, got ${update.version}`);
        firsts.push(update.version);
      }
    }, Code.Canceled);
    assert.deepEqual(firsts, [0n], "only the match as it stands");
  });

  test("follow resumes after the last action, not after the stream's first message", async () => {
    const seats = await playingMatch(client);
    await playRandomMoves(seats, 3, random);
    // Drop every stream right after its first message, twice: the third gets through.
    let streams = 0;
    const dropper: Interceptor = (next) => async (request) => {
      const response = await next(request);
      if (!response.stream || request.method.name !== "StreamEvents") return response;
      const attempt = ++streams;
      if (attempt > 2) return response;
      const messages = response.message;
      return {
        ...response,
        message: (async function* () {
          for await (const message of messages) {
            yield message;
            throw new ConnectError("dropped for the test", Code.Unavailable);
          }
        })(),
      };
    };
    const dropping = server.connect(20_000, { interceptors: [dropper] });
    const updates: [bigint, boolean][] = [];
    for await (const update of dropping.follow(seats[0].matchId, seats[0].token)) {
      updates.push([update.version, !!update.action]);
      if (update.action && update.version === 3n) break;
    }
    assert.deepEqual(updates, [
      [3n, false],
      [3n, false],
      [3n, false],
      [1n, true],
      [2n, true],
      [3n, true],
    ]);
    assert.equal(streams, 3);
  });

  test("follow resumes after another seat's sealed action, which comes without the action", async () => {
    const seats = await playingMatch(client, Game.LEILAO);
    const [a, b] = seats;
    const start = await b.view();
    await b.act(start.legalActions[0]!, start.version); // b's bid: sealed, as a sees it
    // Drop the first stream right after its second message: the sealed bid.
    let streams = 0;
    const dropper: Interceptor = (next) => async (request) => {
      const response = await next(request);
      if (!response.stream || request.method.name !== "StreamEvents" || ++streams > 1) return response;
      const messages = response.message;
      return {
        ...response,
        message: (async function* () {
          let sent = 0;
          for await (const message of messages) {
            yield message;
            if (++sent === 2) throw new ConnectError("dropped for the test", Code.Unavailable);
          }
        })(),
      };
    };
    const dropping = server.connect(20_000, { interceptors: [dropper] });
    const updates: [bigint, boolean, boolean][] = [];
    for await (const update of dropping.follow(a.matchId, a.token)) {
      updates.push([update.version, isAction(update), !!update.action]);
      if (updates.length === 3) {
        const mine = await a.view();
        await a.act(mine.legalActions[0]!, mine.version); // the last bid: the reveal
      }
      if (update.version === 2n) break;
    }
    assert.deepEqual(updates, [
      [1n, false, false],
      [1n, true, false],
      [1n, false, false],
      [2n, true, true],
    ]);
    assert.equal(streams, 2);
  });

  test("watch gives the view, the start of the match once, then every update", async () => {
    const { matchId } = await client.createMatch({ seats: ["open", "open"] });
    const a = await client.join(matchId, "ana", 0);
    const seen: { version: bigint; status: MatchStatus | undefined; action: boolean; mine: boolean }[] = [];
    let b: Seat | undefined;
    // The seat taken comes once, though the stream may start after it.
    for await (const update of a.watch()) {
      const state = update.state!;
      seen.push({
        version: update.version,
        status: state.match?.status,
        action: !!update.action,
        mine: isMyTurn(state),
      });
      if (!b) {
        assert.equal(state.match?.status, MatchStatus.WAITING);
        assert.equal(isMyTurn(state), false, "nobody's turn while the match waits");
        await new Promise((resolve) => setTimeout(resolve, 100));
        b = await client.join(matchId, "bea");
      } else if (update.version < 2n && !isMyTurn(state) && state.match?.status === MatchStatus.PLAYING) {
        await playRandomMoves([a, b], 1, random);
      } else if (isMyTurn(state)) {
        await a.act(state.legalActions[0]!, state.version);
      }
      if (update.version >= 2n) break;
    }
    assert.deepEqual(
      seen.map(({ version, status, action }) => [version, status, action]),
      [
        [0n, MatchStatus.WAITING, false],
        [0n, MatchStatus.PLAYING, false],
        [1n, MatchStatus.PLAYING, true],
        [2n, MatchStatus.PLAYING, true],
      ],
    );
  });

  test("watch starts with the view: a first turn at version 0 needs no update", async () => {
    const seats = await playingMatch(client);
    const { seat } = await mover(seats);
    const watching = seat.watch();
    const first = await watching.next();
    await watching.return();
    assert.ok(!first.done && isMyTurn(first.value.state));
    assert.equal(first.value.version, 0n);
  });

  test("watch catches up in order: earlier actions come with the newest state", async () => {
    // Hold the stream back until three moves are made after the view: it starts ahead of it.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holder: Interceptor = (next) => async (request) => {
      if (request.method.name === "StreamEvents") await held;
      return next(request);
    };
    const holding = server.connect(20_000, { interceptors: [holder] });
    const seats = await playingMatch(client);
    const { seat } = await mover(seats);
    const seen: { version: bigint; action: boolean; stateVersion: bigint; events: number; legal: number; previews: number }[] =
      [];
    const watching = holding.watch(seat.matchId, seat.token);
    for await (const update of watching) {
      const state = update.state!;
      seen.push({
        version: update.version,
        action: !!update.action,
        stateVersion: state.version,
        events: update.events.length,
        legal: state.legalActions.length,
        previews: state.previews.length,
      });
      if (seen.length === 1) {
        await playRandomMoves(seats, 3, random);
        release();
      }
      if (update.version === 3n) break;
    }
    const now = await seat.view();
    // The stream's first message is the match at version 3: the actions before it come with that
    // state (never an older one), and their own events.
    assert.deepEqual(
      seen.map(({ version, action, stateVersion, legal }) => [version, action, stateVersion, legal]),
      [
        [0n, false, 0n, seen[0]!.legal], // the view: the mover's turn (checked below)
        [1n, true, 3n, now.legalActions.length],
        [2n, true, 3n, now.legalActions.length],
        [3n, true, 3n, now.legalActions.length],
      ],
    );
    assert.ok(seen[0]!.legal > 0, "the first view is the mover's turn");
    assert.ok(seen.slice(1).every((update) => update.events > 0), "each action with its events");
    assert.equal(seen[3]!.previews, seen[3]!.legal, "the current turn keeps its previews");
  });

  test("previews: one per legal action, what it costs and pays", async () => {
    const seats = await playingMatch(client);
    const { state } = await mover(seats);
    assert.equal(state.previews.length, state.legalActions.length);
    const moves = legalMoves(state, "mercado");
    assert.equal(moves.length, state.legalActions.length);
    assert.ok(moves.every((move) => move.preview !== undefined));
    const stand = moves.find(({ gameAction }) => gameAction.action.case === "openStand");
    assert.ok(stand?.preview && stand.preview.cost >= 1, "a stand costs at least 1");
    const coin = moves.find(({ gameAction }) => gameAction.action.case === "takeCoin");
    assert.ok(coin?.preview, "taking a coin is legal at the start");
    assert.equal(coin.preview.cost, 0);
    assert.deepEqual(
      coin.preview.earnings.map((earning) => [earning.seat, earning.amount]),
      [[state.yourSeat, 1]],
    );
    assert.ok(previewOf(state, coin.action) === coin.preview);
    assert.equal(previewOf(state, mercadoAction({ action: { case: "redrawHand", value: {} } })), undefined);
    // A spectator's view has no legal actions, so no previews.
    assert.equal((await client.view(state.match!.matchId)).previews.length, 0);
  });

  test("createMatch takes a time control; clockOf, deadlineMs and timeLeftMs read it", async () => {
    const timed = await client.createMatch({
      seats: ["open", "open"],
      clock: { turnSeconds: 30, reserveSeconds: 90, onTimeout: "forfeit", fallbackLevel: "hard" },
    });
    assert.deepEqual(clockOf(timed.match), { turnSeconds: 30, reserveSeconds: 90, onTimeout: "forfeit", fallbackLevel: "hard" });
    assert.equal(deadlineMs(timed.match), undefined, "no clock runs while the match waits");
    const a = await client.join(timed.matchId, "ana");
    await client.join(timed.matchId, "bea");
    const state = await a.view();
    assert.deepEqual(
      state.match?.seats.map((seat) => seat.reserveMs),
      [90_000n, 90_000n],
    );
    const left = timeLeftMs(state.match);
    assert.ok(left !== undefined && left > 100_000 && left <= 120_000, `time left ${left}`);
    assert.equal(timeLeftMs(state.match, deadlineMs(state.match)! + 5), 0);

    const untimed = await client.createMatch({ seats: ["open", "open"], clock: "none" });
    assert.equal(clockOf(untimed.match), undefined);
    await client.join(untimed.matchId, "ana");
    const b = await client.join(untimed.matchId, "bea");
    assert.equal(timeLeftMs((await b.view()).match), undefined);

    const byDefault = await client.createMatch({ seats: ["open", "open"] });
    assert.deepEqual(clockOf(byDefault.match), { turnSeconds: 60, reserveSeconds: 180, onTimeout: "ai", fallbackLevel: "easy" });
  });

  test("leave: a waiting seat opens again; in play the AI takes the seat over", async () => {
    const waiting = await client.createMatch({ seats: ["open", "open"] });
    const gone = await client.join(waiting.matchId, "ana", 0);
    assert.deepEqual(openSeats((await gone.view()).match), [1]);
    const summary = await gone.leave();
    assert.equal(summary?.seats[0]?.taken, false);
    assert.deepEqual(openSeats(summary), [0, 1]);
    await rejectsWith(() => gone.view(), Code.Unauthenticated);

    const seats = await playingMatch(client);
    const { seat, state } = await mover(seats);
    const after = await seat.leave();
    assert.equal(after?.seats[seat.seat]?.left, true);
    assert.equal(after?.seats[seat.seat]?.playedByAi, true);
    assert.equal(after?.seats[seat.seat]?.forfeited, false);
    await rejectsWith(() => seat.leave(), Code.FailedPrecondition);
    await rejectsWith(() => seat.reclaim(), Code.FailedPrecondition);
    // The AI plays the seat's turn: the match moves on without it.
    for await (const update of seat.follow({ afterVersion: state.version })) {
      if (update.action) {
        assert.equal(update.seat, seat.seat);
        assert.equal(update.state?.legalActions.length, 0, "the seat that left has no legal actions");
        break;
      }
    }
  });

  test("a seat whose clock runs out is played by the AI until its owner reclaims it", async () => {
    await withServer(["--turn-seconds", "1", "--reserve-seconds", "0"], async (own) => {
      const fast = own.connect();
      const seats = await playingMatch(fast);
      const { seat } = await mover(seats);
      let timedOut: MatchUpdate | undefined;
      for await (const update of seat.follow()) {
        if (update.state?.match?.seats[seat.seat]?.playedByAi) {
          timedOut = update;
          break;
        }
      }
      const info = timedOut?.state?.match?.seats[seat.seat];
      assert.ok(info?.playedByAi && !info.left && !info.forfeited, "played by the AI after a timeout");
      assert.equal(timedOut?.state?.legalActions.length, 0, "no legal actions for a seat the AI plays");
      const back = await seat.reclaim();
      assert.equal(back.yourSeat, seat.seat);
      assert.equal(back.match?.seats[seat.seat]?.playedByAi, false);
      await rejectsWith(() => seat.reclaim(), Code.FailedPrecondition);
    });
  });

  test("bot seats with no agent that can take them are refused with the server's reason", async () => {
    await withServer([], async (own) => {
      const fresh = own.connect();
      const refusal = await rejectsWith(() => fresh.createMatch({ seats: ["open", "easy"] }), Code.FailedPrecondition);
      assert.match(refusal.rawMessage, /no AI agent can take this match's bot seats now/);
      await agentHeartbeat(fresh, own.agentKey, 1);
      const { matchId } = await fresh.createMatch({ seats: ["open", "easy"] });
      assert.ok(matchId);
      // Its one free seat is spoken for by the waiting bot seat.
      await rejectsWith(() => fresh.createMatch({ seats: ["open", "easy"] }), Code.FailedPrecondition);
    });
  });

  test("createMatch takes any game and its options as the request's oneof", async () => {
    const { match } = await client.createMatch({
      game: Game.LEILAO,
      gameOptions: { case: "leilao", value: { cardPenalty: "one" } },
    });
    assert.equal(match?.game, Game.LEILAO);
    assert.equal(match?.options.case, "leilao");
    assert.equal(match.options.value.cardPenalty, "one");
    const oregano = await client.createMatch({ game: gameNamed("oregano")! });
    assert.equal(oregano.match?.game, Game.OREGANO);
    assert.equal(gameNamed("chess"), undefined);
    assert.deepEqual(GAMES.map(gameName), ["mercado", "oregano", "leilao"]);
  });

  test("seatLabel counts seats from 1", () => {
    assert.equal(seatLabel(0), "Seat 1");
    assert.equal(seatLabel(3), "Seat 4");
  });

  test("codeOf maps a non-Connect error to Code.Unknown", () => {
    assert.equal(codeOf(new Error("boom")), Code.Unknown);
  });
});
