// The private redis-server `start` runs when REDIS_URL is unset, data under DATA_DIR/redis.
//
// It runs in its own process group, so the terminal's Ctrl-C reaches only letter-intake, which
// stops it last, after the parts that use it. Its pid is kept in DATA_DIR/redis.pid: a start
// after a parent that was SIGKILLed (and so could not stop its Redis) stops the leftover first,
// instead of running a second Redis on the same append-only file. The caller holds the DATA_DIR
// lock (data-dir-lock.ts), so a leftover is never a Redis some running start still uses.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { StartupError } from '../errors.js';
import { durableRedisArgs, freePort } from './redis.js';

/** Redis fsyncs and exits on SIGTERM within milliseconds; past this bound it is killed. */
const STOP_BOUND_MS = 10_000;

export interface EmbeddedRedis {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

const redisDir = (dataDir: string): string => resolve(dataDir, 'redis');
const urlFile = (dataDir: string): string => resolve(dataDir, 'redis-url');
export const pidFile = (dataDir: string): string => resolve(dataDir, 'redis.pid');

/** Starts a private redis-server from PATH on a free loopback port. */
export async function startEmbeddedRedis(dataDir: string): Promise<EmbeddedRedis> {
  const dir = redisDir(dataDir);
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const child = spawn('redis-server', durableRedisArgs(port, dir), { stdio: 'ignore', detached: true });
  const pid = await new Promise<number>((ok, fail) => {
    child.once('spawn', () => ok(child.pid ?? 0));
    child.once('error', (err) =>
      fail(
        new StartupError(
          `REDIS_URL is unset and redis-server could not be started (${err.message}); install Redis (apt-get install redis-server) or set REDIS_URL`,
        ),
      ),
    );
  });
  writeFileSync(pidFile(dataDir), `${pid}\n`);
  const url = `redis://127.0.0.1:${port}`;
  // `status` and `replay` find the embedded Redis through this file.
  writeFileSync(urlFile(dataDir), url);
  return {
    url,
    pid,
    stop: async () => {
      rmSync(urlFile(dataDir), { force: true });
      await stopChild(child);
      rmSync(pidFile(dataDir), { force: true });
    },
  };
}

/** The URL of the Redis a running `start` embedded, if any. */
export function embeddedRedisUrl(dataDir: string): string | undefined {
  const file = urlFile(dataDir);
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
}

/**
 * Stops the redis-server a previous start left running (its parent was killed), if any: the pid
 * in DATA_DIR/redis.pid counts only while it is a redis-server working in DATA_DIR/redis, so a
 * pid reused by another process is left alone. Returns the pid it stopped.
 */
export async function stopLeftoverRedis(dataDir: string): Promise<number | undefined> {
  const file = pidFile(dataDir);
  if (!existsSync(file)) return undefined;
  const pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
  const leftover = Number.isInteger(pid) && pid > 0 && isRedisWorkingIn(pid, redisDir(dataDir));
  if (leftover) await stopPid(pid, () => isRedisWorkingIn(pid, redisDir(dataDir)));
  rmSync(file, { force: true });
  rmSync(urlFile(dataDir), { force: true });
  return leftover ? pid : undefined;
}

/** redis-server changes its working directory to --dir; /proc shows both that and its name. */
function isRedisWorkingIn(pid: number, dir: string): boolean {
  try {
    const name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    return name.startsWith('redis-server') && readlinkSync(`/proc/${pid}/cwd`) === realpathSync(dir);
  } catch {
    return false; // no such process (or no /proc): nothing of ours to stop
  }
}

/** `alive` reads /proc rather than signalling: an exited process nobody has reaped yet is gone. */
async function stopPid(pid: number, alive: () => boolean): Promise<void> {
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + STOP_BOUND_MS;
  while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (alive()) process.kill(pid, 'SIGKILL');
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((ok) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_BOUND_MS);
    child.once('exit', () => {
      clearTimeout(timer);
      ok();
    });
    child.kill('SIGTERM');
  });
}
