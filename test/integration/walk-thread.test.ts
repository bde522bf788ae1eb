// The MIME walk on its own thread, as the listener uses it: the same facts as the walk in this
// thread, and a thread that dies fails the walks in flight (451 for their sessions) and is
// replaced for the next message.
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startMimeWalk, type MimeWalk } from '../../src/smtp/mime-walk.js';
import { WalkThread } from '../../src/smtp/walk-pool.js';
import { fixture } from '../helpers/gateway.js';

const thread = new WalkThread(createLogger({ level: 'silent' }));
afterAll(async () => {
  await thread.close();
});

function feed(walk: MimeWalk, raw: Buffer, chunkBytes = 65536): void {
  const chunks = Array.from({ length: Math.ceil(raw.length / chunkBytes) }, (_, i) => raw.subarray(i * chunkBytes, (i + 1) * chunkBytes));
  Readable.from(chunks).pipe(walk.input);
}

describe('the MIME walk thread', () => {
  it.each(['pdf-with-inline-logo.eml', 'not-a-pdf.eml', 'pdf-rfc2231-filename.eml', 'missing-subject.eml'])('reads %s exactly as the walk in this thread does', async (file) => {
    const here = startMimeWalk();
    const there = thread.startWalk();
    feed(here, fixture(file));
    feed(there, fixture(file), 1000);
    const [local, remote] = await Promise.all([here.result, there.result]);
    expect(remote).toEqual(local);
    expect(remote.kind === 'walked' && remote.parts.every((p) => Buffer.isBuffer(p.firstBytes))).toBe(true);
  });

  it('walks a 3 MB PDF arriving in small chunks, several messages at once', async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(3 * 1024 * 1024, 0x41)]);
    const raw = Buffer.from(`From: a@acme.example\r\nSubject: big\r\nContent-Type: application/pdf; name="big.pdf"\r\nContent-Transfer-Encoding: base64\r\n\r\n${pdf.toString('base64').replace(/.{76}/g, '$&\r\n')}\r\n`);
    const walks = Array.from({ length: 4 }, () => thread.startWalk());
    for (const walk of walks) feed(walk, raw, 16384);
    const results = await Promise.all(walks.map((w) => w.result));
    for (const result of results) {
      expect(result).toEqual({ kind: 'walked', subject: 'big', parts: [{ contentType: 'application/pdf', fileName: 'big.pdf', firstBytes: Buffer.from('%PDF-1.7'), decodedBytes: pdf.length }] });
    }
  });

  it('fails the walks in flight when the thread dies, and starts a new one for the next message', async () => {
    const cut = thread.startWalk();
    cut.input.write(fixture('dkim-pass-aligned.eml').subarray(0, 200));
    await thread.close();
    await expect(cut.result).rejects.toThrow(/exited/);

    const next = thread.startWalk();
    feed(next, fixture('dkim-pass-aligned.eml'));
    await expect(next.result).resolves.toMatchObject({ kind: 'walked', subject: 'Your bill for October 2026' });
  });
});
