// Players, ratings and matchmaking against a real server of players only (no `--allow-anonymous`):
// guest players and their tokens, seats bound to players, "my games", the leaderboard after a
// rated match, and FindMatch (two players matched together, one queue per player, leaving the
// queue, bots after `--matchmaking-ai-wait`).

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { Code, ConnectError } from "@connectrpc/connect";

import {
  displayRating,
  type FindMatchUpdate,
  Game,
  isFinished,
  type MatchFound,
  matchFound,
  MatchStatus,
  PlayerKind,
  Seat,
  seatsOf,
} from "../src/index.js";
import type { NodeMercadoClient } from "../src/node.js";
import { AiProcess, mover, pick, rejectsWith, seededRandom, TestServer } from "./harness.js";

let server: TestServer;
let client: NodeMercadoClient;
const random = seededRandom(20_250_301);

before(async () => {
  server = await TestServer.start({ anonymous: false });
  client = server.connect();
});

after(async () => {
  const status = await server?.stop();
  assert.equal(status, 0, `the server exited with ${status}:\n${server.server.tail()}`);
});

interface Guest {
  id: string;
  name: string;
  token: string;
}

async function guest(name: string, on: NodeMercadoClient = client): Promise<Guest> {
  const { player, playerToken } = await on.createPlayer(name);
  assert.ok(player);
  return { id: player.playerId, name: player.displayName, token: playerToken };
}

/** Queue `who` and collect what the stream sends, up to and including its MatchFound. */
async function queue(
  who: Guest,
  options: { players?: number; allowAi?: boolean },
  on: NodeMercadoClient = client,
): Promise<{ updates: FindMatchUpdate[]; found: MatchFound }> {
  const updates: FindMatchUpdate[] = [];
  for await (const update of on.findMatch(options, who.token)) updates.push(update);
  const found = matchFound(updates.at(-1));
  assert.ok(found, `the stream ended without a match: ${updates.map((u) => u.kind.case).join(", ")}`);
  assert.ok(
    updates.slice(0, -1).every((update) => update.kind.case === "queued"),
    "only queued updates before the match",
  );
  return { updates, found };
}

/** Play random legal moves with `seats` (one per seat of the match) until it is finished. */
async function playToTheEnd(seats: readonly Seat[]): Promise<void> {
  for (let moves = 0; ; moves++) {
    assert.ok(moves < 1_000, "the match does not end");
    const spectator = await seats[0]!.client.view(seats[0]!.matchId);
    if (isFinished(spectator)) return;
    const { seat, state } = await mover(seats);
    await seat.act(pick(state.legalActions, random), state.version);
  }
}

describe("players", () => {
  test("createPlayer makes a guest with a fresh rating and a token; getPlayer reads it", async () => {
    const { player, playerToken } = await client.createPlayer("Ada");
    assert.ok(player);
    assert.match(player.playerId, /^[0-9a-f]{32}$/);
    assert.equal(player.displayName, "Ada");
    assert.equal(player.kind, PlayerKind.GUEST);
    assert.equal(player.ratedMatches, 0);
    assert.equal(player.wins, 0);
    assert.equal(player.rating?.mu, 25);
    assert.ok(Math.abs((player.rating?.sigma ?? 0) - 25 / 3) < 1e-9);
    assert.equal(displayRating(player), 0);
    assert.ok(Math.abs(Number(player.createdUnixMs) - Date.now()) < 60_000, "created just now");
    assert.equal(playerToken.split(".").length, 3, "a player token looks like a JWT");

    const me = await client.getPlayer(playerToken);
    assert.equal(me.playerId, player.playerId);
    assert.equal(me.displayName, "Ada");
    const byId = await client.getPlayer(undefined, { playerId: player.playerId });
    assert.equal(byId.displayName, "Ada");
    // "Me" needs a player credential; a made-up one is refused.
    await rejectsWith(() => client.getPlayer(), Code.Unauthenticated);
    await rejectsWith(() => client.getPlayer("a.b.c"), Code.Unauthenticated);
  });

  test("a server of players only refuses anonymous seats; a player's seats are bound to it", async () => {
    await rejectsWith(() => client.createMatch({ seats: ["open", "open"] }), Code.Unauthenticated);
    const ana = await guest("Ana");
    const bea = await guest("Bea");
    const { matchId } = await client.createMatch({ seats: ["open", "open"] }, ana.token);
    await rejectsWith(() => client.join(matchId, "someone"), Code.Unauthenticated);

    // An empty display name: the player's own. The seat token and the player token both act for it.
    const first = await client.join(matchId, "", 0, ana.token);
    const second = await client.join(matchId, "", undefined, bea.token);
    assert.equal(first.seat, 0);
    assert.equal(second.seat, 1);
    const state = await first.view();
    assert.equal(state.match?.status, MatchStatus.PLAYING);
    assert.deepEqual(
      state.match?.seats.map((seat) => [seat.displayName, seat.playerId]),
      [
        ["Ana", ana.id],
        ["Bea", bea.id],
      ],
    );
    assert.deepEqual(seatsOf(state.match, bea.id), [1]);
    assert.deepEqual(seatsOf(state.match, ""), []);

    // The player token finds and plays the player's seat.
    const anaSeat = await client.seatOf(matchId, ana.token);
    const beaSeat = await client.seatOf(matchId, bea.token);
    assert.equal(anaSeat?.seat, 0);
    assert.equal(beaSeat?.seat, 1);
    assert.equal(beaSeat?.token, bea.token);
    const { seat, state: turn } = await mover([anaSeat!, beaSeat!]);
    const moved = await seat.act(turn.legalActions[0]!, turn.version);
    assert.equal(moved.version, 1n);
    // Another player is a spectator there: it holds no seat.
    const cid = await guest("Cid");
    assert.equal(await client.seatOf(matchId, cid.token), undefined);
    assert.equal((await client.view(matchId, cid.token)).legalActions.length, 0);

    // "My games": the matches where the player holds a seat, and no other.
    const mine = await client.listMatches({ playerId: bea.id, pageSize: 100 });
    assert.deepEqual(
      mine.matches.map((match) => match.matchId),
      [matchId],
    );
    const playing = await client.listMatches({ playerId: ana.id, status: "playing" });
    assert.deepEqual(
      playing.matches.map((match) => match.matchId),
      [matchId],
    );
    assert.deepEqual((await client.listMatches({ playerId: cid.id })).matches, []);
  });

  test("unrated and hot-seat matches are never rated; a hot-seat player holds several seats", async () => {
    const ana = await guest("Hot Ana");
    const bea = await guest("Friendly Bea");
    const friendly = await client.createMatch({ seats: ["open", "open"], unrated: true }, ana.token);
    await client.join(friendly.matchId, "", 0, ana.token);
    const other = await client.join(friendly.matchId, "", 1, bea.token);
    const friendlyMatch = (await other.view()).match;
    assert.equal(friendlyMatch?.status, MatchStatus.PLAYING);
    assert.equal(friendlyMatch?.rated, false);

    // Without hot seat, a player takes one seat of a match.
    const single = await client.createMatch({ seats: ["open", "open"] }, ana.token);
    await client.join(single.matchId, "", 0, ana.token);
    await rejectsWith(() => client.join(single.matchId, "", 1, ana.token), Code.AlreadyExists);

    const hot = await client.createMatch({ seats: ["open", "open"], hotSeat: true }, ana.token);
    assert.equal(hot.match?.hotSeat, true);
    const seats = [await client.join(hot.matchId, "", 0, ana.token), await client.join(hot.matchId, "", 1, ana.token)];
    const state = await seats[0]!.view();
    assert.equal(state.match?.status, MatchStatus.PLAYING);
    assert.equal(state.match?.rated, false);
    assert.deepEqual(seatsOf(state.match, ana.id), [0, 1]);
    // Each seat token plays its own seat.
    const { seat, state: turn } = await mover(seats);
    assert.equal((await seat.act(turn.legalActions[0]!, turn.version)).version, 1n);
  });

  test("a rated match between two players moves their ratings and puts them on the leaderboard", { timeout: 120_000 }, async () => {
    const ana = await guest("Rated Ana");
    const bea = await guest("Rated Bea");
    const { matchId } = await client.createMatch({ seats: ["open", "open"], clock: "none" }, ana.token);
    const seats = [await client.join(matchId, "", 0, ana.token), await client.join(matchId, "", 1, bea.token)];
    assert.equal((await seats[0]!.view()).match?.rated, true, "it can still be rated");
    await playToTheEnd(seats);
    const final = await client.view(matchId);
    assert.equal(final.match?.rated, true, "it was rated");
    const ranks = final.match?.ranks ?? [];

    // The server rates a finished match in the background: wait for it.
    let after = [await client.getPlayer(ana.token), await client.getPlayer(bea.token)];
    for (let tries = 0; after.some((player) => player.ratedMatches === 0) && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = [await client.getPlayer(ana.token), await client.getPlayer(bea.token)];
    }
    for (const [i, player] of after.entries()) {
      assert.equal(player.ratedMatches, 1);
      assert.equal(player.wins, ranks[i] === 1 ? 1 : 0);
      assert.ok((player.rating?.sigma ?? 99) < 25 / 3, "less uncertain after a match");
    }
    if (ranks[0] !== ranks[1]) {
      const [winner, loser] = ranks[0] === 1 ? after : [...after].reverse();
      assert.ok(winner!.rating!.mu > loser!.rating!.mu, "the winner's mean is the higher");
    }

    // The leaderboard: ranked by display rating, a page at a time, both players on it.
    const board = await client.leaderboard({ pageSize: 100 });
    const ids = board.entries.map((entry) => entry.player?.playerId);
    assert.ok(ids.includes(ana.id) && ids.includes(bea.id), `both on the leaderboard: ${ids.join(", ")}`);
    assert.deepEqual(
      board.entries.map((entry) => entry.rank),
      board.entries.map((_, i) => i + 1),
    );
    const ratings = board.entries.map((entry) => entry.player?.rating?.display ?? 0);
    assert.deepEqual(ratings, [...ratings].sort((a, b) => b - a), "best first");
    const first = await client.leaderboard({ pageSize: 1 });
    assert.equal(first.entries.length, 1);
    assert.equal(first.entries[0]?.player?.playerId, board.entries[0]?.player?.playerId);
    assert.ok(first.nextPageToken, "a next page");
    const second = await client.leaderboard({ pageSize: 1, pageToken: first.nextPageToken });
    assert.equal(second.entries[0]?.rank, 2);
    assert.equal(second.entries[0]?.player?.playerId, board.entries[1]?.player?.playerId);
  });

  test("ratings are per game: getPlayer, leaderboard and listMatches take the game", { timeout: 120_000 }, async () => {
    const ana = await guest("Leilão Ana");
    const bea = await guest("Leilão Bea");
    const { matchId } = await client.createMatch({ game: Game.LEILAO, seats: ["open", "open"], clock: "none" }, ana.token);
    const seats = [await client.join(matchId, "", 0, ana.token), await client.join(matchId, "", 1, bea.token)];
    await playToTheEnd(seats);

    const rated = async (token: string) => (await client.getPlayer(token, { game: Game.LEILAO })).ratedMatches;
    for (let tries = 0; (await rated(ana.token)) === 0 && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const leilao = await client.getPlayer(undefined, { playerId: ana.id, game: Game.LEILAO });
    assert.equal(leilao.game, "leilao");
    assert.equal(leilao.ratedMatches, 1);
    const mercado = await client.getPlayer(ana.token);
    assert.deepEqual([mercado.game, mercado.ratedMatches], ["mercado", 0], "Mercado's rating has not moved");
    const board = await client.leaderboard({ game: Game.LEILAO, pageSize: 100 });
    const ids = board.entries.map((entry) => entry.player?.playerId);
    assert.ok(ids.includes(ana.id) && ids.includes(bea.id), `both on Leilão's leaderboard: ${ids.join(", ")}`);
    assert.ok(board.entries.every((entry) => entry.player?.game === "leilao"));
    const others = await client.leaderboard({ game: Game.OREGANO, pageSize: 100 });
    assert.ok(!others.entries.some((entry) => entry.player?.playerId === ana.id), "not on Oregano's");

    const listed = async (game: Game) =>
      (await client.listMatches({ game, playerId: ana.id })).matches.map((match) => match.matchId);
    assert.deepEqual(await listed(Game.LEILAO), [matchId]);
    assert.deepEqual(await listed(Game.OREGANO), []);
    assert.deepEqual(await listed(Game.UNSPECIFIED), [matchId], "every game's");
  });

  test("rotatePlayerToken gives a guest a new token and refuses every earlier one", async () => {
    const ana = await guest("Rotating Ana");
    const rotated = await client.rotatePlayerToken(ana.token);
    assert.equal(rotated.player?.playerId, ana.id);
    assert.notEqual(rotated.playerToken, ana.token);
    assert.equal((await client.getPlayer(rotated.playerToken)).playerId, ana.id);
    await rejectsWith(() => client.getPlayer(ana.token), Code.Unauthenticated);
    await rejectsWith(() => client.rotatePlayerToken(ana.token), Code.Unauthenticated);
  });
});

describe("matchmaking", () => {
  test("two players who queue for 2 players get the same match, each its own seat", { timeout: 60_000 }, async () => {
    const ana = await guest("Queue Ana");
    const bea = await guest("Queue Bea");
    const other = server.connect();
    const first = queue(ana, { players: 2 });
    // The first is queued (it hears so) before the second comes.
    const [a, b] = await Promise.all([first, (async () => {
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      return queue(bea, { players: 2 }, other);
    })()]);
    const queued = a.updates.find((update) => update.kind.case === "queued");
    assert.ok(queued?.kind.case === "queued", "a queued update while alone");
    assert.ok(queued.kind.value.queuedPlayers >= 1);
    assert.ok(queued.kind.value.ratingWindow > 0);

    assert.equal(a.found.matchId, b.found.matchId);
    assert.match(a.found.matchId, /^[0-9a-f]{32}$/);
    assert.notEqual(a.found.seat, b.found.seat);
    assert.ok(a.found.seatToken && b.found.seatToken && a.found.seatToken !== b.found.seatToken);
    // Each summary is the match as it was when that player was seated (the first one seated may
    // still see it waiting for the other); a view shows it playing with both players.
    assert.equal(a.found.match?.seats[a.found.seat]?.playerId, ana.id);
    assert.equal(b.found.match?.seats[b.found.seat]?.playerId, bea.id);
    const match = (await client.view(a.found.matchId)).match;
    assert.equal(match?.status, MatchStatus.PLAYING, "created and started");
    assert.equal(match?.players, 2);
    assert.equal(match?.seats[a.found.seat]?.playerId, ana.id);
    assert.equal(match?.seats[b.found.seat]?.playerId, bea.id);
    assert.equal(match?.rated, true);

    // Either token acts for the seat: the seat token, or the player token.
    const seats = [
      new Seat(client, a.found.matchId, a.found.seat, a.found.seatToken),
      new Seat(client, b.found.matchId, b.found.seat, bea.token),
    ];
    const { seat, state } = await mover(seats);
    assert.equal(state.yourSeat, seat.seat);
    assert.equal((await seat.act(state.legalActions[0]!, state.version)).version, 1n);
    const listed = await client.listMatches({ playerId: ana.id });
    assert.deepEqual(
      listed.matches.map((m) => m.matchId),
      [a.found.matchId],
    );
  });

  test("a player queues once at a time; closing the stream leaves the queue", { timeout: 60_000 }, async () => {
    const cid = await guest("Queue Cid");
    const stop = new AbortController();
    const open = client.findMatch({ players: 3 }, cid.token, { signal: stop.signal });
    const first = await open.next();
    assert.equal(first.done ? undefined : first.value.kind.case, "queued");
    // A second queue of the same player while the first is open.
    const again = client.findMatch({ players: 3 }, cid.token);
    await rejectsWith(() => again.next(), Code.AlreadyExists);
    // Abort: the iteration ends with Code.Canceled, and the player is out of the queue.
    stop.abort();
    await rejectsWith(() => open.next(), Code.Canceled);
    let requeued: FindMatchUpdate | undefined;
    for (let attempt = 0; !requeued; attempt++) {
      const next = client.findMatch({ players: 3 }, cid.token);
      try {
        const step = await next.next();
        requeued = step.done ? undefined : step.value;
      } catch (error) {
        // The server may take a moment to see the stream closed.
        if (!(error instanceof ConnectError && error.code === Code.AlreadyExists) || attempt >= 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 250));
      } finally {
        await next.return();
      }
    }
    assert.equal(requeued.kind.case, "queued");
    // Matchmaking needs a player credential.
    await rejectsWith(() => client.findMatch({}, "").next(), Code.Unauthenticated);
  });

  test("with allowAi, bots take the seats nobody queued for after the server's wait", { timeout: 120_000 }, async () => {
    const own = await TestServer.start({ anonymous: false, args: ["--matchmaking-ai-wait", "1"] });
    let ai: AiProcess | undefined;
    try {
      ai = await AiProcess.start(own.server, ["easy", "medium", "hard"]);
      const fresh = own.connect();
      const dee = await guest("Dee", fresh);
      const started = Date.now();
      const { found } = await queue(dee, { players: 3, allowAi: true }, fresh);
      assert.ok(Date.now() - started >= 900, "the bots come after the wait");
      const match = found.match;
      assert.equal(match?.players, 3);
      assert.equal(match?.seats[found.seat]?.playerId, dee.id);
      const bots = match?.seats.filter((seat) => seat.bot) ?? [];
      assert.equal(bots.length, 2, "the two other seats are bot seats");
      // The agent takes them, and the match is played: the bots' player ids are their levels'.
      const seat = new Seat(fresh, found.matchId, found.seat, dee.token);
      for await (const { state } of seat.watch()) {
        const seats = state?.match?.seats ?? [];
        if (state?.match?.status === MatchStatus.PLAYING && seats.every((info) => info.taken)) {
          for (const info of seats.filter((info) => info.bot)) assert.match(info.playerId, /^bot:(easy|medium|hard)$/);
          break;
        }
      }
    } finally {
      const aiStatus = ai ? await ai.stop() : 0;
      const status = await own.stop();
      assert.equal(aiStatus, 0, `the AI agent exited with ${aiStatus}:\n${ai?.tail()}`);
      assert.equal(status, 0, `the server exited with ${status}:\n${own.server.tail()}`);
    }
  });
});
