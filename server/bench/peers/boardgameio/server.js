// boardgame.io's server as its documentation sets it up, for `mercado bench peer`:
// node server.js memory|disk [directory]. It listens on a free loopback port and says so on stderr
// as one JSON line, as `mercado serve` does.
const { Server, FlatFile } = require('boardgame.io/server');
const { Market } = require('./game');

const [storage, directory] = process.argv.slice(2);
if (storage !== 'memory' && storage !== 'disk') {
  throw new Error('usage: node server.js memory|disk [directory]');
}
// The disk storage writes each match's state to a file after the update is sent; memory keeps it.
const db = storage === 'disk' ? new FlatFile({ dir: directory, logging: false }) : undefined;
const server = Server({ games: [Market], db, origins: [] });
server.run({ port: 0, callback: () => {} }).then(({ appServer }) => {
  const { port } = appServer.address();
  process.stderr.write(`${JSON.stringify({ message: 'listening', port })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
