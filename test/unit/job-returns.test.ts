// A job that comes back without spending an attempt: only for storage trouble (a claim Redis
// refused comes back; a claim that met a defect spends an attempt, so the last one fails the
// intake for an operator), and never in silence: past a few such returns an operator is alerted,
// once per job. The processor runs against a store whose claim throws; nothing else is reached.
import { Writable } from 'node:stream';
import { DelayedError, type Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { silentObserver } from '../../src/intake/observer.js';
import type { IntakeJobData } from '../../src/intake/queue.js';
import { createLogger } from '../../src/log.js';
import { alertIfLooping } from '../../src/worker/job-returns.js';
import { createProcessor } from '../../src/worker/processor.js';
import type { ProcessorDeps } from '../../src/worker/run.js';

const reply = (message: string) => Object.assign(new Error(message), { name: 'ReplyError' });

function processorWhoseClaimThrows(err: unknown) {
  const alerts: string[] = [];
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line));
      done();
    },
  });
  const deps = {
    store: {
      claim: async () => {
        throw err;
      },
    },
    clock: () => 1_750_000_000_000,
    logger: createLogger({ level: 'info', destination }),
    observer: { ...silentObserver, operatorAlert: (code: string) => alerts.push(code) },
  };
  // The fake carries only what a refused claim reaches; the cast says so once, here.
  const process = createProcessor(deps as unknown as ProcessorDeps);
  return { process, alerts, lines };
}

/** A job on attempt 2 of 5 that came back `returns` times before without spending an attempt. */
function fakeJob(returns: number) {
  const delayedUntil: number[] = [];
  const job = {
    id: 'i-1',
    data: { intakeId: 'i-1' },
    attemptsMade: 1,
    attemptsStarted: 2 + returns,
    stalledCounter: 0,
    opts: { attempts: 5 },
    moveToDelayed: async (timestamp: number) => {
      delayedUntil.push(timestamp);
    },
  };
  return { job: job as unknown as Job<IntakeJobData>, delayedUntil };
}

async function settled(run: Promise<unknown>): Promise<unknown> {
  try {
    return await run;
  } catch (err) {
    return err;
  }
}

describe('a claim that throws', () => {
  it.each([
    ['READONLY', reply("READONLY You can't write against a read only replica.")],
    ['NOREPLICAS', reply('NOREPLICAS Not enough good replicas to write.')],
    ['MASTERDOWN', reply('MASTERDOWN Link with MASTER is down and replica-serve-stale is set to no.')],
    ['OOM', reply('OOM command not allowed when used memory > maxmemory')],
    ['NOPERM', reply("NOPERM User gateway has no permissions to access the 'intake:record:i-1' key")],
    ['a lost connection', new Error('Connection is closed.')],
    ['a command time-out', new Error('Command timed out')],
  ])('comes back without spending an attempt for storage trouble: %s', async (_what, err) => {
    const { process } = processorWhoseClaimThrows(err);
    const { job, delayedUntil } = fakeJob(0);
    expect(await settled(process(job, 'token-1'))).toBeInstanceOf(DelayedError);
    expect(delayedUntil).toHaveLength(1);
  });

  it.each([
    ['a Lua runtime error', reply('ERR user_script:1: Script attempted to access nonexistent global variable')],
    ['a defect', new TypeError("Cannot read properties of undefined (reading 'state')")],
  ])('spends an attempt on anything else: %s', async (_what, err) => {
    const { process } = processorWhoseClaimThrows(err);
    const { job, delayedUntil } = fakeJob(0);
    expect(await settled(process(job, 'token-1'))).toBe(err);
    expect(delayedUntil).toEqual([]);
  });
});

describe('a claim Redis refuses while a failover lasts', () => {
  it('comes back within 30 s however often it came back before (a failover is over in seconds)', async () => {
    const { process } = processorWhoseClaimThrows(reply("READONLY You can't write against a read only replica."));
    const { job, delayedUntil } = fakeJob(10);
    const before = Date.now();
    await settled(process(job, 'token-1'));
    expect((delayedUntil[0] ?? Number.POSITIVE_INFINITY) - before).toBeLessThanOrEqual(30_000 + 1000);
  });

  it('waits longer for a refusal that is no failover (OOM): doubling up to 5 min', async () => {
    const { process } = processorWhoseClaimThrows(reply('OOM command not allowed when used memory > maxmemory'));
    const { job, delayedUntil } = fakeJob(10);
    const before = Date.now();
    await settled(process(job, 'token-1'));
    expect((delayedUntil[0] ?? 0) - before).toBeGreaterThan(60_000);
  });
});

describe('a job that keeps coming back without an attempt', () => {
  const readonly = reply("READONLY You can't write against a read only replica.");

  // The 6th return alerts, then the 12th, 24th, 48th…: a job stuck for hours is heard of again.
  it.each([
    [4, []],
    [5, ['JobKeepsReturning']],
    [6, []],
    [11, ['JobKeepsReturning']],
    [12, []],
    [23, ['JobKeepsReturning']],
    [40, []],
    [47, ['JobKeepsReturning']],
  ])('after %i earlier returns, alerts %j', async (returns, expected) => {
    const { process, alerts } = processorWhoseClaimThrows(readonly);
    const { job } = fakeJob(returns);
    await settled(process(job, 'token-1'));
    expect(alerts).toEqual(expected);
  });

  it('is logged at error when the alert is raised, with the count and what it met', async () => {
    const { process, lines } = processorWhoseClaimThrows(readonly);
    const { job } = fakeJob(5);
    await settled(process(job, 'token-1'));
    expect(lines.filter((l) => l.event === 'intake.keeps_returning')).toEqual([
      expect.objectContaining({ level: 50, intakeId: 'i-1', errorCode: 'JobKeepsReturning', returns: 6, outcome: 'redis-unavailable' }),
    ]);
  });
});

describe('a job held back with its Sender API, or by a shutdown', () => {
  // A Retry-After, the open API circuit or a shutdown holds every such job alike: their own signals
  // (the API's metrics, ApiOutage) tell of it, not one alert per job.
  it.each([
    { kind: 'rate-limited', waitMs: 1000 },
    { kind: 'api-outage', waitMs: 10_000 },
    { kind: 'shutting-down', reason: 'the worker is closing' },
  ] as const)('raises no per-job alert on its 6th return: $kind', (outcome) => {
    const alerts: string[] = [];
    const { job } = fakeJob(5);
    alertIfLooping(job, outcome, { operatorAlert: (code: string) => alerts.push(code) }, createLogger({ level: 'silent' }));
    expect(alerts).toEqual([]);
  });
});
