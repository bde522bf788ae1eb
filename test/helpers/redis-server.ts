// A private redis-server for fault tests, durable as production must run it (appendonly yes,
// appendfsync always, no RDB snapshots): the test can SIGKILL it and start it again on the same
// port and data directory, and whatever Redis acknowledged before the kill must still be there.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { durableRedisArgs, freePort } from '../../src/runtime/redis.js';

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  readonly dir: string;
  /** True while the server process is alive. */
  readonly running: boolean;
  /** SIGKILL: no shutdown save, no goodbye to clients; resolves once the process is gone. */
  kill(): Promise<void>;
  /** Starts redis-server again on the same port and directory; resolves when it answers PING. */
  restart(): Promise<void>;
  /** SIGSTOP: the server keeps its connections open and answers nothing (a stalled Redis). */
  pause(): void;
  /** SIGCONT after pause(): the server answers again, including what was sent meanwhile. */
  resume(): void;
  /** Kills the server and deletes its data directory. */
  destroy(): Promise<void>;
}

/** How long a (re)started server may take to load its append-only file and answer PONG. */
const READY_TIMEOUT_MS = 20_000;

/** `extraArgs` come after the durable defaults and override them (e.g. `--appendonly no`). */
export async function startRedisServer(extraArgs: readonly string[] = []): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'letter-intake-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const output: string[] = [];

  const start = async (): Promise<void> => {
    const proc = spawn('redis-server', [...durableRedisArgs(port, dir), ...extraArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
    proc.stdout.on('data', (c: Buffer) => output.push(c.toString('utf8')));
    proc.stderr.on('data', (c: Buffer) => output.push(c.toString('utf8')));
    child = proc;
    await new Promise<void>((ok, fail) => {
      proc.once('spawn', ok);
      proc.once('error', fail);
    });
    await waitForPong(port, proc, () => output.join('').slice(-2000));
  };

  const kill = async (): Promise<void> => {
    const proc = child;
    child = undefined;
    if (proc === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
    await new Promise<void>((ok) => {
      proc.once('exit', () => ok());
      proc.kill('SIGKILL');
    });
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    get running() {
      return child !== undefined && child.exitCode === null && child.signalCode === null;
    },
    kill,
    pause() {
      child?.kill('SIGSTOP');
    },
    resume() {
      child?.kill('SIGCONT');
    },
    async restart() {
      await kill();
      await start();
    },
    async destroy() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls with a raw PING until the answer is +PONG (not -LOADING, not a refused connection). */
async function waitForPong(port: number, proc: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`redis-server exited with ${proc.exitCode}:\n${log()}`);
    if ((await ping(port)) === '+PONG') return;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PONG within ${READY_TIMEOUT_MS} ms:\n${log()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function ping(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let answer = '';
    const done = (text: string): void => {
      socket.destroy();
      resolve(text);
    };
    socket.setTimeout(1000, () => done('(timeout)'));
    socket.once('error', () => done('(refused)'));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n')) done(answer.split('\r\n')[0] ?? '');
    });
  });
}

/**
 * Bytes clients have sent to the server on `port` that it has not read yet (the kernel's receive
 * queues of its connections, from `ss`): what a stalled (SIGSTOPped) server will run once it answers.
 */
export function bytesWaitingAt(port: number): number {
  const lines = execFileSync('ss', ['-tnH', `( sport = :${port} )`], { encoding: 'utf8' }).split('\n');
  return lines.reduce((sum, line) => sum + (Number(line.trim().split(/\s+/)[1]) || 0), 0);
}
