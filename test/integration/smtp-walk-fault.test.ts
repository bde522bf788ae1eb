// A fault in reading the message's structure is ours, not the sender's: over real SMTP, a walk
// that fails gets 451 4.3.0 (the sender's MTA tries again) and an error log line, never a 5xx.
import { resolve } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SESSION } from '../../fixtures/catalog.js';
import { loadZoneResolver } from '../../src/auth/zone-resolver.js';
import { loadConfig } from '../../src/config.js';
import { silentObserver } from '../../src/intake/observer.js';
import { createLogger } from '../../src/log.js';
import type { MimeWalk, WalkResult } from '../../src/mime/mime-walk.js';
import { createAuthenticator } from '../../src/smtp/authenticator.js';
import { type Listener, startListener } from '../../src/smtp/server.js';
import { FIXTURE_DIR, fixture, PROCESSING_ADDRESS, testEnv } from '../helpers/gateway.js';
import { UNREAD_BLOB } from '../helpers/raw-stores.js';
import { sendOnce } from '../helpers/smtp-client.js';

let listener: Listener;
const logs: Record<string, unknown>[] = [];
let accepted = 0;

/** A walk that takes the bytes, then fails as a bug in it would. */
function failingWalk(): MimeWalk {
  const input = new PassThrough();
  input.resume();
  const result = new Promise<WalkResult>((_, reject) => input.on('end', () => reject(new TypeError('a bug in the walk'))));
  return { input, result, abort: () => input.destroy() };
}

beforeAll(async () => {
  const config = loadConfig(testEnv('unused'));
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') logs.push(JSON.parse(line));
      done();
    },
  });
  listener = await startListener(
    {
      ...config.smtp,
      inboundAddresses: [PROCESSING_ADDRESS],
      maxMessageBytes: config.maxMessageBytes,
      authTimeoutMs: config.authTimeoutMs,
    },
    {
      authenticate: createAuthenticator(loadZoneResolver(resolve(FIXTURE_DIR, 'zone.json'))),
      accept: async () => {
        accepted += 1;
        return { intakeId: 'in000000000000000000000000', duplicate: false };
      },
      spool: () => ({ write: () => undefined, buffered: 0, finish: async () => UNREAD_BLOB, discard: async () => {} }),
      startWalk: failingWalk,
      rules: { isRegistered: () => true, maxPdfBytes: config.maxPdfBytes },
      refused: async () => {},
      clock: Date.now,
      logger: createLogger({ level: 'info', destination }),
      observer: silentObserver,
    },
  );
});
afterAll(async () => {
  await listener.close();
});

describe('a walk that fails', () => {
  it('gets 451 4.3.0 and an error log line, and the message is not accepted', async () => {
    const replies = await sendOnce(listener.port, {
      from: 'bounce@acme.example',
      to: [PROCESSING_ADDRESS],
      raw: fixture('dkim-pass-aligned.eml'),
      helo: FIXTURE_SESSION.helo,
    });
    expect(replies.data?.text).toMatch(/^451 4\.3\.0 temporarily unable to store the message \(ref \S+\)$/);
    expect(accepted).toBe(0);
    expect(logs.find((l) => l.event === 'smtp.unexpected')).toMatchObject({
      level: 50,
      command: 'DATA',
      err: expect.objectContaining({ message: expect.stringContaining('a bug in the walk') }),
    });
  });

  it('still lets an authentication failure answer first', async () => {
    const replies = await sendOnce(listener.port, {
      from: 'bounce@acme.example',
      to: [PROCESSING_ADDRESS],
      raw: fixture('unsigned.eml'),
      helo: FIXTURE_SESSION.helo,
    });
    expect(replies.data?.text).toMatch(/^550 5\.7\.1 /);
  });
});
