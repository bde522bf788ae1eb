// Bad news after 250 reaches the sender as one RFC 3464 notice through a real relay on loopback:
// the gateway's parts in-process over real SMTP, Redis and HTTP, the relay a real SMTP server.
// Each notice is parsed with mailparser and checked field by field; the cases where no notice
// may go out end with the notice recorded as suppressed, and nothing at the relay.
import { randomUUID } from 'node:crypto';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SESSION } from '../../fixtures/catalog.js';
import { IntakeMarkers } from '../../src/intake/markers.js';
import type { NoticeEntry } from '../../src/intake/notice-fields.js';
import { silentObserver } from '../../src/intake/observer.js';
import { replayIntake } from '../../src/intake/replay.js';
import { createLogger } from '../../src/log.js';
import { NoticeLedger } from '../../src/notices/ledger.js';
import { createNoticeQueue, noticesFor } from '../../src/notices/queue.js';
import { parseSenderDirectory } from '../../src/senders/directory.js';
import type { NoticeKind } from '../../src/words/notice-kind.js';
import { endedMarkerOf } from '../../src/worker/ended-marker.js';
import { intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { type RelayedMail, startTestRelay, type TestRelay } from '../helpers/notice-relay.js';
import { putBlob } from '../helpers/raw-stores.js';
import { reportParts, statusField } from '../helpers/report-parts.js';
import { type LetterSpec, signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';

let relay: TestRelay;
let gateway: TestGateway;

beforeAll(async () => {
  relay = await startTestRelay();
  gateway = await startTestGateway({
    worker: true,
    env: { NOTICE_SMTP_URL: relay.url, NOTICE_FROM: 'no-reply@intake.example', WORKER_ATTEMPTS: '2' },
  });
});
afterAll(async () => {
  await gateway.close();
  await relay.close();
});

async function deliver(
  spec: Omit<LetterSpec, 'title'>,
  envelopeSender = 'bounce@acme.example',
): Promise<{ intakeId: string; title: string; messageId: string }> {
  const title = `Notice test ${randomUUID()}`;
  const messageId = `<${randomUUID()}@acme.example>`;
  const raw = await signedLetter({ title, messageId, ...spec });
  const replies = await sendOnce(gateway.port, { from: envelopeSender, to: [PROCESSING_ADDRESS], raw, helo: FIXTURE_SESSION.helo });
  return { intakeId: intakeIdOf(replies.data?.text ?? ''), title, messageId };
}

/** Waits until the intake's notice of `kind` reaches a state that is not `queued` / `sending`. */
async function noticeSettled(intakeId: string, kind: NoticeKind, timeoutMs = 15_000): Promise<NoticeEntry> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const entry = (await gateway.store.get(intakeId))?.notices?.[kind];
    if (entry !== undefined && !['queued', 'sending', 'committed'].includes(entry.state)) return entry;
    if (Date.now() > deadline) throw new Error(`notice ${kind} of ${intakeId} is ${entry?.state ?? 'absent'}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const relayedFor = (intakeId: string): RelayedMail[] =>
  relay.received.filter((m) => m.raw.toString('latin1').includes(`X-Letter-Intake-Id: ${intakeId}`));

describe('a notice for bad news after 250', () => {
  it('tells the authenticated From address when the Sender API refuses the letter', async () => {
    gateway.sandbox?.store.injectFault({ status: 400, errorCode: 'InvalidData', paths: '/api/v1/letters', count: 1 });
    const { intakeId, title, messageId } = await deliver({
      from: 'Acme Utilities <letters@acme.example>',
      headers: ['Reply-To: attacker@evil.example'],
    });
    expect(await gateway.settled(intakeId)).toMatchObject({ state: 'rejected', reasonCode: 'ApiRejected' });
    const entry = await noticeSettled(intakeId, 'rejected');
    expect(entry.state).toBe('sent');

    const [relayed, ...others] = relayedFor(intakeId);
    expect(others).toEqual([]);
    expect(relayed?.mailFrom).toBe(''); // MAIL FROM:<>
    expect(relayed?.rcptTo).toEqual(['letters@acme.example']);
    const mail = await simpleParser(relayed?.raw ?? Buffer.alloc(0));
    expect(mail.to).toMatchObject({ value: [{ address: 'letters@acme.example' }] });
    expect(mail.from?.value[0]?.address).toBe('no-reply@intake.example');
    expect(mail.headers.get('auto-submitted')).toBe('auto-replied');
    expect(mail.headers.get('content-type')).toMatchObject({ value: 'multipart/report', params: { 'report-type': 'delivery-status' } });
    expect(mail.messageId).toBe(entry.messageId);
    expect(mail.inReplyTo).toBe(messageId);
    expect(mail.subject).toBe(`Letter not created: ${title}`);

    const parts = await reportParts(relayed?.raw ?? Buffer.alloc(0));
    expect(parts.map((p) => p.type)).toEqual(['text/plain', 'message/delivery-status', 'text/rfc822-headers']);
    const [human, status, headers] = parts.map((p) => p.body);
    expect(human).toContain('Reason: ApiRejected: the Sender API refused the letter as invalid');
    expect(human).toContain(`as intake ${intakeId}`);
    expect(human).toContain('What to do:');
    expect(statusField(status ?? '', 'Action')).toBe('failed');
    expect(statusField(status ?? '', 'Status')).toBe('5.0.0');
    expect(statusField(status ?? '', 'Final-Recipient')).toBe(`rfc822; ${PROCESSING_ADDRESS}`);
    expect(statusField(status ?? '', 'Diagnostic-Code')).toMatch(/^X-letter-intake; ApiRejected: /);
    expect(headers).toContain(`Message-ID: ${messageId}`);
    expect(headers).toContain(`Subject: ${title}`);
    expect(headers).toContain('Reply-To: attacker@evil.example');
  });

  it('tells the sender when retries run out', async () => {
    gateway.sandbox?.store.injectFault({ status: 503, paths: '/api/v1/letters', count: 2 });
    const { intakeId } = await deliver({});
    expect(await gateway.settled(intakeId)).toMatchObject({ state: 'failed', errorCode: 'ServiceUnavailable', attempts: 2 });
    expect((await noticeSettled(intakeId, 'failed')).state).toBe('sent');
    const [relayed, ...others] = relayedFor(intakeId);
    expect(others).toEqual([]);
    expect(relayed?.mailFrom).toBe('');
    expect(relayed?.rcptTo).toEqual(['letters@acme.example']);
    const [human, status] = (await reportParts(relayed?.raw ?? Buffer.alloc(0))).map((p) => p.body);
    expect(human).toContain('after 2 attempt(s)');
    expect(human).toContain(`Reason: the letter gateway could not create the letter yet (intake ${intakeId})`);
    expect(human).not.toContain('ServiceUnavailable');
    expect(statusField(status ?? '', 'Action')).toBe('delayed');
    expect(statusField(status ?? '', 'Status')).toBe('4.4.7');
  });
});

describe('a failure and its replay', () => {
  it('tells the sender of a failure not to resend: the letter is created from the message already held', async () => {
    gateway.sandbox?.store.injectFault({ status: 403, errorCode: 'InsufficientAuthorization', paths: '/api/v1/letters', count: 1 });
    const { intakeId, title } = await deliver({});
    expect(await gateway.settled(intakeId)).toMatchObject({ state: 'failed', errorCode: 'InsufficientAuthorization' });
    expect((await noticeSettled(intakeId, 'failed')).state).toBe('sent');
    const [relayed] = relayedFor(intakeId);
    const mail = await simpleParser(relayed?.raw ?? Buffer.alloc(0));
    expect(mail.subject).toBe(`Letter not created yet: ${title}`);
    const [human, status] = (await reportParts(relayed?.raw ?? Buffer.alloc(0))).map((p) => p.body);
    expect(human).toContain('do not resend; you will hear when the letter is created');
    expect(human).not.toMatch(/send (it|the same message) again/);
    // RFC 3464 §2.3.3: "delayed", not "failed": the gateway keeps the message and goes on.
    expect(statusField(status ?? '', 'Action')).toBe('delayed');
  });

  it('confirms the letter a replay created, to a sender who did not ask for confirmations', async () => {
    gateway.sandbox?.store.injectFault({ status: 403, errorCode: 'InsufficientAuthorization', paths: '/api/v1/letters', count: 1 });
    const { intakeId, title } = await deliver({}); // letters@acme.example: no "notify" in fixtures/senders.json
    expect(await gateway.settled(intakeId)).toMatchObject({ state: 'failed' });
    expect((await noticeSettled(intakeId, 'failed')).state).toBe('sent');
    expect(await replayIntake({ store: gateway.store, queue: gateway.queue, clock: Date.now, attempts: 2 }, intakeId)).toEqual({
      ok: true,
    });
    const submitted = await gateway.settled(intakeId);
    expect(submitted.state).toBe('submitted');
    expect((await noticeSettled(intakeId, 'submitted', 5_000)).state).toBe('sent');
    const confirmation = relayedFor(intakeId).at(-1);
    const mail = await simpleParser(confirmation?.raw ?? Buffer.alloc(0));
    expect(mail.subject).toBe(`Letter created: ${title}`);
    expect(mail.text).toContain(`letter id ${submitted.letterId ?? '(none)'}`);
  });
});

describe("the ended marker a worker's end writes", () => {
  // Written from the record the end's transition answered with, and the notice the end queued:
  // what Redis held at that moment, with nothing read again.
  it('names the letter of a replayed intake without the error of its failed run, and the confirmation it queued', async () => {
    gateway.sandbox?.store.injectFault({ status: 403, errorCode: 'InsufficientAuthorization', paths: '/api/v1/letters', count: 1 });
    const { intakeId } = await deliver({});
    expect(await gateway.settled(intakeId)).toMatchObject({ state: 'failed' });
    const markers = new IntakeMarkers(gateway.rawStore);
    await expect.poll(async () => (await markers.ended(intakeId))?.outcome).toBe('failed');
    // queued by the end, or further along if the notice worker took its job first
    const sending = expect.stringMatching(/^(queued|sending|committed|sent)$/);
    expect(await markers.ended(intakeId)).toMatchObject({ errorCode: 'InsufficientAuthorization', notice: sending });
    await replayIntake({ store: gateway.store, queue: gateway.queue, clock: Date.now, attempts: 2 }, intakeId);
    const submitted = await gateway.settled(intakeId);
    expect(submitted.state).toBe('submitted');
    await expect.poll(async () => (await markers.ended(intakeId))?.outcome).toBe('submitted');
    const marker = await markers.ended(intakeId);
    expect(marker).toMatchObject({ intakeId, letterId: submitted.letterId, senderId: submitted.senderId, notice: sending });
    expect(marker?.errorCode).toBeUndefined();
    expect(marker?.reason).toBeUndefined();
  });

  it('holds what the record holds for a letter with no notice', async () => {
    const { intakeId } = await deliver({});
    const record = await gateway.settled(intakeId);
    expect(await gateway.jobFinished(intakeId)).toBe('completed');
    const marker = await new IntakeMarkers(gateway.rawStore).ended(intakeId);
    expect(marker).toEqual({ ...endedMarkerOf({ ...record, state: 'submitted' }, 0), at: marker?.at });
    expect(marker?.notice).toBeUndefined();
  });
});

describe('the relay refusing a notice', () => {
  const refuseNextLetter = (): void =>
    gateway.sandbox?.store.injectFault({ status: 400, errorCode: 'InvalidData', paths: '/api/v1/letters', count: 1 });

  it("records the notice failed with the relay's answer when the refusal is permanent, and does not try again", async () => {
    relay.refuseNextRcpt(550);
    refuseNextLetter();
    const { intakeId } = await deliver({});
    const entry = await noticeSettled(intakeId, 'rejected');
    expect(entry).toMatchObject({ state: 'failed', reason: expect.stringContaining('550') });
    expect(relayedFor(intakeId)).toEqual([]);
  });

  it('tries again after a temporary refusal and sends the notice once', async () => {
    relay.refuseNextRcpt(451);
    refuseNextLetter();
    const { intakeId } = await deliver({});
    const entry = await noticeSettled(intakeId, 'rejected');
    expect(entry.state).toBe('sent');
    expect(relayedFor(intakeId)).toHaveLength(1);
  });
});

describe('no notice', () => {
  const refuseNextLetter = (): void =>
    gateway.sandbox?.store.injectFault({ status: 400, errorCode: 'InvalidData', paths: '/api/v1/letters', count: 1 });

  it('for a message with the null envelope sender', async () => {
    refuseNextLetter();
    const { intakeId } = await deliver({}, '');
    expect(await gateway.settled(intakeId)).toMatchObject({ state: 'rejected', envelopeFrom: '' });
    const entry = await noticeSettled(intakeId, 'rejected');
    expect(entry).toMatchObject({ state: 'suppressed', reason: expect.stringContaining('null envelope sender') });
    expect(relayedFor(intakeId)).toEqual([]);
  });

  it('for a message marked Auto-Submitted: auto-generated', async () => {
    refuseNextLetter();
    const { intakeId } = await deliver({ headers: ['Auto-Submitted: auto-generated'] });
    expect((await gateway.settled(intakeId)).state).toBe('rejected');
    const entry = await noticeSettled(intakeId, 'rejected');
    expect(entry).toMatchObject({ state: 'suppressed', reason: expect.stringContaining('Auto-Submitted: auto-generated') });
    expect(relayedFor(intakeId)).toEqual([]);
  });

  it('for an intake whose From address is not authenticated', async () => {
    // The listener refuses such mail in the session; this intake is written as if it had not.
    const intakeId = `inunauth${randomUUID().replaceAll('-', '').slice(0, 18)}`;
    const raw = await signedLetter({ title: 'Unauthenticated' });
    await gateway.store.create(
      {
        intakeId,
        receivedAt: Date.now(),
        envelopeFrom: 'bounce@acme.example',
        envelopeTo: [PROCESSING_ADDRESS],
        clientIp: '203.0.113.9',
        helo: 'mta.evil.example',
        from: 'letters@acme.example',
        subject: 'Unauthenticated',
        messageId: '<u@acme.example>',
        sizeBytes: raw.length,
        auth: {
          from: 'pass: one From address',
          spf: 'fail: SPF fail for acme.example from 203.0.113.9',
          alignment: 'pass: aligned',
          dkim: 'fail: no passing DKIM signature',
        },
      },
      { headers: '', body: await putBlob(gateway.rawStore, raw) },
      Date.now(),
    );
    await gateway.store.transition(intakeId, ['received'], 'rejected', Date.now(), { reasonCode: 'NoPdfAttachment', reason: 'x' });
    const notices = noticesFor({
      queue: createNoticeQueue(gateway.redis, gateway.prefix),
      ledger: new NoticeLedger(gateway.redis, gateway.prefix),
      directory: parseSenderDirectory({ senders: [] }, {}),
      attempts: 1,
      clock: Date.now,
      logger: createLogger({ level: 'silent' }),
      observer: silentObserver,
    });
    await notices.onOutcome(intakeId, 'rejected', undefined);
    const entry = await noticeSettled(intakeId, 'rejected');
    expect(entry).toMatchObject({ state: 'suppressed', reason: expect.stringContaining('not authenticated (spf, dkim)') });
    expect(relayedFor(intakeId)).toEqual([]);
  });

  it('for a letter that was created, unless its sender asked for confirmations', async () => {
    const { intakeId } = await deliver({});
    expect((await gateway.settled(intakeId)).state).toBe('submitted');
    // The job queues its notices after the transition (record-end.ts): only its end says none came.
    expect(await gateway.jobFinished(intakeId)).toBe('completed');
    expect((await gateway.store.get(intakeId))?.notices).toEqual({});
    expect(await gateway.redis.exists(`${gateway.prefix}:notices:${intakeId}-submitted`)).toBe(0);
  });
});

describe('a confirmation decided from the record the job read', () => {
  // The job's claim read the record: whether the intake left `failed` before is in it, so the
  // confirmation a sender did not ask for is decided without asking Redis again.
  function noticesCountingReads(): { notices: ReturnType<typeof noticesFor>; reads: () => number } {
    const ledger = new NoticeLedger(gateway.redis, gateway.prefix);
    let reads = 0;
    const leftFailed = ledger.leftFailed.bind(ledger);
    ledger.leftFailed = (id) => {
      reads++;
      return leftFailed(id);
    };
    const notices = noticesFor({
      queue: createNoticeQueue(gateway.redis, gateway.prefix),
      ledger,
      directory: parseSenderDirectory({ senders: [] }, {}), // no sender asks for confirmations
      attempts: 1,
      clock: Date.now,
      logger: createLogger({ level: 'silent' }),
      observer: silentObserver,
    });
    return { notices, reads: () => reads };
  }
  const failedRun = { timeline: { failed: Date.now() }, errorCode: 'InsufficientAuthorization' };

  it('queues the confirmation of a replayed intake from its earlier runs, and asks Redis nothing', async () => {
    const { intakeId } = await deliver({});
    expect((await gateway.settled(intakeId)).state).toBe('submitted');
    expect(await gateway.jobFinished(intakeId)).toBe('completed');
    const { notices, reads } = noticesCountingReads();
    await notices.onOutcome(intakeId, 'submitted', undefined, { earlierRuns: [failedRun] });
    expect(reads()).toBe(0);
    expect((await gateway.store.get(intakeId))?.notices?.submitted?.state).toBeDefined();
  });

  it('queues nothing for an intake the record shows never failed, and asks Redis nothing', async () => {
    const { intakeId } = await deliver({});
    expect((await gateway.settled(intakeId)).state).toBe('submitted');
    expect(await gateway.jobFinished(intakeId)).toBe('completed');
    const { notices, reads } = noticesCountingReads();
    await notices.onOutcome(intakeId, 'submitted', undefined, { earlierRuns: undefined });
    expect(reads()).toBe(0);
    expect((await gateway.store.get(intakeId))?.notices).toEqual({});
  });

  it('asks Redis when the caller read no record', async () => {
    const { intakeId } = await deliver({});
    expect((await gateway.settled(intakeId)).state).toBe('submitted');
    const { notices, reads } = noticesCountingReads();
    await notices.onOutcome(intakeId, 'submitted', undefined);
    expect(reads()).toBe(1);
  });
});
