// The wrapper's recovery: follow() reconnects and resumes, and calls retry UNAVAILABLE,
// across a crash (SIGKILL) and a graceful restart (SIGTERM, which ends streams normally).

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { isFinished, type MatchUpdate } from "../src/index.js";
import type { NodeMercadoClient } from "../src/node.js";
import { playingMatch, playRandomMoves, seededRandom, TestServer } from "./harness.js";

let server: TestServer;
let client: NodeMercadoClient;
const random = seededRandom(7);

before(async () => {
  server = await TestServer.start();
  client = server.connect();
});

after(async () => {
  const status = await server?.stop();
  assert.equal(status, 0, `the server exited with ${status}:\n${server.server.tail()}`);
});

/** Collects the versions of a follow() until `until`; `reached(v)` resolves once version v arrived. */
function collect(updates: AsyncIterable<MatchUpdate>, until: bigint) {
  const versions: bigint[] = [];
  const waiting = new Map<bigint, () => void>();
  const done = (async () => {
    for await (const update of updates) {
      if (!update.action) continue;
      versions.push(update.version);
      waiting.get(update.version)?.();
      if (update.version >= until) return;
    }
  })();
  const reached = (version: bigint) =>
    versions.includes(version) ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(version, resolve));
  return { versions, done, reached };
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => BigInt(from + i));

for (const how of ["crash", "graceful"] as const) {
  test(`follow and act survive a server ${how} restart`, { timeout: 60_000 }, async () => {
    const seats = await playingMatch(client);
    const follower = collect(client.follow(seats[0].matchId, seats[0].token), 8n);
    await playRandomMoves(seats, 4, random);
    await follower.reached(4n);

    if (how === "crash") await server.server.crash();
    else assert.equal(await server.server.stop(), 0);
    // Moves made while the server is down wait (retrying UNAVAILABLE with backoff) until it is back.
    const moves = playRandomMoves(seats, 4, random);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await server.server.start();
    assert.equal(await moves, 8n);

    await follower.done;
    assert.deepEqual(follower.versions, range(1, 8), "every version once, in order, across the restart");
  });
}

test("follow ends when the match finishes, also when it finished before", { timeout: 60_000 }, async () => {
  const seats = await playingMatch(client);
  const everything: bigint[] = [];
  const follower = (async () => {
    for await (const update of client.follow(seats[0].matchId)) if (update.action) everything.push(update.version);
  })();
  let state = await seats[0].view();
  while (!isFinished(state)) {
    await playRandomMoves(seats, 1, random);
    state = await seats[0].view();
  }
  await follower;
  assert.deepEqual(everything, range(1, Number(state.version)));
  // A finished match: the match as it stands, the backlog, then the end.
  const tail: [bigint, boolean][] = [];
  for await (const update of client.follow(seats[0].matchId, undefined, { afterVersion: state.version - 2n })) {
    tail.push([update.version, !!update.action]);
  }
  assert.deepEqual(tail, [
    [state.version, false],
    [state.version - 1n, true],
    [state.version, true],
  ]);
  const end: [bigint, boolean][] = [];
  for await (const update of client.follow(seats[0].matchId, undefined, { afterVersion: state.version })) {
    end.push([update.version, !!update.action]);
  }
  assert.deepEqual(end, [[state.version, false]], "no action after the last one: only the match as it stands");
});

test("a crash right after the stream's first message: the reconnect misses no action", { timeout: 60_000 }, async () => {
  const seats = await playingMatch(client);
  await playRandomMoves(seats, 5, random);
  const updates = client.follow(seats[0].matchId, seats[0].token);
  const first = await updates.next();
  assert.ok(!first.done && !first.value.action && first.value.version === 5n, "first: the match as it stands");
  await server.server.crash();
  const restarted = server.server.start();
  const versions: bigint[] = [];
  for (;;) {
    const next = await updates.next();
    if (next.done) break;
    if (next.value.action) versions.push(next.value.version);
    if (next.value.version === 5n && next.value.action) break;
  }
  await restarted;
  await updates.return(undefined);
  assert.deepEqual(versions, range(1, 5), "actions 1..5 after the reconnect");
});
