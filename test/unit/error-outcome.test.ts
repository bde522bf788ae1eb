// Each error a run of an intake's job can meet against the Outcome it comes to, what the intake
// record is moved to, and whether an operator is alerted. The rows hold the fates the worker had
// before its outcomes were values; a row marked CHANGED names a fate that differs on purpose.
// Fakes stand in only for what the function touches: the final transition, the notice, the alert.
import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { OwnershipLost, ReplicasBehind, UnknownLetterStatus } from '../../src/errors.js';
import { silentObserver } from '../../src/intake/observer.js';
import type { IntakeJobData } from '../../src/intake/queue.js';
import type { IntakeRecord } from '../../src/intake/record.js';
import type { IntakeStore } from '../../src/intake/store.js';
import { createLogger } from '../../src/log.js';
import { PdfRecheckLater } from '../../src/pdf/checker-pool.js';
import { ApiHeld, type FailureKind, SenderApiError } from '../../src/sender-api/index.js';
import { outcomeOfError } from '../../src/worker/error-outcome.js';
import type { ProcessorDeps, Run } from '../../src/worker/run.js';

const NOW = 1_750_000_000_000;
const ATTEMPTS = 5;

const reply = (message: string) => Object.assign(new Error(message), { name: 'ReplyError' });
const apiError = (kind: FailureKind, statusCode: number, errorCode: string | undefined, retryAfterMs?: number) =>
  new SenderApiError({
    kind,
    endpoint: 'PUT /api/v1/letters/draft',
    statusCode,
    errorCode,
    traceId: undefined,
    retryAfterMs,
    apiMessage: undefined,
  });

interface Situation {
  /** 'middle': attempt 2 of 5; 'last': attempt 5 of 5. */
  readonly attempt?: 'middle' | 'last';
  /** The Sender API circuit is open (api-circuit.ts): the pause it asks for. */
  readonly circuitOpenMs?: number;
  /** Shutdown aborted the work. */
  readonly shuttingDown?: boolean;
  /** Earlier runs of the job that came back without spending an attempt. */
  readonly returns?: number;
}

/** What the run came to: the Outcome's kind, the state the record was moved to (with its code), the alerts. */
interface Fate {
  readonly kind: string;
  readonly recorded?: string;
  readonly alerts?: readonly string[];
  /** How long the job's Sender API was held for all of its calls (its Retry-After). */
  readonly apiHeldMs?: number;
}

function fakeRun(situation: Situation) {
  const recorded: string[] = [];
  const alerts: string[] = [];
  const holds: number[] = [];
  const store: Pick<IntakeStore, 'transitionAndRead'> = {
    async transitionAndRead(_id, _from, to, _now, update = {}) {
      recorded.push(`${to} ${update.errorCode ?? update.reasonCode ?? ''}`.trim());
      return { ok: true };
    },
  };
  const deps = {
    store,
    clock: () => NOW,
    logger: createLogger({ level: 'silent' }),
    observer: { ...silentObserver, operatorAlert: (code: string) => alerts.push(code) },
    notices: { onOutcome: async () => undefined },
    maxPdfBytes: 10 * 1024 * 1024,
    apiCircuit: (api: string) =>
      api === 'https://api.example'
        ? { pauseMsIfOpen: () => situation.circuitOpenMs, jobHoldMs: () => undefined, holdFor: (ms: number) => void holds.push(ms) }
        : undefined,
  };
  const attemptsMade = situation.attempt === 'last' ? ATTEMPTS - 1 : 1;
  const job = {
    attemptsMade,
    attemptsStarted: attemptsMade + 1 + (situation.returns ?? 0),
    stalledCounter: 0,
    opts: { attempts: ATTEMPTS },
  };
  const abort = new AbortController();
  if (situation.shuttingDown === true) abort.abort();
  const record = { intakeId: 'i-1', receivedAt: NOW - 1000, timeline: {}, senderId: 'sender-1' };
  // The fakes carry only what outcomeOfError reaches; the casts say so once, here.
  const run: Run = {
    deps: deps as unknown as ProcessorDeps,
    log: deps.logger,
    job: job as unknown as Job<IntakeJobData>,
    owner: { store: store as unknown as IntakeStore, intakeId: 'i-1', token: 'token-1' },
    record: record as unknown as IntakeRecord,
    abort: abort.signal,
    facts: {},
    apiBaseUrl: 'https://api.example',
  };
  return { run, recorded, alerts, holds };
}

async function fateOf(err: unknown, situation: Situation = {}): Promise<Fate> {
  const { run, recorded, alerts, holds } = fakeRun(situation);
  const outcome = await outcomeOfError(run, err);
  return {
    kind: outcome.kind,
    ...(recorded.length === 0 ? {} : { recorded: recorded.join(', ') }),
    ...(alerts.length === 0 ? {} : { alerts }),
    ...(holds.length === 0 ? {} : { apiHeldMs: Math.max(...holds) }),
  };
}

const TABLE: readonly (readonly [string, unknown, Situation, Fate])[] = [
  // Redis away or changing primaries: CHANGED from a retry (and `failed` WorkerError on the last attempt) to no attempt spent.
  ['READONLY from a demoted primary', reply("READONLY You can't write against a read only replica."), {}, { kind: 'redis-unavailable' }],
  [
    'READONLY on the last attempt',
    reply("READONLY You can't write against a read only replica."),
    { attempt: 'last' },
    { kind: 'redis-unavailable' },
  ],
  ['a Redis command time-out', new Error('Command timed out'), {}, { kind: 'redis-unavailable' }],
  // CHANGED as well: an error is taken for Redis's by its code, whoever threw it.
  [
    'ECONNRESET on an error of no Redis client',
    Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
    {},
    { kind: 'redis-unavailable' },
  ],
  // A Redis refusal no failover ends is not Redis being away: retried, then failed, as before.
  ['OOM from a full Redis', reply('OOM command not allowed when used memory > maxmemory'), {}, { kind: 'retry' }],
  [
    'a Lua runtime error on the last attempt',
    reply('ERR user_script:1: Script attempted to access nonexistent global variable'),
    { attempt: 'last' },
    { kind: 'failed', recorded: 'failed WorkerError' },
  ],
  // New with REDIS_REPLICAS_ACK: a checkpoint not on the replicas in time.
  [
    'ReplicasBehind at a checkpoint',
    new ReplicasBehind('0 of 1 replicas acknowledged the checkpoint within 800 ms'),
    {},
    { kind: 'replicas-behind' },
  ],
  ['PdfRecheckLater', new PdfRecheckLater(20_000), {}, { kind: 'pdf-recheck-later' }],
  ['PdfRecheckLater on the last attempt', new PdfRecheckLater(20_000), { attempt: 'last' }, { kind: 'pdf-recheck-later' }],
  ['OwnershipLost', new OwnershipLost('intake i-1 is no longer held by this job run'), {}, { kind: 'ownership-lost' }],
  ['any error while shutting down', new Error('aborted'), { shuttingDown: true, attempt: 'last' }, { kind: 'shutting-down' }],
  // The Sender API's answers, by kind.
  [
    'InvalidData to the draft (permanent)',
    apiError('permanent', 400, 'InvalidData'),
    {},
    { kind: 'rejected', recorded: 'rejected ApiRejected' },
  ],
  [
    'EntityNotFound (permanent, not about the letter)',
    apiError('permanent', 404, 'EntityNotFound'),
    {},
    { kind: 'failed', recorded: 'failed EntityNotFound', alerts: ['EntityNotFound'] },
  ],
  [
    'a permanent refusal with a Retry-After',
    apiError('permanent', 404, 'EntityNotFound', 30_000),
    {},
    { kind: 'failed', recorded: 'failed EntityNotFound', alerts: ['EntityNotFound'] },
  ],
  [
    'InvalidCredentials (operator)',
    apiError('operator', 401, 'InvalidCredentials'),
    {},
    { kind: 'failed', recorded: 'failed InvalidCredentials', alerts: ['InvalidCredentials'] },
  ],
  [
    'an operator error with a Retry-After',
    apiError('operator', 403, 'IpAddressUnauthorized', 30_000),
    {},
    { kind: 'failed', recorded: 'failed IpAddressUnauthorized', alerts: ['IpAddressUnauthorized'] },
  ],
  ['a 503 on a middle attempt (retryable)', apiError('retryable', 503, 'ServiceUnavailable'), {}, { kind: 'retry' }],
  [
    'a 503 on the last attempt',
    apiError('retryable', 503, 'ServiceUnavailable'),
    { attempt: 'last' },
    { kind: 'failed', recorded: 'failed ServiceUnavailable' },
  ],
  // The API asked for a pause: this job waits, and its API's calls are held until then.
  ['a 429 with a Retry-After', apiError('retryable', 429, 'TooManyRequests', 30_000), {}, { kind: 'rate-limited', apiHeldMs: 30_000 }],
  [
    'a 429 with a Retry-After on the last attempt',
    apiError('retryable', 429, 'TooManyRequests', 30_000),
    { attempt: 'last' },
    { kind: 'rate-limited', apiHeldMs: 30_000 },
  ],
  [
    'a 503 while the API circuit is open',
    apiError('retryable', 503, 'ServiceUnavailable'),
    { circuitOpenMs: 10_000 },
    { kind: 'api-outage' },
  ],
  [
    'a 503 on the last attempt while the circuit is open',
    apiError('retryable', 503, 'ServiceUnavailable'),
    { circuitOpenMs: 10_000, attempt: 'last' },
    { kind: 'api-outage' },
  ],
  // A status that proves neither a draft nor a submit: read again, then an operator's.
  ['UnknownLetterStatus on a middle attempt', new UnknownLetterStatus('L-1', 'Processing'), {}, { kind: 'retry' }],
  [
    'UnknownLetterStatus on the last attempt',
    new UnknownLetterStatus('L-1', 'Processing'),
    { attempt: 'last' },
    { kind: 'failed', recorded: 'failed UnknownLetterStatus', alerts: ['UnknownLetterStatus'] },
  ],
  // Held at the circuit's gate: never sent, so no attempt, even the last, and even once the circuit has closed meanwhile.
  [
    'a call held at the open circuit, on the last attempt',
    new ApiHeld('PUT /api/v1/letters/draft', 4000),
    { attempt: 'last' },
    { kind: 'api-outage' },
  ],
  // Anything else is a defect of ours: retried, and failed on the last attempt.
  ['a plain Error on a middle attempt', new TypeError("Cannot read properties of undefined (reading 'id')"), {}, { kind: 'retry' }],
  [
    'a plain Error on the last attempt',
    new TypeError("Cannot read properties of undefined (reading 'id')"),
    { attempt: 'last' },
    { kind: 'failed', recorded: 'failed WorkerError' },
  ],
];

describe('an error met while working on an intake', () => {
  it.each(TABLE)('%s comes to its fate', async (_name, err, situation, fate) => {
    expect(await fateOf(err, situation)).toEqual(fate);
  });
});

describe('how soon a job put back for Redis comes back', () => {
  // CHANGED: the wait doubles with each return without an attempt, up to 30 s: a failover is over
  // in seconds, and a job that came back a few times during one must not then wait minutes.
  const readonly = reply("READONLY You can't write against a read only replica.");
  const behind = new ReplicasBehind('0 of 1 replicas acknowledged the checkpoint within 800 ms');
  it.each([
    ['Redis away', 0, 2000, readonly],
    ['Redis away', 1, 4000, readonly],
    ['Redis away', 3, 16_000, readonly],
    ['Redis away', 4, 30_000, readonly],
    ['Redis away', 20, 30_000, readonly],
    ['the replicas behind', 0, 2000, behind],
    ['the replicas behind', 5, 30_000, behind],
  ])('%s after %i earlier returns: %i ms', async (_what, returns, retryInMs, err) => {
    const { run } = fakeRun({ returns });
    expect(await outcomeOfError(run, err)).toMatchObject({ retryInMs });
  });
});
