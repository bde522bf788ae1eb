// The listener's streaming MIME walk and the worker's mailparser parse must read every message
// the same way: the same subject and the same attachments (type, name, decoded size, first
// bytes), so that the same rules give the same answer in the session and in the worker. Run
// over every fixture, the hostile set and the peer MIME corpus (PEER_CORPUS_DIR's mime/).
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from '../../fixtures/catalog.js';
import { startMimeWalk, type WalkResult } from '../../src/mime/mime-walk.js';
import { factsOf } from '../../src/worker/decide.js';
import { parseMessage } from '../../src/worker/parse-message.js';
import { PEER_MIME_EXPECTATIONS } from '../fixtures-peer/mime-expectations.js';
import { delimiterEdgeMessages } from '../helpers/delimiter-edge-messages.js';
import { fixture } from '../helpers/gateway.js';
import { malformedCases, peerMessages } from '../helpers/hostile-messages.js';
import { peerCorpus } from '../helpers/peer-corpus.js';
import { mulberry32 } from '../helpers/seeded-random.js';

/** The hostile set's messages the worker parses: all but the three it cannot (their walk must call them unparseable). */
const HOSTILE_COMPARED = 31;
const PEER_MIME = peerCorpus('mime', 'mime-walk-agreement (peer MIME corpus)');

/** The message through the walk in 64 KiB chunks, as the SMTP stream hands it over. */
async function walkOf(raw: Buffer): Promise<WalkResult> {
  const walk = startMimeWalk();
  const chunks = Array.from({ length: Math.ceil(raw.length / 65536) }, (_, i) => raw.subarray(i * 65536, (i + 1) * 65536));
  Readable.from(chunks).pipe(walk.input); // as the collector feeds it: a walk that stops is unpiped
  return walk.result;
}

/** Compares the walk with the worker's parse; says whether the worker could parse it (else nothing is compared). */
async function expectAgreement(name: string, raw: Buffer): Promise<'compared' | 'worker-cannot-parse'> {
  const [walked, parsed] = await Promise.all([walkOf(raw), parseMessage(raw).catch(() => undefined)]);
  if (parsed === undefined) {
    // the worker cannot parse it: the session may refuse it or pass it on, either is safe
    return 'worker-cannot-parse';
  }
  expect(walked.kind, `${name}: the worker parses it, so the walk must too`).toBe('walked');
  if (walked.kind !== 'walked') return 'compared';
  const facts = factsOf(parsed);
  expect(walked.subject, `${name}: subject`).toBe(facts.subject);
  expect(walked.parts, `${name}: attachments`).toEqual(facts.parts);
  return 'compared';
}

/** How many of a set the worker parsed, so each comparison counts. */
async function compared(messages: Iterable<{ readonly name: string; readonly raw: Buffer }>): Promise<number> {
  let count = 0;
  for (const message of messages) if ((await expectAgreement(message.name, message.raw)) === 'compared') count += 1;
  return count;
}

describe('the streaming MIME walk reads messages as the worker does', () => {
  it.each(FIXTURES.map((f) => [f.file] as const))('%s', async (file) => {
    expect(await expectAgreement(file, fixture(file)), `${file}: the worker parses every fixture`).toBe('compared');
  });

  it('reads every hostile message as the worker does, and calls unparseable only what the worker cannot parse', async () => {
    let count = 0;
    const cases = malformedCases(15 * 1024 * 1024);
    for (const hostile of cases) {
      const raw = await hostile.build();
      if ((await expectAgreement(hostile.name, raw)) === 'compared') count += 1;
      const walked = await walkOf(raw);
      if (walked.kind === 'unparseable') await expect(parseMessage(raw), hostile.name).rejects.toThrow();
    }
    expect(count).toBe(HOSTILE_COMPARED);
  }, 180_000);

  it.skipIf(PEER_MIME === undefined)(
    'reads every message of the peer MIME corpus as the worker does',
    async () => {
      const messages = peerMessages(
        PEER_MIME ?? '',
        PEER_MIME_EXPECTATIONS.map((e) => e.file),
      );
      expect(messages.length).toBe(PEER_MIME_EXPECTATIONS.length);
      const n = await compared(messages);
      expect(n, 'the worker parses every message of the corpus').toBe(messages.length);
    },
    120_000,
  );

  it('reads generated near-delimiter messages as the worker does (stray delimiters in header blocks included)', async () => {
    const n = await compared(delimiterEdgeMessages(mulberry32(2026_11_23), 300));
    expect(n, 'the worker parses every generated message').toBe(300);
  }, 120_000);

  it('calls a message with more than 1,000 parts unparseable', async () => {
    const parts = Array.from({ length: 1001 }, (_, i) => `--b\r\nContent-Type: text/plain\r\n\r\npart ${i}\r\n`).join('');
    const raw = Buffer.from(
      `From: a@acme.example\r\nSubject: many\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n${parts}--b--\r\n`,
    );
    expect(await walkOf(raw)).toMatchObject({ kind: 'unparseable', why: expect.stringContaining('child nodes') });
    await expect(parseMessage(raw)).rejects.toThrow();
  });

  it('counts a PDF decoded from base64 and keeps only its first bytes', async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(300_000, 7)]);
    const body = pdf.toString('base64').replace(/.{76}/g, '$&\r\n');
    const raw = Buffer.from(
      `From: a@acme.example\r\nSubject: s\r\nContent-Type: application/octet-stream; name="Bill.PDF"\r\nContent-Transfer-Encoding: base64\r\n\r\n${body}\r\n`,
    );
    expect(await walkOf(raw)).toEqual({
      kind: 'walked',
      subject: 's',
      parts: [{ contentType: 'application/pdf', fileName: 'Bill.PDF', firstBytes: Buffer.from('%PDF-1.7'), decodedBytes: pdf.length }],
    });
  });
});
