// The listener over real SMTP with real Redis and each kind of raw store: every reply of the
// intake policy (docs/design.md §2.1–§2.5) and the exact stored state after acceptance.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SESSION, FIXTURES } from '../../fixtures/catalog.js';
import { buildPdf } from '../../fixtures/pdf.js';
import type { MessageRule } from '../../src/errors.js';
import { silentObserver } from '../../src/intake/observer.js';
import { SessionRefusals } from '../../src/intake/session-refusals.js';
import { intakeIdOfBlob } from '../../src/recover/blob-claims.js';
import { fixture, intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { letter, signAs } from '../helpers/hostile-messages.js';
import { blobsIn, RAW_STORE_KINDS, storedMessage } from '../helpers/raw-stores.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { SmtpClient, sendOnce } from '../helpers/smtp-client.js';

/** The stock-library run (npm run test:stock): the gateway started with FAST_PATHS=off. */
const STOCK_LIBRARIES = process.env.FAST_PATHS === 'off';

describe.each(RAW_STORE_KINDS)('with raw mail in the $name store', (kind) => {
  let gateway: TestGateway;
  const MAX_PDF_BYTES = 20_000;
  const refusedByReason: string[] = [];

  beforeAll(async () => {
    await kind.setup();
    gateway = await startTestGateway({
      rawStore: kind,
      env: { MAX_MESSAGE_BYTES: String(256 * 1024), MAX_PDF_BYTES: String(MAX_PDF_BYTES) },
      observer: { ...silentObserver, sessionRefused: (reason) => refusedByReason.push(reason) },
    });
  });
  afterAll(async () => {
    await gateway.close();
    await kind.teardown();
  });

  const send = (file: string, envelopeSender: string) =>
    sendOnce(gateway.port, { from: envelopeSender, to: [PROCESSING_ADDRESS], raw: fixture(file), helo: FIXTURE_SESSION.helo });

  describe('the SMTP listener', () => {
    it('greets with its host name and offers neither AUTH nor STARTTLS without a certificate', async () => {
      const { client, greeting } = await SmtpClient.open(gateway.port);
      const ehlo = await client.command('EHLO mta.acme.example');
      await client.quit();
      expect(greeting.text).toMatch(/^220 mx\.intake\.example /);
      expect(ehlo.text).toContain(`SIZE ${256 * 1024}`);
      expect(ehlo.text).not.toMatch(/AUTH|STARTTLS/);
    });

    it('refuses a recipient that is not a processing address with 550 5.1.1', async () => {
      const replies = await sendOnce(gateway.port, {
        from: 'bounce@acme.example',
        to: ['someone@elsewhere.example'],
        raw: fixture('dkim-pass-aligned.eml'),
      });
      expect(replies.rcpt?.text).toMatch(/^550 5\.1\.1 /);
    });

    it('accepts the processing address in any letter case', async () => {
      const { client } = await SmtpClient.open(gateway.port);
      await client.command('EHLO mta.acme.example');
      await client.command('MAIL FROM:<bounce@acme.example>');
      const rcpt = await client.command('RCPT TO:<LETTERS@Intake.Example>');
      await client.quit();
      expect(rcpt.code).toBe(250);
    });

    it.each([
      '<@intake.example:victim@elsewhere.example>',
      '<letters%intake.example@relay.example>',
      '<victim%elsewhere.example@intake.example>',
      '<"letters@intake.example"@relay.example>',
      '<"letters"@intake.example>',
      '<letters@intake.example.relay.example>',
    ])('is not an open relay: RCPT TO %s gets 550', async (recipient) => {
      const { client } = await SmtpClient.open(gateway.port);
      await client.command('EHLO mta.acme.example');
      await client.command('MAIL FROM:<bounce@acme.example>');
      const rcpt = await client.command(`RCPT TO:${recipient}`);
      await client.quit();
      expect(rcpt.code === 550 || rcpt.code === 501).toBe(true);
      expect(rcpt.code).not.toBe(250);
    });

    it('ignores a source route to the processing address, as RFC 5321 appendix C asks', async () => {
      const { client } = await SmtpClient.open(gateway.port);
      await client.command('EHLO mta.acme.example');
      await client.command('MAIL FROM:<bounce@acme.example>');
      const rcpt = await client.command('RCPT TO:<@relay.example:letters@intake.example>');
      await client.quit();
      expect(rcpt.code).toBe(250);
    });

    it('answers a malformed MAIL FROM with a 5xx syntax reply', async () => {
      const { client } = await SmtpClient.open(gateway.port);
      await client.command('EHLO mta.acme.example');
      const mail = await client.command('MAIL FROM:<not an address>');
      await client.quit();
      expect(mail.code).toBe(501);
    });

    it("refuses a declared SIZE over the cap at MAIL FROM with 552 5.3.4 (FAST_PATHS=off: smtp-server's own 552)", async () => {
      const { client } = await SmtpClient.open(gateway.port);
      await client.command('EHLO mta.acme.example');
      const mail = await client.command(`MAIL FROM:<bounce@acme.example> SIZE=${256 * 1024 + 1}`);
      await client.quit();
      if (STOCK_LIBRARIES) expect(mail.text).toBe(`552 Error: message exceeds fixed maximum message size ${256 * 1024}`);
      else expect(mail.text).toBe(`552 5.3.4 message size exceeds the maximum of ${256 * 1024} bytes`);
    });

    it('refuses an over-size DATA with 552 5.3.4 after the transfer, storing nothing', async () => {
      const keysBefore = await gateway.redis.keys(`${gateway.prefix}*`);
      const blobsBefore = (await blobsIn(gateway.rawStore)).committed;
      const big = Buffer.concat([fixture('dkim-pass-aligned.eml'), Buffer.from(`X: ${'a'.repeat(70)}\r\n`.repeat(4000))]);
      const replies = await sendOnce(gateway.port, { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw: big });
      expect(replies.data?.text).toMatch(/^552 5\.3\.4 /);
      expect(await gateway.redis.keys(`${gateway.prefix}*`)).toEqual(keysBefore);
      // Nothing in the raw store either: no blob committed for the refused message.
      expect((await blobsIn(gateway.rawStore)).committed.sort()).toEqual([...blobsBefore].sort());
    });
  });

  describe('authentication at end of DATA', () => {
    const failing = FIXTURES.filter((f) => f.auth.outcome !== 'pass');
    it.each(failing.map((f) => [f.file, f] as const))('%s is refused with the reason', async (_file, spec) => {
      const replies = await send(spec.file, spec.envelopeSender);
      const expected = spec.auth.outcome === 'fail' ? /^550 5\.7\.1 / : /^451 4\.7\.0 /;
      expect(replies.data?.text).toMatch(expected);
      if (spec.auth.outcome !== 'pass') {
        for (const fragment of spec.auth.reasonIncludes) expect(replies.data?.text).toContain(fragment);
      }
    });

    const passing = FIXTURES.filter((f) => f.auth.outcome === 'pass' && f.session === undefined);
    it.each(passing.map((f) => [f.file, f] as const))('%s is accepted with 250 2.0.0 and an intake id', async (_file, spec) => {
      const replies = await send(spec.file, spec.envelopeSender);
      expect(replies.data?.text).toMatch(/^250 2\.0\.0 queued as in[0-9a-f]{24}$/);
    });
  });

  describe('durable acceptance', () => {
    it('stores the raw message in the raw store and a queued record with Authentication-Results and one small job in Redis', async () => {
      const raw = fixture('pdf-attachment.eml');
      const replies = await sendOnce(gateway.port, {
        from: 'letters@acme.example',
        to: [PROCESSING_ADDRESS],
        raw,
        helo: FIXTURE_SESSION.helo,
      });
      const intakeId = intakeIdOf(replies.data?.text ?? '');

      const rawKey = (await gateway.store.get(intakeId))?.rawKey ?? 'no raw key';
      expect((await blobsIn(gateway.rawStore)).committed).toContain(rawKey);
      expect((await gateway.rawStore.readBuffer(rawKey))?.equals(raw)).toBe(true); // the bytes as sent, nothing of ours
      // The id the recovery sweep reads off the blob is the one the 250 named: were they to drift,
      // answered mail would be deleted after a Redis loss.
      expect(intakeIdOfBlob((await gateway.rawStore.readBuffer(rawKey)) ?? Buffer.alloc(0))).toBe(intakeId);
      const stored = await storedMessage(gateway.store, gateway.rawStore, intakeId);
      expect(stored?.toString('latin1')).toMatch(/^Received-SPF: pass[\s\S]*Authentication-Results: mx\.intake\.example;/);
      expect(stored?.subarray(stored.length - raw.length).equals(raw)).toBe(true);

      const record = await gateway.store.get(intakeId);
      expect(record).toMatchObject({
        intakeId,
        state: 'queued',
        envelopeFrom: 'letters@acme.example',
        envelopeTo: [PROCESSING_ADDRESS],
        clientIp: '127.0.0.1',
        helo: 'mta.acme.example',
        from: 'letters@acme.example',
        subject: 'Annual statement 2026',
        sizeBytes: raw.length,
      });
      expect(record?.messageId).toMatch(/^<.+@.+>$/);
      expect(record?.auth.spf).toMatch(/^pass: /);
      expect(record?.auth.dkim).toMatch(/^pass: .*acme\.example/);
      expect(record?.timeline.received).toBeTypeOf('number');
      expect(record?.timeline.queued).toBeTypeOf('number');

      const job = await gateway.queue.getJob(intakeId);
      expect(job?.data).toEqual({ intakeId, from: 'letters@acme.example', sizeBytes: raw.length });
      expect(JSON.stringify(job?.data).length).toBeLessThan(200);
    });

    it('keeps at most 998 bytes of a long folded subject on the intake record', async () => {
      const folded = `${'Rechnung '.repeat(8)}\r\n `.repeat(1500); // about 110 KB in one Subject field
      const raw = await signAs(letter({ subject: folded }));
      const replies = await sendOnce(gateway.port, {
        from: 'letters@acme.example',
        to: [PROCESSING_ADDRESS],
        raw,
        helo: FIXTURE_SESSION.helo,
      });
      const record = await gateway.store.get(intakeIdOf(replies.data?.text ?? ''));
      expect(Buffer.byteLength(record?.subject ?? '')).toBe(998);
      expect(record?.subject.startsWith('Rechnung Rechnung')).toBe(true);
    });

    it('answers a re-delivery with the first intake id and queues nothing new', async () => {
      const raw = await signedLetter({ title: 'Sent twice by a retrying MTA' });
      const deliver = () =>
        sendOnce(gateway.port, { from: 'letters@acme.example', to: [PROCESSING_ADDRESS], raw, helo: FIXTURE_SESSION.helo });
      const jobCount = async () => (await gateway.queue.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed'])).length;
      const before = await jobCount();

      const first = await deliver();
      const afterFirst = await jobCount();
      const second = await deliver();
      const afterSecond = await jobCount();

      const id = intakeIdOf(first.data?.text ?? '');
      expect(second.data?.text).toBe(`250 2.0.0 queued as ${id}`);
      expect((await gateway.queue.getJob(id))?.id).toBe(id);
      expect(id).toMatch(/^in[0-9a-f]{24}$/);
      // this gateway runs no worker: one new message is one more waiting job, the re-delivery none
      expect([afterFirst - before, afterSecond - afterFirst]).toEqual([1, 0]);
    });

    it('logs one line per accepted or refused message with the reply code', async () => {
      const logsBefore = gateway.logs.length;
      const refusedReplies = await send('unsigned.eml', 'bounce@acme.example');
      const accepted = await sendOnce(gateway.port, {
        from: 'letters@acme.example',
        to: [PROCESSING_ADDRESS],
        raw: await signedLetter({ title: 'Logged once' }),
        helo: FIXTURE_SESSION.helo,
      });
      const id = intakeIdOf(accepted.data?.text ?? '');

      expect(refusedReplies.data?.code).toBe(550);
      const lines = gateway.logs.slice(logsBefore);
      const refusedLines = lines.filter(
        (l) => l.event === 'smtp.refused' && l.command === 'DATA' && l.reply === refusedReplies.data?.text.replace(/^550 /, ''),
      );
      expect(refusedLines.map((l) => [l.code, typeof l.smtpSession])).toEqual([[550, 'string']]);
      const acceptedLines = lines.filter((l) => l.event === 'smtp.accepted' && l.intakeId === id);
      expect(acceptedLines.map((l) => l.code)).toEqual([250]);
    });
  });

  describe("the message's own rules at end of DATA, once authentication passed", () => {
    // The reply each rule gets (RFC 3463: 5.7.1 not authorized, 5.6.0 media error, 5.3.4 too big).
    const REPLY: Record<MessageRule, string> = {
      SenderNotRegistered: '550 5.7.1',
      NoPdfAttachment: '550 5.6.0',
      NotAPdf: '550 5.6.0',
      MissingSubject: '550 5.6.0',
      UnparseableMessage: '550 5.6.0',
      PdfTooLarge: '552 5.3.4',
      TitleTooLong: '550 5.6.0',
      TooManyPdfs: '550 5.6.0',
    };

    const refused = FIXTURES.flatMap((f) => (f.session === undefined ? [] : [[f.file, f.envelopeSender, f.session] as const]));
    it.each(refused)("%s is refused with its rule's code, the rule's name and what to do", async (file, envelopeSender, rule) => {
      const replies = await send(file, envelopeSender);
      expect(replies.data?.text).toMatch(new RegExp(`^${REPLY[rule]} ${rule}: [a-z].*; [a-z]`));
    });

    it('says what is missing and the PDF limit when there is no PDF', async () => {
      const replies = await send('no-pdf.eml', 'bounce@acme.example');
      expect(replies.data?.text).toBe(
        `550 5.6.0 NoPdfAttachment: the message carries no PDF attachment; attach the letter as a PDF (at most ${MAX_PDF_BYTES} bytes)`,
      );
    });

    it('refuses a PDF one byte over MAX_PDF_BYTES with 552 5.3.4 PdfTooLarge, and accepts one exactly at it', async () => {
      const pdfOf = (bytes: number) => Buffer.concat([buildPdf('big'), Buffer.alloc(bytes, 0x20)]).subarray(0, bytes);
      const over = await sendOnce(gateway.port, {
        from: 'letters@acme.example',
        to: [PROCESSING_ADDRESS],
        raw: await signedLetter({ title: 'Too big', pdf: pdfOf(MAX_PDF_BYTES + 1) }),
        helo: FIXTURE_SESSION.helo,
      });
      const at = await sendOnce(gateway.port, {
        from: 'letters@acme.example',
        to: [PROCESSING_ADDRESS],
        raw: await signedLetter({ title: 'Just right', pdf: pdfOf(MAX_PDF_BYTES) }),
        helo: FIXTURE_SESSION.helo,
      });
      expect(over.data?.text).toMatch(/^552 5\.3\.4 PdfTooLarge: a PDF attachment is larger than 20000 bytes; /);
      expect(at.data?.text).toMatch(/^250 2\.0\.0 queued as /);
    });

    it('refuses a message of more than 1,000 MIME parts as 550 5.6.0 UnparseableMessage', async () => {
      const parts = Array.from({ length: 1001 }, (_, i) => `--p\r\nContent-Type: text/plain\r\n\r\npart ${i}\r\n`).join('');
      const raw = await signAs(
        `From: Acme Utilities <letters@acme.example>\r\nTo: letters@intake.example\r\nSubject: Many parts\r\nMessage-ID: <many-parts@acme.example>\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="p"\r\n\r\n${parts}--p--\r\n`,
      );
      const replies = await sendOnce(gateway.port, {
        from: 'letters@acme.example',
        to: [PROCESSING_ADDRESS],
        raw,
        helo: FIXTURE_SESSION.helo,
      });
      expect(replies.data?.text).toMatch(/^550 5\.6\.0 UnparseableMessage: /);
    });

    it('answers an authentication failure first: a forged message without a PDF gets 5.7.1 for its signature', async () => {
      const altered = Buffer.concat([fixture('no-pdf.eml'), Buffer.from('appended after signing\r\n')]);
      const replies = await sendOnce(gateway.port, {
        from: 'bounce@acme.example',
        to: [PROCESSING_ADDRESS],
        raw: altered,
        helo: FIXTURE_SESSION.helo,
      });
      expect(replies.data?.text).toMatch(/^550 5\.7\.1 no passing DKIM signature aligned with acme\.example/);
    });

    it('creates no intake and no job for a refused message, counts it by reason and keeps a short record', async () => {
      const messageId = `<refused-${Date.now()}@acme.example>`;
      const raw = await signAs(letter({ subject: null, headers: [`Message-ID: ${messageId}`] }));
      // The refusal's own short record and count aside (the first refusal of a run creates their keys).
      const intakeKeys = async () =>
        (await gateway.redis.keys(`${gateway.prefix}*`)).filter((k) => !k.includes(':refused') && !k.includes(':refusal-counts:')).sort();
      const keysBefore = await intakeKeys();
      const blobsBefore = await blobsIn(gateway.rawStore);
      const countedBefore = refusedByReason.filter((r) => r === 'MissingSubject').length;
      const replies = await sendOnce(gateway.port, {
        from: 'letters@acme.example',
        to: [PROCESSING_ADDRESS],
        raw,
        helo: FIXTURE_SESSION.helo,
      });

      expect(replies.data?.text).toMatch(/^550 5\.6\.0 MissingSubject: /);
      expect(await intakeKeys()).toEqual(keysBefore);
      // Refused before the commit: nothing in the raw store either (the write it began is dropped).
      const blobsAfter = await blobsIn(gateway.rawStore);
      expect({ committed: blobsAfter.committed.sort(), incomplete: blobsAfter.incomplete.sort() }).toEqual({
        committed: [...blobsBefore.committed].sort(),
        incomplete: [...blobsBefore.incomplete].sort(),
      });
      expect(refusedByReason.filter((r) => r === 'MissingSubject').length).toBe(countedBefore + 1);
      const records = await new SessionRefusals(gateway.redis, gateway.prefix, gateway.config.recordRetentionMs).list(100, Date.now());
      expect(records.find((r) => r.messageId === messageId)).toMatchObject({
        reasonCode: 'MissingSubject',
        from: 'letters@acme.example',
        envelopeFrom: 'letters@acme.example',
        clientIp: '127.0.0.1',
        helo: 'mta.acme.example',
        reply: expect.stringMatching(/^550 5\.6\.0 MissingSubject: /),
      });
      const ttl = await gateway.redis.pttl(`${gateway.prefix}:refused`);
      expect(ttl).toBeGreaterThan(gateway.config.recordRetentionMs - 60_000);
    });
  });
});
