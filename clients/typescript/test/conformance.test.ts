// The shared conformance scenarios (clients/conformance/scenarios.json) against a real server.
// Every scenario named in the file must have an implementation here, or this test fails.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";

import { equals } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";

import {
  type Action,
  codeOf,
  EventSchema,
  isMyTurn,
  MatchStateSchema,
  MatchStatus,
  mercadoAction,
  mercadoView,
  type MatchUpdate,
  newRequestId,
  Restaurant,
  type Seat,
} from "../src/index.js";
import type { NodeMercadoClient } from "../src/node.js";
import { mover, playingMatch, playRandomMoves, seededRandom, TestServer } from "./harness.js";

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
    const { seat, level } = await client.claimBotSeat("ts-agent", ["hard"]);
    assert.equal(seat.matchId, matchId);
    assert.equal(seat.seat, 1);
    assert.equal(level, "hard");
    const state = await seat.view();
    assert.equal(state.yourSeat, 1);
    assert.equal(state.match?.seats[1]?.displayName, "ts-agent");
    assert.equal(mercadoView(state)?.players.length, 3);
    await rejectsWith(() => client.claimBotSeat("ts-agent", ["hard"]), Code.ResourceExhausted);
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
