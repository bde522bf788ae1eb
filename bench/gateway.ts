// The gateway in production shape for the bench: a private Redis, the sandbox Sender API, the
// `smtp` role with SMTP_PROCESSES listener processes (a primary forking them, or one process
// alone) and 0..n worker processes, every process tracked by the sampler: the smtp role as one
// tree (CPU of the primary and all its listener processes, RSS per process). Raw mail goes to a
// directory beside the Redis data (RAW_STORE_URL; extraEnv may point it elsewhere).
import { readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Queue } from 'bullmq';
import { INTAKE_QUEUE } from '../src/intake/queue.js';
import { MARKER_KINDS } from '../src/raw-store/raw-store.js';
import { freePort } from '../src/runtime/redis.js';
import { readSupervisedTree, type Sampler } from './proc-stats.js';
import { REPO, type Running, type RunningRedis, startRedis, startRole } from './processes.js';

export const BENCH_PREFIX = '{bench}';
const MiB = 1024 * 1024;

export interface GatewayOptions {
  readonly logDir: string;
  readonly dataDir: string;
  readonly sampler: Sampler;
  /** Jobs per worker process (WORKER_CONCURRENCY). */
  readonly workerConcurrency: number;
  /** Listener processes of the smtp role (SMTP_PROCESSES; 1: the role's process listens itself). */
  readonly smtpProcesses: number;
  /** Told each smtp role's pid as it starts (a profile tells the primary from its listener processes). */
  readonly onListener?: (pid: number) => void;
  /** Extra node arguments per process (e.g. --cpu-prof for profiling). */
  readonly nodeArgsFor?: (name: 'listener' | 'worker' | 'sandbox') => readonly string[];
  /** Overrides for the roles' environment (experiments; the report shows the defaults). */
  readonly extraEnv?: Readonly<Record<string, string>>;
}

export interface Gateway {
  readonly redis: RunningRedis;
  readonly smtpPort: number;
  readonly prefix: string;
  readonly env: Readonly<Record<string, string>>;
  readonly workerCount: () => number;
  /** The smtp role's process: the primary of the listener processes, or the one listener. */
  readonly listenerPid: () => number;
  /** A fresh listener process on the same port (a clean heap for per-size memory figures). */
  restartListener(): Promise<void>;
  /** Holds jobs back from every worker (BullMQ pause), so several workers can start together. */
  pauseQueue(): Promise<void>;
  resumeQueue(): Promise<void>;
  /** Starts worker processes until `count` run; each is ready (its /readyz answers) on return. */
  startWorkers(count: number): Promise<void>;
  stopWorkers(): Promise<void>;
  stop(): Promise<void>;
}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const { logDir, sampler } = options;
  const started: Running[] = [];
  const started0 = await startRedis(logDir, options.dataDir);
  const rawDir = join(dirname(options.dataDir), 'raw');
  // Between phases the bench drops what was accepted: the blobs go with Redis's keys.
  const redis: RunningRedis = {
    ...started0,
    flush: async () => {
      await started0.flush();
      emptyRawDir(rawDir);
    },
  };
  sampler.track('redis', redis.pid);
  try {
    const sandboxPort = await freePort();
    const smtpPort = await freePort();
    const env: Record<string, string> = {
      REDIS_URL: redis.url,
      RAW_STORE_URL: pathToFileURL(rawDir).href,
      REDIS_PREFIX: BENCH_PREFIX,
      INBOUND_ADDRESSES: 'letters@intake.example',
      DNS_ZONE_FILE: resolve(REPO, 'fixtures', 'zone.json'),
      SENDERS_FILE: resolve(REPO, 'fixtures', 'senders.json'),
      LOG_LEVEL: 'warn',
      SMTP_HOST: '127.0.0.1',
      SMTP_HOSTNAME: 'mx.intake.example',
      // Every bench client connects from 127.0.0.1: lift the per-IP cap above the 32 sessions.
      SMTP_MAX_CLIENTS_PER_IP: '200',
      SMTP_CLOSE_TIMEOUT_MS: '2000',
      OPS_HTTP_HOST: '127.0.0.1',
      SANDBOX_HOST: '127.0.0.1',
      SANDBOX_PORT: String(sandboxPort),
      SENDER_API_URL: `http://127.0.0.1:${sandboxPort}`,
      MAX_MESSAGE_BYTES: String(15 * MiB),
      WORKER_CONCURRENCY: String(options.workerConcurrency),
      WORKER_CLOSE_TIMEOUT_MS: '5000',
      SMTP_PROCESSES: String(options.smtpProcesses),
      ...options.extraEnv,
    };
    const nodeArgs = options.nodeArgsFor ?? (() => []);
    const sandbox = await startRole(
      'sandbox',
      'sandbox-api',
      { ...env, OPS_HTTP_PORT: String(await freePort()) },
      logDir,
      nodeArgs('sandbox'),
    );
    started.push(sandbox);
    sampler.track('sandbox', sandbox.pid);
    const startListener = async (): Promise<Running> => {
      const running = await startRole(
        'listener',
        'smtp',
        { ...env, SMTP_PORT: String(smtpPort), OPS_HTTP_PORT: String(await freePort()) },
        logDir,
        nodeArgs('listener'),
      );
      sampler.track('listener', running.pid, readSupervisedTree);
      options.onListener?.(running.pid);
      return running;
    };
    let listener = await startListener();

    const workers: Running[] = [];
    const stopWorkers = async (): Promise<void> => {
      await Promise.all(
        workers.map(async (w) => {
          sampler.untrack(w.name);
          await w.stop();
        }),
      );
      workers.length = 0;
    };
    const queue = new Queue(INTAKE_QUEUE, {
      connection: { host: '127.0.0.1', port: Number(new URL(redis.url).port) },
      prefix: BENCH_PREFIX,
    });
    return {
      redis,
      smtpPort,
      listenerPid: () => listener.pid,
      async restartListener() {
        sampler.untrack('listener');
        await listener.stop();
        listener = await startListener();
      },
      pauseQueue: () => queue.pause(),
      resumeQueue: () => queue.resume(),
      prefix: BENCH_PREFIX,
      env,
      workerCount: () => workers.length,
      async startWorkers(count) {
        const more = await Promise.all(
          Array.from({ length: count - workers.length }, async (_, i) => {
            const name = `worker-${workers.length + i + 1}`;
            return startRole(name, 'worker', { ...env, OPS_HTTP_PORT: String(await freePort()) }, logDir, nodeArgs('worker'));
          }),
        );
        for (const w of more) {
          workers.push(w);
          sampler.track(w.name, w.pid);
        }
        // /readyz answers before the BullMQ worker has connected: wait until Redis lists them all.
        const deadline = Date.now() + 30_000;
        while ((await queue.getWorkersCount()) < workers.length) {
          if (Date.now() > deadline)
            throw new Error(`only ${await queue.getWorkersCount()} of ${workers.length} workers registered with the queue`);
          await new Promise((r) => setTimeout(r, 50));
        }
      },
      stopWorkers,
      async stop() {
        await stopWorkers();
        await queue.close();
        sampler.untrack('listener');
        await listener.stop();
        for (const p of started.reverse()) {
          sampler.untrack(p.name);
          await p.stop();
        }
        sampler.untrack('redis');
        await redis.stop();
      },
    };
  } catch (err) {
    for (const p of started) await p.stop();
    await redis.stop();
    throw err;
  }
}

/** Deletes the blobs (and abandoned writes) in a directory store, keeping its directories. */
function emptyRawDir(dir: string): void {
  // The blobs, the incomplete writes and the raw store's markers (accepted/, letter/, ended/, erased/).
  const subdirs = ['.incoming', ...MARKER_KINDS];
  for (const sub of [dir, ...subdirs.map((name) => join(dir, name))]) {
    let entries: string[] = [];
    try {
      entries = readdirSync(sub);
    } catch {
      continue; // not created yet
    }
    for (const name of entries) if (!(sub === dir && subdirs.includes(name))) rmSync(join(sub, name), { force: true });
  }
}
