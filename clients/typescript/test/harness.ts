// Real processes for the tests: `mercado serve` on a free loopback port (a fresh database
// in a temp dir) and the `mercado ai` agent. Like tests/e2e/server_process.py.

import assert from "node:assert/strict";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

import { Code, ConnectError } from "@connectrpc/connect";

import { type Action, Game, type MatchState, type MercadoClient, type Seat } from "../src/index.js";
import { type ConnectNodeOptions, connectNode, type NodeMercadoClient } from "../src/node.js";

export const REPO = resolve(fileURLToPath(new URL("../../..", import.meta.url)));
/** The project's CLI; MERCADO_BIN overrides it. */
export const MERCADO = process.env["MERCADO_BIN"] ?? join(REPO, ".venv", "bin", "mercado");
/** The project's Python (for tests/tls_cert.py); MERCADO_PYTHON overrides it. */
export const PYTHON = process.env["MERCADO_PYTHON"] ?? join(REPO, ".venv", "bin", "python");
const STARTUP_MS = 30_000;
const STOP_MS = 30_000;

/** A child process whose stderr log lines are kept (and drained, so a full pipe never blocks it). */
class Child {
  readonly log: string[] = [];
  readonly exited: Promise<number | null>;

  constructor(readonly process: ChildProcess) {
    this.exited = new Promise((done) =>
      this.process.once("exit", (code, signal) => done(code ?? (signal ? -1 : null))),
    );
  }

  get running(): boolean {
    return this.process.exitCode === null && this.process.signalCode === null;
  }

  /** SIGTERM and wait for the graceful exit; returns the exit status. */
  async stop(): Promise<number | null> {
    if (this.running) this.process.kill("SIGTERM");
    const timer = setTimeout(() => this.process.kill("SIGKILL"), STOP_MS);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** SIGKILL: no chance to clean up, as in a crash. */
  async kill(): Promise<void> {
    if (this.running) this.process.kill("SIGKILL");
    await this.exited;
  }

  tail(lines = 20): string {
    return this.log.slice(-lines).join("\n");
  }
}

/**
 * Run `mercado args` and wait until `ready` finds what it waits for in a stderr line;
 * fails if `what` exits first or does not get there in STARTUP_MS.
 */
async function spawnUntilReady<T>(
  what: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  ready: (line: string) => T | undefined,
): Promise<{ child: Child; found: T }> {
  const spawned = spawn(MERCADO, args, {
    cwd: REPO,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, PYTHONUNBUFFERED: "1", ...env },
  });
  const child = new Child(spawned);
  const found = await new Promise<T>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`${what} did not start in time:\n${child.tail()}`)), STARTUP_MS);
    createInterface({ input: spawned.stderr! }).on("line", (line) => {
      child.log.push(line);
      const value = ready(line);
      if (value !== undefined) {
        clearTimeout(timer);
        done(value);
      }
    });
    spawned.once("error", fail);
    void child.exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`${what} exited early (${code}):\n${child.tail()}`));
    });
  });
  return { child, found };
}

/** The port of the server's "listening" log record, if `line` is that record. */
function listeningPort(line: string): number | undefined {
  try {
    const record = JSON.parse(line) as { message?: string; port?: number };
    return record.message === "listening" && typeof record.port === "number" ? record.port : undefined;
  } catch {
    return undefined; // not a JSON log line (a traceback): kept in the log
  }
}

/** A fresh agent key (`mercado serve --agent-key`): 32 random bytes in hex. */
export function newAgentKey(): string {
  return randomBytes(32).toString("hex");
}

export interface ServerOptions {
  /** More `mercado serve` options, e.g. ["--rate-limit", "CreateMatch=1/1"]. */
  args?: readonly string[];
  /** The agent key of its bot seats; a fresh random one by default. */
  agentKey?: string;
  /**
   * Whether callers without a player may take seats (`--allow-anonymous`, which the tests of
   * anonymous play need); default true. False: a server of players only, as `mercado serve` is
   * by default.
   */
  anonymous?: boolean;
}

/** A running `mercado serve`; start() after stop() or crash() keeps its database, port, options and agent key. */
export class ServerProcess {
  private child: Child | undefined;
  port = 0;
  /** The key an AI agent claims bot seats with (given to the server as MERCADO_AGENT_KEY). */
  readonly agentKey: string;
  /** The extra options it runs with (`--allow-anonymous` among them unless `anonymous` was false). */
  readonly args: readonly string[];

  private constructor(
    readonly db: string,
    options: ServerOptions,
  ) {
    this.agentKey = options.agentKey ?? newAgentKey();
    this.args = [...(options.anonymous === false ? [] : ["--allow-anonymous"]), ...(options.args ?? [])];
  }

  static async start(db: string, options: ServerOptions = {}): Promise<ServerProcess> {
    const server = new ServerProcess(db, options);
    await server.launch();
    return server;
  }

  /** Whether it serves TLS (runs with --tls-cert). */
  get tls(): boolean {
    return this.args.includes("--tls-cert");
  }

  /** "127.0.0.1:PORT", or "https://127.0.0.1:PORT" with TLS. */
  get target(): string {
    return `${this.tls ? "https://" : ""}127.0.0.1:${this.port}`;
  }

  /** "127.0.0.1:PORT", as `mercado ai --server` takes it. */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** The last lines of the server's log. */
  tail(lines?: number): string {
    return this.child?.tail(lines) ?? "";
  }

  private async launch(): Promise<void> {
    // The web port is off: every test server would otherwise take (or fight for) 8080.
    const args = ["serve", "--port", String(this.port), "--web-port", "-1", "--db", this.db, ...this.args];
    const env = { MERCADO_AGENT_KEY: this.agentKey };
    const { child, found } = await spawnUntilReady("server", args, env, listeningPort);
    this.child = child;
    this.port = found;
  }

  /** SIGTERM and wait for the graceful shutdown; returns the exit status. */
  stop(): Promise<number | null> {
    return this.child?.stop() ?? Promise.resolve(null);
  }

  /** SIGKILL: no chance to clean up, as in a crash. */
  async crash(): Promise<void> {
    await this.child?.kill();
  }

  /** Start again after stop() or crash(), on the same port with the same database. */
  async start(): Promise<void> {
    if (this.child?.running) throw new Error("the server is running");
    await this.launch();
  }
}

/**
 * The AI agent, claiming bot seats of `levels` on a (plain-text) server with its agent key. It
 * keeps its seats in a state file of its own, next to the server's database.
 */
export class AiProcess {
  private constructor(private readonly child: Child) {}

  /**
   * Start the agent and wait until it runs: it logs "agent started" after its first heartbeat,
   * so from then on the server accepts matches with bot seats of its levels (and the agent
   * handles SIGTERM gracefully).
   */
  static async start(server: ServerProcess, levels: readonly string[] = ["easy"]): Promise<AiProcess> {
    const stateFile = join(dirname(server.db), `ai-state-${randomBytes(6).toString("hex")}.json`);
    const args = [
      "ai",
      "--server",
      server.address,
      "--state-file",
      stateFile,
      "--max-matches",
      "8",
      "--workers",
      "1",
      ...levels.flatMap((level) => ["--level", level]),
    ];
    const env = { MERCADO_AGENT_KEY: server.agentKey };
    const { child } = await spawnUntilReady("the AI agent", args, env, (line) =>
      line.includes('"agent started"') ? true : undefined,
    );
    return new AiProcess(child);
  }

  /** The last lines of the agent's log. */
  tail(lines?: number): string {
    return this.child.tail(lines);
  }

  stop(): Promise<number | null> {
    return this.child.stop();
  }
}

/** A temp dir for one test file's databases; remove() deletes it. */
export function tempDir(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), "mercado-ts-"));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** A test CA and a certificate for 127.0.0.1 signed by it, made in `dir` by tests/tls_cert.py. */
export function makeCertificates(dir: string): { ca: string; cert: string; key: string } {
  execFileSync(PYTHON, [join(REPO, "tests", "tls_cert.py"), dir], { cwd: REPO, stdio: ["ignore", "ignore", "pipe"] });
  return { ca: join(dir, "ca.pem"), cert: join(dir, "cert.pem"), key: join(dir, "key.pem") };
}

/** A server in a fresh temp dir, and clients of it that are closed with it. */
export class TestServer {
  private readonly clients: NodeMercadoClient[] = [];

  private constructor(
    readonly server: ServerProcess,
    private readonly dir: { path: string; remove(): void },
  ) {}

  /**
   * A server with a fresh database and agent key; `options.args` are more `mercado serve`
   * options, e.g. `TestServer.start({ args: ["--rate-limit", "CreateMatch=1/1"] })`. It allows
   * anonymous seats (`--allow-anonymous`) unless `options.anonymous` is false.
   */
  static async start(options: ServerOptions = {}): Promise<TestServer> {
    const dir = tempDir();
    try {
      return new TestServer(await ServerProcess.start(join(dir.path, "mercado.db"), options), dir);
    } catch (error) {
      dir.remove();
      throw error;
    }
  }

  /** The key an AI agent claims its bot seats with. */
  get agentKey(): string {
    return this.server.agentKey;
  }

  /** A client of its own connection; `reconnectMs` bounds its retries; `options` adds TLS options. */
  connect(reconnectMs = 20_000, options: Omit<ConnectNodeOptions, "retry"> = {}): NodeMercadoClient {
    const client = connectNode(this.server.target, { ...options, retry: { reconnectMs } });
    this.clients.push(client);
    return client;
  }

  /** Close the clients, stop the server (SIGTERM, wait) and delete the temp dir; returns the exit status. */
  async stop(): Promise<number | null> {
    for (const client of this.clients) client.close();
    try {
      return await this.server.stop();
    } finally {
      this.dir.remove();
    }
  }
}

/**
 * Say to the server, as an AI agent would (with its agent key), that an agent has room for
 * `freeSlots` more bot seats, so that it accepts matches with bot seats; the test then claims
 * them itself. The server forgets an agent after a few silent intervals (15 s): send it again
 * before creating bot seats later.
 */
export async function agentHeartbeat(client: MercadoClient, agentKey: string, freeSlots = 100): Promise<void> {
  await client.agentHeartbeat(agentKey, { agentId: "ts-test-agent", freeSlots });
}

/** A seeded generator of floats in [0, 1) (mulberry32), so a failing run can be repeated. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(items: readonly T[], random: () => number): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error("nothing to pick from");
  return item;
}

/** A 2-player match of `game` with both (open) seats joined: playing at version 0. */
export async function playingMatch(client: MercadoClient, game = Game.MERCADO): Promise<[Seat, Seat]> {
  const { matchId } = await client.createMatch({ game, players: 2, seats: ["open", "open"] });
  return [await client.join(matchId, "ana", 0), await client.join(matchId, "bea")];
}

/**
 * A seat to move (the first of seats_to_move: in a sealed step several are) and its view (with
 * its legal actions).
 */
export async function mover(seats: readonly Seat[]): Promise<{ seat: Seat; state: MatchState; action: Action }> {
  const [first] = seats;
  if (!first) throw new Error("no seats");
  const spectator = await first.client.view(first.matchId);
  const seat = seats.find((s) => s.seat === spectator.seatsToMove[0]);
  if (!seat) throw new Error(`no seat to move (seats to move ${spectator.seatsToMove}, status ${spectator.match?.status})`);
  const state = await seat.view();
  const [action] = state.legalActions;
  if (!action) throw new Error(`seat ${seat.seat} is to move but has no legal action`);
  return { seat, state, action };
}

/** Play `count` random legal actions, each of a seat to move; returns the last version. */
export async function playRandomMoves(seats: readonly Seat[], count: number, random: () => number): Promise<bigint> {
  let version = -1n;
  for (let i = 0; i < count; i++) {
    const { seat, state } = await mover(seats);
    const response = await seat.act(pick(state.legalActions, random), state.version);
    version = response.version;
  }
  return version;
}

/** Assert that `call` fails with `code`; returns the error. */
export async function rejectsWith(call: () => Promise<unknown>, code: Code): Promise<ConnectError> {
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
