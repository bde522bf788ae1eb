// Hostile input over real SMTP into the whole gateway (listener, worker and sandbox API in this
// process, real Redis): generated malformed messages and the peer MIME corpus (PEER_CORPUS_DIR,
// default ../shared/peer; skipped with one line when absent). What each message must give is
// data written beside it (malformedCases in test/helpers/hostile-messages.ts, the peer table in
// test/fixtures-peer/mime-expectations.ts), never computed by project code. An outcome is a
// reason code whether the session refuses the message or the worker rejects it after 250. The
// process survives every message and its memory stays bounded.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REJECTION_REASONS } from '../../src/errors.js';
import type { IntakeRecord } from '../../src/intake/record.js';
import { PEER_MIME_EXPECTATIONS } from '../fixtures-peer/mime-expectations.js';
import { intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { type HostileCase, malformedCases, peerMessages, resignAsAcme } from '../helpers/hostile-messages.js';
import { peerCorpus } from '../helpers/peer-corpus.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { type Reply, sendOnce } from '../helpers/smtp-client.js';
import { countBy, findLeaks, printTable, type RssWatch, standardNeedles, watchRss } from './summary.js';

const MAX_MESSAGE_BYTES = 15 * 1024 * 1024;
/**
 * mailparser's simpleParser peaks at ~160 MB for a 13.7 MB message; the in-process test client
 * adds its own copies. The PDF checker threads live in this process too, each bounded by
 * PDF_CHECK_MEMORY_MB of heap and as much again of ArrayBuffers.
 */
const RSS_GROWTH_LIMIT_MB = 400;
const PDF_CHECK_MEMORY_MB = 96;

let gateway: TestGateway;
let rss: RssWatch;

beforeAll(async () => {
  gateway = await startTestGateway({
    worker: true,
    env: {
      MAX_MESSAGE_BYTES: String(MAX_MESSAGE_BYTES),
      WORKER_CONCURRENCY: '2',
      WORKER_LOCK_MS: '30000',
      PDF_CHECK_MEMORY_MB: String(PDF_CHECK_MEMORY_MB),
      PDF_CHECK_THREADS: '1',
    },
  });
  rss = watchRss();
  // warm-up: one ordinary letter end to end, so lazy modules and pools are loaded before the baseline
  const replies = await deliver(await signedLetter({ title: 'warm-up' }));
  await gateway.settled(intakeIdOf(replies.data?.text ?? ''));
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

/** A 5xx whose text starts with a rejection reason code (a message rule applied in the session). */
function sessionReason(reply: Reply | undefined): string | undefined {
  const code = /^5\d\d \d\.\d+\.\d+ (\w+)/.exec(reply?.text ?? '')?.[1];
  return code !== undefined && code in REJECTION_REASONS ? code : undefined;
}

/**
 * What became of a delivered message, as a reason code or `submitted`: refused in the session
 * with a reason code, or answered 250 and ended by the worker. Anything else is reported as is.
 */
async function reasonOf(replies: Record<string, Reply>): Promise<{ outcome: string; record: IntakeRecord | undefined; smtp: string }> {
  const final = replies.data ?? replies.dataStart;
  const refused = sessionReason(final);
  if (refused !== undefined) return { outcome: refused, record: undefined, smtp: String(final?.code) };
  if (!/^250 2\.0\.0 queued as in[0-9a-f]{24}$/.test(final?.text ?? ''))
    return { outcome: `reply ${final?.text ?? '(none)'}`, record: undefined, smtp: String(final?.code ?? '?') };
  const record = await gateway.settled(intakeIdOf(final?.text ?? ''), 120_000);
  return { outcome: record.state === 'rejected' ? (record.reasonCode ?? 'rejected without a reason') : record.state, record, smtp: '250' };
}

/** Runs `task` over `items`, `width` at a time. */
async function pool<T, R>(items: readonly T[], width: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const index = next++;
        const item = items[index];
        if (item !== undefined) results[index] = await task(item, index);
      }
    }),
  );
  return results;
}

/** Each submitted letter's parts: named safely and the PDFs the record lists. Returns title and part names. */
function expectSafeLetter(record: IntakeRecord): string {
  const letter = gateway.sandbox?.store.allLetters().find((l) => l.id === record.letterId);
  expect(letter?.status).toBe('PendingApproval');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: asserts that no control character reaches a file name
  for (const part of letter?.parts ?? []) expect(part.fileName).not.toMatch(/[/\\\u0000-\u001f\u007f]/);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: asserts that no control character reaches the title
  expect(letter?.title).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  expect(letter?.parts.map((p) => p.sha256)).toEqual(record.pdfs?.map((p) => p.sha256));
  return JSON.stringify([letter?.title.slice(0, 24), ...(letter?.parts.map((p) => p.fileName) ?? [])]).slice(0, 60);
}

const generatedRows: string[][] = [];

describe('generated malformed messages, each DKIM-signed by acme.example', () => {
  const cases = malformedCases(MAX_MESSAGE_BYTES);
  it.each(cases.map((c) => [c.name, c] as const))(
    '%s gets the answer the intake policy gives',
    async (_name, c: HostileCase) => {
      const raw = await c.build();
      const replies = await deliver(raw);
      const final = replies.data ?? replies.dataStart ?? { code: 0, text: '(no reply)' };
      if (c.expected.smtp === 'refused') {
        generatedRows.push([c.name, c.exercises, final.text.slice(0, 56), '-', '', String(rss.peakMb)]);
        expect(final.text).toMatch(c.expected.reply);
        return;
      }
      const { outcome, record, smtp } = await reasonOf(replies);
      const letterInfo = record?.state === 'submitted' ? expectSafeLetter(record) : '';
      generatedRows.push([c.name, c.exercises, smtp, record === undefined ? outcome : outcomeOf(record), letterInfo, String(rss.peakMb)]);
      expect(outcome).toBe(c.expected.worker);
      if (record !== undefined && record.state !== 'submitted') expect(record.reason?.length).toBeGreaterThan(10);
    },
    120_000,
  );

  afterAll(() => {
    printTable(
      `hostile-input: ${generatedRows.length} generated malformed messages`,
      ['case', 'exercises', 'SMTP', 'worker', 'letter [title, parts]', 'RSS peak MB'],
      generatedRows,
    );
  });
});

const PEER_MIME = peerCorpus('mime', 'hostile-input (peer MIME corpus)');

function emlUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? emlUnder(path) : name.endsWith('.eml') ? [relative(PEER_MIME ?? '', path)] : [];
  });
}

describe.skipIf(PEER_MIME === undefined)('the peer MIME corpus', () => {
  const peers =
    PEER_MIME === undefined
      ? []
      : peerMessages(
          PEER_MIME,
          PEER_MIME_EXPECTATIONS.map((e) => e.file),
        );
  const rows = new Map<string, { smtp: string; worker: string }>();

  it('holds exactly the messages the expectation table lists', () => {
    expect(emlUnder(PEER_MIME ?? '').sort()).toEqual(PEER_MIME_EXPECTATIONS.map((e) => e.file).sort());
  });

  it('refuses every peer message as it is (unsigned) with 550 5.7.1 naming the failed check', async () => {
    const replies = await pool(peers, 8, (p) => deliver(p.raw, 'bounce@acme.example'));
    for (const [i, p] of peers.entries()) rows.set(p.name, { smtp: String(replies[i]?.data?.code ?? '?'), worker: '-' });
    expect(replies).toHaveLength(PEER_MIME_EXPECTATIONS.length);
    for (const [i, reply] of replies.entries()) {
      expect({ file: peers[i]?.name, reply: reply.data?.text }).toMatchObject({
        reply: expect.stringMatching(/^550 5\.7\.1 .*(DKIM|From)/),
      });
    }
  }, 180_000);

  it('re-signed by a registered sender, every peer message ends as the table says', async () => {
    const resigned = await Promise.all(peers.map((p, i) => resignAsAcme(p.raw, `${i}`)));
    const replies = await pool(resigned, 8, (raw) => deliver(raw));
    const results = await Promise.all(replies.map((r) => reasonOf(r)));
    expect(results).toHaveLength(PEER_MIME_EXPECTATIONS.length);
    for (const [i, { outcome, record, smtp }] of results.entries()) {
      const expected = PEER_MIME_EXPECTATIONS[i];
      const name = peers[i]?.name ?? '?';
      rows.set(name, { smtp: `${rows.get(name)?.smtp ?? '?'} / ${smtp}`, worker: outcome });
      expect({ file: name, outcome }).toEqual({ file: expected?.file, outcome: expected?.resigned });
      if (record?.state === 'submitted') {
        expectSafeLetter(record);
        expect({ file: name, pdfs: record.pdfs?.length }).toEqual({ file: name, pdfs: expected?.pdfs });
      }
    }
  }, 240_000);

  afterAll(() => {
    const all = [...rows.entries()];
    printTable(
      'hostile-input: peer corpus, per message',
      ['file (under the corpus mime/ folder)', 'SMTP as sent / re-signed', 'outcome'],
      all.map(([name, r]) => [name, r.smtp, r.worker]),
    );
    printTable(
      `hostile-input: peer corpus, ${all.length} messages (as sent / re-signed)`,
      ['outcome', 'messages'],
      countBy(all, ([, r]) => `SMTP ${r.smtp}, ${r.worker}`),
    );
  });
});

describe('after all of it', () => {
  it('logged no client secret, message body or PDF bytes', () => {
    expect(gateway.logs.length).toBeGreaterThan(20);
    expect(findLeaks(gateway.logs, standardNeedles())).toEqual([]);
  });
  it('the same process still accepts and submits an ordinary letter', async () => {
    const replies = await deliver(await signedLetter({ title: 'canary after hostile input' }));
    const record = await gateway.settled(intakeIdOf(replies.data?.text ?? ''));
    expect(record.state).toBe('submitted');
  });

  it(`kept the RSS growth of the listener+worker process under ${RSS_GROWTH_LIMIT_MB} MB`, () => {
    printTable(
      'hostile-input: memory of the process hosting listener + worker',
      ['baseline MB', 'peak MB', 'growth MB', 'limit MB'],
      [[rss.baselineMb, rss.peakMb, rss.growthMb, RSS_GROWTH_LIMIT_MB]],
    );
    expect(rss.growthMb).toBeLessThan(RSS_GROWTH_LIMIT_MB);
  });
});
