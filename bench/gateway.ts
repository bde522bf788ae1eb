// The gateway in production shape for the bench: a private Redis, the sandbox Sender API, one
// listener process and 0..n worker processes, every process tracked by the sampler.
import { join, resolve } from 'node:path';
import { freePort } from '../src/runtime/redis.js';
import { REPO, startRedis, startRole, type Running, type RunningRedis } from './processes.js';
import type { Sampler } from './proc-stats.js';

export const BENCH_PREFIX = '{bench}';
const MiB = 1024 * 1024;

export interface GatewayOptions {
  readonly logDir: string;
  readonly dataDir: string;
  readonly sampler: Sampler;
  /** Jobs per worker process (WORKER_CONCURRENCY). */
  readonly workerConcurrency: number;
  /** Extra node arguments for the listener (e.g. --cpu-prof). */
  readonly listenerNodeArgs?: readonly string[];
  readonly workerNodeArgs?: readonly string[];
}

export interface Gateway {
  readonly redis: RunningRedis;
  readonly smtpPort: number;
  readonly prefix: string;
  readonly env: Readonly<Record<string, string>>;
  readonly workerCount: () => number;
  /** Starts worker processes until `count` run; each is ready (its /readyz answers) on return. */
  startWorkers(count: number): Promise<void>;
  stopWorkers(): Promise<void>;
  stop(): Promise<void>;
}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const { logDir, sampler } = options;
  const started: Running[] = [];
  const redis = await startRedis(logDir, options.dataDir);
  sampler.track('redis', redis.pid);
  try {
    const sandboxPort = await freePort();
    const smtpPort = await freePort();
    const env: Record<string, string> = {
      REDIS_URL: redis.url,
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
      HTTP_HOST: '127.0.0.1',
      SANDBOX_HOST: '127.0.0.1',
      SANDBOX_PORT: String(sandboxPort),
      SENDER_API_URL: `http://127.0.0.1:${sandboxPort}`,
      MAX_MESSAGE_BYTES: String(15 * MiB),
      WORKER_CONCURRENCY: String(options.workerConcurrency),
      WORKER_CLOSE_TIMEOUT_MS: '5000',
    };
    const sandbox = await startRole('sandbox', 'sandbox-api', { ...env, HTTP_PORT: String(await freePort()) }, logDir);
    started.push(sandbox);
    sampler.track('sandbox', sandbox.pid);
    const listener = await startRole(
      'listener', 'smtp',
      { ...env, SMTP_PORT: String(smtpPort), HTTP_PORT: String(await freePort()) },
      logDir, options.listenerNodeArgs,
    );
    started.push(listener);
    sampler.track('listener', listener.pid);

    const workers: Running[] = [];
    const stopWorkers = async (): Promise<void> => {
      await Promise.all(workers.map(async (w) => {
        sampler.untrack(w.name);
        await w.stop();
      }));
      workers.length = 0;
    };
    return {
      redis,
      smtpPort,
      prefix: BENCH_PREFIX,
      env,
      workerCount: () => workers.length,
      async startWorkers(count) {
        const more = await Promise.all(Array.from({ length: count - workers.length }, async (_, i) => {
          const name = `worker-${workers.length + i + 1}`;
          return startRole(name, 'worker', { ...env, HTTP_PORT: String(await freePort()) }, logDir, options.workerNodeArgs);
        }));
        for (const w of more) {
          workers.push(w);
          sampler.track(w.name, w.pid);
        }
      },
      stopWorkers,
      async stop() {
        await stopWorkers();
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

export function logPath(logDir: string, name: string): string {
  return join(logDir, `${name}.log`);
}
