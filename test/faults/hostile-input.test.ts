// Hostile input over real SMTP into the whole gateway (listener, worker and sandbox API in this
// process, real Redis): the peer MIME corpus (../shared/peer/mime) and generated malformed
// messages. Every message gets a clear SMTP reply, or a recorded outcome with its reason; the
// process survives every one of them and its memory stays bounded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REJECTION_REASONS } from '../../src/errors.js';
import type { IntakeRecord } from '../../src/intake/record.js';
import { checkPdfs } from '../../src/pdf/check-pdfs.js';
import { createPdfChecker } from '../../src/pdf/checker-pool.js';
import { parseSenderDirectory } from '../../src/senders/directory.js';
import { decide } from '../../src/worker/decide.js';
import { parseMessage } from '../../src/worker/parse-message.js';
import { intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { malformedCases, peerMessages, resignAsAcme, type HostileCase } from '../helpers/hostile-messages.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce, type Reply } from '../helpers/smtp-client.js';
import { countBy, findLeaks, printTable, standardNeedles, watchRss, type RssWatch } from './summary.js';

const MAX_MESSAGE_BYTES = 15 * 1024 * 1024;
/**
 * LIBRARY-NOTES: simpleParser peaks at ~160 MB for a 13.7 MB message; the in-process test client
 * adds its own copies. The PDF checker threads live in this process too, each bounded by
 * PDF_CHECK_MEMORY_MB of heap and as much again of ArrayBuffers.
 */
const RSS_GROWTH_LIMIT_MB = 400;
const PDF_CHECK_MEMORY_MB = 96;

let gateway: TestGateway;
let rss: RssWatch;

beforeAll(async () => {
  gateway = await startTestGateway({ worker: true, env: { MAX_MESSAGE_BYTES: String(MAX_MESSAGE_BYTES), WORKER_CONCURRENCY: '2', WORKER_LOCK_MS: '30000', PDF_CHECK_MEMORY_MB: String(PDF_CHECK_MEMORY_MB), PDF_CHECK_THREADS: '1' } });
  rss = watchRss();
  // warm-up: one ordinary letter end to end, so lazy modules and pools are loaded before the baseline
  const replies = await deliver(await signedLetter({ title: 'warm-up' }));
  await gateway.settled(intakeIdOf(replies['data']?.text ?? ''));
  rss.rebase();
});
afterAll(async () => {
  rss.stop();
  await gateway.close();
});

function deliver(raw: Buffer, from = 'letters@acme.example'): Promise<Record<string, Reply>> {
  return sendOnce(gateway.port, { from, to: [PROCESSING_ADDRESS], raw, helo: 'mta.acme.example' });
}

/** The outcome in one word: the SMTP refusal, or the intake's final state and reason. */
const outcomeOf = (record: IntakeRecord): string => (record.state === 'rejected' ? `rejected ${record.reasonCode ?? '?'}` : record.state);

/** Runs `task` over `items`, `width` at a time. */
async function pool<T, R>(items: readonly T[], width: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) {
      const index = next++;
      const item = items[index];
      if (item !== undefined) results[index] = await task(item, index);
    }
  }));
  return results;
}

/** Each submitted letter's parts: named safely and the PDFs the record lists. Returns title and part names. */
function expectSafeLetter(record: IntakeRecord): string {
  const letter = gateway.sandbox?.store.allLetters().find((l) => l.id === record.letterId);
  expect(letter?.status).toBe('PendingApproval');
  for (const part of letter?.parts ?? []) expect(part.fileName).not.toMatch(/[/\\\u0000-\u001f\u007f]/);
  expect(letter?.title).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  expect(letter?.parts.map((p) => p.sha256)).toEqual(record.pdfs?.map((p) => p.sha256));
  return JSON.stringify([letter?.title.slice(0, 24), ...(letter?.parts.map((p) => p.fileName) ?? [])]).slice(0, 60);
}

const generatedRows: string[][] = [];

describe('generated malformed messages, each DKIM-signed by acme.example', () => {
  const cases = malformedCases(MAX_MESSAGE_BYTES);
  it.each(cases.map((c) => [c.name, c] as const))('%s gets the answer the intake policy gives', async (_name, c: HostileCase) => {
    const raw = await c.build();
    const replies = await deliver(raw);
    const final = replies['data'] ?? replies['dataStart'] ?? { code: 0, text: '(no reply)' };
    if (c.expected.smtp === 'refused') {
      generatedRows.push([c.name, c.exercises, final.text.slice(0, 56), '-', '', String(rss.peakMb)]);
      expect(final.text).toMatch(c.expected.reply);
      return;
    }
    expect(final.text).toMatch(/^250 2\.0\.0 queued as in[0-9a-f]{24}$/);
    const record = await gateway.settled(intakeIdOf(final.text), 90_000);
    const letterInfo = record.state === 'submitted' ? expectSafeLetter(record) : '';
    generatedRows.push([c.name, c.exercises, '250', outcomeOf(record), letterInfo, String(rss.peakMb)]);
    expect(c.expected.worker === 'submitted' ? record.state : record.reasonCode).toBe(c.expected.worker);
    if (record.state !== 'submitted') expect(record.reason?.length).toBeGreaterThan(10);
  }, 120_000);

  afterAll(() => {
    printTable(`hostile-input: ${generatedRows.length} generated malformed messages`, ['case', 'exercises', 'SMTP', 'worker', 'letter [title, parts]', 'RSS peak MB'], generatedRows);
  });
});

describe('the peer MIME corpus (../shared/peer/mime)', () => {
  const peers = peerMessages();
  const rows = new Map<string, { smtp: string; worker: string }>();

  it('refuses every peer message as it is (unsigned) with 550 5.7.1 naming the failed check', async () => {
    expect(peers.length).toBeGreaterThanOrEqual(70);
    const replies = await pool(peers, 8, (p) => deliver(p.raw, 'bounce@acme.example'));
    peers.forEach((p, i) => rows.set(p.name, { smtp: String(replies[i]?.['data']?.code ?? '?'), worker: '-' }));
    for (const [i, reply] of replies.entries()) {
      expect({ file: peers[i]?.name, reply: reply['data']?.text }).toMatchObject({ reply: expect.stringMatching(/^550 5\.7\.1 .*(DKIM|From)/) });
    }
  }, 180_000);

  it('re-signed by acme.example, every peer message is accepted and ends as the pure decision and the PDF checks say', async () => {
    const checker = createPdfChecker({ threads: 1, timeoutMs: gateway.config.pdfChecks.timeoutMs, memoryMb: PDF_CHECK_MEMORY_MB });
    const directory = parseSenderDirectory({ senders: [{ senderId: '8d3c6f1e-2f7a-4c1e-9a57-0f1b2c3d4e5f', companyNameEn: 'Acme', addresses: ['letters@acme.example'], apiClientId: 'x', apiClientSecret: 'x' }] }, {});
    const resigned = await Promise.all(peers.map((p, i) => resignAsAcme(p.raw, `${i}`)));
    const replies = await pool(resigned, 8, (raw) => deliver(raw));
    for (const [i, reply] of replies.entries()) {
      expect({ file: peers[i]?.name, reply: reply['data']?.text }).toMatchObject({ reply: expect.stringMatching(/^250 2\.0\.0 queued as /) });
    }
    const records = await Promise.all(replies.map((r) => gateway.settled(intakeIdOf(r['data']?.text ?? ''), 120_000)));
    for (const [i, record] of records.entries()) {
      const name = peers[i]?.name ?? '?';
      rows.set(name, { smtp: `${rows.get(name)?.smtp ?? '?'} / 250`, worker: outcomeOf(record) });
      const parsed = await parseMessage(resigned[i] ?? Buffer.alloc(0)).catch(() => undefined);
      const pure = parsed === undefined ? 'rejected UnparseableMessage' : decide(parsed, { directory, maxPdfBytes: gateway.config.maxPdfBytes });
      const pdfCheck = typeof pure !== 'string' && pure.kind === 'letter' ? await checkPdfs(pure.pdfs, pure.sender, checker) : undefined;
      const expected = typeof pure === 'string' ? pure
        : pure.kind === 'rejected' ? `rejected ${pure.reasonCode}`
        : pdfCheck?.ok === false ? `rejected ${pdfCheck.reasonCode}` : 'submitted';
      expect({ file: name, outcome: outcomeOf(record) }).toEqual({ file: name, outcome: expected });
      if (record.state === 'submitted') expectSafeLetter(record);
      else expect(Object.keys(REJECTION_REASONS)).toContain(record.reasonCode);
    }
    expect(records.filter((r) => r.state === 'submitted').length).toBeGreaterThan(0);
    await checker.close();
  }, 240_000);

  afterAll(() => {
    const all = [...rows.entries()];
    printTable('hostile-input: peer corpus, per message', ['file (under ../shared/peer/mime)', 'SMTP as sent / re-signed', 'worker'], all.map(([name, r]) => [name, r.smtp, r.worker]));
    printTable(`hostile-input: peer corpus, ${all.length} messages (as sent / re-signed)`, ['outcome', 'messages'], countBy(all, ([, r]) => `SMTP ${r.smtp}, worker ${r.worker}`));
  });
});

describe('after all of it', () => {
  it('logged no client secret, message body or PDF bytes', () => {
    expect(gateway.logs.length).toBeGreaterThan(20);
    expect(findLeaks(gateway.logs, standardNeedles())).toEqual([]);
  });
  it('the same process still accepts and submits an ordinary letter', async () => {
    const replies = await deliver(await signedLetter({ title: 'canary after hostile input' }));
    const record = await gateway.settled(intakeIdOf(replies['data']?.text ?? ''));
    expect(record.state).toBe('submitted');
  });

  it(`kept the RSS growth of the listener+worker process under ${RSS_GROWTH_LIMIT_MB} MB`, () => {
    printTable('hostile-input: memory of the process hosting listener + worker', ['baseline MB', 'peak MB', 'growth MB', 'limit MB'], [[rss.baselineMb, rss.peakMb, rss.growthMb, RSS_GROWTH_LIMIT_MB]]);
    expect(rss.growthMb).toBeLessThan(RSS_GROWTH_LIMIT_MB);
  });
});
