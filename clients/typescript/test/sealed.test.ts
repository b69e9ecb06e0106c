// Leilão's sealed bids, checked on the bytes each receiver gets: until the last bid of a step, no
// other seat and no spectator receives a seat's bid.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { isDeepStrictEqual } from "node:util";

import { create, type DescMessage, equals, type JsonObject, type JsonValue, toBinary } from "@bufbuild/protobuf";
import { StructSchema } from "@bufbuild/protobuf/wkt";
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";

import {
  type Action,
  ActionSchema,
  Game,
  isAction,
  LeilaoViewSchema,
  type MatchState,
  MatchStateSchema,
  type MatchUpdate,
  MatchUpdateSchema,
  type Seat,
  ViewSchema,
} from "../src/index.js";
import type { NodeMercadoClient } from "../src/node.js";
import { pick, playingMatch, seededRandom, TestServer } from "./harness.js";

let server: TestServer;

before(async () => {
  server = await TestServer.start();
});

after(async () => {
  const status = await server?.stop();
  assert.equal(status, 0, `the server exited with ${status}:\n${server.server.tail()}`);
});

/** One field of a message's bytes: its number, the bytes as sent (tag included), and its content if length-delimited. */
interface WireField {
  number: number;
  whole: Uint8Array;
  content: Uint8Array | undefined;
}

function wireFields(raw: Uint8Array): WireField[] {
  const reader = new BinaryReader(raw);
  const fields: WireField[] = [];
  while (reader.pos < reader.len) {
    const start = reader.pos;
    const [number, wireType] = reader.tag();
    const content = wireType === WireType.LengthDelimited ? reader.bytes() : (reader.skip(wireType, number), undefined);
    fields.push({ number, whole: raw.subarray(start, reader.pos), content });
  }
  return fields;
}

function fieldNumber(schema: DescMessage, name: string): number {
  const field = schema.fields.find((f) => f.name === name);
  if (!field) throw new Error(`${schema.typeName} has no field ${name}`);
  return field.number;
}

function concat(parts: Uint8Array[]): Uint8Array {
  return Buffer.concat(parts);
}

/** The contents of every field numbered `number` in `raw`, concatenated: the fields of a repeated or nested one. */
function within(raw: Uint8Array, number: number): Uint8Array {
  return concat(wireFields(raw).flatMap((field) => (field.number === number && field.content ? [field.content] : [])));
}

/**
 * Where received bytes could show a sealed bid: an update's action and events, and its view's
 * Struct without the receiver's own legal actions (they list every bid it may make itself).
 */
interface Exposure {
  action: Uint8Array;
  events: Uint8Array;
  view: Uint8Array;
}

function exposureOfState(raw: Uint8Array): Uint8Array {
  const view = within(raw, fieldNumber(MatchStateSchema, "view"));
  const leilao = within(view, fieldNumber(ViewSchema, "leilao"));
  const struct = within(leilao, fieldNumber(LeilaoViewSchema, "view"));
  const decoder = new TextDecoder();
  // The Struct's map entries: key 1, value 2.
  return concat(
    wireFields(struct)
      .filter((entry) => decoder.decode(within(entry.content!, 1)) !== "legal_actions")
      .map((entry) => entry.whole),
  );
}

function exposureOfUpdate(raw: Uint8Array): Exposure {
  const fields = wireFields(raw);
  const numbered = (name: string) =>
    concat(fields.filter((f) => f.number === fieldNumber(MatchUpdateSchema, name)).map((f) => f.whole));
  return {
    action: numbered("action"),
    events: numbered("events"),
    view: exposureOfState(within(raw, fieldNumber(MatchUpdateSchema, "state"))),
  };
}

/** A bid's bytes as they would be received: as an update's action, and its card and extra in a Struct. */
class Secret {
  readonly parts: Record<"action" | "card" | "extra", Uint8Array>;

  constructor(bid: Action) {
    const { card, extra } = bidOf(bid);
    const entry = (key: string, value: number) =>
      toBinary(StructSchema, create(StructSchema, { fields: { [key]: { kind: { case: "numberValue", value } } } }));
    const action = new BinaryWriter()
      .tag(fieldNumber(MatchUpdateSchema, "action"), WireType.LengthDelimited)
      .bytes(toBinary(ActionSchema, bid))
      .finish();
    this.parts = { action, card: entry("card", card), extra: entry("extra", extra!) };
  }

  /** What of the bid the bytes show. */
  shows(raw: Uint8Array): string[] {
    const bytes = Buffer.from(raw);
    return Object.entries(this.parts)
      .filter(([, part]) => bytes.includes(Buffer.from(part)))
      .map(([name]) => name)
      .sort();
  }
}

function bidOf(action: Action): { card: number; extra: number | undefined } {
  const game = action.game;
  if (game.case !== "leilao" || game.value.action.case !== "bid") throw new Error("not a bid");
  return { card: game.value.action.value.card, extra: game.value.action.value.extra };
}

function leilaoView(state: MatchState | undefined): JsonObject {
  const game = state?.view?.game;
  assert.equal(game?.case, "leilao");
  return game.value.view ?? {};
}

function leilaoEvents(update: MatchUpdate): JsonObject[] {
  return update.events.map((event) => (event.game.case === "leilao" ? (event.game.value.event ?? {}) : {}));
}

/** One party's stream of the match and its GetView, each message with its bytes. */
class Receiver {
  private readonly client: NodeMercadoClient = server.connect();
  private readonly stream: AsyncIterator<MatchUpdate>;

  constructor(
    readonly name: string,
    readonly matchId: string,
    readonly token: string | undefined,
    signal: AbortSignal,
  ) {
    const request = { matchId, afterVersion: 0n };
    this.stream = this.client.service.streamEvents(request, this.client.callOptions(token, signal))[Symbol.asyncIterator]();
  }

  /** The next update of an action (updates of seats or clocks are skipped) and its bytes. */
  async nextAction(): Promise<{ update: MatchUpdate; raw: Uint8Array }> {
    for (;;) {
      const next = await this.stream.next();
      assert.ok(!next.done, `${this.name}'s stream ended`);
      // protobuf-es keeps unknown fields, so the message serializes to all that was received.
      if (isAction(next.value)) return { update: next.value, raw: toBinary(MatchUpdateSchema, next.value) };
    }
  }

  async view(): Promise<{ state: MatchState; raw: Uint8Array }> {
    const state = await this.client.view(this.matchId, this.token);
    return { state, raw: toBinary(MatchStateSchema, state) };
  }
}

function bidWithExtra(state: MatchState, random: () => number): Action {
  return pick(
    state.legalActions.filter((action) => bidOf(action).extra !== undefined),
    random,
  );
}

/** The keys whose values differ between two JSON objects, sorted. */
function changedKeys(before: JsonObject, after: JsonObject): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((key) => !isDeepStrictEqual(before[key], after[key])).sort();
}

function bidJson(seat: number, action: Action): JsonValue {
  const { card, extra } = bidOf(action);
  return { seat, card, extra: extra ?? null };
}

test("a sealed bid reaches neither the other seat nor a spectator before the reveal", { timeout: 60_000 }, async () => {
  const seed = Date.now() % 1_000_000;
  const random = seededRandom(seed);
  const stop = new AbortController();
  try {
    const client = server.connect();
    const { matchId } = await client.createMatch({ game: Game.LEILAO, players: 2, seats: ["open", "open"], clock: "none" });
    const seats: Seat[] = [await client.join(matchId, "ana", 0), await server.connect().join(matchId, "bea", 1)];
    const receivers = [
      new Receiver("seat 0", matchId, seats[0]!.token, stop.signal),
      new Receiver("seat 1", matchId, seats[1]!.token, stop.signal),
      new Receiver("a spectator", matchId, undefined, stop.signal),
    ];
    const [bidder, ...others] = receivers as [Receiver, ...Receiver[]];

    const start = (await bidder.view()).state;
    assert.deepEqual(start.seatsToMove, [0, 1], "both seats bid at once");
    assert.equal(start.toMove, undefined);
    const viewsBefore = new Map<Receiver, JsonObject>();
    for (const receiver of others) viewsBefore.set(receiver, leilaoView((await receiver.view()).state));
    const bid = bidWithExtra(start, random);
    await seats[0]!.act(bid, start.version);
    const secret = new Secret(bid);

    // Seat 0 receives its own bid: the search below finds what is there.
    const own = await bidder.nextAction();
    assert.equal(own.update.seat, 0);
    assert.ok(own.update.action && equals(ActionSchema, own.update.action, bid), "seat 0's update holds its bid");
    const exposed = exposureOfUpdate(own.raw);
    assert.deepEqual(secret.shows(exposed.action), ["action"], "seat 0's update bytes hold its bid");
    assert.deepEqual(secret.shows(exposed.events), ["card", "extra"], "seat 0's events hold its bid");
    assert.deepEqual(secret.shows(exposed.view), ["card", "extra"], "seat 0's view holds its sealed choice");
    const ownView = await bidder.view();
    assert.deepEqual(secret.shows(exposureOfState(ownView.raw)), ["card", "extra"], "seat 0's GetView holds its sealed choice");
    assert.equal(ownView.state.legalActions.length, 0, "seat 0 has bid");
    assert.deepEqual(ownView.state.seatsToMove, [1]);

    // The others receive that seat 0 bid, and nothing of the bid.
    for (const receiver of others) {
      const { update, raw } = await receiver.nextAction();
      assert.equal(update.version, 1n);
      assert.equal(update.seat, 0);
      assert.equal(update.action, undefined, `${receiver.name} receives no action`);
      assert.deepEqual(leilaoEvents(update), [{ type: "sealed", seat: 0, step: "bid" }]);
      const seen = exposureOfUpdate(raw);
      for (const [where, bytes] of Object.entries(seen)) {
        assert.deepEqual(secret.shows(bytes), [], `${receiver.name}'s update shows seat 0's bid in its ${where}`);
      }
      const { state, raw: viewRaw } = await receiver.view();
      assert.deepEqual(secret.shows(exposureOfState(viewRaw)), [], `${receiver.name}'s GetView shows seat 0's bid`);
      const view = leilaoView(state);
      assert.equal(view["sealed"], null, `${receiver.name} sees no sealed choice`);
      assert.equal((view["hands"] as JsonValue[][])[0]?.length, 20, `${receiver.name} sees seat 0's hand whole`);
      // Whatever the shape a leak would take: the view changed only in who has acted.
      assert.deepEqual(changedKeys(viewsBefore.get(receiver)!, view), ["acted", "to_move"], `${receiver.name}'s view changed`);
    }

    // Seat 1 bids, the last of the step: every stream gets both bids in that update.
    const { state } = await receivers[1]!.view();
    const last = bidWithExtra(state, random);
    await seats[1]!.act(last, state.version);
    const bids = [bidJson(0, bid), bidJson(1, last)];
    for (const receiver of receivers) {
      const { update, raw } = await receiver.nextAction();
      assert.equal(update.version, 2n);
      assert.equal(update.seat, 1);
      const reveals = leilaoEvents(update).filter((event) => event["type"] === "reveal");
      assert.equal(reveals.length, 1, `${receiver.name}: one reveal (random seed ${seed})`);
      assert.deepEqual(reveals[0]!["bids"], bids, `${receiver.name}: both bids revealed together`);
      assert.deepEqual(secret.shows(exposureOfUpdate(raw).events), ["card", "extra"], `${receiver.name}'s reveal bytes`);
    }
  } finally {
    stop.abort();
  }
});
