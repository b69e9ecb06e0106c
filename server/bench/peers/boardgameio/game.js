// A small market game, played by `mercado bench peer`: on each turn a player opens a stand of a good
// from their hand on a free square of a 6 x 8 market, paying for the square and earning a coin from
// each neighbouring stand of another player; the game ends when the market is full. Hands are hidden
// from the other player (playerView), as the server of this project hides what a seat may not see.
const { INVALID_MOVE } = require('boardgame.io/core');

const ROWS = 6;
const COLUMNS = 8;
const SQUARES = ROWS * COLUMNS;
const GOODS = 6;
const HAND = 5;
const START_COINS = 20;

const draw = (random) => random.Die(GOODS) - 1;

const neighbours = (square) => {
  const row = Math.floor(square / COLUMNS);
  const column = square % COLUMNS;
  return [
    [row - 1, column],
    [row + 1, column],
    [row, column - 1],
    [row, column + 1],
  ]
    .filter(([r, c]) => r >= 0 && r < ROWS && c >= 0 && c < COLUMNS)
    .map(([r, c]) => r * COLUMNS + c);
};

const Market = {
  name: 'market',
  setup: ({ ctx, random }) => ({
    squares: Array(SQUARES).fill(null),
    hands: Array.from({ length: ctx.numPlayers }, () => Array.from({ length: HAND }, () => draw(random))),
    coins: Array(ctx.numPlayers).fill(START_COINS),
  }),
  turn: { minMoves: 1, maxMoves: 1 },
  moves: {
    open: ({ G, playerID, random }, square, slot) => {
      const hand = G.hands[playerID];
      const free = Number.isInteger(square) && square >= 0 && square < SQUARES && G.squares[square] === null;
      if (!free || !Number.isInteger(slot) || slot < 0 || slot >= hand.length) {
        return INVALID_MOVE;
      }
      const player = Number(playerID);
      G.squares[square] = { good: hand[slot], owner: player };
      hand[slot] = draw(random);
      G.coins[player] -= 1 + (square % 3);
      for (const next of neighbours(square)) {
        const stand = G.squares[next];
        if (stand !== null && stand.owner !== player) {
          G.coins[player] += 1;
        }
      }
    },
  },
  playerView: ({ G, playerID }) => ({
    ...G,
    hands: G.hands.map((hand, seat) => (String(seat) === playerID ? hand : hand.length)),
  }),
  endIf: ({ G }) => (G.squares.every((stand) => stand !== null) ? { coins: G.coins } : undefined),
};

module.exports = { Market };
