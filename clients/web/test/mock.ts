// A stand-in for `mercado serve` inside Chromium, for the screens' fixture test: the built page
// from dist/, and the match service's gRPC-Web calls answered from a whole game of the Python
// engine as seat 0 sees it (fixtures/timeline.py). The page plays seat 0: each SubmitAction must
// be the timeline's next action of seat 0; the other seat's moves up to seat 0's next one then
// come on StreamEvents, a moment later, as the AI's would.

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { extname, join, resolve } from "node:path";
import { create, type DescMessage, equals, fromBinary, type JsonObject, type MessageShape, toBinary } from "@bufbuild/protobuf";
import type { Page, Route } from "playwright-core";
import {
  type Action,
  ActionSchema,
  Game,
  type MatchState,
  MatchStateSchema,
  MatchStatus,
  MatchUpdateSchema,
  SubmitActionRequestSchema,
  SubmitActionResponseSchema,
  GetViewRequestSchema,
  StreamEventsRequestSchema,
} from "../../typescript/src/gen/mercado/v1/match_pb.js";

const REPO = resolve(import.meta.dirname, "../../..");
const DIST = resolve(import.meta.dirname, "../dist");
export const MOCK_URL = "http://mercado.test/";
export const MATCH_ID = "0123456789abcdef0123456789abcdef";
const NAMES = ["Ana", "easy AI"];

/** One step of the engine's game: who acted, seat 0's own action (JSON), and what seat 0 sees after it. */
interface Step {
  seat: number | null;
  action: JsonObject | null;
  events: JsonObject[];
  view: JsonObject;
}

type JsonGameName = "oregano" | "leilao";

export function timeline(game: JsonGameName): Step[] {
  const script = join(REPO, "clients/web/test/fixtures/timeline.py");
  return JSON.parse(execFileSync(join(REPO, ".venv/bin/python"), [script, game], { cwd: REPO, encoding: "utf8" })) as Step[];
}

/** An action of the rules' JSON ({"type": "level_up", "from": …}) as the API's typed Action. */
function actionOf(game: JsonGameName, json: JsonObject): Action {
  const { type, ...fields } = json;
  const name = String(type).replace(/_(.)/g, (_, letter: string) => letter.toUpperCase());
  const value = Object.fromEntries(Object.entries(fields).filter(([, field]) => field !== null));
  return create(ActionSchema, { game: { case: game, value: { action: { case: name, value } } } } as never);
}

/** Seat 0's state at a step, as the service would build it from the view. */
function stateOf(game: JsonGameName, step: Step, version: number): MatchState {
  const view = step.view;
  const result = view.result as { ranks: number[] } | null;
  const movers = (view.to_move as number[]) ?? [];
  const legal = ((view.legal_actions as JsonObject[] | undefined) ?? []).map((action) => actionOf(game, action));
  const { legal_actions: _, ...shown } = view;
  return create(MatchStateSchema, {
    match: {
      matchId: MATCH_ID,
      game: game === "oregano" ? Game.OREGANO : Game.LEILAO,
      status: result ? MatchStatus.FINISHED : MatchStatus.PLAYING,
      players: 2,
      version: BigInt(version),
      seats: NAMES.map((displayName, seat) => ({ seat, taken: true, displayName, bot: seat > 0 })),
      ranks: result?.ranks ?? [],
      options: { case: game, value: {} },
    },
    version: BigInt(version),
    yourSeat: 0,
    ...(movers.length === 1 ? { toMove: movers[0] } : {}),
    seatsToMove: movers,
    view: { game: { case: game, value: { view: shown } } },
    legalActions: legal,
  } as never);
}

/** gRPC-Web frames: the message, then the trailers saying OK. */
function frames(messages: Uint8Array[], status = 0, text = ""): Buffer {
  const trailer = Buffer.from(`grpc-status: ${status}\r\ngrpc-message: ${encodeURIComponent(text)}\r\n`);
  const parts = [...messages.map((message) => [0, message] as const), [0x80, trailer] as const];
  return Buffer.concat(
    parts.map(([flag, body]) => {
      const head = Buffer.alloc(5);
      head.writeUInt8(flag, 0);
      head.writeUInt32BE(body.length, 1);
      return Buffer.concat([head, Buffer.from(body)]);
    }),
  );
}

function request<Desc extends DescMessage>(schema: Desc, route: Route): MessageShape<Desc> {
  const body = route.request().postDataBuffer() ?? Buffer.alloc(5);
  return fromBinary(schema, body.subarray(5, 5 + body.readUInt32BE(1)));
}

const TYPES: Record<string, string> = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml" };

/**
 * Serve the page and the match on `page`, with a saved seat 0 for MATCH_ID in its storage.
 * Returns the actions seat 0 sent, what the mock refused (an action not the timeline's), and
 * the version the match reaches before seat 0's next action (once the other seat's moves are in).
 */
export async function mockMatch(
  page: Page,
  game: JsonGameName,
  steps: Step[],
): Promise<{ sent: Action[]; problems: string[]; settled: () => number }> {
  const sent: Action[] = [];
  const problems: string[] = [];
  /** The version the mock server is at: the steps up to it have happened. */
  let at = 0;
  /** The streams held until the match moves on. */
  const held = new Set<() => void>();
  const wake = (): void => {
    for (const done of held) done();
    held.clear();
  };
  const update = (version: number): Uint8Array => {
    const step = steps[version]!;
    const own = step.seat === 0 && step.action;
    return toBinary(
      MatchUpdateSchema,
      create(MatchUpdateSchema, {
        version: BigInt(version),
        ...(step.seat === null ? {} : { seat: step.seat }),
        ...(own ? { action: actionOf(game, step.action!) } : {}),
        events: step.events.map((event) => ({ game: { case: game, value: { event } } })),
        state: stateOf(game, step, version),
      } as never),
    );
  };
  /** The other seat's moves up to seat 0's next turn, one at a time as the AI would make them. */
  const others = (): void => {
    const next = steps[at + 1];
    if (!next || next.seat === 0) return;
    setTimeout(() => {
      at += 1;
      wake();
      others();
    }, 250);
  };
  await page.addInitScript(
    ({ matchId }) => {
      const seat = { matchId, seat: 0, token: "seat-token", savedMs: Date.now() };
      localStorage.setItem("mercado.seats", JSON.stringify([seat]));
    },
    { matchId: MATCH_ID },
  );
  await page.route(`${MOCK_URL}**`, async (route) => {
    const url = new URL(route.request().url());
    const method = url.pathname.startsWith("/mercado.v1.MatchService/") ? url.pathname.split("/")[2] : undefined;
    if (!method) {
      const file = url.pathname === "/" ? "index.html" : url.pathname.slice(1);
      await route.fulfill({ body: readFileSync(join(DIST, file)), contentType: TYPES[extname(file)] ?? "application/octet-stream" });
      return;
    }
    const reply = (body: Buffer): Promise<void> =>
      route.fulfill({ status: 200, headers: { "content-type": "application/grpc-web+proto" }, body });
    if (method === "GetView") {
      request(GetViewRequestSchema, route);
      await reply(frames([toBinary(MatchStateSchema, stateOf(game, steps[at]!, at))]));
    } else if (method === "StreamEvents") {
      // The match as it stands, then every step after the client's version; held until there is one.
      const after = Number(request(StreamEventsRequestSchema, route).afterVersion);
      while (at <= after && at < steps.length - 1) await new Promise<void>((done) => held.add(done));
      const first = create(MatchUpdateSchema, { version: BigInt(at), state: stateOf(game, steps[at]!, at) });
      const later = Array.from({ length: Math.max(0, at - after) }, (_, i) => update(after + 1 + i));
      await reply(frames([toBinary(MatchUpdateSchema, first), ...later]));
    } else if (method === "SubmitAction") {
      const submitted = request(SubmitActionRequestSchema, route);
      const next = steps[at + 1];
      const expected = next?.seat === 0 && next.action ? actionOf(game, next.action) : undefined;
      if (!submitted.action || !expected || !equals(ActionSchema, submitted.action, expected) || Number(submitted.expectedVersion) !== at) {
        problems.push(`version ${at}: ${JSON.stringify(submitted.action?.game)} is not the timeline's next action`);
        await reply(frames([], 9, "not the timeline's action"));
        return;
      }
      sent.push(submitted.action);
      at += 1;
      wake();
      const response = create(SubmitActionResponseSchema, { version: BigInt(at), state: stateOf(game, steps[at]!, at) });
      await reply(frames([toBinary(SubmitActionResponseSchema, response)]));
      others();
    } else {
      await reply(frames([], 12, `${method} is not mocked`));
    }
  });
  others();
  const settled = (): number => {
    let version = at;
    while (steps[version + 1] && steps[version + 1]!.seat !== 0) version += 1;
    return version;
  };
  return { sent, problems, settled };
}
