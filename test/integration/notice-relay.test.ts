// The notice relay client against a real SMTP server on loopback: the null sender, login from
// the URL's credentials, and the commit gate that runs after the relay accepted the envelope and
// before it has the message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelay, RelayError } from '../../src/notices/relay.js';
import { freePort } from '../../src/runtime/redis.js';
import { startTestRelay, type TestRelay } from '../helpers/notice-relay.js';

const message = Buffer.from('From: postmaster@mx.intake.example\r\nTo: letters@acme.example\r\nSubject: n\r\n\r\n.leading dot\r\nbody\r\n');
let relay: TestRelay;

beforeAll(async () => {
  relay = await startTestRelay({ credentials: { user: 'notices@intake.example', pass: 'p@ss:word' } });
});
afterAll(async () => {
  await relay.close();
});

const url = (user: string, pass: string): string =>
  relay.url.replace('smtp://', `smtp://${encodeURIComponent(user)}:${encodeURIComponent(pass)}@`);

describe('the notice relay client', () => {
  it("logs in with the URL's credentials and sends with MAIL FROM:<>, committing just before the relay has the message", async () => {
    const client = createRelay({ url: url('notices@intake.example', 'p@ss:word'), heloName: 'mx.intake.example', timeoutMs: 5000 });
    const before = relay.received.length;
    let seenAtCommit: string[] = [];
    await client.send('letters@acme.example', message, async () => {
      seenAtCommit = [...relay.events];
    });
    // The relay had accepted the recipient and not yet received the message's end.
    expect(seenAtCommit.at(-1)).toBe('rcpt letters@acme.example');
    expect(relay.events.at(-1)).toBe('data-end');
    expect(relay.received).toHaveLength(before + 1);
    const [sent] = relay.received.slice(-1);
    expect(sent?.mailFrom).toBe('');
    expect(sent?.rcptTo).toEqual(['letters@acme.example']);
    expect(sent?.raw.toString('latin1')).toBe(message.toString('latin1'));
  });

  it('sends nothing when the commit fails, and says it may be tried again', async () => {
    const client = createRelay({ url: url('notices@intake.example', 'p@ss:word'), heloName: 'mx.intake.example', timeoutMs: 5000 });
    const before = relay.received.length;
    const error = await client
      .send('letters@acme.example', message, async () => {
        throw new Error('Redis away');
      })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(RelayError);
    expect(error).toMatchObject({ permanent: false, unconfirmed: false });
    await new Promise((r) => setTimeout(r, 200));
    expect(relay.received).toHaveLength(before);
  });

  it('calls a refused login permanent', async () => {
    const client = createRelay({ url: url('notices@intake.example', 'wrong'), heloName: 'mx.intake.example', timeoutMs: 5000 });
    const error = await client.send('letters@acme.example', message, async () => {}).catch((err: unknown) => err);
    expect(error).toMatchObject({ name: 'RelayError', permanent: true, unconfirmed: false });
    expect(String(error)).toContain('535');
  });

  it('calls an unreachable relay temporary, never unconfirmed', async () => {
    const client = createRelay({ url: `smtp://127.0.0.1:${await freePort()}`, heloName: 'mx.intake.example', timeoutMs: 2000 });
    const error = await client.send('letters@acme.example', message, async () => {}).catch((err: unknown) => err);
    expect(error).toMatchObject({ name: 'RelayError', permanent: false, unconfirmed: false });
  });
});
