// The players of `mercado bench players --peer boardgameio`: node players.js '<config JSON>'.
//
// The load that `mercado-load` (clients/go/cmd/mercado-load) puts on ours, on boardgame.io: each
// player holds a socket.io connection of its own (from a loopback address of its own, 127.1.0.0
// upwards) for the whole run, as a browser would, and sits at a table of 2, 3 or 4 players (`sizes`,
// the tables taking them in turn). At each table one player creates a match through the lobby API,
// each joins its seat and syncs the match on its socket; the seat to move makes a random legal move
// after a think time drawn uniformly between half and one and a half times `pace`. A finished match
// is followed by a new one at the same table. The tables sit down one after another over `ramp`.
//
// A move's answer is the update it made reaching the mover's socket (boardgame.io answers a move with
// nothing else); its propagation runs from there to the last other seat's socket bringing it.
//
// It speaks as mercado-load does: {"ready":true} once every player follows its first match, then it
// reads phase names ({"phase":"window"}) until {"stop":true}, and prints its figures by phase.
const readline = require('node:readline');
const { io } = require('socket.io-client');
const { generator, lobby, randomMove } = require('./client');

const config = JSON.parse(process.argv[2]);
const base = `http://${config.server}`;
const post = lobby(base);
const seconds = (text) => 1000 * Number.parseFloat(String(text).replace(/s$/, ''));
const pace = seconds(config.pace);
const ramp = seconds(config.ramp);
const readyTimeout = seconds(config['ready-timeout']);
const sizes = String(config.sizes).split(',').map(Number);
const SAMPLES_KEPT = 3;
const RETRY_PAUSE = 1000;

// --- figures, by phase -------------------------------------------------------------------------

const phases = [];
let phase;
function enter(name) {
  const now = performance.now();
  if (phase) phase.ended = now;
  phase = {
    name, started: now, ended: 0, submits: [], propagations: [], opens: [], updates: 0,
    matchesStarted: 0, matchesFinished: 0, errors: {}, samples: {}, mostFailing: 0, recoveredAt: 0,
  };
  phases.push(phase);
}
enter('setup');

function failed(player, call, code, message) {
  if (stopping) return;
  phase.errors[call] ??= {};
  phase.errors[call][code] = (phase.errors[call][code] ?? 0) + 1;
  const key = `${call} ${code}`;
  phase.samples[key] ??= [];
  if (phase.samples[key].length < SAMPLES_KEPT && !phase.samples[key].includes(message)) {
    phase.samples[key].push(message);
  }
  setState(player, 'failing');
}

const latency = (samples) => {
  if (samples.length === 0) return { count: 0, p50: 0, p99: 0, max: 0 };
  const ordered = [...samples].sort((a, b) => a - b);
  const rank = (fraction) => Math.round(100 * ordered[Math.max(0, Math.ceil(fraction * ordered.length) - 1)]) / 100;
  return { count: ordered.length, p50: rank(0.5), p99: rank(0.99), max: rank(1) };
};

function report() {
  const now = performance.now();
  const count = (state) => players.filter((p) => p.state === state).length;
  const byName = {};
  for (const p of phases) {
    byName[p.name] = {
      seconds: Math.round((p.ended || now) - p.started) / 1000,
      submit_latency_ms: latency(p.submits),
      propagation_latency_ms: latency(p.propagations),
      stream_open_latency_ms: latency(p.opens),
      updates_received: p.updates,
      matches_started: p.matchesStarted,
      matches_finished: p.matchesFinished,
      errors: p.errors,
      error_samples: p.samples,
      most_players_failing: p.mostFailing,
      recovered_after_seconds: p.recoveredAt ? Math.round(p.recoveredAt - p.started) / 1000 : null,
    };
  }
  return {
    players: players.length,
    connections: players.length,
    tables: tables.length,
    players_following: count('following'),
    players_between_matches: count('between'),
    players_failing: count('failing'),
    phases: byName,
    load_heap_mib: Math.round(process.memoryUsage().heapUsed / (1 << 20) * 10) / 10,
    node_version: process.version,
  };
}

// --- players and tables ------------------------------------------------------------------------

let stopping = false;
let failing = 0;
let firstLeft = config.players;
let ready;
const readyNow = new Promise((resolve) => { ready = resolve; });

function setState(player, state) {
  if (player.state === state) return;
  if (player.state === 'failing' && --failing === 0) phase.recoveredAt = performance.now();
  if (state === 'failing') phase.mostFailing = Math.max(phase.mostFailing, ++failing);
  if (state === 'following' && !player.followedOnce) {
    player.followedOnce = true;
    if (--firstLeft === 0) ready();
  }
  player.state = state;
}

function address(index) {
  const n = ((127 << 24) | (1 << 16)) + index;
  return [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

const pause = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

class Player {
  constructor(index, table) {
    this.index = index;
    this.table = table;
    this.random = generator(config.seed * 1000003 + index);
    this.state = 'between';
    this.followedOnce = false;
    this.match = null; // { matchID, credentials, onOver }
    this.socket = io(`${base}/market`, {
      transports: ['websocket'],
      localAddress: address(index),
      reconnectionDelay: RETRY_PAUSE,
      reconnectionDelayMax: 5000,
    });
    this.socket.on('connect', () => this.sync());
    this.socket.on('connect_error', (error) => failed(this, 'connect', 'CONNECT_ERROR', error.message));
    this.socket.on('disconnect', (reason) => failed(this, 'socket', 'DISCONNECTED', reason));
    this.socket.on('sync', (matchID, syncInfo) => this.synced(matchID, syncInfo.state));
    this.socket.on('update', (matchID, state) => this.received(matchID, state));
  }

  // Follow a new match: its seat, its credentials; resolves once it is over.
  play(matchID, seat, credentials) {
    return new Promise((resolve) => {
      this.match = { matchID, seat, credentials, onOver: resolve, newest: -1, actedAt: -1, thinking: false, sentAt: 0, sentFor: -1 };
      this.sync();
    });
  }

  sync() {
    const match = this.match;
    if (!match || !this.socket.connected) return;
    match.asked = performance.now();
    match.askedIn = phase;
    this.socket.emit('sync', match.matchID, match.seat, match.credentials, this.table.players.length);
  }

  synced(matchID, state) {
    const match = this.match;
    if (!match || matchID !== match.matchID) return;
    match.askedIn.opens.push(performance.now() - match.asked);
    setState(this, 'following');
    this.consider(state);
  }

  received(matchID, state) {
    const match = this.match;
    if (!match || matchID !== match.matchID) return;
    const now = performance.now();
    phase.updates += 1;
    if (match.sentAt && state._stateID > match.sentFor) {
      // The move's answer: its own update.
      match.sentIn.submits.push(now - match.sentAt);
      this.table.acked(state._stateID, now, match.sentIn);
      match.sentAt = 0;
    } else {
      this.table.received(state._stateID, now);
    }
    if (state.ctx.gameover !== undefined) {
      this.finish();
      return;
    }
    this.consider(state);
  }

  consider(state) {
    const match = this.match;
    if (state._stateID < match.newest) return;
    match.newest = state._stateID;
    match.latest = state;
    if (state.ctx.gameover !== undefined) {
      this.finish();
      return;
    }
    const moving = state.ctx.currentPlayer === match.seat && state._stateID > match.actedAt;
    if (!moving || match.thinking) return;
    match.thinking = true;
    setTimeout(() => this.act(match), pace * (0.5 + this.random()));
  }

  act(match) {
    match.thinking = false;
    const state = match.latest;
    if (stopping || this.match !== match || state.ctx.currentPlayer !== match.seat) return;
    match.actedAt = state._stateID;
    match.sentFor = state._stateID;
    match.sentAt = performance.now();
    match.sentIn = phase;
    const payload = { type: 'open', args: randomMove(state, match.seat, this.random), playerID: match.seat, credentials: match.credentials };
    this.socket.emit('update', { type: 'MAKE_MOVE', payload }, state._stateID, match.matchID, match.seat);
  }

  finish() {
    const match = this.match;
    if (!match) return;
    this.match = null;
    setState(this, 'between');
    match.onOver();
  }
}

class Table {
  constructor(size) {
    this.size = size;
    this.players = [];
    this.deliveries = new Map();
  }

  entry(stateID) {
    let delivery = this.deliveries.get(stateID);
    if (!delivery) {
      delivery = { acked: 0, phase: null, waiting: this.players.length - 1, last: 0 };
      this.deliveries.set(stateID, delivery);
    }
    return delivery;
  }

  acked(stateID, at, inPhase) {
    const delivery = this.entry(stateID);
    delivery.acked = at;
    delivery.phase = inPhase;
    this.complete(stateID, delivery);
  }

  received(stateID, at) {
    const delivery = this.entry(stateID);
    delivery.waiting -= 1;
    delivery.last = Math.max(delivery.last, at);
    this.complete(stateID, delivery);
  }

  complete(stateID, delivery) {
    if (delivery.waiting > 0 || !delivery.acked) return;
    delivery.phase.propagations.push(Math.max(0, delivery.last - delivery.acked));
    this.deliveries.delete(stateID);
  }

  async run(delay) {
    await pause(delay);
    while (!stopping) {
      try {
        await this.playOne();
      } catch (error) {
        failed(this.players[0], error.call ?? 'lobby', error.code ?? 'ERROR', error.message);
        await pause(RETRY_PAUSE);
      }
    }
  }

  async playOne() {
    const { matchID } = await post('/games/market/create', { numPlayers: this.size }).catch((error) => {
      throw Object.assign(error, { call: 'create' });
    });
    const seats = [];
    for (const [seat, player] of this.players.entries()) {
      const { playerCredentials } = await post(`/games/market/${matchID}/join`, {
        playerID: String(seat),
        playerName: `player ${player.index}`,
      }).catch((error) => {
        throw Object.assign(error, { call: 'join' });
      });
      seats.push(playerCredentials);
    }
    this.deliveries = new Map();
    phase.matchesStarted += 1;
    await Promise.all(this.players.map((player, seat) => player.play(matchID, String(seat), seats[seat])));
    if (!stopping) phase.matchesFinished += 1;
  }
}

const players = [];
const tables = [];
for (let i = 0, left = config.players; left > 0; i += 1) {
  let size = Math.min(sizes[i % sizes.length], left);
  if (size === 1) {
    const last = tables[tables.length - 1];
    if (last.size < 4) {
      last.size += 1;
    } else {
      last.size -= 1;
      tables.push(new Table(2));
    }
    break;
  }
  tables.push(new Table(size));
  left -= size;
}
for (const table of tables) {
  for (let seat = 0; seat < table.size; seat += 1) {
    const player = new Player(players.length, table);
    players.push(player);
    table.players.push(player);
  }
}

async function main() {
  tables.forEach((table, t) => table.run((ramp * t) / tables.length));
  const inTime = await Promise.race([readyNow.then(() => true), pause(ramp + readyTimeout).then(() => false)]);
  if (!inTime) {
    process.stdout.write(`${JSON.stringify(report())}\n`, () => process.exit(1));
    return;
  }
  process.stdout.write('{"ready":true}\n');
  for await (const line of readline.createInterface({ input: process.stdin })) {
    const command = JSON.parse(line);
    if (command.stop) {
      const figures = report();
      stopping = true;
      // A pipe is written asynchronously: exit once all of it is out.
      process.stdout.write(`${JSON.stringify(figures)}\n`, () => process.exit(0));
      return;
    }
    enter(command.phase);
  }
}

main();
