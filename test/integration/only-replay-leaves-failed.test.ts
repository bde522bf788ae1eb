// A sender told that its letter failed hears next from a replay, never from a job that happens
// to run again: a claim never leaves `failed`. Real SMTP, Redis, BullMQ and the sandbox API.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FIXTURE_SESSION } from '../../fixtures/catalog.js';
import { replayIntake } from '../../src/intake/replay.js';
import { intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ worker: true, env: { WORKER_ATTEMPTS: '2' } });
});
afterAll(async () => {
  await gateway.close();
});

/** A letter whose intake fails at once: the API refuses the gateway's client (an operator failure). */
async function failedIntake(): Promise<{ intakeId: string; title: string }> {
  gateway.sandbox?.store.injectFault({ status: 403, errorCode: 'InsufficientAuthorization', paths: '/api/v1/letters', count: 1 });
  const title = `Failed once ${randomUUID()}`;
  const raw = await signedLetter({ title });
  const replies = await sendOnce(gateway.port, { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw, helo: FIXTURE_SESSION.helo });
  const intakeId = intakeIdOf(replies.data?.text ?? '');
  expect(await gateway.settled(intakeId)).toMatchObject({ state: 'failed', errorCode: 'InsufficientAuthorization' });
  return { intakeId, title };
}

async function jobFailedAgain(intakeId: string, after: number): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const job = await gateway.queue.getJob(intakeId);
    if (job !== undefined && (await job.getState()) === 'failed' && (job.finishedOn ?? 0) > after) return job.failedReason;
    if (Date.now() > deadline)
      throw new Error(`the job of ${intakeId} did not end again: ${job === undefined ? 'gone' : await job.getState()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const lettersTitled = (title: string) => gateway.sandbox?.store.allLetters().filter((l) => l.title === title) ?? [];

describe('only replay leaves failed', () => {
  it('a failed intake whose job is retried through BullMQ (the dashboard Retry) is not processed: it stays failed, no letter', async () => {
    const { intakeId, title } = await failedIntake();
    // The record is written before BullMQ moves the job: wait for the move.
    await vi.waitFor(async () => expect(await gateway.queue.getJobState(intakeId)).toBe('failed'), { timeout: 5000 });
    const job = await gateway.queue.getJob(intakeId);
    const retriedAt = Date.now();
    await job?.retry('failed');
    const reason = await jobFailedAgain(intakeId, retriedAt);
    expect(reason).toContain(`intake ${intakeId} is failed`);
    expect(await gateway.store.get(intakeId)).toMatchObject({ state: 'failed', errorCode: 'InsufficientAuthorization' });
    expect(lettersTitled(title)).toEqual([]);
  });

  it('a replay of that intake leaves failed and creates its one letter', async () => {
    const { intakeId, title } = await failedIntake();
    expect(await replayIntake({ store: gateway.store, queue: gateway.queue, clock: Date.now, attempts: 2 }, intakeId)).toEqual({
      ok: true,
    });
    expect(await gateway.settled(intakeId)).toMatchObject({ state: 'submitted' });
    expect(lettersTitled(title)).toHaveLength(1);
  });
});
