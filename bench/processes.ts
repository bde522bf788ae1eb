// Every process of a bench run, each a real OS process on loopback: a private redis-server, the
// sandbox Sender API, the gateway's listener and workers (compiled JavaScript, `node dist/cli.js
// <role>`), the sink and the load generator (TypeScript through tsx, with an IPC channel).
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../src/runtime/redis.js';

export const REPO = resolve(import.meta.dirname, '..');
const CLI = join(REPO, 'dist', 'cli.js');
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;

export interface Running {
  readonly name: string;
  readonly pid: number;
  readonly child: ChildProcess;
  readonly logFile: string;
  stop(): Promise<void>;
}

export interface RunningRedis extends Running {
  readonly url: string;
  /** The redis-server settings that matter for durability, for the report. */
  readonly settings: string;
  /** Drops every key (between phases, with no worker running). */
  flush(): Promise<void>;
  /** A client for the bench's own reads; closed by stop(). */
  readonly client: Redis;
}

export async function startRedis(logDir: string, dataDir: string): Promise<RunningRedis> {
  const port = await freePort();
  const settings = ['--appendonly', 'yes', '--appendfsync', 'everysec', '--save', '', '--maxmemory-policy', 'noeviction'];
  const logFile = join(logDir, 'redis.log');
  const child = spawnLogged(
    'redis-server',
    ['--bind', '127.0.0.1', '--port', String(port), '--dir', dataDir, ...settings],
    logFile,
    process.env,
  );
  const url = `redis://127.0.0.1:${port}`;
  await waitFor(() => canConnect(port), child, 'redis-server', logFile);
  const client = new Redis(url, { maxRetriesPerRequest: 3 });
  const running = handle('redis', child, logFile);
  return {
    ...running,
    url,
    client,
    settings: 'appendonly yes, appendfsync everysec, no RDB snapshots',
    flush: async () => void (await client.flushall()),
    stop: async () => {
      client.disconnect();
      await running.stop();
    },
  };
}

/** `node [nodeArgs] dist/cli.js <role>` with the given environment; resolves once it is ready. */
export async function startRole(
  name: string,
  role: 'smtp' | 'worker' | 'sandbox-api',
  env: Record<string, string>,
  logDir: string,
  nodeArgs: readonly string[] = [],
): Promise<Running> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  const logFile = join(logDir, `${name}.log`);
  const child = spawnLogged(process.execPath, [...nodeArgs, CLI, role], logFile, { ...baseEnv(), ...env });
  // /readyz answers as soon as the role's ops part is up, which is before the SMTP listener binds.
  const opsReady = (): Promise<boolean> => isHttpOk(`http://127.0.0.1:${env.OPS_HTTP_PORT ?? ''}/readyz`);
  const ready =
    role === 'sandbox-api'
      ? () => canConnect(Number(env.SANDBOX_PORT))
      : role === 'smtp'
        ? async () => (await opsReady()) && canConnect(Number(env.SMTP_PORT))
        : opsReady;
  await waitFor(ready, child, name, logFile);
  return handle(name, child, logFile);
}

export interface IpcProcess extends Running {
  request<T>(message: object, accept: (answer: unknown) => T | undefined): Promise<T>;
}

/** Forks a bench TypeScript module through tsx with an IPC channel. */
export function forkBench(name: string, module: string, env: Record<string, string>, logDir: string): IpcProcess {
  const logFile = join(logDir, `${name}.log`);
  const fd = openSync(logFile, 'a');
  const child = fork(join(REPO, 'bench', module), [], {
    cwd: REPO,
    execArgv: ['--import', 'tsx'],
    env: { ...baseEnv(), ...env },
    stdio: ['ignore', fd, fd, 'ipc'],
  });
  closeSync(fd);
  const running = handle(name, child, logFile);
  return {
    ...running,
    request: <T>(message: object, accept: (answer: unknown) => T | undefined) =>
      new Promise<T>((ok, fail) => {
        const onMessage = (answer: unknown): void => {
          const value = accept(answer);
          if (value === undefined) return;
          cleanup();
          ok(value);
        };
        const onExit = (): void => {
          cleanup();
          fail(new Error(`${name} exited: ${tail(logFile)}`));
        };
        const cleanup = (): void => {
          child.off('message', onMessage);
          child.off('exit', onExit);
        };
        child.on('message', onMessage);
        child.once('exit', onExit);
        child.send(message);
      }),
  };
}

/** Waits for the first IPC message `accept` recognises. */
export function nextMessage<T>(proc: Running, accept: (message: unknown) => T | undefined, timeoutMs = START_TIMEOUT_MS): Promise<T> {
  return new Promise((ok, fail) => {
    const timer = setTimeout(
      () => finish(() => fail(new Error(`${proc.name} did not answer in ${timeoutMs} ms: ${tail(proc.logFile)}`))),
      timeoutMs,
    );
    const onMessage = (message: unknown): void => {
      const value = accept(message);
      if (value !== undefined) finish(() => ok(value));
    };
    const onExit = (): void => finish(() => fail(new Error(`${proc.name} exited: ${tail(proc.logFile)}`)));
    const finish = (then: () => void): void => {
      clearTimeout(timer);
      proc.child.off('message', onMessage);
      proc.child.off('exit', onExit);
      then();
    };
    proc.child.on('message', onMessage);
    proc.child.once('exit', onExit);
  });
}

/** The last lines of a process's log, for error messages. */
export function tail(logFile: string, lines = 15): string {
  try {
    return readFileSync(logFile, 'utf8').trim().split('\n').slice(-lines).join('\n') || '(empty log)';
  } catch {
    return '(no log)';
  }
}

function spawnLogged(command: string, args: readonly string[], logFile: string, env: NodeJS.ProcessEnv): ChildProcess {
  const fd = openSync(logFile, 'a');
  const child = spawn(command, args, { cwd: REPO, env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  return child;
}

function handle(name: string, child: ChildProcess, logFile: string): Running {
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${name} did not start: ${tail(logFile)}`);
  const exited = new Promise<void>((ok) => {
    if (child.exitCode !== null || child.signalCode !== null) ok();
    else child.once('exit', () => ok());
  });
  return {
    name,
    pid,
    child,
    logFile,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Only what a role needs from the outside environment: not the bench's own NODE_OPTIONS etc. */
function baseEnv(): Record<string, string> {
  // RAW_STORE_KEY passes through for the encryption-at-rest rows (RAW_STORE_KEY=… npm run bench).
  const keep = ['PATH', 'HOME', 'LANG', 'TMPDIR', 'RAW_STORE_KEY'];
  return {
    ...Object.fromEntries(keep.flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k] ?? '']]))),
    NODE_OPTIONS: PRODUCTION_NODE_OPTIONS, // as the Dockerfile runs every role
  };
}

/** V8's young generation capped at 8 MB: a third less resident memory, the same throughput. */
const PRODUCTION_NODE_OPTIONS = '--max-semi-space-size=8';

async function waitFor(ready: () => Promise<boolean>, child: ChildProcess, name: string, logFile: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${name} exited with ${child.exitCode ?? child.signalCode} before it was ready:\n${tail(logFile)}`);
    }
    if (await ready()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`${name} was not ready within ${START_TIMEOUT_MS} ms:\n${tail(logFile)}`);
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((ok) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      ok(true);
    });
    socket.once('error', () => ok(false));
  });
}

async function isHttpOk(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}
