// What the load processes share as clients of boardgame.io (load.js for `mercado bench peer`,
// players.js for `mercado bench players --peer boardgameio`): a seeded generator, the lobby API's
// calls and a random legal move of the market game (game.js).

// A seeded generator (mulberry32): the same numbers for the same seed.
function generator(seed) {
  let value = seed >>> 0;
  return () => {
    value = (value + 0x6d2b79f5) >>> 0;
    let t = value;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The lobby API of the server at `base` (http://host:port): post(path, body) resolves to its JSON
// answer, or rejects with an error whose code is HTTP_<status>.
function lobby(base) {
  return async (path, body) => {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) {
      const error = new Error(`${path}: HTTP ${response.status}`);
      error.code = `HTTP_${response.status}`;
      throw error;
    }
    return response.json();
  };
}

// A uniformly random legal move of `playerID`: a free square, and a slot of its hand.
function randomMove(state, playerID, random) {
  const free = [];
  state.G.squares.forEach((stand, square) => stand === null && free.push(square));
  const square = free[Math.floor(random() * free.length)];
  const slot = Math.floor(random() * state.G.hands[playerID].length);
  return [square, slot];
}

module.exports = { generator, lobby, randomMove };
