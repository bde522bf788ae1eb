// The whole path in one process, each hop over its real protocol: a fixture over SMTP → raw store
// and Redis → worker → sandbox Sender API over HTTP, once with each kind of raw store. Each fixture ends as exactly one PendingApproval letter
// matching the e-mail, or as a recorded rejection and no letter.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { FIXTURE_SESSION, FIXTURES } from '../../fixtures/catalog.js';
import { buildPdf, letterPdf } from '../../fixtures/pdf.js';
import { acceptIntake } from '../../src/intake/accept.js';
import { redisBlobIndex } from '../../src/intake/blob-index.js';
import { replayIntake } from '../../src/intake/replay.js';
import { createLogger } from '../../src/log.js';
import { startHousekeeping } from '../../src/raw-store/housekeeping.js';
import { CONTRACT_MODES } from '../../src/sandbox/contract-mode.js';
import { FIXTURE_DIR, fixture, intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { putBlob, RAW_STORE_KINDS, storedMessage } from '../helpers/raw-stores.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

describe.each(RAW_STORE_KINDS)('with raw mail in the $name store', (kind) => {
  let gateway: TestGateway;

  beforeAll(async () => {
    await kind.setup();
    gateway = await startTestGateway({ worker: true, rawStore: kind });
  });
  afterAll(async () => {
    await gateway.close();
    await kind.teardown();
  });

  async function deliver(file: string | Buffer, envelopeSender: string): Promise<string> {
    const raw = typeof file === 'string' ? fixture(file) : file;
    const replies = await sendOnce(gateway.port, { from: envelopeSender, to: [PROCESSING_ADDRESS], raw, helo: FIXTURE_SESSION.helo });
    return intakeIdOf(replies.data?.text ?? '');
  }

  const lettersTitled = (title: string) => (gateway.sandbox?.store.allLetters() ?? []).filter((l) => l.title === title);

  describe('an e-mail becomes a letter', () => {
    const submitted = FIXTURES.filter((f) => f.worker?.outcome === 'submitted');
    it.each(submitted.map((f) => [f.file, f] as const))('%s ends as one PendingApproval letter matching the e-mail', async (file, spec) => {
      if (spec.worker?.outcome !== 'submitted') throw new Error(`${file} is not a letter fixture`);
      const expected = spec.worker;
      const intakeId = await deliver(file, spec.envelopeSender);
      const record = await gateway.settled(intakeId);
      expect(record.state).toBe('submitted');

      const letter = gateway.sandbox?.store.allLetters().find((l) => l.id === record.letterId);
      expect(letter?.status).toBe('PendingApproval');
      // What the fixture generator wrote: the title, the text, and each PDF's bytes (letterPdf).
      expect(letter?.title).toBe(expected.title);
      expect(letter?.parts.map((p) => p.fileName)).toEqual(expected.pdfFileNames);
      expect(letter?.parts.map((p) => p.sha256)).toEqual(expected.pdfFileNames.map((name) => sha256(letterPdf(name))));
      expect(letter?.description).toBe(expected.description);
      expect(record.pdfs?.map((p) => p.sha256)).toEqual(letter?.parts.map((p) => p.sha256));
      expect(record.timeline.submitted).toBeGreaterThanOrEqual(record.timeline.processing ?? Infinity);
    });

    it('creates one letter when the same message arrives twice', async () => {
      const first = await deliver('pdf-attachment.eml', 'letters@acme.example');
      const second = await deliver('pdf-attachment.eml', 'letters@acme.example');
      await gateway.settled(first);
      expect(second).toBe(first);
      expect(lettersTitled('Annual statement 2026')).toHaveLength(1);
    });
  });

  describe('retention', () => {
    it('keeps the raw message of an ended intake for RAW_RETENTION_DAYS and its record longer, then deletes them', async () => {
      const intakeId = await deliver('pdf-with-inline-logo.eml', 'bounce@acme.example');
      const record = await gateway.settled(intakeId);
      const deleteAt = Number(await gateway.redis.zscore(gateway.store.blobKeys.due, record.rawKey ?? 'no raw key'));
      const recordTtl = await gateway.redis.pttl(gateway.store.keys.record(intakeId));
      expect(deleteAt - (record.timeline.submitted ?? 0)).toBe(gateway.config.rawRetentionMs);
      expect(await storedMessage(gateway.store, gateway.rawStore, intakeId)).toBeDefined(); // until then
      expect(recordTtl).toBeGreaterThan(gateway.config.recordRetentionMs - 60_000);
      // Housekeeping with the clock just before, then just after, the due time.
      const roundAt = async (at: number) => {
        const housekeeping = startHousekeeping({
          store: gateway.rawStore,
          index: redisBlobIndex(gateway.redis, gateway.prefix),
          clock: () => at,
          logger: createLogger({ level: 'silent' }),
          orphanAfterMs: 100 * 365 * 24 * 3600_000, // no orphan sweep: other tests' blobs share this store
          intervalMs: 3600_000,
        });
        try {
          return await housekeeping.runOnce();
        } finally {
          await housekeeping.stop();
        }
      };
      await roundAt(deleteAt - 1);
      expect(await storedMessage(gateway.store, gateway.rawStore, intakeId)).toBeDefined();
      expect(await gateway.rawStore.readBuffer(record.rawKey ?? 'no raw key')).toBeDefined();
      expect((await roundAt(deleteAt + 1)).expired).toBeGreaterThanOrEqual(1);
      expect(await gateway.rawStore.readBuffer(record.rawKey ?? 'no raw key')).toBeUndefined();
      expect(await storedMessage(gateway.store, gateway.rawStore, intakeId)).toBeUndefined();
      expect((await gateway.store.get(intakeId))?.state).toBe('submitted'); // the record outlives the raw message
    });
  });

  describe('the worker applies the message rules again, whatever the listener decided', () => {
    // These fixtures are refused in the SMTP session; here they reach the worker anyway (as from a
    // listener that accepted them before a rule or the directory changed), through the same
    // durable acceptance the listener uses.
    const rejected = FIXTURES.filter((f) => f.worker?.outcome === 'rejected');
    it.each(rejected.map((f) => [f.file, f] as const))('%s is rejected with its reason and no letter', async (file, spec) => {
      const before = gateway.sandbox?.store.allLetters().length ?? 0;
      const from = spec.file === 'unregistered-sender.eml' ? 'letters@stranger.example' : 'letters@acme.example';
      const { intakeId } = await acceptIntake(
        { store: gateway.store, queue: gateway.queue, clock: Date.now, attempts: 3, timeoutMs: 5000 },
        {
          intakeId: `in${createHash('sha256').update(`worker-path ${file}`).digest('hex').slice(0, 24)}`,
          receivedAt: Date.now(),
          envelopeFrom: spec.envelopeSender,
          envelopeTo: [PROCESSING_ADDRESS],
          clientIp: '127.0.0.1',
          helo: FIXTURE_SESSION.helo,
          from,
          subject: '',
          messageId: `<${file}>`,
          sizeBytes: fixture(file).length,
          auth: {},
        },
        { headers: '', body: () => putBlob(gateway.rawStore, fixture(file)) },
      );
      const record = await gateway.settled(intakeId);
      expect(record.state).toBe('rejected');
      expect(record.reasonCode).toBe(spec.worker?.outcome === 'rejected' ? spec.worker.reason : '');
      // A rule's sentence says what broke it and what to do; a PDF check's names what it found.
      const sentence = record.reasonCode?.startsWith('Pdf') === true ? '.+' : '.+; .+';
      expect(record.reason).toMatch(new RegExp(`^${record.reasonCode ?? '-'}: ${sentence}`));
      expect(gateway.sandbox?.store.allLetters().length).toBe(before);
    });
  });

  describe('how a job ends in the queue', () => {
    it('completes the job of a submitted intake with the letter id as its result', async () => {
      const intakeId = await deliver(await signedLetter({ title: 'Job result of a submitted intake' }), 'bounce@acme.example');
      const record = await gateway.settled(intakeId);
      await vi.waitFor(async () => expect(await gateway.queue.getJobState(intakeId)).not.toBe('active'), { timeout: 5000 });
      const job = await gateway.queue.getJob(intakeId);
      expect(record.state).toBe('submitted');
      expect(job?.returnvalue).toEqual({ outcome: 'submitted', letterId: record.letterId });
    });
  });

  describe('an error that is a defect, not a rule of the message', () => {
    it('fails the intake for an operator, replayable and logged with its stack, instead of rejecting the sender as unparseable', async () => {
      // html-to-text recurses once per element: 10,000 nested elements overflow the stack.
      const html = `<html><body>${'<div>\n'.repeat(10_000)}Dear customer${'</div>\n'.repeat(10_000)}</body></html>`;
      const intakeId = await deliver(await signedLetter({ title: 'Deeply nested HTML body', html }), 'bounce@acme.example');
      const record = await gateway.settled(intakeId);
      expect({ state: record.state, errorCode: record.errorCode, reasonCode: record.reasonCode }).toEqual({
        state: 'failed',
        errorCode: 'ParserError',
        reasonCode: undefined,
      });
      expect(record.reason).toContain('Maximum call stack size exceeded');
      expect(await gateway.redis.zscore(gateway.store.blobKeys.due, record.rawKey ?? 'no raw key')).toBeNull(); // kept for a replay
      expect(await storedMessage(gateway.store, gateway.rawStore, intakeId)).toBeDefined();
      const logged = gateway.logs.find((l) => l.event === 'intake.parser_error' && l.intakeId === intakeId);
      expect(logged?.level).toBe(50);
      expect(JSON.stringify(logged?.err)).toMatch(/RangeError.*\\n\s+at /);
      // The record is written before BullMQ moves the job: wait for the move.
      await vi.waitFor(async () => expect(await gateway.queue.getJobState(intakeId)).toBe('failed'), { timeout: 5000 });
    });
  });

  describe('a Sender API refusal that does not say the letter is invalid', () => {
    it('fails the intake for an operator, replayable, instead of telling the sender the letter was refused', async () => {
      gateway.sandbox?.store.injectFault({ status: 404, paths: '/api/v1/letters/draft', count: 1 }); // EntityNotFound
      const title = `Draft endpoint answered 404 ${kind.name}`;
      const intakeId = await deliver(await signedLetter({ title }), 'bounce@acme.example');
      const record = await gateway.settled(intakeId);
      expect({ state: record.state, errorCode: record.errorCode, reasonCode: record.reasonCode }).toEqual({
        state: 'failed',
        errorCode: 'EntityNotFound',
        reasonCode: undefined,
      });
      // The line is logged just after the record is written: wait for it.
      await vi.waitFor(() => expect(gateway.logs.find((l) => l.event === 'intake.failed' && l.intakeId === intakeId)?.level).toBe(50));
      expect(lettersTitled(title)).toEqual([]);

      const replayed = await replayIntake({ store: gateway.store, queue: gateway.queue, clock: Date.now, attempts: 3 }, intakeId);
      expect(replayed).toEqual({ ok: true });
      expect(await gateway.settled(intakeId)).toMatchObject({ state: 'submitted' });
      expect(lettersTitled(title).map((l) => l.status)).toEqual(['PendingApproval']);
    });
  });

  describe('a sender removed from the directory between acceptance and processing', () => {
    let changing: TestGateway;
    beforeAll(async () => {
      // The listener still knows stranger.example's address; the worker's directory no longer does.
      const dir = mkdtempSync(join(tmpdir(), 'senders-'));
      const senders = z
        .object({ senders: z.array(z.unknown()) })
        .parse(JSON.parse(readFileSync(join(FIXTURE_DIR, 'senders.json'), 'utf8')));
      senders.senders.push({
        senderId: '0f0e0d0c-0b0a-4909-8807-060504030201',
        companyNameEn: 'Stranger',
        addresses: ['letters@stranger.example'],
        apiClientId: 'stranger-client',
        apiClientSecret: 'stranger-secret',
      });
      writeFileSync(join(dir, 'senders.json'), JSON.stringify(senders));
      changing = await startTestGateway({
        worker: true,
        env: { SENDERS_FILE: join(dir, 'senders.json') },
        workerSendersFile: join(FIXTURE_DIR, 'senders.json'),
      });
    });
    afterAll(async () => {
      await changing.close();
    });

    const send = () =>
      sendOnce(changing.port, {
        from: 'letters@stranger.example',
        to: [PROCESSING_ADDRESS],
        raw: fixture('unregistered-sender.eml'),
        helo: FIXTURE_SESSION.helo,
      });

    it('is accepted in the session and rejected by the worker as SenderNotRegistered, with no letter, its job completed', async () => {
      const replies = await send();
      const intakeId = intakeIdOf(replies.data?.text ?? '');
      const record = await changing.settled(intakeId);
      expect(record).toMatchObject({ state: 'rejected', reasonCode: 'SenderNotRegistered' });
      expect(record.reason).toMatch(
        /^SenderNotRegistered: the From address is not a registered address of any sender \(From letters@stranger\.example\); /,
      );
      expect(changing.sandbox?.store.allLetters()).toEqual([]);
      // The job completes with the rejection as its result, so failed jobs are real failures only.
      // The record is written before BullMQ moves the job: wait for the move.
      await vi.waitFor(async () => expect(await changing.queue.getJobState(intakeId)).not.toBe('active'), { timeout: 5000 });
      const job = await changing.queue.getJob(intakeId);
      expect({ state: await changing.queue.getJobState(intakeId), result: job?.returnvalue, failedReason: job?.failedReason }).toEqual({
        state: 'completed',
        result: { outcome: 'rejected', reasonCode: 'SenderNotRegistered' },
        failedReason: undefined,
      });

      // The same message again is refused in the session, naming the rejected intake.
      const again = await send();
      expect(again.data?.text).toBe(
        `550 5.0.0 this message was rejected before as ${intakeId} (SenderNotRegistered); correct it and send it again`,
      );
    });
  });
});

// The same path against each of the sandbox's contract modes (src/sandbox/contract-mode.ts): an
// API that makes other choices where the contract leaves them open still turns each e-mail into
// exactly one letter. A few letters per mode, over one gateway per mode.
describe.each(CONTRACT_MODES)('against the sandbox in %s mode', (contractMode) => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ worker: true, env: { SANDBOX_CONTRACT_MODE: contractMode } });
  });
  afterAll(async () => {
    await gateway.close();
  });

  const lettersTitled = (title: string) => (gateway.sandbox?.store.allLetters() ?? []).filter((l) => l.title === title);
  async function deliver(raw: Buffer): Promise<string> {
    const replies = await sendOnce(gateway.port, {
      from: 'bounce@acme.example',
      to: [PROCESSING_ADDRESS],
      raw,
      helo: FIXTURE_SESSION.helo,
    });
    return intakeIdOf(replies.data?.text ?? '');
  }

  it('turns a signed e-mail into one PendingApproval letter with its PDF', async () => {
    const title = `Contract mode ${contractMode}: one letter`;
    const pdf = buildPdf(`mode ${contractMode}`);
    const record = await gateway.settled(await deliver(await signedLetter({ title, pdf })));
    expect({ state: record.state, errorCode: record.errorCode }).toEqual({ state: 'submitted', errorCode: undefined });
    expect(lettersTitled(title).map((l) => [l.id, l.status, l.parts.map((p) => p.sha256)])).toEqual([
      [record.letterId, 'PendingApproval', [createHash('sha256').update(pdf).digest('hex')]],
    ]);
    expect(record.letterStatus).toBe('PendingApproval');
  });

  it('submits once after the first draft call met a 503, recording a possible stray draft where it cannot search', async () => {
    const title = `Contract mode ${contractMode}: draft call met 503`;
    gateway.sandbox?.store.injectFault({ status: 503, paths: '/api/v1/letters/draft', count: 1 });
    const record = await gateway.settled(await deliver(await signedLetter({ title })));
    expect(record.state).toBe('submitted');
    expect(lettersTitled(title).map((l) => l.status)).toEqual(['PendingApproval']); // the 503 made no draft
    expect((record.strayDrafts ?? []).length).toBe(contractMode === 'ours' ? 0 : 1);
  });

  it('logs in again when the API forgets its sessions, and submits once', async () => {
    const title = `Contract mode ${contractMode}: sessions forgotten`;
    gateway.sandbox?.store.forgetSessions();
    const record = await gateway.settled(await deliver(await signedLetter({ title })));
    expect(record.state).toBe('submitted');
    expect(lettersTitled(title).map((l) => l.status)).toEqual(['PendingApproval']);
  });
});

describe('limits of the real API an operator stated (API_TITLE_MAX_CHARS, API_MAX_PARTS)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ worker: true, env: { API_TITLE_MAX_CHARS: '20', API_MAX_PARTS: '1' } });
  });
  afterAll(async () => {
    await gateway.close();
  });

  it('refuses a subject over the limit in the SMTP session, before 250', async () => {
    const replies = await sendOnce(gateway.port, {
      from: 'bounce@acme.example',
      to: [PROCESSING_ADDRESS],
      raw: await signedLetter({ title: 'A subject of twenty-one' }),
      helo: FIXTURE_SESSION.helo,
    });
    expect(replies.data?.text).toMatch(/^550 5\.6\.0 TitleTooLong: the subject is longer than the Sender API takes/);
  });

  it('is agreed by the worker: a message over the limit that reached it is rejected with the same rule and no letter', async () => {
    const title = 'A subject of twenty-one';
    const raw = await signedLetter({ title });
    const { intakeId } = await acceptIntake(
      { store: gateway.store, queue: gateway.queue, clock: Date.now, attempts: 3, timeoutMs: 5000 },
      {
        intakeId: `in${createHash('sha256').update('api limits worker').digest('hex').slice(0, 24)}`,
        receivedAt: Date.now(),
        envelopeFrom: 'bounce@acme.example',
        envelopeTo: [PROCESSING_ADDRESS],
        clientIp: '127.0.0.1',
        helo: FIXTURE_SESSION.helo,
        from: 'letters@acme.example',
        subject: title,
        messageId: '<api-limits@acme.example>',
        sizeBytes: raw.length,
        auth: {},
      },
      { headers: '', body: () => putBlob(gateway.rawStore, raw) },
    );
    const record = await gateway.settled(intakeId);
    expect({ state: record.state, reasonCode: record.reasonCode }).toEqual({ state: 'rejected', reasonCode: 'TitleTooLong' });
    expect((gateway.sandbox?.store.allLetters() ?? []).filter((l) => l.title === title)).toEqual([]);
  });
});
