// The gateway's parts started in the test process, each over its real protocol: the SMTP
// listener on a free port, real Redis under a random prefix, the raw store (a fresh directory,
// or a fresh prefix in the S3 test server), the worker, and the sandbox Sender API over HTTP.
// DNS comes from fixtures/zone.json. Logs are captured for inspection.
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { type Config, loadConfig } from '../../src/config.js';
import { type IntakeObserver, silentObserver } from '../../src/intake/observer.js';
import { INTAKE_QUEUE, type IntakeJobData } from '../../src/intake/queue.js';
import { FINAL_STATES, type IntakeRecord } from '../../src/intake/record.js';
import type { IntakeStore } from '../../src/intake/store.js';
import { createLogger } from '../../src/log.js';
import type { DnsResolver } from '../../src/net/resolver.js';
import { openRawStore } from '../../src/raw-store/open-store.js';
import type { RawStore } from '../../src/raw-store/raw-store.js';
import { openRedis } from '../../src/redis/connections.js';
import type { RedisTopology } from '../../src/redis/topology.js';
import type { Closable } from '../../src/runtime/lifecycle.js';
import { storeFor } from '../../src/runtime/part-context.js';
import { startSmtpPart } from '../../src/runtime/smtp-part.js';
import { startWorkerPart } from '../../src/runtime/worker-part.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { loadSenderDirectory } from '../../src/senders/directory.js';
import type { RawStoreKind } from './raw-stores.js';
import { connectTestRedis, dropPrefix, randomPrefix, TEST_REDIS_URL } from './redis.js';

export const REPO = resolve(import.meta.dirname, '../..');
export const FIXTURE_DIR = resolve(REPO, 'fixtures');
export const PROCESSING_ADDRESS = 'letters@intake.example';

export function fixture(name: string): Buffer {
  return readFileSync(resolve(FIXTURE_DIR, 'eml', name));
}

export interface GatewayOptions {
  readonly worker?: boolean;
  readonly env?: Record<string, string>;
  readonly observer?: IntakeObserver;
  /** DNS for the listener instead of fixtures/zone.json. */
  readonly resolver?: DnsResolver;
  /** The worker's (and sandbox's) sender directory, when it differs from the listener's SENDERS_FILE. */
  readonly workerSendersFile?: string;
  /** The raw store: a fresh place of this kind (its setup() done), or a store the test made. Default: a fresh directory. */
  readonly rawStore?: RawStoreKind | RawStore;
  /** The Sender API the worker calls, given the sandbox's address (a front before it); default: the sandbox. */
  readonly senderApiUrl?: (sandboxUrl: string) => string;
}

export interface TestGateway {
  readonly config: Config;
  readonly port: number;
  readonly prefix: string;
  readonly redis: Redis;
  readonly store: IntakeStore;
  readonly rawStore: RawStore;
  readonly queue: Queue<IntakeJobData>;
  readonly sandbox: RunningSandbox | undefined;
  /** Every log line written so far, parsed. */
  readonly logs: Record<string, unknown>[];
  /** Waits until the intake reaches a final state (or the bound passes) and returns its record. */
  settled(intakeId: string, timeoutMs?: number): Promise<IntakeRecord>;
  /** Waits until the intake's job has ended (its notices queued or not), and says how it ended. */
  jobFinished(intakeId: string, timeoutMs?: number): Promise<'completed' | 'failed'>;
  close(): Promise<void>;
}

export function testEnv(prefix: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: prefix,
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: '0',
    SMTP_HOSTNAME: 'mx.intake.example',
    // roles that serve the portal (start, portal) take any free port: 8081 may be taken
    PORTAL_PORT: '0',
    INBOUND_ADDRESSES: PROCESSING_ADDRESS,
    DNS_ZONE_FILE: resolve(FIXTURE_DIR, 'zone.json'),
    SENDERS_FILE: resolve(FIXTURE_DIR, 'senders.json'),
    WORKER_BACKOFF_BASE_MS: '50',
    WORKER_BACKOFF_CAP_MS: '500',
    WORKER_LOCK_MS: '5000',
    SMTP_CLOSE_TIMEOUT_MS: '2000',
    WORKER_CLOSE_TIMEOUT_MS: '2000',
    LOG_LEVEL: 'info',
    // A directory per prefix (created on first use), never the repository's .data/.
    RAW_STORE_URL: pathToFileURL(testRawDir(prefix)).href,
    // the stock-library run (npm run test:stock) starts every gateway with FAST_PATHS=off
    ...(process.env.FAST_PATHS === undefined ? {} : { FAST_PATHS: process.env.FAST_PATHS }),
    ...extra,
  };
}

/** The default raw store directory of a test prefix (testEnv). */
export function testRawDir(prefix: string): string {
  return join(tmpdir(), 'letter-intake-test-raw', prefix.replace(/[^A-Za-z0-9-]/g, ''));
}

export async function startTestGateway(options: GatewayOptions = {}): Promise<TestGateway> {
  const prefix = randomPrefix();
  const given = options.rawStore;
  const place = given !== undefined && 'fresh' in given ? given.fresh() : undefined;
  const env = testEnv(prefix, { ...options.env, ...place?.env });
  const config = loadConfig(env);
  const rawStore =
    given !== undefined && !('fresh' in given)
      ? given
      : openRawStore(
          place?.settings(config.enqueueTimeoutMs) ?? {
            location: config.rawStore.location,
            timeoutMs: config.enqueueTimeoutMs,
            s3PathStyle: false,
          },
        );
  const logs: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') logs.push(JSON.parse(line));
      done();
    },
  });
  const logger = createLogger({ level: config.logLevel, destination });
  const redisTopology: RedisTopology = config.redisTopology ?? { kind: 'standalone', url: TEST_REDIS_URL, tls: undefined };
  const ctx = {
    config,
    logger,
    clock: Date.now,
    observer: options.observer ?? silentObserver,
    redisTopology,
    rawStore,
    ...(options.resolver === undefined ? {} : { resolver: options.resolver }),
  };
  const parts: Closable[] = [];
  const smtp = await startSmtpPart(ctx);
  parts.push(smtp);
  let sandbox: RunningSandbox | undefined;
  if (options.worker === true) {
    const directory = loadSenderDirectory(options.workerSendersFile ?? config.sendersFile ?? resolve(FIXTURE_DIR, 'senders.json'), env);
    sandbox = await startSandbox({
      directory,
      clock: Date.now,
      logger,
      host: '127.0.0.1',
      port: 0,
      contractMode: config.sandbox.contractMode,
    });
    parts.push(await startWorkerPart(ctx, directory, options.senderApiUrl?.(sandbox.url) ?? sandbox.url));
    const running = sandbox;
    parts.push({ name: 'sandbox', close: () => running.close() });
  }
  const redis = redisTopology.kind === 'standalone' ? connectTestRedis(redisTopology.url) : openRedis(redisTopology, { kind: 'worker' });
  if (!(redis instanceof Redis)) throw new Error('the in-process gateway runs on one server or Sentinels, not a cluster');
  const store = storeFor(ctx, redis);
  const queue = new Queue<IntakeJobData>(INTAKE_QUEUE, { connection: redis, prefix });
  queue.on('error', () => {});
  return {
    config,
    port: smtp.port,
    prefix,
    redis,
    store,
    rawStore,
    queue,
    sandbox,
    logs,
    async settled(intakeId, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const record = await store.get(intakeId);
        if (record !== undefined && FINAL_STATES.includes(record.state)) return record;
        if (Date.now() > deadline) throw new Error(`intake ${intakeId} did not settle: ${record?.state ?? 'no record'}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async jobFinished(intakeId, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const state = await queue.getJobState(intakeId);
        if (state === 'completed' || state === 'failed') return state;
        if (Date.now() > deadline) throw new Error(`the job of intake ${intakeId} did not finish: ${state}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async close() {
      for (const part of parts) await part.close();
      await queue.close();
      await dropPrefix(redis, prefix).catch(() => undefined); // the test may have stopped its Redis
      if (given === undefined || place !== undefined) rawStore.close(); // a store the test made is the test's
      place?.cleanup();
      rmSync(testRawDir(prefix), { recursive: true, force: true });
      redis.disconnect();
    },
  };
}

/** The intake id in a "250 2.0.0 queued as <id>" reply. */
export function intakeIdOf(replyText: string): string {
  const id = /queued as (\S+)/.exec(replyText)?.[1];
  if (id === undefined) throw new Error(`not an acceptance reply: ${replyText}`);
  return id;
}
