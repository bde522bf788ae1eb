// Environment → one typed, frozen config. The only module that reads process.env
// (the composition roots pass `process.env` in; tests pass a plain object).
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import type { Env } from './config-env.js';
import { renamedVariablesIn } from './config-renames.js';
import { PRIVACY_VARIABLES, type PrivacySettings, privacySection } from './privacy-settings.js';
import { parseRawStoreUrl, type RawStoreLocation } from './raw-store/location.js';
import {
  CLUSTER_DEFAULT_PORT,
  hashTagOf,
  parseHostPorts,
  type RedisTls,
  type RedisTopology,
  SENTINEL_DEFAULT_PORT,
  TOPOLOGY_VARIABLES,
} from './redis/topology.js';
import { minimumRecordRetentionMs } from './words/notice-lifetime.js';

/** The Sender API dialects the sandbox speaks (sandbox/contract-mode.ts): config owns the names it accepts. */
export const CONTRACT_MODES = ['ours', 'strict', 'foreign', 'foreign-list'] as const;
export type ContractMode = (typeof CONTRACT_MODES)[number];

/** The MIME walk keeps pace with the bytes; this only bounds a walk that hangs (smtp/session-rules.ts). */
export const WALK_SETTLE_MS = 10_000;

const MiB = 1024 * 1024;
const DAY_MS = 24 * 3600 * 1000;

/** A whole number from the environment; a bad value says what is expected (not zod's "received NaN"). */
const wholeNumber = (min: number) =>
  z.coerce
    .number({ error: `expected a whole number (at least ${min})` })
    .int({ error: `expected a whole number (at least ${min})` })
    .min(min, { error: `expected a whole number, at least ${min}` });
const int = (min: number, fallback: number) => wholeNumber(min).default(fallback);
/** A TCP port: 1–65535, or 0 for any free port (what tests use). */
const PORT_EXPECTED = 'expected a port number, 1 to 65535 (or 0 for any free port)';
const port = (fallback: number) =>
  z.coerce
    .number({ error: PORT_EXPECTED })
    .int({ error: PORT_EXPECTED })
    .min(0, { error: PORT_EXPECTED })
    .max(65_535, { error: PORT_EXPECTED })
    .default(fallback);
/** Days, fractions allowed (0.5 is twelve hours). */
const days = (fallback: number) =>
  z.coerce
    .number({ error: 'expected a number of days (0 or more)' })
    .min(0, { error: 'expected a number of days (0 or more)' })
    .default(fallback);
const optionalText = z.string().trim().min(1).optional();
const flag = z
  .enum(['true', 'false', '1', '0'])
  .default('false')
  .transform((v) => v === 'true' || v === '1');
const addressList = z
  .string()
  .default('')
  .transform((v) =>
    v
      .split(',')
      .map((a) => a.trim().toLowerCase())
      .filter((a) => a.length > 0),
  )
  .pipe(z.array(z.email({ message: 'each entry must be an e-mail address' })));

/** Comma-separated host:port entries, checked here and parsed again by redisTopologyOf. */
function hostPorts(defaultPort: number) {
  return z
    .string()
    .optional()
    .superRefine((value, ctx) => {
      if (value === undefined) return;
      try {
        parseHostPorts(value, defaultPort);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: err instanceof Error ? err.message : String(err) });
      }
    });
}

const schema = z.object({
  /**
   * Where Redis is (src/redis/topology.ts), one of: REDIS_URL, one server; REDIS_SENTINELS, the
   * primary the Sentinels name; REDIS_CLUSTER_NODES, a Redis Cluster. None of them → `start`
   * runs a private redis-server.
   */
  REDIS_URL: z.url({ protocol: /^rediss?$/, message: 'must be a redis:// or rediss:// URL' }).optional(),
  /** Sentinels as host:port, comma-separated (port 26379 when left out), and the master group name they monitor. */
  REDIS_SENTINELS: hostPorts(SENTINEL_DEFAULT_PORT),
  REDIS_SENTINEL_MASTER: optionalText,
  /**
   * Redis Cluster nodes as host:port, comma-separated (port 6379 when left out): a managed
   * cluster's endpoint or some of its nodes; the client learns the rest. REDIS_PREFIX must then
   * carry a hash tag (the gateway lives in the tag's one slot).
   */
  REDIS_CLUSTER_NODES: hostPorts(CLUSTER_DEFAULT_PORT),
  /** With REDIS_SENTINELS or REDIS_CLUSTER_NODES: the data nodes' credentials (a REDIS_URL carries its own), and the Sentinels'. */
  REDIS_USERNAME: optionalText,
  REDIS_PASSWORD: optionalText,
  REDIS_SENTINEL_USERNAME: optionalText,
  REDIS_SENTINEL_PASSWORD: optionalText,
  /** TLS to the data nodes (REDIS_TLS, with REDIS_SENTINELS or REDIS_CLUSTER_NODES) and to the Sentinels (REDIS_SENTINEL_TLS); a REDIS_URL says rediss://. */
  REDIS_TLS: flag,
  REDIS_SENTINEL_TLS: flag,
  /** The CA that signs Redis's (and the Sentinels') certificates; unset: the system's CAs. */
  REDIS_TLS_CA_FILE: optionalText,
  /**
   * Replicas that must hold an intake's record and job before the client is told 250, and the
   * worker's checkpoints before its next Sender API call (Redis WAIT); fewer → 451 4.3.0, the job
   * waits. 0: the primary's word alone.
   */
  REDIS_REPLICAS_ACK: int(0, 0),
  /** How long a role waits for Redis at start before it gives up with a message. */
  REDIS_START_TIMEOUT_MS: int(100, 15_000),
  /** Key prefix for every key the gateway writes (BullMQ prefix too). Its hash tag puts every key in one Redis Cluster slot. */
  REDIS_PREFIX: z
    .string()
    .regex(/^[^\s:]+$/, 'no spaces or colons')
    .default('{letter-intake}'),
  /** Listener bind address, port and the name announced in the greeting. */
  SMTP_HOST: z.string().default('0.0.0.0'),
  SMTP_PORT: port(2525),
  SMTP_HOSTNAME: z.string().default(hostname()),
  /** Connections the listener serves at once, in all and per client IP. */
  SMTP_MAX_CLIENTS: int(1, 500),
  SMTP_MAX_CLIENTS_PER_IP: int(1, 20),
  /** Idle time before a client is dropped (RFC 5321 §4.5.3.2 suggests minutes). */
  SMTP_SOCKET_TIMEOUT_MS: int(1000, 60_000),
  /** RFC 5321 §4.5.3.2.6: DATA must be complete within this (10 min), however busy the client keeps it; past it 421 4.4.2. */
  SMTP_DATA_TIMEOUT_MS: int(1000, 600_000),
  /** A whole session ends after this, busy or not (a trickling client holds a slot and memory); past it 421 4.4.2. */
  SMTP_SESSION_TIMEOUT_MS: int(1000, 1_800_000),
  /** Time open sessions get on shutdown before they are told 421. */
  SMTP_CLOSE_TIMEOUT_MS: int(0, 30_000),
  /** What all messages in flight may hold in the listener's memory together; past it 452 4.3.1. */
  SMTP_MEMORY_BUDGET_BYTES: int(MiB, 128 * MiB),
  /** Listener processes sharing SMTP_PORT (`start` and `smtp`); unset: one per core, one for the demo. Each gets budget ÷ N. */
  SMTP_PROCESSES: wholeNumber(1).max(256, { error: 'expected a whole number, 1 to 256' }).optional(),
  /** Expect a PROXY protocol header (behind a TCP load balancer). */
  SMTP_USE_PROXY: flag,
  /** Comma-separated processing addresses; RCPT TO anything else is 550 5.1.1. */
  INBOUND_ADDRESSES: addressList,
  /** The self-test address (unset: selftest@ the first processing address's domain; `none`: no self-test). */
  SELFTEST_ADDRESS: z.union([z.literal('none'), z.email({ message: 'must be an e-mail address, or none' })]).optional(),
  /** The sender directory (JSON). */
  SENDERS_FILE: optionalText,
  /** Base address of the Sender API; unset → `start` serves the sandbox in-process. */
  SENDER_API_URL: z.url({ protocol: /^https?$/, message: 'must be an https:// (or loopback http://) URL' }).optional(),
  /** Time-out for one Sender API request. */
  SENDER_API_TIMEOUT_MS: int(100, 30_000),
  /** The Sender API circuit: calls in the last minute before most of them failing opens it, and how often it then lets one real call try. */
  API_CIRCUIT_MIN_CALLS: int(1, 5),
  API_CIRCUIT_PROBE_INTERVAL_MS: int(50, 5000),
  /** An open circuit repeats its ApiOutage alert, saying how long and what the last trial got, this often. */
  API_CIRCUIT_MAX_HOLD_MS: int(1000, 30 * 60_000),
  /**
   * Limits of the real Sender API that its contract does not state, when an operator knows them
   * (unset: none). They become rules of the message's own policy: the SMTP session refuses a
   * message over them before 250, and the worker agrees.
   */
  API_TITLE_MAX_CHARS: z.coerce.number().int().min(1).optional(),
  API_MAX_PARTS: z.coerce.number().int().min(1).optional(),
  /** Static DNS answers instead of live DNS (tests, offline runs). */
  DNS_ZONE_FILE: optionalText,
  /** Time-out for one DNS query (live resolver), tries per query. */
  DNS_TIMEOUT_MS: int(100, 3000),
  DNS_TRIES: int(1, 2),
  /** Message cap: a 10 MiB PDF in base64 plus headers and body. */
  MAX_MESSAGE_BYTES: int(1024, 15 * MiB),
  /** Cap on each decoded PDF. */
  MAX_PDF_BYTES: int(1, 10 * MiB),
  /** Deep PDF checks in the worker: `strict` opens every PDF in a checker thread; `off` judges type, name and first bytes only. */
  PDF_CHECKS: z.enum(['strict', 'off']).default('strict'),
  /** Checker threads per worker process, and the bounds on reading one PDF (past one: PdfDamaged, too complex). */
  PDF_CHECK_THREADS: int(1, 2),
  PDF_CHECK_TIMEOUT_MS: int(100, 10_000),
  PDF_CHECK_MEMORY_MB: int(32, 256),
  /** Bound on storing + queueing before the client is told 451 4.3.0. */
  ENQUEUE_TIMEOUT_MS: int(100, 5000),
  /**
   * `on`: acceptances that finish together share the file raw store's directory fsync and one
   * Redis round trip per step (records, jobs, states); `off` (default): each commits alone.
   */
  GROUP_COMMIT: z.enum(['on', 'off']).default('off'),
  /** Longest an acceptance waits for the group commit running before its own starts beside it. */
  GROUP_COMMIT_MAX_WAIT_MS: int(1, 2),
  /** Acceptances served by one group commit at most. */
  GROUP_COMMIT_MAX: int(1, 32),
  /** Bound on the authentication decision after the end of DATA (DNS for SPF and DKIM) → 451 4.7.0. */
  AUTH_TIMEOUT_MS: int(100, 30_000),
  /** Jobs one worker process runs at once. */
  WORKER_CONCURRENCY: int(1, 4),
  /** Attempts per intake before it ends `failed` (12 attempts span about 20 minutes of outage). */
  WORKER_ATTEMPTS: int(1, 12),
  /** First retry delay and the cap on any retry delay (doubling, with jitter). */
  WORKER_BACKOFF_BASE_MS: int(10, 1000),
  WORKER_BACKOFF_CAP_MS: int(10, 300_000),
  /** Job lock; a worker that stops renewing it (crash, blocked loop) loses the job after this. */
  WORKER_LOCK_MS: int(1000, 60_000),
  /** How long shutdown waits for active jobs before leaving them to another worker. */
  WORKER_CLOSE_TIMEOUT_MS: int(0, 30_000),
  /** How often each worker sweeps for unfinished intakes whose job no longer runs (and once at start). */
  WORKER_SWEEP_INTERVAL_MS: int(100, 30_000),
  /** An intake queued or processing for longer than this with no live job is failed (unset: 3 × WORKER_LOCK_MS). */
  WORKER_SWEEP_AGE_MS: wholeNumber(100).optional(),
  /** How often each worker looks whether its queue consumer still takes jobs; one that took none between two looks while jobs waited and it had room is started again. */
  WORKER_FETCH_WATCH_MS: int(1000, 30_000),
  /** What each record of messages refused in the session (rules; authentication) may cost in Redis, its per-network counts included; past it the oldest go. */
  REFUSED_MAX_BYTES: int(64 * 1024, 16 * MiB),
  /** Distinct keys (client network × check × From domain × reply) counted per day of refusals; the rest count in the day's "other" row. */
  REFUSAL_COUNT_KEYS: int(1, 500),
  /** Days an ended intake's record is kept: at least RAW_RETENTION_DAYS, and at least a day (its notice must find it). */
  RECORD_RETENTION_DAYS: days(90),
  /** Ops HTTP port and the dashboard's login (admin routes are off without a password). */
  OPS_HTTP_HOST: z.string().default('0.0.0.0'),
  OPS_HTTP_PORT: port(8080),
  /**
   * Proxies in front of ops HTTP whose X-Forwarded-For is believed (comma-separated addresses or
   * CIDR ranges): failed admin logins are then limited per client address, else per user name.
   */
  OPS_HTTP_TRUSTED_PROXIES: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((a) => a.trim())
        .filter((a) => a.length > 0),
    )
    .pipe(z.array(z.union([z.ipv4(), z.ipv6(), z.cidrv4(), z.cidrv6()], { message: 'each entry must be an IP address or a CIDR range' }))),
  DASHBOARD_USER: z.string().min(1).default('admin'),
  /** The sender portal's listener (it faces senders; the ops server does not). */
  PORTAL_HOST: z.string().default('0.0.0.0'),
  PORTAL_PORT: port(8081),
  /** The portal's address as senders reach it, the base of set-password links (unset: http://127.0.0.1:PORTAL_PORT). */
  PORTAL_PUBLIC_URL: z.url({ protocol: /^https?$/, message: 'must be an http:// or https:// URL' }).optional(),
  DASHBOARD_PASSWORD: optionalText,
  /** STARTTLS key and certificate; both or neither. Without them STARTTLS is not offered. */
  TLS_KEY_FILE: optionalText,
  TLS_CERT_FILE: optionalText,
  /** Days raw mail is kept after its intake ended (shorter than RECORD_RETENTION_DAYS, by more than RAW_STORE_SWEEP_INTERVAL_MS). */
  RAW_RETENTION_DAYS: days(7),
  /** Port of the sandbox Sender API. */
  SANDBOX_HOST: z.string().default('127.0.0.1'),
  SANDBOX_PORT: port(8090),
  /** Where the contract leaves a choice open, how the sandbox answers (src/sandbox/contract-mode.ts). */
  SANDBOX_CONTRACT_MODE: z.enum(CONTRACT_MODES).default('ours'),
  /** Replaced by SANDBOX_CONTRACT_MODE: refused, so that a leftover setting is not silently ignored. */
  SANDBOX_STRICT_CONTRACT: z
    .string()
    .optional()
    .refine((v) => v === undefined, 'is replaced by SANDBOX_CONTRACT_MODE (ours, strict, foreign or foreign-list)'),
  /** Directory for the embedded redis-server's data (`start` without REDIS_URL). */
  DATA_DIR: z.string().default('.data'),
  /**
   * Where raw messages live: file:///dir or s3://bucket/prefix; unset → file://$DATA_DIR/raw.
   * For s3 the AWS SDK reads its own standard variables (AWS_REGION, credentials,
   * AWS_ENDPOINT_URL_S3, AWS_REQUEST_CHECKSUM_CALCULATION, ...): the one place besides this file
   * that looks at the environment, on purpose, so that S3 is configured as everywhere else.
   */
  RAW_STORE_URL: z
    .string()
    .optional()
    .superRefine((value, ctx) => {
      if (value === undefined) return;
      try {
        parseRawStoreUrl(value);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: err instanceof Error ? err.message : String(err) });
      }
    }),
  /** Address buckets in the path (http://host/bucket/key), as many S3-compatible stores need. */
  RAW_STORE_S3_PATH_STYLE: flag,
  /** A blob no record points at is deleted once it is this old (longer than any acceptance). */
  RAW_STORE_ORPHAN_AFTER_MS: int(60_000, 3_600_000),
  /** How often the worker role sweeps orphans and deletes raw mail past its retention. */
  RAW_STORE_SWEEP_INTERVAL_MS: int(1000, 600_000),
  /** Outbound relay for notices to senders; unset → notices are recorded, not sent. */
  NOTICE_SMTP_URL: z.url({ protocol: /^smtps?$/, message: 'must be an smtp:// or smtps://user:pass@ URL' }).optional(),
  /** From address of notices; unset → postmaster@SMTP_HOSTNAME. */
  NOTICE_FROM: z.email().optional(),
  /** Attempts per notice before it is recorded failed (exponential backoff from 1 s: about 4 minutes for 8). */
  NOTICE_ATTEMPTS: int(1, 8),
  /** Bound on connecting to the relay and on each of its replies. */
  NOTICE_TIMEOUT_MS: int(100, 30_000),
  ...PRIVACY_VARIABLES,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `on`: the replacements of dependencies' internals in src/fast-paths; `off`: the stock libraries (docs/design.md §18). */
  FAST_PATHS: z.enum(['on', 'off']).default('on'),
});

type Parsed = z.infer<typeof schema>;

/** Every variable the configuration reads: the schema's own names (config-unknown.ts names the others). */
export const KNOWN_VARIABLES: readonly string[] = Object.freeze(Object.keys(schema.shape));

export interface Config {
  /** Where Redis is; undefined: `start` embeds its own redis-server (no other role runs without one). */
  readonly redisTopology: RedisTopology | undefined;
  readonly redisPrefix: string;
  readonly redisStartTimeoutMs: number;
  /** Replicas that acknowledge a write before it counts (REDIS_REPLICAS_ACK); 0: none waited for. */
  readonly redisReplicasAck: number;
  readonly smtp: {
    readonly host: string;
    readonly port: number;
    readonly hostname: string;
    readonly maxClients: number;
    readonly maxClientsPerIp: number;
    readonly socketTimeoutMs: number;
    readonly dataTimeoutMs: number;
    readonly sessionTimeoutMs: number;
    readonly closeTimeoutMs: number;
    readonly useProxy: boolean;
    readonly memoryBudgetBytes: number;
    /** SMTP_PROCESSES; undefined: the role's default (one per core; one for the demo). */
    readonly processes: number | undefined;
    readonly tls: { readonly keyFile: string; readonly certFile: string } | undefined;
  };
  readonly inboundAddresses: readonly string[];
  /** Mail to it is a self-test, never a letter (docs/sender-policy.md); undefined: off. */
  readonly selfTestAddress: string | undefined;
  readonly sendersFile: string | undefined;
  readonly senderApiUrl: string | undefined;
  readonly senderApiTimeoutMs: number;
  readonly apiCircuit: { readonly minCalls: number; readonly probeIntervalMs: number; readonly maxHoldMs: number };
  /** The real API's own limits, when known (API_TITLE_MAX_CHARS, API_MAX_PARTS); undefined: none. */
  readonly apiLimits: { readonly titleMaxChars: number | undefined; readonly maxParts: number | undefined };
  readonly dns: { readonly zoneFile: string | undefined; readonly timeoutMs: number; readonly tries: number };
  readonly maxMessageBytes: number;
  readonly maxPdfBytes: number;
  readonly pdfChecks: {
    readonly mode: 'strict' | 'off';
    readonly threads: number;
    readonly timeoutMs: number;
    readonly memoryMb: number;
  };
  readonly enqueueTimeoutMs: number;
  readonly authTimeoutMs: number;
  readonly worker: {
    readonly concurrency: number;
    readonly attempts: number;
    readonly backoffBaseMs: number;
    readonly backoffCapMs: number;
    readonly lockMs: number;
    readonly closeTimeoutMs: number;
    readonly sweepIntervalMs: number;
    readonly sweepAgeMs: number;
    readonly fetchWatchMs: number;
  };
  readonly opsHttp: {
    readonly host: string;
    readonly port: number;
    readonly trustedProxies: readonly string[];
    readonly dashboardUser: string;
    readonly dashboardPassword: string | undefined;
  };
  readonly portal: { readonly host: string; readonly port: number; readonly publicUrl: string | undefined };
  readonly rawRetentionMs: number;
  readonly recordRetentionMs: number;
  readonly refusedMaxBytes: number;
  readonly refusalCountKeys: number;
  readonly sandbox: { readonly host: string; readonly port: number; readonly contractMode: ContractMode };
  readonly dataDir: string;
  /** GROUP_COMMIT=on: its bounds; off: undefined, every acceptance commits alone. */
  readonly groupCommit: { readonly maxWaitMs: number; readonly max: number } | undefined;
  readonly rawStore: {
    /** RAW_STORE_URL as given, or the default under DATA_DIR. */
    readonly url: string;
    readonly location: RawStoreLocation;
    readonly s3PathStyle: boolean;
    readonly orphanAfterMs: number;
    readonly sweepIntervalMs: number;
  };
  readonly notices: {
    readonly smtpUrl: string | undefined;
    readonly from: string;
    readonly attempts: number;
    readonly timeoutMs: number;
  };
  /** The malware scan, MTA-STS, encryption at rest (privacy-settings.ts). */
  readonly privacy: PrivacySettings;
  readonly logLevel: Parsed['LOG_LEVEL'];
  /** FAST_PATHS=on: src/fast-paths replaces dependencies' internals; false: the stock libraries. */
  readonly fastPaths: boolean;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Parses the environment; throws a ConfigError naming every bad variable. */
export function loadConfig(env: Env): Config {
  // An empty variable means "unset", as in most shells' `VAR= cmd`.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const renamed = renamedVariablesIn(present);
  if (renamed.length > 0) throw new ConfigError(`invalid configuration:\n${renamed.map((line) => `  ${line}`).join('\n')}`);
  const result = schema.safeParse(present);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const e = result.data;
  if ((e.TLS_KEY_FILE === undefined) !== (e.TLS_CERT_FILE === undefined)) {
    throw new ConfigError('invalid configuration:\n  TLS_KEY_FILE, TLS_CERT_FILE: set both or neither');
  }
  const retentionProblem = retentionProblemOf(e);
  if (retentionProblem !== undefined) throw new ConfigError(`invalid configuration:\n  ${retentionProblem}`);
  const deadlineProblem = sessionDeadlineProblemOf(e);
  if (deadlineProblem !== undefined) throw new ConfigError(`invalid configuration:\n  ${deadlineProblem}`);
  const privacy = privacySection(e);
  if (typeof privacy === 'string') throw new ConfigError(`invalid configuration:\n  ${privacy}`);
  const topology = redisTopologyOf(e);
  if (typeof topology === 'string') throw new ConfigError(`invalid configuration:\n  ${topology}`);
  return deepFreeze({
    redisTopology: topology,
    redisPrefix: e.REDIS_PREFIX,
    redisStartTimeoutMs: e.REDIS_START_TIMEOUT_MS,
    redisReplicasAck: e.REDIS_REPLICAS_ACK,
    smtp: {
      host: e.SMTP_HOST,
      port: e.SMTP_PORT,
      hostname: e.SMTP_HOSTNAME,
      maxClients: e.SMTP_MAX_CLIENTS,
      maxClientsPerIp: e.SMTP_MAX_CLIENTS_PER_IP,
      socketTimeoutMs: e.SMTP_SOCKET_TIMEOUT_MS,
      dataTimeoutMs: e.SMTP_DATA_TIMEOUT_MS,
      sessionTimeoutMs: e.SMTP_SESSION_TIMEOUT_MS,
      closeTimeoutMs: e.SMTP_CLOSE_TIMEOUT_MS,
      useProxy: e.SMTP_USE_PROXY,
      memoryBudgetBytes: e.SMTP_MEMORY_BUDGET_BYTES,
      processes: e.SMTP_PROCESSES,
      tls:
        e.TLS_KEY_FILE !== undefined && e.TLS_CERT_FILE !== undefined ? { keyFile: e.TLS_KEY_FILE, certFile: e.TLS_CERT_FILE } : undefined,
    },
    inboundAddresses: e.INBOUND_ADDRESSES,
    selfTestAddress: selfTestAddressOf(e.SELFTEST_ADDRESS, e.INBOUND_ADDRESSES),
    sendersFile: e.SENDERS_FILE,
    senderApiUrl: e.SENDER_API_URL,
    senderApiTimeoutMs: e.SENDER_API_TIMEOUT_MS,
    apiCircuit: {
      minCalls: e.API_CIRCUIT_MIN_CALLS,
      probeIntervalMs: e.API_CIRCUIT_PROBE_INTERVAL_MS,
      maxHoldMs: e.API_CIRCUIT_MAX_HOLD_MS,
    },
    apiLimits: { titleMaxChars: e.API_TITLE_MAX_CHARS, maxParts: e.API_MAX_PARTS },
    dns: { zoneFile: e.DNS_ZONE_FILE, timeoutMs: e.DNS_TIMEOUT_MS, tries: e.DNS_TRIES },
    maxMessageBytes: e.MAX_MESSAGE_BYTES,
    maxPdfBytes: e.MAX_PDF_BYTES,
    pdfChecks: { mode: e.PDF_CHECKS, threads: e.PDF_CHECK_THREADS, timeoutMs: e.PDF_CHECK_TIMEOUT_MS, memoryMb: e.PDF_CHECK_MEMORY_MB },
    enqueueTimeoutMs: e.ENQUEUE_TIMEOUT_MS,
    groupCommit: e.GROUP_COMMIT === 'on' ? { maxWaitMs: e.GROUP_COMMIT_MAX_WAIT_MS, max: e.GROUP_COMMIT_MAX } : undefined,
    authTimeoutMs: e.AUTH_TIMEOUT_MS,
    worker: {
      concurrency: e.WORKER_CONCURRENCY,
      attempts: e.WORKER_ATTEMPTS,
      backoffBaseMs: e.WORKER_BACKOFF_BASE_MS,
      backoffCapMs: e.WORKER_BACKOFF_CAP_MS,
      lockMs: e.WORKER_LOCK_MS,
      closeTimeoutMs: e.WORKER_CLOSE_TIMEOUT_MS,
      sweepIntervalMs: e.WORKER_SWEEP_INTERVAL_MS,
      sweepAgeMs: e.WORKER_SWEEP_AGE_MS ?? 3 * e.WORKER_LOCK_MS,
      fetchWatchMs: e.WORKER_FETCH_WATCH_MS,
    },
    opsHttp: {
      host: e.OPS_HTTP_HOST,
      port: e.OPS_HTTP_PORT,
      trustedProxies: e.OPS_HTTP_TRUSTED_PROXIES,
      dashboardUser: e.DASHBOARD_USER,
      dashboardPassword: e.DASHBOARD_PASSWORD,
    },
    portal: { host: e.PORTAL_HOST, port: e.PORTAL_PORT, publicUrl: e.PORTAL_PUBLIC_URL?.replace(/\/+$/, '') },
    rawRetentionMs: e.RAW_RETENTION_DAYS * DAY_MS,
    recordRetentionMs: e.RECORD_RETENTION_DAYS * DAY_MS,
    refusedMaxBytes: e.REFUSED_MAX_BYTES,
    refusalCountKeys: e.REFUSAL_COUNT_KEYS,
    sandbox: { host: e.SANDBOX_HOST, port: e.SANDBOX_PORT, contractMode: e.SANDBOX_CONTRACT_MODE },
    dataDir: e.DATA_DIR,
    rawStore: rawStoreSection(e),
    notices: {
      smtpUrl: e.NOTICE_SMTP_URL,
      from: e.NOTICE_FROM ?? `postmaster@${e.SMTP_HOSTNAME}`,
      attempts: e.NOTICE_ATTEMPTS,
      timeoutMs: e.NOTICE_TIMEOUT_MS,
    },
    privacy,
    logLevel: e.LOG_LEVEL,
    fastPaths: e.FAST_PATHS === 'on',
  });
}

/** The variables that only a Sentinel topology reads. */
const SENTINEL_ONLY = ['REDIS_SENTINEL_MASTER', 'REDIS_SENTINEL_USERNAME', 'REDIS_SENTINEL_PASSWORD', 'REDIS_SENTINEL_TLS'] as const;

/** The data nodes' credentials and TLS, read by a Sentinel or a cluster topology (a REDIS_URL carries its own). */
const NODE_OPTIONS = ['REDIS_USERNAME', 'REDIS_PASSWORD', 'REDIS_TLS'] as const;

function strayOf(e: Parsed, names: readonly (keyof Parsed)[]): (keyof Parsed)[] {
  return names.filter((name) => e[name] !== undefined && e[name] !== false);
}

/**
 * The one Redis topology the variables describe (undefined: none, `start` embeds Redis), or the
 * problem, naming the variables. A variable that would be ignored is refused, not ignored.
 */
function redisTopologyOf(e: Parsed): RedisTopology | undefined | string {
  const chosen = TOPOLOGY_VARIABLES.filter((name) => e[name] !== undefined);
  if (chosen.length > 1) return `${chosen.join(', ')}: set one of them, not ${chosen.length} (each names where Redis is)`;
  const caFile = e.REDIS_TLS_CA_FILE;
  if (e.REDIS_SENTINELS === undefined) {
    const stray = strayOf(e, SENTINEL_ONLY);
    if (stray.length > 0) return `${stray.join(', ')}: only read with REDIS_SENTINELS`;
    const strayNode = e.REDIS_CLUSTER_NODES === undefined ? strayOf(e, NODE_OPTIONS) : [];
    if (strayNode.length > 0) {
      return `${strayNode.join(', ')}: only read with REDIS_SENTINELS or REDIS_CLUSTER_NODES (a REDIS_URL carries its own credentials, and rediss:// means TLS)`;
    }
  }
  if (e.REDIS_URL !== undefined) {
    const tls = e.REDIS_URL.startsWith('rediss:');
    if (caFile !== undefined && !tls) return 'REDIS_TLS_CA_FILE: only read with a rediss:// REDIS_URL (redis:// is plain TCP)';
    return { kind: 'standalone', url: e.REDIS_URL, tls: tls && caFile !== undefined ? { caFile } : undefined };
  }
  if (e.REDIS_SENTINELS !== undefined) {
    if (e.REDIS_SENTINEL_MASTER === undefined)
      return 'REDIS_SENTINEL_MASTER: required with REDIS_SENTINELS (the master group name the Sentinels monitor)';
    if (caFile !== undefined && !e.REDIS_TLS && !e.REDIS_SENTINEL_TLS) {
      return 'REDIS_TLS_CA_FILE: only read with REDIS_TLS or REDIS_SENTINEL_TLS';
    }
    const tls: RedisTls = { caFile };
    return {
      kind: 'sentinel',
      sentinels: parseHostPorts(e.REDIS_SENTINELS, SENTINEL_DEFAULT_PORT),
      masterName: e.REDIS_SENTINEL_MASTER,
      username: e.REDIS_USERNAME,
      password: e.REDIS_PASSWORD,
      sentinelUsername: e.REDIS_SENTINEL_USERNAME,
      sentinelPassword: e.REDIS_SENTINEL_PASSWORD,
      tls: e.REDIS_TLS ? tls : undefined,
      sentinelTls: e.REDIS_SENTINEL_TLS ? tls : undefined,
    };
  }
  if (e.REDIS_CLUSTER_NODES !== undefined) {
    // Without a hash tag the gateway's keys would spread over the slots, and neither BullMQ's
    // scripts nor the project's own can touch keys in two slots at once.
    if (hashTagOf(e.REDIS_PREFIX) === undefined) {
      return `REDIS_PREFIX: "${e.REDIS_PREFIX}" has no hash tag; with REDIS_CLUSTER_NODES it must have one, e.g. "{${e.REDIS_PREFIX.replace(/[{}]/g, '')}}", so every key lands in one slot`;
    }
    if (caFile !== undefined && !e.REDIS_TLS) return 'REDIS_TLS_CA_FILE: only read with REDIS_TLS';
    return {
      kind: 'cluster',
      nodes: parseHostPorts(e.REDIS_CLUSTER_NODES, CLUSTER_DEFAULT_PORT),
      username: e.REDIS_USERNAME,
      password: e.REDIS_PASSWORD,
      tls: e.REDIS_TLS ? { caFile } : undefined,
    };
  }
  if (caFile !== undefined) return 'REDIS_TLS_CA_FILE: only read with a rediss:// REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES';
  if (e.REDIS_REPLICAS_ACK > 0) {
    return `REDIS_REPLICAS_ACK: the embedded redis-server has no replicas; set ${TOPOLOGY_VARIABLES.join(' or ')} to a Redis that has`;
  }
  return undefined;
}

/**
 * The sweep deletes unfinished raw-store writes older than RAW_STORE_ORPHAN_AFTER_MS: no session may
 * write for that long. A message whose DATA ended is answered before the session deadline ends the
 * session, so its write may go on for the bounds after the end of DATA (authentication, the MIME
 * walk, storing) past that deadline.
 */
function sessionDeadlineProblemOf(e: Parsed): string | undefined {
  for (const name of ['SMTP_DATA_TIMEOUT_MS', 'SMTP_SESSION_TIMEOUT_MS'] as const) {
    if (e[name] >= e.RAW_STORE_ORPHAN_AFTER_MS) {
      return `${name}: must be shorter than RAW_STORE_ORPHAN_AFTER_MS (${e.RAW_STORE_ORPHAN_AFTER_MS}): the raw-store sweep deletes unfinished writes older than that`;
    }
  }
  const longestWriteMs = e.SMTP_SESSION_TIMEOUT_MS + e.AUTH_TIMEOUT_MS + WALK_SETTLE_MS + e.ENQUEUE_TIMEOUT_MS;
  if (longestWriteMs >= e.RAW_STORE_ORPHAN_AFTER_MS) {
    return `SMTP_SESSION_TIMEOUT_MS: with AUTH_TIMEOUT_MS, the MIME walk's ${WALK_SETTLE_MS} ms and ENQUEUE_TIMEOUT_MS after the end of DATA (${longestWriteMs} ms in all), must be shorter than RAW_STORE_ORPHAN_AFTER_MS (${e.RAW_STORE_ORPHAN_AFTER_MS}): the raw-store sweep deletes unfinished writes older than that`;
  }
  return undefined;
}

/** A record must outlive its notice, and raw mail must be gone before its record. */
function retentionProblemOf(e: Parsed): string | undefined {
  const minimumMs = minimumRecordRetentionMs({ attempts: e.NOTICE_ATTEMPTS, timeoutMs: e.NOTICE_TIMEOUT_MS });
  if (e.RECORD_RETENTION_DAYS * DAY_MS < minimumMs) {
    const days = Math.ceil((minimumMs / DAY_MS) * 100) / 100;
    return `RECORD_RETENTION_DAYS: must be at least ${days} so that a record outlives its notice (NOTICE_ATTEMPTS, NOTICE_TIMEOUT_MS and the abandoned-notice sweep's hour)`;
  }
  // A blob goes at the first housekeeping round after its retention; the record expires at its
  // own. A blob that outlives its record is unreferenced while accepted/ still names it: it would
  // be recovered as an intake Redis lost (an alert, and the ended record back), or queued again
  // while retention deletes its markers.
  if (e.RAW_RETENTION_DAYS * DAY_MS + e.RAW_STORE_SWEEP_INTERVAL_MS >= e.RECORD_RETENTION_DAYS * DAY_MS) {
    return `RAW_RETENTION_DAYS: must be shorter than RECORD_RETENTION_DAYS (${e.RECORD_RETENTION_DAYS}) by more than RAW_STORE_SWEEP_INTERVAL_MS (${e.RAW_STORE_SWEEP_INTERVAL_MS} ms): raw mail must be gone before its record, or the housekeeping takes it for an intake Redis lost`;
  }
  return undefined;
}

function rawStoreSection(e: Parsed): Config['rawStore'] {
  const url = e.RAW_STORE_URL ?? pathToFileURL(resolve(e.DATA_DIR, 'raw')).href;
  return {
    url,
    location: parseRawStoreUrl(url),
    s3PathStyle: e.RAW_STORE_S3_PATH_STYLE,
    orphanAfterMs: e.RAW_STORE_ORPHAN_AFTER_MS,
    sweepIntervalMs: e.RAW_STORE_SWEEP_INTERVAL_MS,
  };
}

function deepFreeze<T extends object>(value: T): T {
  for (const child of Object.values(value)) {
    if (child !== null && typeof child === 'object') deepFreeze(child);
  }
  return Object.freeze(value);
}

/** SELFTEST_ADDRESS, or selftest@ the first processing address's domain; `none` (or no processing address): off. */
function selfTestAddressOf(given: string | undefined, inbound: readonly string[]): string | undefined {
  if (given === 'none') return undefined;
  if (given !== undefined) return given.toLowerCase();
  const domain = inbound[0]?.split('@').pop();
  return domain === undefined ? undefined : `selftest@${domain}`;
}
