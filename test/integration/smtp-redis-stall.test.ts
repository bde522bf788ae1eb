// A stalled Redis (SIGSTOP: connections stay open, nothing is answered) at each stage of a
// message's way in: the client hears 451 4.3.0 within ENQUEUE_TIMEOUT_MS and a small margin,
// never 250 and never silence, and the listener accepts again once Redis runs again.
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { FIXTURE_SESSION } from '../../fixtures/catalog.js';
import { failForGood } from '../helpers/failed-jobs.js';
import { intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { dotStuff, type Reply, SmtpClient, sendOnce } from '../helpers/smtp-client.js';

const ENQUEUE_TIMEOUT_MS = 1500;
/** Time the listener may take beyond its bound: event-loop turns, draining the rest of DATA. */
const MARGIN_MS = 1500;
let redis: RedisServer;
let gateway: TestGateway;

beforeAll(async () => {
  redis = await startRedisServer();
  gateway = await startTestGateway({ env: { REDIS_URL: redis.url, ENQUEUE_TIMEOUT_MS: String(ENQUEUE_TIMEOUT_MS) } });
});
afterEach(() => {
  redis.resume();
});
afterAll(async () => {
  redis.resume();
  await gateway.close();
  await redis.destroy();
});

/** A session up to the 354 of DATA. */
async function openData(): Promise<SmtpClient> {
  const { client } = await SmtpClient.open(gateway.port);
  await client.command(`EHLO ${FIXTURE_SESSION.helo}`);
  await client.command('MAIL FROM:<bounce@acme.example>');
  await client.command(`RCPT TO:<${PROCESSING_ADDRESS}>`);
  expect((await client.command('DATA')).code).toBe(354);
  return client;
}

/** The DATA reply, or a note that none came within `ms` (measured from now). */
async function replyWithin(client: SmtpClient, ms: number): Promise<{ reply: Reply | undefined; ms: number }> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const reply = await Promise.race([
    client.read(),
    new Promise<undefined>((ok) => {
      timer = setTimeout(() => ok(undefined), ms);
    }),
  ]);
  clearTimeout(timer);
  client.close();
  return { reply, ms: Date.now() - started };
}

/** DATA as SmtpClient.send writes it (the same message is the same bytes, so the same intake). */
const wire = (raw: Buffer) =>
  Buffer.concat([dotStuff(raw), Buffer.from(raw.subarray(-2).toString('latin1') === '\r\n' ? '.\r\n' : '\r\n.\r\n')]);
const bigPdf = (bytes: number) => Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(bytes)]);

async function acceptsAgain(): Promise<void> {
  const raw = await signedLetter({ title: 'after the stall' });
  const replies = await sendOnce(gateway.port, { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw, helo: FIXTURE_SESSION.helo });
  expect(replies.data?.text).toMatch(/^250 2\.0\.0 queued as /);
}

describe('a stalled Redis', () => {
  it.each([
    ['at the store script', () => signedLetter({ title: 'stalled at the store script' })],
    [
      'for a large message (its bytes reach the raw store, its record does not)',
      () => signedLetter({ title: 'stalled with a large message', pdf: bigPdf(3 * 1024 * 1024) }),
    ],
  ])('is answered 451 4.3.0 within the bound %s', async (_case, message) => {
    const data = wire(await message());
    const client = await openData();
    redis.pause();
    client.write(data);
    const { reply, ms } = await replyWithin(client, ENQUEUE_TIMEOUT_MS + MARGIN_MS);
    redis.resume();
    expect(reply?.text).toMatch(/^451 4\.3\.0 /);
    expect(ms).toBeLessThan(ENQUEUE_TIMEOUT_MS + MARGIN_MS);
    await acceptsAgain();
  });
});

describe('a re-delivery of a failed intake answered 451 because Redis stalled', () => {
  it('leaves the intake failed and replayable, and the next re-delivery queues its job again', async () => {
    const raw = await signedLetter({ title: 'failed, then re-delivered into a stall' });
    const first = await sendOnce(gateway.port, { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw, helo: FIXTURE_SESSION.helo });
    const intakeId = intakeIdOf(first.data?.text ?? '');
    await failForGood(gateway.redis, gateway.queue, gateway.prefix, intakeId);
    expect((await gateway.store.transition(intakeId, ['queued'], 'failed', Date.now(), { errorCode: 'InvalidCredentials' })).ok).toBe(true);
    const firstBlob = (await gateway.store.get(intakeId))?.rawKey;

    // The listener's store script reaches Redis, but its answer comes after the bound: 451.
    const client = await openData();
    redis.pause();
    client.write(wire(raw));
    const { reply } = await replyWithin(client, ENQUEUE_TIMEOUT_MS + MARGIN_MS);
    redis.resume();
    expect(reply?.text).toMatch(/^451 4\.3\.0 /);
    // Redis runs the script it was sent once it runs again: the record points at the new blob.
    await vi.waitFor(async () => expect((await gateway.store.get(intakeId))?.rawKey).not.toBe(firstBlob), { timeout: 5000 });

    // Nothing queued it again, then or once the late answer reached the listener: it stays failed,
    // so an operator sees it and can replay it.
    for (let look = 0; look < 10; look++) {
      expect((await gateway.store.get(intakeId))?.state).toBe('failed');
      expect(await gateway.store.idsInStateSince('failed', Date.now(), 0, 10)).toContain(intakeId);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // The sending MTA tries again: 250, and the intake has a job that will run.
    const again = await sendOnce(gateway.port, { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw, helo: FIXTURE_SESSION.helo });
    expect(intakeIdOf(again.data?.text ?? '')).toBe(intakeId);
    expect((await gateway.store.get(intakeId))?.state).toBe('queued');
    expect(await gateway.queue.getJobState(intakeId)).toBe('waiting');
  });
});
