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
  codeOf,
  EventSchema,
  Game,
  isMyTurn,
  isTransient,
  MatchStateSchema,
  MatchStatus,
  mercadoAction,
  mercadoView,
  type MatchUpdate,
  newRequestId,
  Restaurant,
  retryAfterMs,
  type Seat,
} from "../src/index.js";
import { connectNode, type NodeMercadoClient } from "../src/node.js";
import { makeCertificates, mover, playingMatch, playRandomMoves, seededRandom, tempDir, TestServer } from "./harness.js";

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

/** Assert that `call` fails with `code`; returns the error. */
async function rejectsWith(call: () => Promise<unknown>, code: Code): Promise<ConnectError> {
  try {
    await call();
  } catch (error) {
    assert.ok(error instanceof ConnectError, `not a ConnectError: ${String(error)}`);
    assert.equal(Code[error.code], Code[code], error.rawMessage);
    assert.ok(error.rawMessage.length > 0, "a refusal carries a reason");
    return error;
  }
  assert.fail(`expected ${Code[code]}`);
}

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

/** TLS errors of a certificate chain the client does not trust (node:tls codes). */
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

const UNTRUSTED_CERTIFICATE = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
]);

const IMPLEMENTATIONS: Record<string, () => Promise<void>> = {
  async create_and_join() {
    const { matchId, match } = await client.createMatch({ players: 2, seats: ["open", "open"] });
    assert.ok(matchId);
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

  async bad_token() {
    const [a, b] = await playingMatch(client);
    const { seat, state, action } = await mover([a, b]);
    const request = submitRequest(seat, action, state.version);
    await rejectsWith(() => client.service.submitAction(request), Code.Unauthenticated);
    await rejectsWith(
      () => client.service.submitAction(request, client.callOptions("not-a-token-this-server-issued")),
      Code.Unauthenticated,
    );
    const [other] = await playingMatch(client);
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

  async illegal_action() {
    const [a, b] = await playingMatch(client);
    const { seat, state, action } = await mover([a, b]);
    // A restaurant from an empty restaurant hand.
    const hand = mercadoView(state)?.players[seat.seat]?.restaurantHand ?? [];
    assert.equal(hand.length, 0, "no restaurant in hand at the start");
    const restaurant = mercadoAction({
      action: { case: "openRestaurant", value: { restaurant: Restaurant.PUB, square: { column: 3, row: 3 } } },
    });
    await rejectsWith(() => seat.submit(restaurant, state.version, newRequestId()), Code.FailedPrecondition);
    // A legal action of the seat to move, submitted by the other seat: out of turn.
    const other = seat === a ? b : a;
    await rejectsWith(() => other.submit(action, state.version, newRequestId()), Code.FailedPrecondition);
    const after = await seat.view();
    assert.equal(after.version, state.version);
    assert.ok(equals(MatchStateSchema, after, state), "nothing changed");
  },

  async stale_version() {
    const seats = await playingMatch(client);
    await playRandomMoves(seats, 1, random);
    const { seat, state, action } = await mover(seats);
    assert.equal(state.version, 1n);
    await rejectsWith(() => seat.submit(action, state.version - 1n, newRequestId()), Code.Aborted);
    const after = await seat.view();
    assert.equal(after.version, state.version);
    assert.ok(equals(MatchStateSchema, after, state), "nothing changed");
    // The wrapper's act() recovers: it refetches the view and resubmits the still-legal action.
    const response = await seat.act(action, state.version - 1n);
    assert.equal(response.version, state.version + 1n);
  },

  async retry_same_request_id() {
    const seats = await playingMatch(client);
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

  async resume_stream() {
    const seats = await playingMatch(client);
    const [a] = seats;
    const seen: bigint[] = [];
    let lastUpdate: MatchUpdate | undefined;
    const record = (update: MatchUpdate): void => {
      if (update.action) seen.push(update.version);
      lastUpdate = update;
    };

    // Follow live (the stream is open before the moves), and drop it after three updates.
    const first = a.follow();
    const opened = first.next();
    await playRandomMoves(seats, 3, random);
    const head = await opened;
    if (!head.done) record(head.value);
    for await (const update of first) {
      record(update);
      if (update.version === 3n) break;
    }
    assert.deepEqual(seen, [1n, 2n, 3n]);

    // Meanwhile the match goes on.
    await playRandomMoves(seats, 4, random);

    // Reconnect after the last version seen: the backlog (4..7), then live updates (8, 9).
    for await (const update of a.follow({ afterVersion: seen.at(-1)! })) {
      record(update);
      if (update.version === 7n) await playRandomMoves(seats, 2, random);
      if (update.version === 9n) break;
    }
    assert.deepEqual(seen, [1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n]);
    // The last update carries the seat's view after it: the current one.
    const now = await a.view();
    assert.equal(now.version, 9n);
    assert.ok(lastUpdate?.state && equals(MatchStateSchema, lastUpdate.state, now), "the update's state is the view");
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
    test(`${scenario.name}: ${scenario.does}`, { timeout: 30_000 }, async () => {
      const implementation = IMPLEMENTATIONS[scenario.name];
      if (!implementation) assert.fail(`scenario ${scenario.name} has no implementation`);
      await implementation();
    });
  }
});

// Not scenarios of the shared file: the rest of the wrapper.
describe("wrapper", () => {
  test("claimBotSeat takes a waiting bot seat of a level; none left is RESOURCE_EXHAUSTED", async () => {
    const { matchId } = await client.createMatch({ players: 3, seats: ["open", "hard", "open"], money: "public" });
    const { seat, level } = await client.claimBotSeat(server.agentKey, "ts-agent", ["hard"]);
    assert.equal(seat.matchId, matchId);
    assert.equal(seat.seat, 1);
    assert.equal(level, "hard");
    const state = await seat.view();
    assert.equal(state.yourSeat, 1);
    assert.equal(state.match?.seats[1]?.displayName, "ts-agent");
    assert.equal(mercadoView(state)?.players.length, 3);
    // No seat waiting: refused without retry-after, so not repeated.
    const none = await rejectsWith(() => client.claimBotSeat(server.agentKey, "ts-agent", ["hard"]), Code.ResourceExhausted);
    assert.equal(retryAfterMs(none), undefined);
  });

  test("claimBotSeat without the agent key, or with a wrong one, is PERMISSION_DENIED", async () => {
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

  test("createMatch, join and claimBotSeat are not retried when the server is unreachable", async () => {
    const port = await freePort();
    const { outcomes, interceptor } = recorder();
    // reconnectMs far beyond this test's timeout: a retry would show as a timeout.
    const unreachable = connectNode(`127.0.0.1:${port}`, { retry: { reconnectMs: 600_000 }, interceptors: [interceptor] });
    try {
      await rejectsWith(() => unreachable.createMatch(), Code.Unavailable);
      await rejectsWith(() => unreachable.join("0".repeat(32), "ana"), Code.Unavailable);
      await rejectsWith(() => unreachable.claimBotSeat(server.agentKey, "ts-agent"), Code.Unavailable);
      assert.deepEqual(outcomes, ["CreateMatch Unavailable", "JoinMatch Unavailable", "ClaimBotSeat Unavailable"]);
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
    await rejectsWith(async () => {
      for await (const update of a.follow({ signal: controller.signal }))
        assert.fail(`no update, got ${update.version}`);
    }, Code.Canceled);
  });

  test("watch gives the view, the start of the match once, then every update", async () => {
    const { matchId } = await client.createMatch({ seats: ["open", "open"] });
    const a = await client.join(matchId, "ana", 0);
    const seen: { version: bigint; status: MatchStatus | undefined; action: boolean; mine: boolean }[] = [];
    let b: Seat | undefined;
    // A short poll, so that the poll and the stream both report the seat taken: it must come once.
    for await (const update of a.watch({ waitingPollMs: 20 })) {
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

  test("codeOf maps a non-Connect error to Code.Unknown", () => {
    assert.equal(codeOf(new Error("boom")), Code.Unknown);
  });
});
