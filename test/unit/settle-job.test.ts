// Each Outcome of an intake's job against the one BullMQ action it becomes: complete with a
// result, fail for good, retry after the backoff, or come back later without spending an
// attempt (nothing holds the whole queue). The table is keyed by every Outcome kind (a new kind without a row
// does not compile).
import { DelayedError, UnrecoverableError } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { OwnershipLost } from '../../src/errors.js';
import type { Outcome } from '../../src/worker/outcome.js';
import { settleJob } from '../../src/worker/settle-job.js';

const NOW = 1_750_000_000_000;
const transient = new Error('connect ECONNREFUSED 127.0.0.1:6379');

/** What BullMQ is told: the value returned or the error thrown, and the job's moves. */
interface Action {
  readonly returns?: unknown;
  readonly throws?: { readonly type: unknown; readonly message: string };
  readonly delayedUntil?: number;
}

async function actionOf(outcome: Outcome): Promise<Action> {
  const moves: { delayedUntil?: number } = {};
  const control = {
    delayUntil: async (timestamp: number) => {
      moves.delayedUntil = timestamp;
    },
    now: () => NOW,
  };
  try {
    return { returns: await settleJob(outcome, control), ...moves };
  } catch (err) {
    if (!(err instanceof Error)) throw err;
    return { throws: { type: err.constructor, message: err.message }, ...moves };
  }
}

const TABLE: { readonly [K in Outcome['kind']]: readonly [Extract<Outcome, { kind: K }>, Action] } = {
  submitted: [{ kind: 'submitted', letterId: 'L-17' }, { returns: { outcome: 'submitted', letterId: 'L-17' } }],
  rejected: [{ kind: 'rejected', reasonCode: 'NoPdfAttachment' }, { returns: { outcome: 'rejected', reasonCode: 'NoPdfAttachment' } }],
  simulated: [{ kind: 'simulated' }, { returns: { outcome: 'simulated' } }],
  failed: [
    { kind: 'failed', reason: 'failed after 12 attempt(s): WorkerError' },
    { throws: { type: UnrecoverableError, message: 'failed after 12 attempt(s): WorkerError' } },
  ],
  'stale-job': [
    { kind: 'stale-job', reason: 'intake i-1 is queued, not submitted' },
    { throws: { type: UnrecoverableError, message: 'intake i-1 is queued, not submitted' } },
  ],
  retry: [{ kind: 'retry', error: transient }, { throws: { type: Error, message: 'connect ECONNREFUSED 127.0.0.1:6379' } }],
  'ownership-lost': [
    { kind: 'ownership-lost', reason: 'intake i-1 is no longer held by this job run' },
    { throws: { type: OwnershipLost, message: 'intake i-1 is no longer held by this job run' } },
  ],
  'notice-not-queued': [
    { kind: 'notice-not-queued', retryInMs: 5000, reason: 'the intake is submitted, but its notice could not be queued: OOM' },
    {
      throws: { type: DelayedError, message: 'the intake is submitted, but its notice could not be queued: OOM' },
      delayedUntil: NOW + 5000,
    },
  ],
  'storage-later': [
    { kind: 'storage-later', retryInMs: 1000, reason: 'letter L-17 is submitted, but recording it failed: READONLY' },
    {
      throws: { type: DelayedError, message: 'letter L-17 is submitted, but recording it failed: READONLY' },
      delayedUntil: NOW + 1000,
    },
  ],
  'end-not-marked': [
    { kind: 'end-not-marked', retryInMs: 5000, reason: 'the intake is submitted, but its ended marker could not be written: timeout' },
    {
      throws: { type: DelayedError, message: 'the intake is submitted, but its ended marker could not be written: timeout' },
      delayedUntil: NOW + 5000,
    },
  ],
  'pdf-recheck-later': [
    { kind: 'pdf-recheck-later', retryInMs: 20_000, reason: 'another PDF is being checked again alone' },
    { throws: { type: DelayedError, message: 'another PDF is being checked again alone' }, delayedUntil: NOW + 20_000 },
  ],
  'redis-unavailable': [
    { kind: 'redis-unavailable', retryInMs: 2000, reason: "Redis failover: READONLY You can't write against a read only replica." },
    {
      throws: { type: DelayedError, message: "Redis failover: READONLY You can't write against a read only replica." },
      delayedUntil: NOW + 2000,
    },
  ],
  'replicas-behind': [
    { kind: 'replicas-behind', retryInMs: 2000, reason: '0 of 1 replicas acknowledged the checkpoint within 5000 ms' },
    { throws: { type: DelayedError, message: '0 of 1 replicas acknowledged the checkpoint within 5000 ms' }, delayedUntil: NOW + 2000 },
  ],
  'scanner-unavailable': [
    { kind: 'scanner-unavailable', againInMs: 5000, reason: 'intake i-1 waits for clamd: clamd is unreachable' },
    { throws: { type: DelayedError, message: 'intake i-1 waits for clamd: clamd is unreachable' }, delayedUntil: NOW + 5000 },
  ],
  'shutting-down': [
    { kind: 'shutting-down', reason: 'intake i-1: the worker is shutting down' },
    { throws: { type: DelayedError, message: 'intake i-1: the worker is shutting down' }, delayedUntil: NOW },
  ],
  'rate-limited': [
    { kind: 'rate-limited', waitMs: 30_000 },
    // Only this job waits, as for an open circuit: the Sender API's own hold keeps its other jobs back.
    { throws: { type: DelayedError, message: 'the Sender API asked for a pause: back in 30000 ms' }, delayedUntil: NOW + 30_000 },
  ],
  'api-outage': [
    { kind: 'api-outage', waitMs: 10_000 },
    // Only this job waits: the circuit is one Sender API's, jobs for other APIs run on.
    {
      throws: { type: DelayedError, message: 'the Sender API is held (its circuit is open, or it asked for a pause): back in 10000 ms' },
      delayedUntil: NOW + 10_000,
    },
  ],
};

describe('an intake outcome as BullMQ sees it', () => {
  it.each(Object.entries(TABLE))('%s becomes its action', async (_kind, [outcome, action]) => {
    expect(await actionOf(outcome)).toEqual(action);
  });

  it('retries a transient failure with the very error it met, so the job shows its cause', async () => {
    await expect(settleJob({ kind: 'retry', error: transient }, { delayUntil: async () => {}, now: () => NOW })).rejects.toBe(transient);
  });
});
