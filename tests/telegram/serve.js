// The Telegram Bot API emulator (npm's telegram-test-api) for the adapter's tests:
// `node serve.js PORT` serves it on 127.0.0.1:PORT and prints "ready" once it listens
// (tests/telegram_support.py waits for that line). Messages are kept for the whole
// session (storeTimeout), and the process ends when its stdin closes, so a test run
// that dies never leaves it behind.
'use strict';

const TelegramServer = require('telegram-test-api');

async function main() {
  const port = Number(process.argv[2]);
  if (!Number.isInteger(port) || port <= 0) {
    throw new Error('usage: node serve.js PORT');
  }
  const server = new TelegramServer({ port, host: '127.0.0.1', storeTimeout: 24 * 3600 });
  await server.start();
  process.stdout.write('ready\n');
  const stop = async () => {
    await server.stop();
    process.exit(0);
  };
  process.stdin.on('end', stop);
  process.stdin.resume();
  process.on('SIGTERM', stop);
}

main().catch((error) => {
  process.stderr.write(`${error.stack || error}\n`);
  process.exit(1);
});
