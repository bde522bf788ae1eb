// The worker reads a message once (mailsplit, each attachment decoded from its own bytes,
// mailparser only for the rest: src/worker/parse-message.ts). Its reading must be exactly
// mailparser's reading of the whole message: the same From, subject, text and attachments,
// byte for byte. Run over every fixture, the hostile set and the peer MIME corpus.
import { describe, expect, it } from 'vitest';
import { FIXTURES } from '../../fixtures/catalog.js';
import { parseMessage, readWithMailparser } from '../../src/worker/parse-message.js';
import { PEER_MIME_EXPECTATIONS } from '../fixtures-peer/mime-expectations.js';
import { delimiterEdgeMessages } from '../helpers/delimiter-edge-messages.js';
import { fixture } from '../helpers/gateway.js';
import { malformedCases, peerMessages } from '../helpers/hostile-messages.js';
import { peerCorpus } from '../helpers/peer-corpus.js';
import { mulberry32 } from '../helpers/seeded-random.js';

const PEER_MIME = peerCorpus('mime', 'worker-parse-agreement (peer MIME corpus)');

type Reading = { readonly ok: true; readonly value: unknown } | { readonly ok: false };

async function reading(read: () => Promise<unknown>): Promise<Reading> {
  try {
    return { ok: true, value: await read() };
  } catch {
    return { ok: false };
  }
}

async function expectSameReading(name: string, raw: Buffer): Promise<void> {
  const [once, whole] = await Promise.all([reading(() => parseMessage(raw)), reading(() => readWithMailparser(raw))]);
  expect(once, name).toEqual(whole);
}

describe("the worker's one-pass parse reads messages as mailparser does", () => {
  it.each(FIXTURES.map((f) => [f.file] as const))('%s', async (file) => {
    await expectSameReading(file, fixture(file));
  });

  it('reads every hostile message as mailparser does', async () => {
    for (const hostile of malformedCases(15 * 1024 * 1024)) await expectSameReading(hostile.name, await hostile.build());
  }, 180_000);

  it.skipIf(PEER_MIME === undefined)(
    'reads every message of the peer MIME corpus as mailparser does',
    async () => {
      const messages = peerMessages(
        PEER_MIME ?? '',
        PEER_MIME_EXPECTATIONS.map((e) => e.file),
      );
      expect(messages.length).toBe(PEER_MIME_EXPECTATIONS.length);
      for (const message of messages) await expectSameReading(message.name, message.raw);
    },
    120_000,
  );

  it('reads generated near-delimiter messages as mailparser does (stray delimiters in header blocks included)', async () => {
    for (const message of delimiterEdgeMessages(mulberry32(2026_11_23), 300)) {
      await expectSameReading(message.name, message.raw);
    }
  }, 120_000);

  it('reads base64 PDFs with odd line lengths, spaces and split padding as mailparser does', async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) % 256))]);
    const b64 = pdf.toString('base64');
    const bodies = [
      b64.replace(/.{61}/g, '$&\r\n'),
      b64.replace(/.{76}/g, '$& \r\n'),
      `${b64.slice(0, -1)}\r\n=`,
      b64.replace(/.{76}/g, '$&\n'),
    ];
    for (const body of bodies) {
      const raw = Buffer.from(
        `From: a@acme.example\r\nSubject: s\r\nContent-Type: application/pdf; name="a.pdf"\r\nContent-Transfer-Encoding: base64\r\n\r\n${body}\r\n`,
      );
      const parsed = await parseMessage(raw);
      expect(parsed.attachments[0]?.content).toEqual(pdf);
      await expectSameReading(JSON.stringify(body.slice(0, 90)), raw);
    }
  });
});
