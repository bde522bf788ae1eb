// One `start` per DATA_DIR: the embedded Redis's append-only file and `redis-url` belong to one
// process. The lock is a unix socket listening in DATA_DIR: the kernel stops it listening when the
// process dies, however it dies, so a stale lock is recognised (nobody answers) and taken over.
// A pid file alone would not do: in a restarted container the new process may get the old pid.
// The holder answers every connection with its pid, so a second start can name it.
import { mkdirSync, unlinkSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { relative, resolve } from 'node:path';
import { StartupError } from '../errors.js';

export const LOCK_SOCKET = 'letter-intake.sock';
/** Linux's sun_path holds 108 bytes, the terminating zero included. */
const MAX_SOCKET_PATH = 107;
/** A holder that accepts the connection but does not answer within this is still a holder. */
const ANSWER_TIMEOUT_MS = 2000;

export interface DataDirLock {
  release(): Promise<void>;
}

/** Takes DATA_DIR for this process, or fails with a StartupError naming the process holding it. */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  mkdirSync(dataDir, { recursive: true });
  const path = socketPath(dataDir);
  let server = await listenOn(path);
  if (server === undefined) {
    const holder = await askHolder(path);
    if (holder !== 'nobody') {
      const who = holder === 'silent' ? 'pid unknown' : `pid ${holder}`;
      throw new StartupError(
        `another letter-intake is running (${who}) with DATA_DIR ${resolve(dataDir)}: stop it first, or give this one its own DATA_DIR`,
      );
    }
    // The socket file of a process that died: nobody listens on it any more.
    unlinkSync(path);
    server = await listenOn(path);
    if (server === undefined) throw new StartupError(`another letter-intake took DATA_DIR ${resolve(dataDir)} at the same moment`);
  }
  const held = server;
  return {
    release: () => new Promise<void>((done) => held.close(() => done())),
  };
}

function socketPath(dataDir: string): string {
  const absolute = resolve(dataDir, LOCK_SOCKET);
  if (Buffer.byteLength(absolute) <= MAX_SOCKET_PATH) return absolute;
  const fromHere = relative(process.cwd(), absolute);
  if (Buffer.byteLength(fromHere) <= MAX_SOCKET_PATH) return fromHere;
  throw new StartupError(
    `DATA_DIR ${resolve(dataDir)} is too long a path for its lock socket (at most ${MAX_SOCKET_PATH - LOCK_SOCKET.length - 1} bytes)`,
  );
}

/** Listens on the socket path; undefined when the path exists already (a holder, or a stale file). */
function listenOn(path: string): Promise<Server | undefined> {
  return new Promise((done, fail) => {
    const server = createServer((socket) => {
      socket.on('error', () => undefined); // an asker that hangs up early is no concern
      socket.end(`${process.pid}\n`);
    });
    server.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? done(undefined) : fail(err)));
    server.listen(path, () => {
      // The lock must never be what keeps the process alive.
      server.unref();
      done(server);
    });
  });
}

/** The pid the holder answers, 'silent' for a holder that accepts but does not answer, 'nobody' for a stale file. */
function askHolder(path: string): Promise<number | 'silent' | 'nobody'> {
  return new Promise((done) => {
    let answer = '';
    let connected = false;
    const socket = connect(path);
    const finish = (): void => {
      socket.destroy();
      const pid = Number.parseInt(answer, 10);
      done(Number.isInteger(pid) && pid > 0 ? pid : connected ? 'silent' : 'nobody');
    };
    socket.setTimeout(ANSWER_TIMEOUT_MS, finish);
    socket.on('connect', () => {
      connected = true;
    });
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('utf8');
    });
    socket.on('end', finish);
    socket.on('error', finish);
  });
}
