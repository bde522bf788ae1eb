// Runs before `npm start` builds (the `prestart` script), so a second start refuses before it
// rewrites the running one's dist/. It asks DATA_DIR's lock socket, as `start` itself does
// (src/runtime/data-dir-lock.ts): a holder that answers, or accepts and stays silent, is a running
// start, and this exits 69 (EX_UNAVAILABLE) with the message `start` would print. Plain
// JavaScript with no import of ours: it must work before anything is compiled. With an external
// Redis (REDIS_URL, REDIS_SENTINELS, REDIS_CLUSTER_NODES) `start` takes no lock, so neither does
// this check ask.
import { connect } from 'node:net';
import { relative, resolve } from 'node:path';

const LOCK_SOCKET = 'letter-intake.sock';
const MAX_SOCKET_PATH = 107;
const ANSWER_TIMEOUT_MS = 2000;

const env = process.env;
const external = ['REDIS_URL', 'REDIS_SENTINELS', 'REDIS_CLUSTER_NODES'].some((name) => (env[name] ?? '') !== '');
const dataDir = env.DATA_DIR === undefined || env.DATA_DIR === '' ? '.data' : env.DATA_DIR;

/** The socket path `start` uses, or undefined when it has none (then `start` says why). */
function socketPath() {
  const absolute = resolve(dataDir, LOCK_SOCKET);
  if (Buffer.byteLength(absolute) <= MAX_SOCKET_PATH) return absolute;
  const fromHere = relative(process.cwd(), absolute);
  return Buffer.byteLength(fromHere) <= MAX_SOCKET_PATH ? fromHere : undefined;
}

/** The pid the holder answers, 'silent' for a holder that accepts but does not answer, 'nobody' for none. */
function askHolder(path) {
  return new Promise((done) => {
    let answer = '';
    let connected = false;
    const socket = connect(path);
    const finish = () => {
      socket.destroy();
      const pid = Number.parseInt(answer, 10);
      done(Number.isInteger(pid) && pid > 0 ? pid : connected ? 'silent' : 'nobody');
    };
    socket.setTimeout(ANSWER_TIMEOUT_MS, finish);
    socket.on('connect', () => {
      connected = true;
    });
    socket.on('data', (chunk) => {
      answer += chunk.toString('utf8');
    });
    socket.on('end', finish);
    socket.on('error', finish);
  });
}

const path = external ? undefined : socketPath();
if (path !== undefined) {
  const holder = await askHolder(path);
  if (holder !== 'nobody') {
    const who = holder === 'silent' ? 'pid unknown' : `pid ${holder}`;
    process.stderr.write(
      `letter-intake: another letter-intake is running (${who}) with DATA_DIR ${resolve(dataDir)}: stop it first, or give this one its own DATA_DIR\n`,
    );
    process.exit(69);
  }
}
