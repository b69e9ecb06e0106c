// One load process of `mercado bench peer`: node load.js '<config JSON>'.
//
// The same load as `mercado bench server` puts on ours: each slot keeps a 2-player match in play,
// both seats connected (a socket.io connection each, as two browsers would be) and watching every
// update; the seat to move answers its own update with a uniformly random legal move, so one move is
// in flight per match. A finished match is replaced by a new one, created and joined through the
// lobby API. A move's latency runs from its sending to the mover's receipt of the update it made.
//
// It says "ready" on stdout once every slot's first match is synced, then reads the window (wall
// clock, ms) as one JSON line on stdin, plays until the window closes, and prints its figures as one
// JSON line: the moves answered inside the window, their latencies and the updates received.
const readline = require('node:readline');
const { io } = require('socket.io-client');
const { generator, lobby, randomMove } = require('./client');

const { port, slots, seed } = JSON.parse(process.argv[2]);
const base = `http://127.0.0.1:${port}`;

const post = lobby(base);
const random = generator(seed); // the same moves for the same seed and states

const window = { start: Infinity, end: Infinity, closed: false };
const figures = { moves: 0, latencies: [], updates: 0, matchesStarted: 0, matchesFinished: 0, errors: 0 };

// One match in a slot: resolves once it is over (or the window has closed).
async function playMatch(onSynced) {
  const { matchID } = await post('/games/market/create', { numPlayers: 2 });
  const seats = [];
  for (const playerID of ['0', '1']) {
    const { playerCredentials } = await post(`/games/market/${matchID}/join`, { playerID, playerName: `p${playerID}` });
    seats.push({ playerID, credentials: playerCredentials, sentFor: -1, sentAt: 0 });
  }
  figures.matchesStarted += 1;
  return new Promise((resolve) => {
    let synced = 0;
    let finished = false;
    const finish = () => {
      if (!finished) {
        finished = true;
        seats.forEach((seat) => seat.socket.close());
        resolve();
      }
    };
    const play = (seat, state) => {
      if (state.ctx.gameover !== undefined) {
        figures.matchesFinished += 1;
        finish();
        return;
      }
      if (window.closed || state.ctx.currentPlayer !== seat.playerID || seat.sentFor >= state._stateID) {
        return;
      }
      seat.sentFor = state._stateID;
      seat.sentAt = performance.now();
      const payload = { type: 'open', args: randomMove(state, seat.playerID, random), playerID: seat.playerID, credentials: seat.credentials };
      seat.socket.emit('update', { type: 'MAKE_MOVE', payload }, state._stateID, matchID, seat.playerID);
    };
    const received = (seat, state) => {
      seat.state = state;
      const now = Date.now();
      const inWindow = now >= window.start && now < window.end;
      figures.updates += inWindow ? 1 : 0;
      if (seat.sentAt && state._stateID > seat.sentFor) {
        if (inWindow) {
          figures.moves += 1;
          figures.latencies.push(performance.now() - seat.sentAt);
        }
        seat.sentAt = 0;
      }
      if (window.closed) {
        finish();
      } else {
        play(seat, state);
      }
    };
    for (const seat of seats) {
      seat.socket = io(`${base}/market`, { transports: ['websocket'], forceNew: true, reconnection: false });
      seat.socket.on('connect', () => seat.socket.emit('sync', matchID, seat.playerID, seat.credentials, 2));
      seat.socket.on('sync', (_, syncInfo) => {
        seat.state = syncInfo.state;
        synced += 1;
        if (synced === 2) {
          onSynced(() => seats.forEach((s) => play(s, s.state)));
        }
      });
      seat.socket.on('update', (_, state) => received(seat, state));
      seat.socket.on('connect_error', () => {
        figures.errors += 1;
        finish();
      });
    }
  });
}

// A slot plays matches one after another until the window closes.
async function runSlot(ready) {
  let first = true;
  while (!window.closed) {
    await playMatch((start) => {
      if (first) {
        first = false;
        ready(start);
      } else {
        start();
      }
    });
  }
}

async function main() {
  const starts = [];
  let remaining = slots;
  const allSynced = new Promise((resolve) => {
    const ready = (start) => {
      starts.push(start);
      remaining -= 1;
      if (remaining === 0) resolve();
    };
    for (let i = 0; i < slots; i += 1) {
      runSlot(ready).catch((error) => {
        figures.errors += 1;
        process.stderr.write(`${error.stack}\n`);
      });
    }
  });
  await allSynced;
  process.stdout.write('ready\n');
  const lines = readline.createInterface({ input: process.stdin });
  const { start, end } = JSON.parse((await lines[Symbol.asyncIterator]().next()).value);
  Object.assign(window, { start, end });
  starts.forEach((begin) => begin());
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, end - Date.now())));
  window.closed = true;
  // A pipe is written asynchronously: exit once all of it is out.
  process.stdout.write(`${JSON.stringify(figures)}\n`, () => process.exit(0));
}

main();
