// A message's identity over real SMTP and real Redis: From + Message-ID + its content. The same
// bytes again find the first intake; other bytes under a known Message-ID are a new intake; a
// re-delivery of a message whose intake failed is queued again with its exactly-once checkpoint.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SESSION } from '../../fixtures/catalog.js';
import { failForGood } from '../helpers/failed-jobs.js';
import { intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { storedMessage } from '../helpers/raw-stores.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway.close();
});

const deliver = async (raw: Buffer) => {
  const replies = await sendOnce(gateway.port, { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw, helo: FIXTURE_SESSION.helo });
  return replies.data?.text ?? '(no DATA reply)';
};

/** Lets BullMQ fail the intake's job for good, as it does when the worker gives up. */
async function failJobForGood(intakeId: string): Promise<void> {
  await failForGood(gateway.redis, gateway.queue, gateway.prefix, intakeId);
  expect(await gateway.queue.getJobState(intakeId)).toBe('failed');
}

describe('the identity of a message', () => {
  it('answers the same bytes again with the first intake id and queues one job', async () => {
    const raw = await signedLetter({ title: 'Sent twice, byte for byte' });
    const first = intakeIdOf(await deliver(raw));
    expect(intakeIdOf(await deliver(raw))).toBe(first);
    const jobs = await gateway.queue.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed']);
    expect(jobs.filter((j) => j.id === first)).toHaveLength(1);
  });

  it('makes a different message under a known From and Message-ID its own intake, stored and queued', async () => {
    const messageId = '<reused-id@acme.example>';
    const original = await signedLetter({ title: 'Invoice 2027-01', messageId });
    const corrected = await signedLetter({ title: 'Invoice 2027-01 (corrected)', messageId });
    const first = intakeIdOf(await deliver(original));
    const second = intakeIdOf(await deliver(corrected));
    expect(second).not.toBe(first);
    expect((await gateway.store.get(second))?.subject).toBe('Invoice 2027-01 (corrected)');
    expect((await gateway.store.get(second))?.state).toBe('queued');
    expect((await storedMessage(gateway.store, gateway.rawStore, second))?.includes('Invoice 2027-01 (corrected)')).toBe(true);
    expect((await gateway.queue.getJob(second))?.data.intakeId).toBe(second);
  });
});

describe('a re-delivery of a message whose intake failed', () => {
  it('queues the intake again under its id, keeping the letter id checkpoint', async () => {
    const raw = await signedLetter({ title: 'Failed once, sent again' });
    const intakeId = intakeIdOf(await deliver(raw));
    await failJobForGood(intakeId);
    const failed = await gateway.store.transition(intakeId, ['queued', 'processing'], 'failed', Date.now(), {
      letterId: 'letter-checkpoint-1',
      errorCode: 'InvalidCredentials',
    });
    expect(failed.ok).toBe(true);

    expect(intakeIdOf(await deliver(raw))).toBe(intakeId);
    const record = await gateway.store.get(intakeId);
    expect(record?.state).toBe('queued');
    expect(record?.letterId).toBe('letter-checkpoint-1');
    const job = await gateway.queue.getJob(intakeId);
    expect(await job?.getState()).toBe('waiting');
  });

  it('refuses a re-delivery of a rejected intake with 550 naming it and its reason, and queues nothing', async () => {
    const raw = await signedLetter({ title: 'Rejected once, sent again' });
    const intakeId = intakeIdOf(await deliver(raw));
    await failJobForGood(intakeId);
    await gateway.store.transition(intakeId, ['queued'], 'rejected', Date.now(), { reasonCode: 'NoPdfAttachment' });
    const replies = await sendOnce(gateway.port, {
      from: 'bounce@acme.example',
      to: [PROCESSING_ADDRESS],
      raw,
      helo: FIXTURE_SESSION.helo,
    });
    expect(replies.data?.code).toBe(550);
    expect(replies.data?.text).toBe(
      `550 5.0.0 this message was rejected before as ${intakeId} (NoPdfAttachment); correct it and send it again`,
    );
    expect((await gateway.store.get(intakeId))?.state).toBe('rejected');
    expect(await (await gateway.queue.getJob(intakeId))?.getState()).toBe('failed');
  });
});
