// A sender's limit holds across listener processes: two `smtp` roles sharing one Redis take,
// together, exactly as many of its letters in the hour as the limit allows, however the sender's
// MTAs spread them and however many arrive at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROCESSING_ADDRESS, testEnv } from '../helpers/gateway.js';
import { type RoleProcess, startRole } from '../helpers/processes.js';
import { connectTestRedis, dropPrefix, randomPrefix } from '../helpers/redis.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';
import { tenantSendersFile } from '../helpers/tenant-senders.js';

const LIMIT = 4;
const prefix = randomPrefix();
const redis = connectTestRedis();
const listeners: RoleProcess[] = [];
const ports: number[] = [];

beforeAll(async () => {
  const env = testEnv(prefix, {
    SENDERS_FILE: tenantSendersFile({ acme: { limits: { messagesPerHour: LIMIT } } }),
    OPS_HTTP_PORT: '0',
    LOG_LEVEL: 'info',
  });
  for (let i = 0; i < 2; i += 1) {
    const listener = await startRole('smtp', env);
    listeners.push(listener);
    const ready = await listener.waitForLog((l) => l.event === 'smtp.listening');
    ports.push(Number(ready.port));
  }
}, 60_000);

afterAll(async () => {
  await Promise.all(listeners.map((l) => l.stop()));
  await dropPrefix(redis, prefix);
  redis.disconnect();
});

const send = async (port: number, raw: Buffer): Promise<string> =>
  (await sendOnce(port, { from: 'letters@acme.example', to: [PROCESSING_ADDRESS], raw })).data?.text ?? '';

describe('a sender limit across two listener processes', () => {
  it(`takes exactly ${LIMIT} letters in the hour between them, and answers the rest 451 4.7.1`, async () => {
    const [a = 0, b = 0] = ports;
    // One letter through each: both count toward the same limit.
    expect(await send(a, await signedLetter({ title: 'Across listeners A' }))).toMatch(/^250 /);
    expect(await send(b, await signedLetter({ title: 'Across listeners B' }))).toMatch(/^250 /);
    // Then eight at once, spread over both: only the limit's remaining two get through.
    const letters = await Promise.all(Array.from({ length: 8 }, (_, n) => signedLetter({ title: `Across listeners ${n}` })));
    const replies = await Promise.all(letters.map((raw, n) => send(n % 2 === 0 ? a : b, raw)));
    expect(replies.filter((r) => r.startsWith('250 '))).toHaveLength(LIMIT - 2);
    const held = replies.filter((r) => r.startsWith('451 4.7.1 '));
    expect(held).toHaveLength(8 - (LIMIT - 2));
    for (const reply of held) expect(reply).toContain(`limit of ${LIMIT} messages per hour (messagesPerHour) is reached`);
    expect(await send(b, await signedLetter({ title: 'Across listeners late' }))).toMatch(/^451 4\.7\.1 /);
  });
});
